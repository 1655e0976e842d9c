"""Rows ordered within each user (or over all rows) by a key, in a few passes of ``np.sort``.

Every splitter ranks rows: by their seeded key (random splits) or by time (temporal
splits), inside each user's rows or over all rows. :func:`rankeval.data._keys.lexsort`
sorts the rows by ``(user, key)`` in radix passes of packed words. Random keys are cut
to the bits that fit in one pass (two when many rows would tie); in one pass the sorted
words themselves show which rows tie. Rows whose cut keys tie are put in order by
their full 64-bit key, the time, the score and the input row (:func:`_settle_ties`, a
handful of rows), so that no input order leaks into a random split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.internal import lexsort

__all__ = ["order_rows", "by_user_key", "positions_in_order", "Ranked"]

#: fewest key bits kept after cutting (ties past them are settled exactly anyway)
_MIN_KEY_BITS = 40
#: fewest key bits a one-pass sort keeps; and the rows per expected tie it accepts
_MIN_ONE_PASS_BITS = 16
_TIES_PER_ROW = 256


class Ranked:
    """An order of the rows, and the rows whose random keys tie on all 64 bits (duplicate pairs)."""

    def __init__(self, order: NDArray[np.int64], tied_rows: NDArray[np.int64]) -> None:
        self.order = order
        self.tied_rows = tied_rows


def _kept_bits(n_rows: int, group_bits: int, pair_mass: int) -> int:
    """Key bits kept: those that fit next to the group code in one sort pass when few rows would
    tie on them, else in two passes (at least :data:`_MIN_KEY_BITS`).

    ``pair_mass`` is the number of ordered pairs of rows in one group (the sum of the squared
    group sizes): of ``b`` random bits, about ``pair_mass / 2**(b + 1)`` pairs tie, and each
    tie costs a row in :func:`_settle_ties`. One pass is taken while that is at most one row
    in :data:`_TIES_PER_ROW`; the order is the same either way.
    """
    free = 64 - max(n_rows.bit_length(), 1)
    one_pass = free - group_bits
    if one_pass >= _MIN_ONE_PASS_BITS and pair_mass <= (n_rows // _TIES_PER_ROW) << (one_pass + 1):
        return one_pass
    return int(min(64, max(_MIN_KEY_BITS, 2 * free - group_bits)))


def _same_as_previous(order: NDArray[np.int64], groups: NDArray[np.integer] | None,
                      cut: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """Whether each row of ``order`` has its predecessor's ``(group, cut key)``."""
    cut_sorted = cut[order]
    same = np.zeros(len(order), dtype=bool)
    np.equal(cut_sorted[1:], cut_sorted[:-1], out=same[1:])
    if groups is not None:
        group_sorted = groups[order]
        same[1:] &= group_sorted[1:] == group_sorted[:-1]
    return same


def _one_pass_sort(cut: NDArray[np.uint64], groups: NDArray[np.integer] | None, kept: int
                   ) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The rows by ``(group, cut key)`` (the order of :func:`lexsort`) and which tie with their predecessor.

    One word a row, ``group << kept | cut`` above the row's position, sorted once: the
    sorted words give the ties without gathering the keys again in the new order.
    """
    n = len(cut)
    row_bits = max(n.bit_length(), 1)
    word = cut.astype(np.uint64)  # a copy
    if groups is not None:
        word |= groups.astype(np.uint64) << np.uint64(kept)
    word <<= np.uint64(row_bits)
    word |= np.arange(n, dtype=np.uint64)
    word.sort()
    order = (word & np.uint64((1 << row_bits) - 1)).view(np.int64)
    word >>= np.uint64(row_bits)
    same = np.zeros(n, dtype=bool)
    np.equal(word[1:], word[:-1], out=same[1:])
    return order, same


def _settle_ties(order: NDArray[np.int64], same: NDArray[np.bool_], key: NDArray[np.uint64],
                 tie_keys: Callable[[], Sequence[NDArray[Any]]]) -> NDArray[np.int64]:
    """Reorder the runs of rows whose ``(group, cut key)`` tie (``same``: as their predecessor's)
    by full key, tie keys, then input row.

    Returns the rows whose full keys tie with a neighbour's (the only rows a duplicate pair
    can be in).
    """
    if not same.any():
        return np.zeros(0, dtype=np.int64)
    in_run = same.copy()
    in_run[:-1] |= same[1:]
    positions = np.flatnonzero(in_run)
    run = np.cumsum(~same[positions])
    rows = order[positions]
    ties = [np.asarray(t)[rows] for t in tie_keys()]
    full = key[rows]
    settled = np.lexsort([rows, *reversed(ties), full, run])
    order[positions] = rows[settled]
    full_sorted = full[settled]
    run_sorted = run[settled]
    equal = (full_sorted[1:] == full_sorted[:-1]) & (run_sorted[1:] == run_sorted[:-1])
    tied = np.zeros(len(rows), dtype=bool)
    tied[1:] |= equal
    tied[:-1] |= equal
    return rows[settled][tied]


def order_rows(key: NDArray[np.uint64], groups: NDArray[np.integer] | None, n_groups: int = 1, *,
               random: bool, tie_keys: Callable[[], Sequence[NDArray[Any]]] = list) -> Ranked:
    """The rows sorted by group code (when given), then by ``key``.

    ``random``: ``key`` is a seeded hash; it is cut to fit two sort passes, and ties are
    settled by the full key, then ``tie_keys()`` (time, score), then the input row. Otherwise
    (times), the sort is stable: equal keys keep the input's row order.
    """
    if groups is not None and n_groups <= 1:
        groups = None
    group_bits = max(int(n_groups - 1).bit_length(), 0) if groups is not None else 0
    if not random:
        return Ranked(lexsort([key] if groups is None else [key, groups]), np.zeros(0, dtype=np.int64))
    sizes = np.bincount(groups, minlength=n_groups).astype(np.float64) if groups is not None else None
    mass = int(sizes @ sizes) if sizes is not None else len(key) ** 2
    kept = _kept_bits(len(key), group_bits, mass)
    cut = key >> np.uint64(64 - kept) if kept < 64 else key
    if kept + group_bits + max(len(key).bit_length(), 1) <= 64:
        order, same = _one_pass_sort(cut, groups, kept)
    else:
        order = lexsort([cut] if groups is None else [cut, groups])
        same = _same_as_previous(order, groups, cut)
    return Ranked(order, _settle_ties(order, same, key, tie_keys))


def by_user_key(key: NDArray[np.uint64], user_codes: NDArray[np.integer], n_users: int,
                tie_keys: Callable[[], Sequence[NDArray[Any]]]) -> Ranked:
    """The rows grouped by user, each user's rows in the order of their seeded keys (a random order)."""
    return order_rows(key, user_codes, n_users, random=True, tie_keys=tie_keys)


def positions_in_order(order: NDArray[np.int64]) -> NDArray[np.int64]:
    """The inverse permutation: where each row stands in ``order``."""
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order), dtype=np.int64)
    return where
