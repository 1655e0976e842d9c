"""Statistics for compare(): the resampling engine and multiple-testing corrections.

Paired t and Wilcoxon tests come straight from :mod:`scipy.stats`. The two resampling
procedures (the sign-flip randomization test and the bootstrap CI of the mean
difference) follow ``scipy.stats.permutation_test(permutation_type="samples")`` and
``scipy.stats.bootstrap(method="BCa")`` formula for formula, but draw their resamples
once per call and apply them to every (metric, pair) test as one matrix product:
scipy resamples each test on its own, which at 100k users and 10,000 resamples takes
about 20 s per 1,000 resamples and test (measured), i.e. hours for a 10-system table.

The bootstrap is the ordinary (multinomial) one: a test's ``n`` paired units are drawn
``n`` times with replacement, exact at every ``n``; its intervals are scipy's BCa,
percentile and basic intervals. Reproducibility does not depend on the systems or
metrics compared or on the rows' order: a test's bootstrap draws depend only on the
seed and its number of paired units (taken in (split, user id) order), and the random
signs of the randomization test depend only on the seed, the split and the unit's place
among that split's users, drawn in fixed-size batches.

:func:`bootstrap_mean_ci` (the bands of the report's metric@k curves) is the unpaired
percentile bootstrap of column means, units drawn within groups (splits). It draws its
counts with the same multinomial helper but keeps its own stream (one generator seeded
with ``seed``, batches sized by memory) and a plain matrix product, so its numbers for a
given seed are those it has always given.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from ..data.internal import check_choice, check_integer, check_number

__all__ = ["ResamplingPlan", "resample_tests", "bootstrap_means", "bootstrap_mean_ci", "adjust_pvalues",
           "min_resamples", "CI_METHODS"]

#: bootstrap intervals, as ``scipy.stats.bootstrap(method=...)``
CI_METHODS = ("bca", "percentile", "basic")

#: resamples drawn per batch: fixed, so that the random stream never depends on the data size
BATCH = 128
#: matrix products always take this many columns (zero-padded): BLAS rounds a column the
#: same way whatever its neighbours then, so a test's numbers do not depend on the others
WIDTH = 16


_SIGNS = np.array([1.0, -1.0])


@dataclass(frozen=True)
class ResamplingPlan:
    """Where each split's units sit in the resampled universe, and the seed.

    ``sizes[s]`` is the number of truth users of split ``s`` (its universe); every
    tested unit of split ``s`` is one of them, at a fixed place.

    Parameters
    ----------
    sizes : tuple of int
        The number of truth users of each split.
    seed : int
        The seed of every draw.
    n_resamples : int
        The number of resamples (sign flips, bootstrap draws).
    """

    sizes: tuple[int, ...]
    seed: int
    n_resamples: int

    @property
    def n_units(self) -> int:
        return int(sum(self.sizes))

    def _generators(self, purpose: int) -> list[np.random.Generator]:
        return [np.random.default_rng(np.random.SeedSequence([self.seed, s, purpose]))
                for s in range(len(self.sizes))]

    def sign_batches(self):
        """(batch, n_units) arrays of random +1 / -1 signs, BATCH rows at a time."""
        gens = self._generators(0)
        done = 0
        while done < self.n_resamples:
            rows = min(BATCH, self.n_resamples - done)
            blocks = []
            for gen, size in zip(gens, self.sizes):
                raw = gen.integers(0, 256, size=(BATCH, (size + 7) // 8), dtype=np.uint8)
                bits = np.unpackbits(raw, axis=1, count=size)[:rows]
                blocks.append(_SIGNS[bits])
            yield np.concatenate(blocks, axis=1)
            done += rows


@dataclass(frozen=True)
class Resampled:
    """Per test: randomization p-value, bootstrap CI of the mean difference."""

    p_value: NDArray[np.float64]
    ci_low: NDArray[np.float64]
    ci_high: NDArray[np.float64]


def _fixed_width_product(rows: NDArray[np.float64], columns: NDArray[np.float64]) -> NDArray[np.float64]:
    """``rows @ columns``, computed in zero-padded blocks of exactly WIDTH columns."""
    n_cols = columns.shape[1]
    out = np.empty((rows.shape[0], n_cols))
    block = np.zeros((columns.shape[0], WIDTH))
    for start in range(0, n_cols, WIDTH):
        stop = min(start + WIDTH, n_cols)
        block[:, :stop - start] = columns[:, start:stop]
        block[:, stop - start:] = 0.0
        out[:, start:stop] = (rows @ block)[:, :stop - start]
    return out


#: sign vectors per block of the exact randomization test: a block of 26 units is 13.6 MB
_EXACT_BLOCK = 1 << 16


def _exact_p_two_sided(d: NDArray[np.float64], observed: float) -> float:
    """The exact randomization p-value over all 2**n sign vectors, in blocks of bounded memory.

    Sign vector ``code`` flips unit ``i`` when bit ``i`` of ``code`` is set; each block holds
    ``_EXACT_BLOCK`` of them, so memory stays the same for any n while the counts add up to
    :func:`_p_two_sided`'s over the whole null distribution.
    """
    n = len(d)
    total = 2 ** n
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    bit = np.arange(n, dtype=np.int64)[None, :]
    less = greater = 0
    for start in range(0, total, _EXACT_BLOCK):
        codes = np.arange(start, min(start + _EXACT_BLOCK, total), dtype=np.int64)[:, None]
        null = ((1.0 - 2.0 * ((codes >> bit) & 1)) @ d) / n
        less += int(np.count_nonzero(null <= observed + gamma))
        greater += int(np.count_nonzero(null >= observed - gamma))
    return float(np.clip(min(less, greater) / total * 2, 0.0, 1.0))


def _p_two_sided(null: NDArray[np.float64], observed: NDArray[np.float64], adjustment: int
                 ) -> NDArray[np.float64]:
    """scipy.stats.permutation_test's two-sided p-value, test by test (columns of ``null``)."""
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
    less = (np.count_nonzero(null <= observed + gamma, axis=0) + adjustment) / (null.shape[0] + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma, axis=0) + adjustment) / (null.shape[0] + adjustment)
    return np.clip(np.minimum(less, greater) * 2, 0.0, 1.0)


