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
    """The exact sum of a set of floats, how many there are, and their infinities.

    ``terms`` maps a binary exponent ``e`` to the integer ``c`` such that the sum of the
    finite values is ``sum(c * 2**e)``; ``count`` is how many values (finite or not) there
    are; ``pos_inf`` / ``neg_inf`` count the infinite ones. Built from an array with
    :meth:`of` (NaN left out), merged with ``+``, read with :meth:`mean` or :meth:`total`;
    :meth:`to_json` / :meth:`from_json` carry it between processes (the Spark engine's
    buckets and its driver).
    """

    __slots__ = ("terms", "count", "pos_inf", "neg_inf")

    def __init__(self, terms: dict[int, int] | None = None, count: int = 0, pos_inf: int = 0,
                 neg_inf: int = 0) -> None:
        self.terms = {} if terms is None else terms
        self.count = count
        self.pos_inf = pos_inf
        self.neg_inf = neg_inf

    @classmethod
    def of(cls, values: NDArray[np.float64]) -> ExactSum:
        """The exact sum of the non-NaN ``values`` (infinities are counted, not summed)."""
        values = np.asarray(values, dtype=np.float64)
        values = values[~np.isnan(values)]
        count, pos_inf, neg_inf = len(values), 0, 0
        finite = np.isfinite(values)
        if not finite.all():
            pos_inf = int(np.count_nonzero(values == np.inf))
            neg_inf = int(np.count_nonzero(values == -np.inf))
            values = values[finite]
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
        return cls(terms, count, pos_inf, neg_inf)

    def __add__(self, other: ExactSum) -> ExactSum:
        if not isinstance(other, ExactSum):
            return NotImplemented
        terms = dict(self.terms)
        for e, c in other.terms.items():
            terms[e] = terms.get(e, 0) + c
        return ExactSum(terms, self.count + other.count, self.pos_inf + other.pos_inf,
                        self.neg_inf + other.neg_inf)

    def total(self) -> Fraction:
        """The exact sum of the finite values."""
        if not self.terms:
            return Fraction(0)
        low = min(self.terms)
        integer = sum(c << (e - low) for e, c in self.terms.items())
        return Fraction(integer) * Fraction(2) ** low

    def mean(self) -> float:
        """The exact mean, rounded once to the nearest float: NaN for no values (or for
        infinities of both signs), +-inf when there are infinities of one sign."""
        if self.count == 0 or (self.pos_inf and self.neg_inf):
            return float("nan")
        if self.pos_inf or self.neg_inf:
            return float("inf") if self.pos_inf else float("-inf")
        return float(self.total() / self.count)

    def to_json(self) -> str:
        return json.dumps([self.count, [[e, str(c)] for e, c in sorted(self.terms.items())],
                           self.pos_inf, self.neg_inf])

    @classmethod
    def from_json(cls, text: str) -> ExactSum:
        count, terms, pos_inf, neg_inf = json.loads(text)
        return cls({int(e): int(c) for e, c in terms}, int(count), int(pos_inf), int(neg_inf))


def exact_mean(values: NDArray[np.float64]) -> float:
    """Mean of the non-NaN values, rounded once from the exact mean: the same bits in any order.

    Infinite values make the mean infinite (NaN for both signs), decided by the infinities
    alone (a float sum of large values could overflow on the way).
    """
    return ExactSum.of(values).mean()
