"""rankeval: correct, fast ranking metrics for recommender systems.

The public API is what ``__all__`` lists; everything else is private.
"""

from . import conventions, io, segments
from .compare import ComparisonResult, compare
from .data import Split
from .evaluation import EvalModel
from .exceptions import (DroppedUnitsWarning, LowOverlapWarning, MissingUsersWarning, RankevalWarning,
                         TiedScoresWarning, UnusedColumnsWarning)
from .metrics import (
    DCG,
    MAP,
    MRR,
    NDCG,
    Correlation,
    DCGAtK,
    HitRateAtK,
    MAPAtK,
    MetricResult,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RankingMetric,
    RecallAtK,
    metric_names,
    parse_metric,
    register_metric,
)
from .ranked import RankedLists

__version__ = "0.1.0"

__all__ = [
    "Split",
    "EvalModel",
    "compare",
    "ComparisonResult",
    "RankedLists",
    "RankingMetric",
    "MetricResult",
    "NDCG",
    "NDCGAtK",
    "DCG",
    "DCGAtK",
    "MAP",
    "MAPAtK",
    "MRR",
    "MRRAtK",
    "PrecisionAtK",
    "RecallAtK",
    "HitRateAtK",
    "Correlation",
    "parse_metric",
    "register_metric",
    "metric_names",
    "segments",
    "conventions",
    "io",
    "RankevalWarning",
    "MissingUsersWarning",
    "TiedScoresWarning",
    "DroppedUnitsWarning",
    "LowOverlapWarning",
    "UnusedColumnsWarning",
    "__version__",
]