def _bca(boot: NDArray[np.float64], observed: NDArray[np.float64], diffs: Sequence[NDArray[np.float64]],
         alpha: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """scipy.stats.bootstrap's BCa interval of a mean, from its bootstrap distribution."""
    n_tests = boot.shape[1]
    low = np.full(n_tests, np.nan)
    high = np.full(n_tests, np.nan)
    half = alpha / 2
    for t in range(n_tests):
        d = diffs[t]
        b = boot[:, t]
        if len(d) == 0:
            continue
        if np.all(d == d[0]):
            low[t] = high[t] = d[0]  # a degenerate distribution: the interval is the point
            continue
        # a resampled mean equal to the observed one in exact arithmetic may differ from it in
        # the last bits (another summation order): compare with the tolerance that
        # scipy.stats.permutation_test uses for the same reason
        gamma = abs(np.finfo(np.float64).eps * 100 * observed[t])
        pct = (np.count_nonzero(b < observed[t] - gamma) + np.count_nonzero(b <= observed[t] + gamma)) / (2 * len(b))
        z0 = special.ndtri(pct)
        # jackknife of the mean in closed form: theta_i = (sum - d_i) / (n - 1)
        n = len(d)
        theta_i = (d.sum() - d) / (n - 1)
        u = theta_i.mean() - theta_i
        # the acceleration sum(u^3) / (6 sum(u^2)^1.5) does not change when u is scaled:
        # scaled to at most 1, huge per-user values cannot overflow the powers
        u = u / np.max(np.abs(u))
        a_hat = np.sum(u ** 3) / (6 * np.sum(u ** 2) ** 1.5)
        z_alpha = special.ndtri(half)
        num1, num2 = z0 + z_alpha, z0 - z_alpha
        a1 = special.ndtr(z0 + num1 / (1 - a_hat * num1))
        a2 = special.ndtr(z0 + num2 / (1 - a_hat * num2))
        if np.isnan(a1) or np.isnan(a2):
            continue
        low[t], high[t] = np.quantile(b, [a1, a2])  # linear interpolation, as scipy.stats.bootstrap
    return low, high


def min_resamples(alpha: float) -> int:
    """Fewest resamples for a test at level ``alpha``: ``ceil(2 / alpha)``.

    With fewer, no two-sided randomization p-value ((0 + 1) / (B + 1), doubled) can fall
    below ``alpha``, and the tails of a ``1 - alpha`` bootstrap interval hold no resample.

    Parameters
    ----------
    alpha : float
        The significance level, in (0, 1).
    """
    return int(np.ceil(2.0 / alpha - 1e-9))


#: fewer units than this: one bincount of the draws offset by row beats a bincount per row,
#: whose call overhead then outweighs the counting (measured, 128 resamples a batch: about 4x
#: faster at 128 units, slower past a few hundred); both give the same counts
_OFFSET_BINCOUNT_BELOW = 256


def _multinomial_counts(gen: np.random.Generator, n: int, rows: int,
                        out: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """(rows, n) draw counts of ``rows`` ordinary bootstrap resamples of ``n`` units: each
    row draws ``n`` units uniformly with replacement (a multinomial(n, 1/n) count vector)."""
    draws = gen.integers(0, n, size=(rows, n), dtype=np.int64)
    counts = np.empty((rows, n)) if out is None else out[:rows]
    if n < _OFFSET_BINCOUNT_BELOW:
        offset = draws + n * np.arange(rows, dtype=np.int64)[:, None]
        counts[:] = np.bincount(offset.ravel(), minlength=rows * n).reshape(rows, n)
        return counts
    for row in range(rows):  # row by row: from a few hundred units on, faster than one bincount of offset draws
        counts[row] = np.bincount(draws[row], minlength=n)
    return counts


def bootstrap_means(plan: ResamplingPlan, values: NDArray[np.float64], a_cols: NDArray[np.int64],
                    b_cols: NDArray[np.int64], bar: Any = None) -> NDArray[np.float64]:
    """(n_resamples, n_tests) bootstrap means of ``values[:, b] - values[:, a]``.

    ``values`` holds the paired units of the tests (rows, in unit order). The draws
    depend only on the seed and the number of units, so a test's distribution does not
    change when other systems or metrics are compared alongside it.

    Parameters
    ----------
    plan : ResamplingPlan
        The seed and the number of resamples.
    values : (n_units, n_columns) array
        The paired units' values, one column per (metric, system).
    a_cols : int array
        Per test, the column of system a.
    b_cols : int array
        Per test, the column of system b.
    bar : tqdm bar, optional
        Advanced by the resamples drawn.
    """
    n = values.shape[0]
    gen = np.random.default_rng(np.random.SeedSequence([plan.seed, 1, n]))
    out = np.empty((plan.n_resamples, len(a_cols)))
    counts = np.empty((BATCH, n))
    for start in range(0, plan.n_resamples, BATCH):
        rows = min(BATCH, plan.n_resamples - start)
        summed = _fixed_width_product(_multinomial_counts(gen, n, rows, counts), values)
        out[start:start + rows] = (summed[:, b_cols] - summed[:, a_cols]) / n
        if bar is not None:
            bar.update(rows)
    return out


#: bootstrap draws of :func:`bootstrap_mean_ci` held in memory at once (resamples x units)
_BATCH_CELLS = 4_000_000


def bootstrap_mean_ci(values: NDArray[np.float64], groups: NDArray[np.int64] | None = None, *,
                      n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
                      statistic: Literal["pooled", "group_mean"] = "pooled"
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile-bootstrap interval of the mean of every column, NaN values left out.

    Units (rows) are drawn with replacement within each group (split), as many as the
    group holds, ``n_resamples`` times; every column is resampled with the same draws. The
    draws are made as whole arrays (one matrix product per batch of resamples), never
    with a loop over units.

    Parameters
    ----------
    values : ndarray of shape (n_units, n_columns)
        Per-unit values; NaN = undefined (left out of the mean, as ``np.nanmean``).
    groups : ndarray of int of shape (n_units,), optional
        The group (split) of every unit, ``0 .. n_groups - 1``; default one group.
    n_resamples : int
        Bootstrap resamples (at least 10).
    confidence : float
        Confidence of the interval, in (0, 1).
    seed : int
        Seed of the draws: the same inputs and seed give the same interval.
    statistic : {"pooled", "group_mean"}
        The mean over every unit (:meth:`ComparisonResult.system_means`), or the mean
        of the groups' means (the ``mean`` row of :class:`~rankeval.EvalModel`).

    Returns
    -------
    low : ndarray of shape (n_columns,)
        The ``(1 - confidence) / 2`` quantile of the resampled means; NaN for a column
        without any value.
    high : ndarray of shape (n_columns,)
        The ``(1 + confidence) / 2`` quantile of the resampled means; NaN likewise.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = bootstrap_mean_ci(np.arange(100.0)[:, None], seed=0)
    >>> bool(low[0] < 49.5 < high[0])
    True
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"`values` must be 2-dimensional (units x columns), got shape {x.shape}")
    n = x.shape[0]
    codes = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    if codes.shape != (n,):
        raise ValueError(f"`groups` must hold one group per unit ({n}), got shape {codes.shape}")
    n_resamples = check_integer("n_resamples", n_resamples, 10)
    check_number("confidence", confidence)
    check_choice("statistic", statistic, ["pooled", "group_mean"])
    n_cols = x.shape[1]
    if n == 0 or n_cols == 0:
        return np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    order = np.argsort(codes, kind="stable")
    means = _grouped_bootstrap_means(x[order], codes[order], n_resamples, np.random.default_rng(seed), statistic)
    tail = (1 - confidence) / 2
    low = np.full(n_cols, np.nan)
    high = np.full(n_cols, np.nan)
    ok = ~np.isnan(means).all(axis=0)
    if ok.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # columns whose mean is sometimes undefined
            q = np.nanquantile(means[:, ok], [tail, 1 - tail], axis=0)
        low[ok], high[ok] = q[0], q[1]
    return low, high


def _grouped_bootstrap_means(x: NDArray[np.float64], codes: NDArray[np.int64], n_resamples: int,
                             rng: np.random.Generator, statistic: str) -> NDArray[np.float64]:
    """(n_resamples, n_columns) resampled means of ``x``'s columns, units drawn within their group.

    ``x`` and ``codes`` are sorted by group. Each batch draws every group in turn from
    ``rng``: the batch size and that order fix the stream, hence the numbers for a seed.
    """
    n, n_cols = x.shape
    present = ~np.isnan(x)
    filled = np.where(present, x, 0.0)
    _, starts, sizes = np.unique(codes, return_index=True, return_counts=True)
    batch = int(max(1, min(n_resamples, _BATCH_CELLS // max(n, 1))))
    means = np.empty((n_resamples, n_cols))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        sums = np.zeros((len(sizes), b, n_cols))
        counts = np.zeros((len(sizes), b, n_cols))
        for g, (start, size) in enumerate(zip(starts, sizes)):  # a loop over splits, not users
            # a plain product, not _fixed_width_product: its padded blocks may round the last bits
            # differently, and the bands keep the numbers they always had for a seed
            weights = _multinomial_counts(rng, int(size), b)
            sums[g] = weights @ filled[start:start + size]
            counts[g] = weights @ present[start:start + size]
        with np.errstate(invalid="ignore", divide="ignore"):
            if statistic == "pooled":
                means[done:done + b] = sums.sum(axis=0) / counts.sum(axis=0)
            else:
                per_group = sums / counts
                defined = ~np.isnan(per_group)
                means[done:done + b] = (np.where(defined, per_group, 0.0).sum(axis=0)
                                        / defined.sum(axis=0))
        done += b
    return means


def _interval(boot: NDArray[np.float64], d: NDArray[np.float64], observed: float, alpha: float,
              method: str) -> tuple[float, float]:
    """scipy.stats.bootstrap's ``method`` interval of a mean from its bootstrap distribution."""
    if np.all(d == d[0]):
        return float(d[0]), float(d[0])  # a degenerate distribution: the interval is the point
    half = alpha / 2
    if method == "percentile":
        low, high = np.quantile(boot, [half, 1 - half])
        return float(low), float(high)
    if method == "basic":
        low, high = np.quantile(boot, [1 - half, half])
        return float(2 * observed - low), float(2 * observed - high)
    lo, hi = _bca(boot[:, None], np.array([observed]), [d], alpha)
    return float(lo[0]), float(hi[0])


def resample_tests(plan: ResamplingPlan, columns: NDArray[np.float64], pairs: Sequence[tuple[int, int, int]],
                   positions: Sequence[NDArray[np.int64]], alpha: float, *, randomization: bool,
                   ci_method: str = "bca", progress: bool = False) -> Resampled:
    """Randomization p-values and bootstrap CIs for many paired tests at once.

    Parameters
    ----------
    plan : ResamplingPlan
        The units of every split, the seed and the number of resamples.
    columns : (n_units, n_columns) array
        Per-unit values, 0 where a unit is not paired in the tests that use the column.
    pairs : list of (col_a, col_b, col_mask)
        Test ``t`` compares ``columns[:, b] - columns[:, a]`` over the units where
        ``columns[:, mask]`` is 1.
    positions : list of int arrays
        Test ``t``'s paired units (rows of ``columns``, ascending).
    alpha : float
        The bootstrap intervals have confidence ``1 - alpha``.
    randomization : bool
        Compute the sign-flip randomization p-values too (exact when a test has no more
        sign vectors than resamples); without it the p-values are NaN.
    ci_method : {"bca", "percentile", "basic"}
        Interval of the ordinary paired bootstrap, as ``scipy.stats.bootstrap(method=...)``.
    progress : bool
        A tqdm bar over the resamples drawn.

    Notes
    -----
    The bootstrap resamples a test's ``n`` paired units ``n`` times with replacement
    (the ordinary bootstrap, exact at every ``n``). Tests over the same units (the usual
    case: every pair of systems of one metric) share one set of draws, applied to all of
    them as one matrix product of draw counts and values.
    """
    n_tests = len(pairs)
    a_idx = np.array([p[0] for p in pairs], dtype=np.int64)
    b_idx = np.array([p[1] for p in pairs], dtype=np.int64)
    m_idx = np.array([p[2] for p in pairs], dtype=np.int64)
    n = columns[:, m_idx].sum(axis=0)
    diffs: list[NDArray[np.float64]] = [np.empty(0)] * n_tests
    for mask in np.unique(m_idx):  # one gather of the paired rows per set of units, not one per test
        tests = np.flatnonzero(m_idx == mask)
        used, inverse = np.unique(np.concatenate([a_idx[tests], b_idx[tests]]), return_inverse=True)
        paired = columns[np.ix_(positions[tests[0]], used)]
        for j, t in enumerate(tests):
            diffs[t] = paired[:, inverse[len(tests) + j]] - paired[:, inverse[j]]
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (columns[:, b_idx] - columns[:, a_idx]).sum(axis=0) / n

    masks = [m for m in np.unique(m_idx) if len(positions[int(np.flatnonzero(m_idx == m)[0])]) >= 2]
    bar = None
    if progress:
        from .._progress import progress_bar
        total = plan.n_resamples * (len(masks) + int(randomization))
        bar = progress_bar(total=total, desc="rankeval: resampling", unit="resample", leave=False)
    try:
        return _resample(plan, columns, a_idx, b_idx, m_idx, masks, n, diffs, observed, positions, alpha,
                         randomization, ci_method, bar)
    finally:
        if bar is not None:
            bar.close()


def _resample(plan: ResamplingPlan, columns: NDArray[np.float64], a_idx: NDArray[np.int64],
              b_idx: NDArray[np.int64], m_idx: NDArray[np.int64], masks: list[Any], n: NDArray[np.float64],
              diffs: list[NDArray[np.float64]], observed: NDArray[np.float64],
              positions: Sequence[NDArray[np.int64]], alpha: float, randomization: bool, ci_method: str,
              bar: Any) -> Resampled:
    n_tests = len(a_idx)
    p_value = np.full(n_tests, np.nan)
    if randomization:
        exact = [t for t in range(n_tests) if len(diffs[t]) >= 2 and 2 ** len(diffs[t]) <= plan.n_resamples]
        for t in exact:
            # as scipy: every sign vector when there are no more of them than resamples
            p_value[t] = _exact_p_two_sided(diffs[t], float(observed[t]))
        mc = np.array([t for t in range(n_tests) if t not in set(exact) and len(diffs[t]) >= 2], dtype=np.int64)
        if len(mc):
            null = np.empty((plan.n_resamples, len(mc)))
            done = 0
            for signs in plan.sign_batches():
                flipped = _fixed_width_product(signs, columns)  # (batch, n_columns): every test at once
                null[done:done + len(signs)] = (flipped[:, b_idx[mc]] - flipped[:, a_idx[mc]]) / n[mc]
                done += len(signs)
                if bar is not None:
                    bar.update(len(signs))
            p_value[mc] = _p_two_sided(null, observed[mc], adjustment=1)

    ci_low, ci_high = np.full(n_tests, np.nan), np.full(n_tests, np.nan)
    for mask in masks:  # (fewer than 2 units: no interval; compare warns)
        tests = np.flatnonzero(m_idx == mask)
        units = positions[tests[0]]
        used, inverse = np.unique(np.concatenate([a_idx[tests], b_idx[tests]]), return_inverse=True)
        boot = bootstrap_means(plan, columns[np.ix_(units, used)], inverse[:len(tests)], inverse[len(tests):], bar)
        for j, test in enumerate(tests):
            ci_low[test], ci_high[test] = _interval(boot[:, j], diffs[test], observed[test], alpha, ci_method)
    return Resampled(p_value, ci_low, ci_high)


def adjust_pvalues(p: NDArray[np.float64], method: str | None) -> NDArray[np.float64]:
    """Adjust p-values for multiple testing over every non-NaN entry.

    ``"holm"``: step-down :math:`\\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`;
    ``"bonferroni"``: :math:`\\min(1, m p)`; ``"fdr_bh"``: Benjamini-Hochberg through
    ``scipy.stats.false_discovery_control``; None: unchanged.

    Parameters
    ----------
    p : array of float
        The p-values; NaN entries stay NaN and do not count in ``m``.
    method : str or None
        The correction: ``"holm"``, ``"bonferroni"``, ``"fdr_bh"``, or None (none).
    """
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if method is None or m == 0:
        return out
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(q * m, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.minimum((m - np.arange(m)) * q[order], 1.0)
        adjusted = np.empty(m)
        adjusted[order] = np.maximum.accumulate(stepped)
        out[ok] = adjusted
    elif method == "fdr_bh":
        out[ok] = stats.false_discovery_control(q, method="bh")
    else:  # pragma: no cover - validated by compare()
        raise ValueError(f"unknown correction {method!r}")
    return out


def bootstrap_column_means(values: NDArray[np.float64], *, n_resamples: int = 1000, seed: int = 0
                           ) -> NDArray[np.float64]:
    """The means of every column over ``n_resamples`` ordinary bootstrap resamples of the rows.

    Every column is resampled with the same draws, so a statistic of several columns
    (a ratio of two means, say) can be taken resample by resample. The draws are those of
    :func:`bootstrap_mean_ci` with one group: the same seed gives the same resamples.

    Parameters
    ----------
    values : ndarray of shape (n_units, n_columns)
        Per-unit values (no NaN).
    n_resamples : int
        Bootstrap resamples (at least 10).
    seed : int
        Seed of the draws.

    Returns
    -------
    ndarray of shape (n_resamples, n_columns)
        Row ``b``: the columns' means in resample ``b``.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or np.isnan(x).any():
        raise ValueError(f"`values` must be a 2-dimensional array without NaN, got shape {x.shape}")
    n_resamples = check_integer("n_resamples", n_resamples, 10)
    return _grouped_bootstrap_means(x, np.zeros(len(x), dtype=np.int64), n_resamples,
                                    np.random.default_rng(seed), "pooled")
