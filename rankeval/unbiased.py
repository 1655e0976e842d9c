"""Unbiased offline evaluation: propensity-weighted (IPS, SNIPS) metrics and popularity strata.

``Unbiased(RecallAtK(10), Propensity.popularity(0.5), "snips")`` (or the name ``"R@10-SNIPS"``)
weights each relevant held-out item by the inverse of its propensity, the probability that it
was observed; :func:`stratified` evaluates every metric per popularity stratum of the truth and
combines the strata (Cornac's PropensityStratifiedEvaluation). The formulas, their sources and
when to use which are in docs/unbiased.md.
"""

from .metrics.unbiased import (
    AOA,
    ESTIMATORS,
    FORMS,
    SUPPORTED,
    Propensity,
    PropensityClippedWarning,
    Unbiased,
    UnseenItemsWarning,
    fit_power_law_exponent,
    strata_of,
    stratified,
    with_propensity,
)

__all__ = ["Propensity", "Unbiased", "AOA", "stratified", "strata_of", "with_propensity", "fit_power_law_exponent",
           "PropensityClippedWarning", "UnseenItemsWarning", "ESTIMATORS", "SUPPORTED", "FORMS"]
