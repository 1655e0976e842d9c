"""Metrics: the base class :class:`RankingMetric`, every built-in metric, the metric names
(:func:`parse_metric`, :func:`register_metric`) and the rank weights (:class:`RankWeight`).

The families: position-aware accuracy and correlation (NDCG, MAP, MRR, AUC, ...); set
metrics and counts (precision, recall, F-measure, ...); rating-prediction errors (MAE,
RMSE, LogLoss); beyond accuracy: coverage, popularity, novelty, diversity (they need side
data); popularity bias and item-group fairness (they need side data too).
"""

# The modules (private; the API reference shows only the names above):
# - _base.py: RankingMetric (all the plumbing), _parts.py: the system-value hook's exact
#   parts, _pooled.py: macro/micro averaging, _registry.py: names, _weighting.py: rank
#   weights (RBP, exposure);
# - ranking/: position-aware accuracy and correlation; sets/: set metrics and counts;
#   errors/: rating-prediction errors; beyond/: coverage, popularity, novelty, diversity;
#   fairness/: popularity bias and item-group fairness (beyond/ and fairness/ need side data).

from ._base import MetricResult, RankingMetric
from ._registry import metric_names, parse_metric, register_metric, unregister_metric
from ._weighting import GeometricWeight, LogWeight, RankWeight, UniformWeight
from .beyond import (
    LIP,
    RBO,
    AveragePopularity,
    CatalogCoverage,
    DeltaGap,
    ExposureGini,
    GiniIndex,
    IntraListDiversity,
    Miscalibration,
    Novelty,
    Serendipity,
    ShannonEntropy,
    Surprisal,
    TailShare,
    Unexpectedness,
)
from .errors import MAE, MSE, RMSE, LogLoss
from .fairness import ACLT, REO, RSP, BiasDisparity, ItemMAD, PopREO, PopRSP, UserMAD
from .ranking import (
    AUC,
    DCG,
    GAUC,
    LAUC,
    MAP,
    MRR,
    NDCG,
    RBP,
    BPref,
    Correlation,
    DCGAtK,
    ERRAtK,
    HitRateAtK,
    MAPAtK,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
    UndefinedAUCWarning,
)
from .sets import FMeasure, FMeasureAtK, NumRel, NumRelRet, NumRet, Precision, Recall, RPrecision

__all__ = [
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
    "Precision",
    "Recall",
    "FMeasure",
    "FMeasureAtK",
    "RPrecision",
    "MAE",
    "MSE",
    "RMSE",
    "BPref",
    "RBP",
    "ERRAtK",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "CatalogCoverage",
    "GiniIndex",
    "ShannonEntropy",
    "AveragePopularity",
    "TailShare",
    "Novelty",
    "IntraListDiversity",
    "DeltaGap",
    "ACLT",
    "PopREO",
    "PopRSP",
    "REO",
    "RSP",
    "UserMAD",
    "ItemMAD",
    "BiasDisparity",
    "Miscalibration",
    "Serendipity",
    "Unexpectedness",
    "Surprisal",
    "RBO",
    "LIP",
    "AUC",
    "GAUC",
    "LAUC",
    "LogLoss",
    "ExposureGini",
    "RankWeight",
    "GeometricWeight",
    "UniformWeight",
    "LogWeight",
    "UndefinedAUCWarning",
    "parse_metric",
    "register_metric",
    "unregister_metric",
    "metric_names",
]
