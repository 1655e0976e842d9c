"""rankeval: correct, fast ranking metrics for recommender systems.

The public API is what ``__all__`` lists, gathered from the subpackages' own lists;
everything else is private. The packages, from the top down: ``cli``, ``page`` (the HTML
report), ``evaluation`` (EvalModel, compare), ``views`` (tables and figures), ``stats``,
``engines`` (pandas, Spark), ``metrics``, ``data`` (the data model), ``io``.
"""

from . import conventions, data, evaluation, exceptions, groups, io, metrics, page, rank, sampled, segments, split
from ._version import __version__
from .data import RankedLists, SideData, Split
from .evaluation import ComparisonResult, EvalModel, compare
from .exceptions import (
                         DroppedUnitsWarning,
                         LowOverlapWarning,
                         MissingUsersWarning,
                         ProtocolWarning,
                         RankevalWarning,
                         RanksAsScoresWarning,
                         ShortListsWarning,
                         TiedScoresWarning,
                         UnusedColumnsWarning,
)
from .metrics import (
                         ACLT,
                         AUC,
                         DCG,
                         GAUC,
                         LAUC,
                         MAE,
                         MAP,
                         MRR,
                         MSE,
                         NDCG,
                         RBP,
                         REO,
                         RMSE,
                         RSP,
                         AveragePopularity,
                         BiasDisparity,
                         BPref,
                         CatalogCoverage,
                         Correlation,
                         DCGAtK,
                         DeltaGap,
                         ERRAtK,
                         ExposureGini,
                         FMeasure,
                         FMeasureAtK,
                         GeometricWeight,
                         GiniIndex,
                         HitRateAtK,
                         IntraListDiversity,
                         ItemMAD,
                         LogLoss,
                         LogWeight,
                         MAPAtK,
                         MetricResult,
                         Miscalibration,
                         MRRAtK,
                         NDCGAtK,
                         Novelty,
                         NumRel,
                         NumRelRet,
                         NumRet,
                         PopREO,
                         PopRSP,
                         Precision,
                         PrecisionAtK,
                         RankingMetric,
                         RankWeight,
                         Recall,
                         RecallAtK,
                         RPrecision,
                         Serendipity,
                         ShannonEntropy,
                         Surprisal,
                         TailShare,
                         UndefinedAUCWarning,
                         Unexpectedness,
                         UniformWeight,
                         UserMAD,
                         metric_names,
                         parse_metric,
                         register_metric,
                         unregister_metric,
)
from .page import report
from .sampled import SampledCandidates
from .split import audit

__all__ = [
    "Split", "RankedLists", "SideData",
    "EvalModel", "compare", "ComparisonResult",
    "report",
    "split", "audit",
    "sampled", "SampledCandidates",
    "rank",
    *metrics.__all__,
    "segments", "groups", "conventions", "io",
    *exceptions.__all__,
    "__version__",
]
