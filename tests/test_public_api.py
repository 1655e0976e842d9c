"""The curated namespace: everything in __all__ exists, is documented, and nothing else leaks."""

from __future__ import annotations

import inspect

import rankeval


def test_all_names_exist_and_have_docstrings():
    for name in rankeval.__all__:
        obj = getattr(rankeval, name)
        if name != "__version__":
            assert inspect.getdoc(obj), f"rankeval.{name} has no docstring"


#: the metric classes users' code names today: none may disappear from the face (the
#: bases to subclass, PooledMetric, SideMetric and SystemLevelMetric, joined later)
PUBLIC_METRICS = {"RankingMetric", "NDCG", "NDCGAtK", "DCG", "DCGAtK", "MAP", "MAPAtK", "MRR", "MRRAtK",
                  "PrecisionAtK", "RecallAtK", "HitRateAtK", "Correlation", "Precision", "Recall",
                  "FMeasure", "FMeasureAtK", "RPrecision", "MAE", "MSE", "RMSE", "BPref", "RBP", "ERRAtK",
                  "NumRet", "NumRel", "NumRelRet", "CatalogCoverage", "GiniIndex", "ShannonEntropy",
                  "AveragePopularity", "TailShare", "Novelty", "IntraListDiversity", "DeltaGap",
                  "ACLT", "PopREO", "PopRSP", "REO", "RSP", "UserMAD", "ItemMAD", "BiasDisparity",
                  "Miscalibration", "Serendipity", "Unexpectedness", "Surprisal", "RBO", "LIP",
                  "AUC", "GAUC", "LAUC", "LogLoss", "ExposureGini",
                  "PooledMetric", "SideMetric", "SystemLevelMetric"}


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_public_metric_is_exported():
    exported = {n for n in rankeval.__all__ if inspect.isclass(getattr(rankeval, n))
                and issubclass(getattr(rankeval, n), rankeval.RankingMetric)}
    assert PUBLIC_METRICS <= exported, f"metrics gone from the face: {PUBLIC_METRICS - exported}"
    # every metric the package defines under a public name (a class with a stem: not a family's
    # helper base) is on the face, or on rankeval.sampled's or rankeval.unbiased's: a metric
    # whose export line is missing fails here
    defined = {c for c in _subclasses(rankeval.RankingMetric) if c.__module__.startswith("rankeval.metrics.")
               and not c.__name__.startswith("_") and not inspect.isabstract(c) and hasattr(c, "stem")}
    faces = {id(getattr(m, n)) for m in (rankeval, rankeval.sampled, rankeval.unbiased) for n in m.__all__}
    missing = sorted(c.__name__ for c in defined if id(c) not in faces)
    assert not missing, f"metrics defined but exported nowhere: {missing}"
    # and every metric name builds an exported class
    built = {type(rankeval.parse_metric(f.replace("@k", "@3"))) for f in rankeval.metric_names()}
    assert {c.__name__ for c in built} <= exported | set(rankeval.unbiased.__all__)


def test_warnings_are_user_warnings():
    assert issubclass(rankeval.MissingUsersWarning, rankeval.RankevalWarning)
    assert issubclass(rankeval.RankevalWarning, UserWarning)
