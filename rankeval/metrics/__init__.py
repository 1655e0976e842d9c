"""Metrics: the base class and every built-in metric, one subpackage per family.

- ``_base.py``: :class:`RankingMetric` (all the plumbing), ``_parts.py``: the system-value
  hook's exact parts, ``_pooled.py``: macro/micro averaging, ``_registry.py``: names,
  ``_weighting.py``: rank weights (RBP, exposure);
- ``ranking/``: position-aware accuracy and correlation;
- ``sets/``: set metrics and counts;
- ``errors/``: rating-prediction errors;
- ``beyond/``: coverage, popularity, novelty, diversity (need side data);
- ``fairness/``: popularity bias and item-group fairness (need side data).
"""

from ._base import MetricResult, RankingMetric
from ._registry import metric_names, parse_metric, register_metric, unregister_metric
from ._weighting import GeometricWeight, LogWeight, RankWeight, UniformWeight
from .beyond import (
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
