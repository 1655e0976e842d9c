"""Ranking metrics: the base class and every built-in metric."""

from ._average_precision import MAP, MAPAtK
from ._base import MetricResult, RankingMetric
from ._beyond import (AveragePopularity, CatalogCoverage, DeltaGap, GiniIndex, IntraListDiversity, Novelty,
                      ShannonEntropy, TailShare)
from ._correlation import Correlation
from ._errors import MAE, MSE, RMSE
from ._ir import RBP, BPref, ERRAtK
from ._ndcg import DCG, NDCG, DCGAtK, NDCGAtK
from ._precision_recall import HitRateAtK, PrecisionAtK, RecallAtK
from ._reciprocal_rank import MRR, MRRAtK
from ._sets import FMeasure, FMeasureAtK, NumRel, NumRelRet, NumRet, Precision, Recall, RPrecision
from ._registry import metric_names, parse_metric, register_metric, unregister_metric

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
    "parse_metric",
    "register_metric",
    "unregister_metric",
    "metric_names",
]
