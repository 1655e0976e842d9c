r"""Many systems at once: the Friedman, Nemenyi and Tukey HSD tests and the critical-difference groups.

The pairwise tests of :func:`~rankeval.compare` answer "is b better than a?" one pair at
a time. With many systems, Demšar (2006) recommends first asking whether the systems
differ at all (the Friedman test on ranks, or its Iman–Davenport F form) and then
which pairs differ (the Nemenyi post-hoc test, drawn as a critical-difference
diagram). The methods of :class:`~rankeval.ComparisonResult` (``friedman()``,
``mean_ranks()``, ``nemenyi()``, ``tukey_hsd()``, ``plot_critical_difference()``) call
the tables of :mod:`rankeval.views`, which call the array functions here on the
comparison's per-unit values; no system is evaluated again.

The units play the role of Demšar's data
sets (the blocks): within each unit the :math:`k` systems are ranked, rank 1 = best
(the highest value, or the lowest for a metric with ``higher_is_better = False``), tied
values sharing their average rank.

The array functions (:func:`average_ranks`, :func:`friedman`, :func:`nemenyi`,
:func:`tukey_hsd`, :func:`cd_groups`) take a ``(n units, k systems)`` array with no NaN
and do whole-array numpy work: no Python loop over units (``scipy.stats.rankdata(...,
axis=1)`` loops over rows in scipy < 1.13; :func:`average_ranks` gives its numbers in a
few sorts).

References
----------
J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7, 2006.
R. L. Iman, J. M. Davenport, "Approximations of the critical region of the Friedman
statistic", Communications in Statistics 9(6), 1980.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..data.internal import check_number

__all__ = ["average_ranks", "friedman", "nemenyi", "tukey_hsd", "cd_groups", "check_alpha", "FriedmanResult",
           "NemenyiResult", "TukeyResult"]


# ---------------------------------------------------------------------------- array functions
def _rank_rows(values: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
    """Average ranks within each row (ascending, rank 1 = smallest) and Σ t(t² − 1) over all tie groups."""
    n, k = values.shape
    if n == 0 or k == 0:
        return np.zeros((n, k)), 0.0
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1).ravel()
    starts = np.ones(n * k, dtype=bool)  # a new tie group starts here (and every row starts one)
    starts[1:] = ordered[1:] != ordered[:-1]
    starts[::k] = True
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    size = np.diff(np.append(first, n * k))
    # the group of positions p .. p + t - 1 (0-based, within its row) shares rank p + (t + 1) / 2
    rank = (first % k) + (size + 1) / 2.0
    ranks = np.empty((n, k))
    np.put_along_axis(ranks, order, rank[group].reshape(n, k), axis=1)
    return ranks, float(np.sum(size * (size * size - 1), dtype=np.float64))


def average_ranks(values: NDArray[np.float64], higher_is_better: bool = True) -> NDArray[np.float64]:
    r"""Rank the systems within each unit: rank 1 = best, ties share their average rank.

    Parameters
    ----------
    values : array of shape (n, k)
        One row per unit, one column per system; no NaN.
    higher_is_better : bool
        Rank the highest value 1 (default), or the lowest.

    Returns
    -------
    array of shape (n, k)
        Equal to ``scipy.stats.rankdata(-values, axis=1)`` (``rankdata(values, axis=1)``
        when lower is better), computed with whole-array sorts.

    Examples
    --------
    >>> average_ranks(np.array([[0.5, 0.9, 0.5], [0.1, 0.2, 0.3]]))
    array([[2.5, 1. , 2.5],
           [3. , 2. , 1. ]])
    """
    x = np.asarray(values, dtype=np.float64)
    return _rank_rows(-x if higher_is_better else x)[0]


class FriedmanResult(NamedTuple):
    """The Friedman test of one metric (see :func:`friedman`)."""

    statistic: float
    p_value: float
    iman_davenport_F: float
    iman_davenport_p: float
    n: int
    k: int


def friedman(values: NDArray[np.float64], *, ranks: NDArray[np.float64] | None = None,
             ties: float | None = None) -> FriedmanResult:
    r"""Friedman's test that the :math:`k` systems (columns) rank alike over :math:`n` units (rows).

    With :math:`R_j` the sum of system :math:`j`'s ranks over the units and :math:`t` the
    size of every group of tied values within a unit,

    .. math::

        \chi^2_F = \frac{\frac{12}{nk(k+1)} \sum_j R_j^2 - 3n(k+1)}
                        {1 - \frac{\sum t (t^2 - 1)}{n k (k^2 - 1)}},
        \qquad p = P\left(\chi^2_{k-1} \ge \chi^2_F\right),

    exactly as ``scipy.stats.friedmanchisquare`` (with its tie correction). Iman and
    Davenport's less conservative form, which Demšar (2006) recommends,

    .. math::

        F_F = \frac{(n - 1)\,\chi^2_F}{n(k - 1) - \chi^2_F},
        \qquad p = P\left(F_{k-1,\,(k-1)(n-1)} \ge F_F\right).

    Parameters
    ----------
    values : array of shape (n, k)
        One row per unit, one column per system; no NaN.
    ranks : array of shape (n, k), optional
        Ranks of ``values`` within rows, when already computed (the direction of the ranks
        does not change the statistic); None: computed here.
    ties : float, optional
        The tie term :math:`\sum t(t^2-1)` over the rows' groups of equal values, given
        with ``ranks``; None: computed here.

    Returns
    -------
    FriedmanResult
        ``statistic``, ``p_value``, ``iman_davenport_F``, ``iman_davenport_p``, ``n``, ``k``.

    Notes
    -----
    Undefined cases: fewer than 3 systems (scipy requires 3) or fewer than 2 units give
    NaN for all four numbers. When every unit ties all its systems (the denominator is 0,
    where scipy returns NaN), nothing differs: statistic 0 and p = 1. When every unit
    ranks the systems identically without ties, :math:`F_F` is infinite and its p = 0.

    Examples
    --------
    >>> res = friedman(np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [1.0, 2.0, 3.0], [2.0, 1.0, 3.0]]))
    >>> print(f"{res.statistic:.4f} {res.p_value:.4f} {res.iman_davenport_F:.4f}")
    4.5000 0.1054 3.8571
    """
    from scipy import special

    x = np.asarray(values, dtype=np.float64)
    n, k = (int(s) for s in x.shape)
    if k < 3 or n < 2:
        return FriedmanResult(math.nan, math.nan, math.nan, math.nan, n, k)
    if ranks is None or ties is None:
        ranks, ties = _rank_rows(x)
    c = 1 - ties / (k * (k * k - 1) * n)
    if c <= 0:  # every unit ties all its systems
        return FriedmanResult(0.0, 1.0, 0.0, 1.0, n, k)
    ssbn = np.sum(np.sum(ranks, axis=0) ** 2)  # rank sums are exact half-integers: no rounding
    statistic = float((12.0 / (k * n * (k + 1)) * ssbn - 3 * n * (k + 1)) / c)
    p_value = float(special.chdtrc(k - 1, statistic))
    room = n * (k - 1) - statistic
    if room <= 0:  # the largest possible chi-square: every unit ranks the systems alike
        f_stat, f_p = math.inf, 0.0
    else:
        f_stat = (n - 1) * statistic / room
        f_p = float(special.fdtrc(k - 1, (k - 1) * (n - 1), max(f_stat, 0.0)))
    return FriedmanResult(statistic, p_value, float(f_stat), f_p, n, k)


class NemenyiResult(NamedTuple):
    """The Nemenyi test of one metric (see :func:`nemenyi`)."""

    critical_difference: float
    p_value: NDArray[np.float64]  # (k, k), symmetric, 1 on the diagonal


def _studentized_range(method: str, x: Any, k: int, df: float) -> Any:
    """``scipy.stats.studentized_range.<method>(x, k, df)``, without scipy < 1.12's NumPy 1.25
    deprecation notice about its own scalar conversion (one per value)."""
    from scipy import stats

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Conversion of an array with ndim > 0 to a scalar", DeprecationWarning)
        return getattr(stats.studentized_range, method)(x, k, df)


def _q_alpha(alpha: float, k: int) -> float:
    return float(_studentized_range("ppf", 1 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi(mean_ranks: NDArray[np.float64], n: int, alpha: float = 0.05) -> NemenyiResult:
    r"""Nemenyi's all-pairs test on the mean ranks of :math:`k` systems over :math:`n` units.

    Two systems differ when their mean ranks differ by at least the critical difference

    .. math::

        CD = q_\alpha \sqrt{\frac{k(k+1)}{6n}}, \qquad
        q_\alpha = \frac{Q^{-1}_{k,\infty}(1 - \alpha)}{\sqrt 2},

    with :math:`Q_{k,\infty}` the studentized range distribution of :math:`k` means
    and infinite degrees of freedom (``scipy.stats.studentized_range``); Demšar's
    Table 5 (:math:`q_{0.05} = 2.569` for :math:`k = 4`). The p-value of a pair is

    .. math::

        p = P\left(Q_{k,\infty} \ge \frac{|\bar r_a - \bar r_b|\sqrt 2}{\sqrt{k(k+1)/(6n)}}\right),

    as scikit-posthocs' ``posthoc_nemenyi_friedman``: ``p < alpha`` exactly when
    :math:`|\bar r_a - \bar r_b| > CD`.

    Parameters
    ----------
    mean_ranks : array of shape (k,)
        Each system's mean rank over the units.
    n : int
        Number of units.
    alpha : float
        Significance level of the critical difference.

    Returns
    -------
    NemenyiResult
        ``critical_difference`` and the (k, k) matrix of p-values.

    Notes
    -----
    Undefined cases: fewer than 3 systems or 2 units give NaN (Demšar's procedure
    follows a Friedman test, which needs both).

    Examples
    --------
    Demšar's example: :math:`k = 4` classifiers over :math:`n = 14` data sets.

    >>> res = nemenyi(np.array([3.143, 2.000, 2.893, 1.964]), n=14, alpha=0.05)
    >>> print(f"{res.critical_difference:.3f}")
    1.254
    """
    r = np.asarray(mean_ranks, dtype=np.float64)
    k = len(r)
    if k < 3 or n < 2:
        return NemenyiResult(math.nan, np.full((k, k), np.nan))
    se = np.sqrt(k * (k + 1.0) / (6.0 * n))
    rows, cols = np.triu_indices(k, 1)
    q = np.abs(r[rows] - r[cols]) / se
    p = np.ones((k, k))
    p[rows, cols] = p[cols, rows] = _studentized_range("sf", q * np.sqrt(2.0), k, np.inf)
    return NemenyiResult(float(_q_alpha(alpha, k) * se), p)


class TukeyResult(NamedTuple):
    """Tukey's HSD test of one metric (see :func:`tukey_hsd`); matrices indexed [i, j] as scipy's."""

    statistic: NDArray[np.float64]  # mean_i - mean_j
    p_value: NDArray[np.float64]
    ci_low: NDArray[np.float64]
    ci_high: NDArray[np.float64]


def tukey_hsd(values: NDArray[np.float64], alpha: float = 0.05) -> TukeyResult:
    r"""Tukey's honestly significant difference test between the columns of ``values``.

    The one-way ANOVA post-hoc test (what ranx offers), unpaired: it treats the
    :math:`k` systems' values as :math:`k` independent groups of :math:`n` values and
    ignores that they come from the same units. With :math:`\bar x_i` the means,
    :math:`s_i^2` the variances (ddof = 1) and :math:`N = kn`,

    .. math::

        MSE = \frac{\sum_i (n - 1) s_i^2}{N - k}, \qquad
        SE = \sqrt{MSE / n}, \qquad
        p_{ij} = P\left(Q_{k,\,N-k} \ge \frac{|\bar x_i - \bar x_j|}{SE}\right),

    and the simultaneous interval of :math:`\bar x_i - \bar x_j` with confidence
    :math:`1 - \alpha` is :math:`\bar x_i - \bar x_j \pm Q^{-1}_{k,\,N-k}(1 - \alpha)\,SE`,
    exactly as ``scipy.stats.tukey_hsd(*values.T)`` and its ``confidence_interval(1 - alpha)``.

    Parameters
    ----------
    values : array of shape (n, k)
        One row per unit, one column per system; finite.
    alpha : float
        One minus the confidence of the intervals.

    Returns
    -------
    TukeyResult
        (k, k) matrices ``statistic`` (:math:`\bar x_i - \bar x_j`, scipy's sign),
        ``p_value``, ``ci_low`` and ``ci_high``.

    Notes
    -----
    Undefined cases: fewer than 2 units (scipy requires 2 per group) or a non-finite
    value give NaN. When every group is constant (MSE = 0, where scipy divides by 0),
    equal means have p = 1, different means p = 0, and every interval is a point.

    Examples
    --------
    >>> x = np.array([[24.5, 28.4, 26.1], [23.5, 34.2, 28.3], [26.4, 29.5, 24.3],
    ...               [27.1, 32.2, 26.2], [29.9, 30.1, 27.8]])
    >>> res = tukey_hsd(x)
    >>> print(f"{res.statistic[1, 0]:.2f} [{res.ci_low[1, 0]:.4f}, {res.ci_high[1, 0]:.4f}]")
    4.60 [0.9508, 8.2492]
    """
    x = np.asarray(values, dtype=np.float64)
    n, k = x.shape
    if n < 2 or k < 2 or not np.isfinite(x).all():
        nan = np.full((k, k), np.nan)
        return TukeyResult(nan, nan.copy(), nan.copy(), nan.copy())
    groups = np.ascontiguousarray(x.T)  # one row per system, reduced as scipy reduces each 1-D sample
    means = groups.mean(axis=1)
    variances = groups.var(axis=1, ddof=1)
    sizes = np.full(k, n)
    nobs = np.sum(sizes)
    mse = np.sum(variances * (sizes - 1)) / (nobs - k)
    stand_err = np.sqrt(2 / sizes[0] * mse / 2)
    difference = means[None].T - means
    rows, cols = np.triu_indices(k, 1)
    p = np.ones((k, k))
    if stand_err > 0:
        p[rows, cols] = _studentized_range("sf", np.abs(difference[rows, cols]) / stand_err, k, nobs - k)
    else:  # constant groups: a difference is certain, no difference is none
        p[rows, cols] = np.where(difference[rows, cols] == 0, 1.0, 0.0)
    p[cols, rows] = p[rows, cols]
    radius = _studentized_range("ppf", 1 - alpha, k, nobs - k) * stand_err
    return TukeyResult(difference, p, difference - radius, difference + radius)


def cd_groups(mean_ranks: NDArray[np.float64], significant: NDArray[np.bool_]) -> list[tuple[int, ...]]:
    """The bars of a critical-difference diagram: maximal runs of systems, in rank order,
    in which no pair differs significantly.

    Parameters
    ----------
    mean_ranks : array of shape (k,)
        Mean ranks.
    significant : bool array of shape (k, k)
        Which pairs differ (symmetric).

    Returns
    -------
    list of tuple of int
        Each group's system indices, best first; groups of one system are left out (a
        system no other joins gets no bar), and no group lies inside another.

    Examples
    --------
    >>> sig = np.zeros((4, 4), dtype=bool)
    >>> sig[0, 3] = sig[3, 0] = True
    >>> cd_groups(np.array([1.2, 2.0, 2.9, 3.9]), sig)
    [(0, 1, 2), (1, 2, 3)]
    """
    r = np.asarray(mean_ranks, dtype=np.float64)
    order = np.argsort(r, kind="stable")
    sig = np.asarray(significant, dtype=bool)[np.ix_(order, order)]
    k = len(r)
    groups: list[tuple[int, ...]] = []
    reach = -1
    for i in range(k):  # k systems, not units: a short loop
        # the furthest system (in rank order) no system from i onwards differs from
        j = i
        while j + 1 < k and not sig[i:j + 2, i:j + 2].any():
            j += 1
        if j > i and j > reach:
            groups.append(tuple(int(s) for s in order[i:j + 1]))
            reach = j
    return groups


def check_alpha(alpha: Any, default: float) -> float:
    """``alpha`` of a post-hoc method: None = the result's, else a number in (0, 1).

    Parameters
    ----------
    alpha : float or None
        The level the caller passed.
    default : float
        The result's level, used for None.
    """
    if alpha is None:
        return float(default)
    return check_number("alpha", alpha, why=" or None (the result's alpha)")
