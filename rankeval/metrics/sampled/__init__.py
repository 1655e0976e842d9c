"""Sampled-candidate metrics: full-catalog metrics estimated from 1 positive + m sampled negatives.

- ``_design.py``: :class:`SampledCandidates`, the sampling design;
- ``_tables.py``: the estimator tables (naive, rescaled, minimal bias, bias-variance);
- ``_metric.py``: :class:`SampledMetric`, a metric running through every engine unchanged;
- ``_store.py``: the tables on disk between runs;
- ``_simulate.py``: :func:`simulate`, the check on full-catalog ranks.
"""

from ._design import SCHEMES, SampledCandidates
from ._metric import DEFAULT_GAMMA, SUPPORTED, SampledMetric, check_sampled_options, rank_value, sampled_columns
from ._simulate import simulate
from ._store import cache_dir
from ._tables import (
           ESTIMATORS,
           RankValue,
           estimator_table,
           estimator_tables,
           gram_terms,
           sampled_rank_pmf,
           table_progress,
)

__all__ = ["SampledCandidates", "SampledMetric", "simulate", "sampled_columns", "estimator_table",
           "sampled_rank_pmf", "gram_terms", "rank_value", "RankValue", "ESTIMATORS", "SCHEMES", "SUPPORTED",
           "DEFAULT_GAMMA", "estimator_tables", "table_progress", "cache_dir", "check_sampled_options"]
