"""The curated namespace: everything in __all__ exists, is documented, and nothing else leaks."""

from __future__ import annotations

import inspect

import rankeval


def test_all_names_exist_and_have_docstrings():
    for name in rankeval.__all__:
        obj = getattr(rankeval, name)
        if name != "__version__":
            assert inspect.getdoc(obj), f"rankeval.{name} has no docstring"


def test_every_public_metric_is_exported():
    metrics = {n for n in rankeval.__all__ if inspect.isclass(getattr(rankeval, n))
               and issubclass(getattr(rankeval, n), rankeval.RankingMetric)}
    assert metrics == {"RankingMetric", "NDCG", "NDCGAtK", "DCG", "DCGAtK", "MAP", "MAPAtK", "MRR", "MRRAtK",
                       "PrecisionAtK", "RecallAtK", "HitRateAtK", "Correlation", "Precision", "Recall",
                       "FMeasure", "FMeasureAtK", "RPrecision", "MAE", "MSE", "RMSE", "BPref", "RBP", "ERRAtK",
                       "NumRet", "NumRel", "NumRelRet", "CatalogCoverage", "GiniIndex", "ShannonEntropy",
                       "AveragePopularity", "TailShare", "Novelty", "IntraListDiversity", "DeltaGap",
                       "ACLT", "PopREO", "PopRSP", "REO", "RSP", "UserMAD", "ItemMAD", "BiasDisparity",
                       "Miscalibration", "Serendipity", "Unexpectedness", "Surprisal", "RBO", "LIP",
                       "AUC", "GAUC", "LAUC", "LogLoss", "ExposureGini"}


def test_warnings_are_user_warnings():
    assert issubclass(rankeval.MissingUsersWarning, rankeval.RankevalWarning)
    assert issubclass(rankeval.RankevalWarning, UserWarning)
