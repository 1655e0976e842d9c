"""Ranking metrics: the base class and every built-in metric."""

from ._average_precision import MAP, MAPAtK
from ._base import MetricResult, RankingMetric
from ._correlation import Correlation
from ._ndcg import DCG, NDCG, DCGAtK, NDCGAtK
from ._precision_recall import HitRateAtK, PrecisionAtK, RecallAtK
from ._reciprocal_rank import MRR, MRRAtK
from ._registry import metric_names, parse_metric, register_metric

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
    "parse_metric",
    "register_metric",
    "metric_names",
]
