"""Each user's mean truth score as a relevance threshold, decided exactly.

``score >= mean`` must not depend on the order of the truth frame's rows: the threshold
is the smallest score at or above the exact mean (see :func:`exact_mean_threshold`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from . import _segments as seg

__all__ = ["exact_mean_threshold"]


def exact_mean_threshold(values: NDArray[np.float64], offsets: NDArray[np.int64],
                         counts: NDArray[np.int64]) -> NDArray[np.float64]:
    """Each user's mean truth score, as a threshold that decides ``score >= mean`` exactly.

    A float sum depends on the order of its terms, so a score within rounding of the
    mean could be relevant or not depending on the truth frame's row order (and a user
    rating three items 0.1 would have a mean of 0.10000000000000002: nothing relevant).
    Sums of integers and halves are exact in any order. For the other users, every score
    is compared with the exact mean in integer arithmetic (:func:`_at_or_above_mean`, all
    users at once) and the threshold becomes the smallest score at or above it.
    """
    # sums past the float range are inf here; those users take the exact path below
    with np.errstate(over="ignore", invalid="ignore"):
        mean = seg.segment_sum(values, offsets) / counts
        scaled = values * 1024.0
        # multiples of 1/1024 add up exactly in any order while the sum of their magnitudes
        # stays below 2**52 units; then mean is the exact mean correctly rounded, hence already
        # within [min, max]
        exact_sum = seg.segment_sum(np.abs(scaled), offsets) < 2.0 ** 52
    dyadic = scaled == np.round(scaled)
    if not dyadic.all():
        exact_sum &= seg.segment_sum(~dyadic, offsets) == 0
    if exact_sum.all():
        return mean
    users = np.flatnonzero(~exact_sum)
    n = counts[users]
    sub_offsets = np.zeros(len(users) + 1, dtype=np.int64)
    np.cumsum(n, out=sub_offsets[1:])
    rows = np.repeat(offsets[users] - sub_offsets[:-1], n)
    rows += np.arange(len(rows))
    sub = values[rows]
    at_or_above, exact = _at_or_above_mean(sub, n, sub_offsets)
    mean[users] = np.minimum.reduceat(np.where(at_or_above, sub, np.inf), sub_offsets[:-1])
    for u in users[~exact]:  # scores spanning more binary magnitudes than int64 holds: rare
        scores = values[offsets[u]:offsets[u + 1]]
        total = sum(Fraction(float(v)) for v in scores)
        mean[u] = min(float(v) for v in scores if Fraction(float(v)) * len(scores) >= total)
    return mean


#: bits per limb of the two-limb integers of :func:`_at_or_above_mean`
_LIMB = 26


def _at_or_above_mean(values: NDArray[np.float64], counts: NDArray[np.int64],
                      offsets: NDArray[np.int64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per row, ``value * n >= sum of the user's values`` decided exactly; per user, whether it could be.

    Every double is an integer mantissa M (|M| < 2**53) times 2**E. Within a user, the
    values are integers in units of the user's smallest 2**E, split into two limbs of 26
    bits so that sums and products by n stay inside int64: the exact sum and the exact
    ``value * n`` are compared as two-limb integers, for every user at once. A user whose
    values span too many binary magnitudes for int64 (exponent spread + bits of n > 35)
    is marked not exact, and the caller decides it in rational arithmetic instead.
    """
    mantissa, exponent = np.frexp(values)
    m = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: |mantissa| < 1 has 53 significant bits
    e = exponent.astype(np.int64) - 53
    nonzero = m != 0
    starts = offsets[:-1]
    never = np.iinfo(np.int64).max
    e_min = np.minimum.reduceat(np.where(nonzero, e, never), starts)
    e_min[e_min == never] = 0  # a user whose values are all 0
    shift = np.where(nonzero, e - np.repeat(e_min, counts), 0)
    n_bits = np.frexp(counts.astype(np.float64))[1]  # bits of n
    # |hi| <= 2**27, so |hi << shift| * n < 2**(27 + shift + bits(n)): keep that within 2**62
    exact = np.maximum.reduceat(shift, starts) + n_bits <= 62 - (53 - _LIMB)
    shift[~np.repeat(exact, counts)] = 0  # keeps int64 arithmetic in bounds; those users are redone
    mask = (1 << _LIMB) - 1
    hi = (m >> _LIMB) << shift  # m = hi * 2**26 + lo, 0 <= lo < 2**26 (floor shift for negatives)
    lo = (m & mask) << shift
    total_hi = np.add.reduceat(hi, starts)
    total_lo = np.add.reduceat(lo, starts)
    total_hi += total_lo >> _LIMB  # canonical form: low limb in [0, 2**26)
    total_lo &= mask
    n = np.repeat(counts, counts)
    row_hi = hi * n
    row_lo = lo * n
    row_hi += row_lo >> _LIMB
    row_lo &= mask
    t_hi = np.repeat(total_hi, counts)
    at_or_above = (row_hi > t_hi) | ((row_hi == t_hi) & (row_lo >= np.repeat(total_lo, counts)))
    return at_or_above, exact
