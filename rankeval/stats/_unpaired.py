"""Unpaired tests of a gap between two groups of users: Mann-Whitney U and Welch's t.

Array functions on plain numpy arrays (the values of each group, no NaN); the by-group
tables (:func:`rankeval.groups.group_table`) call them. Both are two-sided and test ``b``
against ``a``, with answers of their own where scipy has none or warns: a group too
small, or every value constant.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = ["UNPAIRED_TESTS", "unpaired_test", "mann_whitney_u", "welch_t_test"]

#: the unpaired tests :func:`unpaired_test` runs
UNPAIRED_TESTS = ("mannwhitneyu", "welch")


def unpaired_test(test: str, a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[float, float]:
    """Two-sided unpaired test of ``b`` vs ``a``.

    Parameters
    ----------
    test : {"mannwhitneyu", "welch"}
        :func:`mann_whitney_u` or :func:`welch_t_test`.
    a : ndarray
        The first sample (no NaN).
    b : ndarray
        The second sample (no NaN); the statistic is of ``b`` against ``a``.

    Returns
    -------
    tuple of float
        (statistic, p-value); NaN when a group has < 2 users (Mann-Whitney: < 1) or, for
        Welch, both groups are constant.
    """
    if test == "mannwhitneyu":
        return mann_whitney_u(a, b)
    return welch_t_test(a, b)


def mann_whitney_u(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[float, float]:
    """The Mann-Whitney U test of ``b`` vs ``a``, two-sided: ``scipy.stats.mannwhitneyu(b, a)``.

    Parameters
    ----------
    a : ndarray
        The first sample (no NaN).
    b : ndarray
        The second sample (no NaN); the statistic is of ``b`` against ``a``.

    Returns
    -------
    tuple of float
        (U of ``b``, p-value); NaN when a group is empty. When every value of both groups
        is the same there is no evidence of a shift: U = ``len(a) * len(b) / 2``, p = 1.
    """
    from scipy import stats

    if len(a) < 1 or len(b) < 1:
        return np.nan, np.nan
    if np.all(a == a[0]) and np.all(b == a[0]):  # every value equal: no evidence of a shift
        return float(len(a) * len(b) / 2), 1.0
    res = stats.mannwhitneyu(b, a, alternative="two-sided")
    return float(res.statistic), float(res.pvalue)


def welch_t_test(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[float, float]:
    """Welch's t test of ``b`` vs ``a``, two-sided: ``scipy.stats.ttest_ind(b, a, equal_var=False)``.

    Parameters
    ----------
    a : ndarray
        The first sample (no NaN).
    b : ndarray
        The second sample (no NaN); the statistic is of ``b`` against ``a``.

    Returns
    -------
    tuple of float
        (t, p-value); NaN when a group has fewer than 2 values. When both groups are
        constant: (0, 1) if they are equal, else (±inf, 0), the sign that of ``b - a``.
    """
    from scipy import stats

    if len(a) < 2 or len(b) < 2:
        return np.nan, np.nan
    if np.all(a == a[0]) and np.all(b == b[0]):
        if a[0] == b[0]:
            return 0.0, 1.0
        return (math.copysign(np.inf, b[0] - a[0]), 0.0)
    res = stats.ttest_ind(b, a, equal_var=False)
    return float(res.statistic), float(res.pvalue)
