"""Sampled-candidate evaluation: full-catalog metrics estimated from 1 positive + m sampled negatives.

``EvalModel(..., sampled=SampledCandidates(n_items, n_negatives), estimator=...)`` and
``compare(..., sampled=...)`` evaluate each metric as its corrected estimate (column named as
the metric) and its naive sampled value (``-naive``); :func:`simulate` checks the estimators
on full-catalog ranks; :func:`cache_dir` is the folder where the estimator tables are kept
between runs. The derivation is in docs/sampled.md (Krichene & Rendle, KDD 2020).
"""

from .metrics.sampled import (
    DEFAULT_GAMMA,
    ESTIMATORS,
    SUPPORTED,
    SampledCandidates,
    SampledMetric,
    cache_dir,
    estimator_table,
    sampled_columns,
    sampled_rank_pmf,
    simulate,
)

__all__ = ["SampledCandidates", "SampledMetric", "simulate", "sampled_columns", "estimator_table",
           "sampled_rank_pmf", "ESTIMATORS", "SUPPORTED", "DEFAULT_GAMMA", "cache_dir"]
