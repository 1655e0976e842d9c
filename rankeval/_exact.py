"""Exact sums of floats that add up over any partition: system values that no row order,
bucketing or engine can move by a bit.

A float sum depends on the order of its terms. A system value is a mean over users, and
the users come in the order of the input's rows (pandas) or of Spark's partitions, so a
plain float sum would let those orders change the last bits. :class:`ExactSum` keeps the
sum exactly instead: every double is an integer mantissa times a power of two, and the
mantissas are added per power of two in integer arithmetic, all rows at once
(``np.bincount``). Two ExactSums of disjoint sets of values add into the ExactSum of their
union, so Spark buckets (or any other split of the users) merge exactly, and
:meth:`ExactSum.mean` rounds the exact mean once.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

__all__ = ["ExactSum", "exact_mean"]

#: bits of the low limb a 53-bit mantissa is split into (sums of limbs stay exact in float64)
_LIMB = 26
#: rows per bincount pass: limb sums stay below 2**53, exact in float64
_CHUNK = 1 << 25


class ExactSum:
    """The exact sum of a set of finite floats, and how many there are.

    ``terms`` maps a binary exponent ``e`` to the integer ``c`` such that the sum is
    ``sum(c * 2**e)``. Built from an array with :meth:`of`, merged with ``+``, read with
    :meth:`mean` or :meth:`total`; :meth:`to_json` / :meth:`from_json` carry it between
    processes (the Spark engine's buckets).
    """

    __slots__ = ("terms", "count")

    def __init__(self, terms: dict[int, int] | None = None, count: int = 0) -> None:
        self.terms = {} if terms is None else terms
        self.count = count

    @classmethod
    def of(cls, values: NDArray[np.float64]) -> ExactSum:
        """The exact sum of ``values`` (finite floats; NaN and inf are the caller's to leave out)."""
        values = np.asarray(values, dtype=np.float64)
        terms: dict[int, int] = {}
        for start in range(0, len(values), _CHUNK):
            mantissa, exponent = np.frexp(values[start:start + _CHUNK])
            m = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: 53 significant bits
            keep = m != 0
            m, e = m[keep], exponent[keep].astype(np.int64) - 53
            if not len(m):
                continue
            low = int(e.min())
            bins = e - low
            # m = hi * 2**26 + lo with 0 <= lo < 2**26; per-bin limb sums stay below 2**53: exact
            hi = np.bincount(bins, weights=(m >> _LIMB).astype(np.float64))
            lo = np.bincount(bins, weights=(m & ((1 << _LIMB) - 1)).astype(np.float64))
            for b in np.flatnonzero((hi != 0) | (lo != 0)):
                key = low + int(b)
                terms[key] = terms.get(key, 0) + (int(hi[b]) << _LIMB) + int(lo[b])
        return cls(terms, len(values))

    def __add__(self, other: ExactSum) -> ExactSum:
        terms = dict(self.terms)
        for e, c in other.terms.items():
            terms[e] = terms.get(e, 0) + c
        return ExactSum(terms, self.count + other.count)

    def total(self) -> Fraction:
        """The exact sum."""
        if not self.terms:
            return Fraction(0)
        low = min(self.terms)
        integer = sum(c << (e - low) for e, c in self.terms.items())
        return Fraction(integer) * Fraction(2) ** low

    def mean(self) -> float:
        """The exact mean, rounded once to the nearest float (NaN for no values)."""
        if self.count == 0:
            return float("nan")
        return float(self.total() / self.count)

    def to_json(self) -> str:
        return json.dumps([self.count, [[e, str(c)] for e, c in sorted(self.terms.items())]])

    @classmethod
    def from_json(cls, text: str) -> ExactSum:
        count, terms = json.loads(text)
        return cls({int(e): int(c) for e, c in terms}, int(count))


def exact_mean(values: NDArray[np.float64]) -> float:
    """Mean of the non-NaN values, rounded once from the exact mean: the same bits in any order.

    Infinite values make the mean infinite (or NaN for both signs), as numpy's mean does.
    """
    values = np.asarray(values, dtype=np.float64)
    kept = values[~np.isnan(values)]
    if not len(kept):
        return float("nan")
    if not np.isfinite(kept).all():  # decided by the infinities alone (a float sum could overflow on the way)
        plus, minus = bool((kept == np.inf).any()), bool((kept == -np.inf).any())
        return float("nan") if plus and minus else (float("inf") if plus else float("-inf"))
    return ExactSum.of(kept).mean()
