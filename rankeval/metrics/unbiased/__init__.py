"""Unbiased offline evaluation: propensities, IPS/SNIPS metrics, popularity strata (docs/unbiased.md).

- ``_propensity.py``: :class:`Propensity` (given, normalised popularity, Yang's power law),
  clipping;
- ``_metric.py``: :class:`Unbiased`, the IPS or SNIPS form of a metric that sums over
  relevant items, and :class:`AOA`;
- ``_strata.py``: :func:`stratified`, every metric per popularity stratum and their
  stratum-weighted value (Cornac's PropensityStratifiedEvaluation).
"""

from ._metric import AOA, ESTIMATORS, SUPPORTED, Unbiased, with_propensity
from ._propensity import FORMS, Propensity, PropensityClippedWarning, UnseenItemsWarning, fit_power_law_exponent
from ._strata import STRATA_ALL, STRATA_COMBINED, strata_of, stratified

__all__ = ["Propensity", "Unbiased", "AOA", "stratified", "strata_of", "with_propensity", "fit_power_law_exponent",
           "PropensityClippedWarning", "UnseenItemsWarning", "ESTIMATORS", "SUPPORTED", "FORMS", "STRATA_ALL",
           "STRATA_COMBINED"]
