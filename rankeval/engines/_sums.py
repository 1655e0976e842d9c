"""Exact sums of float64 values, that add up the same over any partition of the values.

The Spark engine computes each split's system value (the mean over users, NaN users left
out) from one partial sum per bucket. Float partial sums would make the last bits depend
on how users fall into buckets (the bucket count, the cluster's parallelism, classic or
Spark Connect); these are exact: every finite double is an integer multiple of 2**-1074,
so a bucket's sum is held as that integer (a Python int), partial sums add exactly, and
the mean is rounded once, correctly, at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["ExactSum", "exact_sum", "exact_mean"]

#: every finite double is a multiple of 2**-_SCALE
_SCALE = 1074
_HALF = 26  # 53-bit mantissas are summed as two int64 halves


class ExactSum(NamedTuple):
    """The sum of the non-NaN values as ``total / 2**1074`` (an exact integer), their count, and infinities."""

    total: int
    count: int
    pos_inf: int = 0
    neg_inf: int = 0

    def __add__(self, other: object) -> ExactSum:  # type: ignore[override]
        if not isinstance(other, ExactSum):
            return NotImplemented
        return ExactSum(self.total + other.total, self.count + other.count,
                        self.pos_inf + other.pos_inf, self.neg_inf + other.neg_inf)

    def to_json(self) -> list[object]:
        return [str(self.total), self.count, self.pos_inf, self.neg_inf]

    @classmethod
    def from_json(cls, value: list[object]) -> ExactSum:
        total, count, pos_inf, neg_inf = value
        return cls(int(str(total)), int(count), int(pos_inf), int(neg_inf))  # type: ignore[call-overload]


def exact_sum(values: NDArray[np.float64]) -> ExactSum:
    """The exact sum of the non-NaN ``values`` (vectorized: one pass per distinct exponent)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[~np.isnan(x)]
    count = len(x)
    finite = np.isfinite(x)
    pos_inf = neg_inf = 0
    if not finite.all():
        pos_inf = int(np.count_nonzero(x == np.inf))
        neg_inf = int(np.count_nonzero(x == -np.inf))
        x = x[finite]
    if len(x) == 0:
        return ExactSum(0, count, pos_inf, neg_inf)
    mantissa, exponent = np.frexp(x)                    # x = mantissa * 2**exponent, |mantissa| in [0.5, 1)
    m = np.ldexp(mantissa, 53).astype(np.int64)         # exact: 53 significant bits at most
    order = np.argsort(exponent, kind="stable")
    exponent, m = exponent[order], m[order]
    starts = np.flatnonzero(np.r_[True, exponent[1:] != exponent[:-1]])
    # int64 halves of the 53-bit mantissas add up exactly for fewer than 2**36 values per exponent
    high = np.add.reduceat(m >> _HALF, starts).tolist()
    low = np.add.reduceat(m & ((1 << _HALF) - 1), starts).tolist()
    total = 0
    for e, h, l in zip(exponent[starts].tolist(), high, low):
        group = (h << _HALF) + l                        # the exact sum of the mantissas of this exponent
        shift = e - 53 + _SCALE                         # value = m * 2**(e - 53) = m * 2**shift / 2**1074
        total += group << shift if shift >= 0 else group >> -shift  # exact: m is divisible then
    return ExactSum(total, count, pos_inf, neg_inf)


def exact_mean(parts: Iterable[ExactSum]) -> float:
    """The mean of every value behind ``parts``, correctly rounded; NaN when there is none."""
    s = sum(parts, ExactSum(0, 0))
    if s.count == 0:
        return float("nan")
    if s.pos_inf or s.neg_inf:
        return float("nan") if (s.pos_inf and s.neg_inf) else float("inf") if s.pos_inf else float("-inf")
    return s.total / (s.count << _SCALE)  # int / int: correctly rounded
