"""Paired tests and effect sizes of two systems' values on the same units.

:func:`rankeval.compare` calls these on every (metric, pair of systems): the paired t test
and the Wilcoxon signed-rank test (SciPy's), Cohen's d_z, and the means and mean
difference, rounded once from their exact value when a float sum would cancel.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
from numpy.typing import ArrayLike

from ..data.internal import ExactSum, exact_mean

__all__ = ["PAIRED_TESTS", "paired_test", "cohen_dz", "mean_difference", "stable_mean"]

#: the tests :func:`paired_test` runs (``"randomization"``: resampled by :func:`resample_tests`)
PAIRED_TESTS = ("paired_t", "wilcoxon", "randomization")


def _well_conditioned(values: np.ndarray, total: float) -> bool:
    """Whether NumPy's float sum of ``values`` (``total``) is finite and lost at most ~20 bits to
    cancellation, so that it is good to ~1e-10 relatively (else the exact sum decides)."""
    return math.isfinite(total) and float(np.abs(values).sum()) <= 2.0 ** 20 * abs(total)


def stable_mean(values: ArrayLike) -> float:
    """The mean ``sum(x) / n``: NumPy's float sum, or the exact sum rounded once when the
    float sum cancels, leaves the float range or meets infinities.

    Parameters
    ----------
    values : array_like
        The values (float64); NaN for none.

    Returns
    -------
    float
        The mean; NaN for no value.
    """
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return float("nan")
    total = float(values.sum())
    return total / len(values) if _well_conditioned(values, total) else exact_mean(values)


def mean_difference(a: ArrayLike, b: ArrayLike, d: ArrayLike | None = None) -> float:
    """The mean paired difference ``mean(b - a)``.

    ``d.mean()`` of the differences, or, when their float sum cancels, leaves the float
    range or meets infinities, ``(sum(b) - sum(a)) / n`` from the exact sums rounded once.

    Parameters
    ----------
    a : array_like
        The first system's values, one per unit.
    b : array_like
        The second system's values on the same units.
    d : array_like, optional
        The differences ``b - a`` when already computed; None computes them.

    Returns
    -------
    float
        The mean difference; NaN for no unit.
    """
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    diffs = vb - va if d is None else np.asarray(d, dtype=np.float64)
    if not len(va):
        return float("nan")
    total = float(diffs.sum())
    if _well_conditioned(diffs, total):
        return total / len(diffs)
    exact_sum = ExactSum.of(np.concatenate([vb, -va]))
    if exact_sum.pos_inf or exact_sum.neg_inf:
        both = exact_sum.pos_inf and exact_sum.neg_inf
        return float("nan") if both else (math.inf if exact_sum.pos_inf else -math.inf)
    exact = exact_sum.total() / len(va)
    return float(exact) if abs(exact) <= sys.float_info.max else math.copysign(math.inf, exact)


def cohen_dz(d: ArrayLike) -> float:
    """Cohen's d_z of paired differences: ``mean(d) / sd(d)`` (``sd`` with ``ddof=1``).

    Parameters
    ----------
    d : array_like
        The paired differences ``b - a``.

    Returns
    -------
    float
        0 when every difference is 0; +-inf when they are all equal and not 0; NaN for fewer
        than 2 differences. Differences whose squares under- or overflow are scaled first
        (by a power of two, which leaves d_z unchanged).
    """
    d = np.asarray(d, dtype=np.float64)
    if len(d) < 2:
        return float("nan")
    if not np.any(d):
        return 0.0  # no difference at all: no effect
    sd = d.std(ddof=1)
    mean = d.mean()
    if (sd == 0 or not math.isfinite(sd)) and np.isfinite(d).all():
        # the squares under- or overflowed (tiny or huge differences): d_z is the same for d
        # scaled by a power of two, exactly, to a largest value near 1
        scaled = d * math.ldexp(1.0, -math.frexp(float(np.abs(d).max()))[1])
        sd, mean = scaled.std(ddof=1), scaled.mean()
    if sd == 0:
        return float("nan") if mean == 0 else float(np.sign(mean) * np.inf)
    return float(mean / sd)


def paired_test(a: ArrayLike, b: ArrayLike, test: str = "paired_t", d: ArrayLike | None = None
                ) -> tuple[float, float]:
    """The statistic and two-sided p-value of a paired test of ``b`` against ``a``.

    ``"paired_t"`` is ``scipy.stats.ttest_rel(b, a)``; ``"wilcoxon"`` is
    ``scipy.stats.wilcoxon(b, a)`` (signed rank, W = min(R+, R-)); ``"randomization"``
    returns the mean difference and a NaN p-value (its p-value is resampled, see
    :func:`resample_tests`).

    Parameters
    ----------
    a : array_like
        The first system's values, one per unit.
    b : array_like
        The second system's values on the same units.
    test : {"paired_t", "wilcoxon", "randomization"}
        The test.
    d : array_like, optional
        The differences ``b - a`` when already computed; None computes them.

    Returns
    -------
    statistic : float
        NaN with fewer than 2 units; 0 when every difference is 0.
    p_value : float
        NaN with fewer than 2 units; 1 when every difference is 0.
    """
    from scipy import stats

    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    diffs = vb - va if d is None else np.asarray(d, dtype=np.float64)
    if test not in PAIRED_TESTS:
        raise ValueError(f"`test` must be one of {list(PAIRED_TESTS)}, got {test!r}")
    if test == "randomization":
        return (float(diffs.mean()) if len(diffs) else float("nan")), float("nan")
    if len(diffs) < 2:
        return float("nan"), float("nan")
    if not np.any(diffs):  # every difference 0: no evidence of any, for every test (scipy < 1.13 raises, t gives NaN)
        return 0.0, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero variance: scipy returns NaN
        warnings.simplefilter("ignore", UserWarning)  # wilcoxon: all differences 0, scipy says p = 1
        if test == "paired_t":
            res = stats.ttest_rel(vb, va)
            return float(res.statistic), float(res.pvalue)
        res = stats.wilcoxon(vb, va)
        return float(res.statistic), float(res.pvalue)
