"""Statistics for compare(): the resampling engine and multiple-testing corrections.

Paired t and Wilcoxon tests come straight from :mod:`scipy.stats`. The two resampling
procedures (the sign-flip randomization test and the bootstrap CI of the mean
difference) follow ``scipy.stats.permutation_test(permutation_type="samples")`` and
``scipy.stats.bootstrap(method="BCa")`` formula for formula, but draw their resamples
once per call and apply them to every (metric, pair) test as one matrix product:
scipy resamples each test on its own, which at 100k users and 10,000 resamples takes
about 20 s per 1,000 resamples and test (measured), i.e. hours for a 10-system table.

Reproducibility does not depend on the systems or metrics compared: the random signs
and weights of a unit depend only on the seed, the split and the unit's place among
that split's truth users (the same for every system), drawn in fixed-size batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

__all__ = ["ResamplingPlan", "resample_tests", "adjust_pvalues"]

#: resamples drawn per batch: fixed, so that the random stream never depends on the data size
BATCH = 128
#: matrix products always take this many columns (zero-padded): BLAS rounds a column the
#: same way whatever its neighbours then, so a test's numbers do not depend on the others
WIDTH = 16
_POISSON_BITS = 16


def _poisson_table() -> NDArray[np.float64]:
    """Inverse CDF of Poisson(1) on 2**16 equally likely codes (quantized to 1/65536)."""
    k = np.arange(0, 20)
    cdf = np.cumsum(np.exp(-1.0) / special.factorial(k))
    codes = (np.arange(2 ** _POISSON_BITS) + 0.5) / 2 ** _POISSON_BITS
    return np.searchsorted(cdf, codes, side="right").astype(np.float64)


_POISSON = _poisson_table()
_SIGNS = np.array([1.0, -1.0])


@dataclass(frozen=True)
class ResamplingPlan:
    """Where each split's units sit in the resampled universe, and the seed.

    ``sizes[s]`` is the number of truth users of split ``s`` (its universe); every
    tested unit of split ``s`` is one of them, at a fixed place.
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

    def weight_batches(self):
        """(batch, n_units) arrays of Poisson(1) bootstrap weights, BATCH rows at a time."""
        gens = self._generators(1)
        done = 0
        while done < self.n_resamples:
            rows = min(BATCH, self.n_resamples - done)
            blocks = [_POISSON[gen.integers(0, 2 ** _POISSON_BITS, size=(BATCH, size), dtype=np.uint16)[:rows]]
                      for gen, size in zip(gens, self.sizes)]
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


def _exact_signs(n: int) -> NDArray[np.float64]:
    """All 2**n sign vectors (rows)."""
    codes = np.arange(2 ** n, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n)[None, :]) & 1
    return 1.0 - 2.0 * bits


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
        u = (n - 1) * (theta_i.mean() - theta_i)
        a_hat = (np.sum(u ** 3) / n ** 3) / (6 * (np.sum(u ** 2) / n ** 2) ** 1.5)
        z_alpha = special.ndtri(half)
        num1, num2 = z0 + z_alpha, z0 - z_alpha
        a1 = special.ndtr(z0 + num1 / (1 - a_hat * num1))
        a2 = special.ndtr(z0 + num2 / (1 - a_hat * num2))
        if np.isnan(a1) or np.isnan(a2):
            continue
        low[t], high[t] = np.quantile(b, [a1, a2])  # linear interpolation, as scipy.stats.bootstrap
    return low, high


def resample_tests(plan: ResamplingPlan, columns: NDArray[np.float64], pairs: Sequence[tuple[int, int, int]],
                   positions: Sequence[NDArray[np.int64]], alpha: float, *, randomization: bool) -> Resampled:
    """Randomization p-values and bootstrap CIs for many paired tests at once.

    Parameters
    ----------
    columns : (n_units, n_columns) array
        Per-unit values, 0 where a unit is not paired in the tests that use the column.
    pairs : list of (col_a, col_b, col_mask)
        Test ``t`` compares ``columns[:, b] - columns[:, a]`` over the units where
        ``columns[:, mask]`` is 1.
    positions : list of int arrays
        Test ``t``'s paired units (rows of ``columns``), for the exact test and BCa.
    """
    n_tests = len(pairs)
    a_idx = np.array([p[0] for p in pairs], dtype=np.int64)
    b_idx = np.array([p[1] for p in pairs], dtype=np.int64)
    m_idx = np.array([p[2] for p in pairs], dtype=np.int64)
    n = columns[:, m_idx].sum(axis=0)
    diffs = [columns[pos, b] - columns[pos, a] for pos, a, b in zip(positions, a_idx, b_idx)]
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (columns[:, b_idx] - columns[:, a_idx]).sum(axis=0) / n

    p_value = np.full(n_tests, np.nan)
    if randomization:
        exact = [t for t in range(n_tests) if 0 < len(diffs[t]) and 2 ** len(diffs[t]) <= plan.n_resamples]
        for t in exact:
            # as scipy: every sign vector when there are no more of them than resamples
            d = diffs[t]
            null = (_exact_signs(len(d)) @ d) / len(d)
            p_value[t] = _p_two_sided(null[:, None], observed[t:t + 1], adjustment=0)[0]
        mc = np.array([t for t in range(n_tests) if t not in set(exact) and len(diffs[t]) > 0], dtype=np.int64)
        if len(mc):
            null = np.empty((plan.n_resamples, len(mc)))
            done = 0
            for signs in plan.sign_batches():
                flipped = _fixed_width_product(signs, columns)  # (batch, n_columns): every test at once
                null[done:done + len(signs)] = (flipped[:, b_idx[mc]] - flipped[:, a_idx[mc]]) / n[mc]
                done += len(signs)
            p_value[mc] = _p_two_sided(null, observed[mc], adjustment=1)

    boot = np.empty((plan.n_resamples, n_tests))
    done = 0
    for weights in plan.weight_batches():
        weighted = _fixed_width_product(weights, columns)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot[done:done + len(weights)] = (weighted[:, b_idx] - weighted[:, a_idx]) / weighted[:, m_idx]
        done += len(weights)
    # a resample that drew none of a test's units has no mean: it is left out of that test
    ci_low, ci_high = np.full(n_tests, np.nan), np.full(n_tests, np.nan)
    for t in range(n_tests):
        b = boot[:, t]
        b = b[~np.isnan(b)]
        if len(b):
            lo, hi = _bca(b[:, None], observed[t:t + 1], [diffs[t]], alpha)
            ci_low[t], ci_high[t] = lo[0], hi[0]
    return Resampled(p_value, ci_low, ci_high)


def adjust_pvalues(p: NDArray[np.float64], method: str | None) -> NDArray[np.float64]:
    """Adjust p-values for multiple testing over every non-NaN entry.

    ``"holm"``: step-down :math:`\\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`;
    ``"bonferroni"``: :math:`\\min(1, m p)`; ``"fdr_bh"``: Benjamini-Hochberg through
    ``scipy.stats.false_discovery_control``; None: unchanged.
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
