"""Sampled-candidate metrics: full-catalog metrics estimated from 1 positive + m sampled negatives.

- ``_design.py``: :class:`SampledCandidates`, the sampling design;
- ``_tables.py``: the estimator tables (naive, rescaled, minimal bias, bias-variance);
- ``_metric.py``: :class:`SampledMetric`, a metric running through every engine unchanged;
- ``_simulate.py``: :func:`simulate`, the check on full-catalog ranks.
"""

from ._design import SCHEMES, SampledCandidates
from ._metric import DEFAULT_GAMMA, SUPPORTED, SampledMetric, rank_value, sampled_columns
from ._simulate import simulate
from ._tables import ESTIMATORS, RankValue, estimator_table, gram_terms, sampled_rank_pmf

__all__ = ["SampledCandidates", "SampledMetric", "simulate", "sampled_columns", "estimator_table",
           "sampled_rank_pmf", "gram_terms", "rank_value", "RankValue", "ESTIMATORS", "SCHEMES", "SUPPORTED",
           "DEFAULT_GAMMA"]
