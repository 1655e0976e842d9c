"""The exact top-k of one block of scores, merged into each user's running top-k.

A block is ``S`` (users x item positions), already holding ``-inf`` where an item may not
be listed. Items are numbered in the order that breaks ties (the first position wins), so
"higher score, then smaller position" is the whole order and no id is read here.

The selection never sorts a whole row. Columns are dealt into ``n_groups`` strided groups
(column ``c`` is in group ``c mod n_groups``); the ``k``-th largest group maximum is a lower
bound of the row's ``k``-th largest score (the ``k`` largest maxima are ``k`` distinct
scores of the row), and so is the ``k``-th score of the user's running list. Only the
groups whose maximum reaches the bound can hold a listed item: about ``k`` groups of
``width / n_groups`` scores each, which are gathered, filtered by the bound and sorted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..data.internal import segment_positions

__all__ = ["Running", "block_layout", "merge_block", "ROWS_IN_CACHE", "CACHE_BYTES"]

#: the most rows of a block whose bound and comparison are made together
ROWS_IN_CACHE = 32

#: the scores those rows may hold (fewer rows when a row is wide): the comparison then re-reads
#: them from the cache the group maxima just filled (a 1M-item row alone is 4 MB)
CACHE_BYTES = 4 * 2**20


@dataclass
class Running:
    """Each user's best ``k`` so far: scores (``-inf`` where empty) and item positions, best first."""

    scores: NDArray[np.floating]
    items: NDArray[np.int64]

    @classmethod
    def empty(cls, n_users: int, k: int, dtype: np.dtype) -> Running:
        """No item listed yet for any of ``n_users`` users."""
        return cls(np.full((n_users, k), -np.inf, dtype=dtype), np.full((n_users, k), -1, dtype=np.int64))


def block_layout(n_items: int, k: int) -> tuple[int, int]:
    """How a block row of ``n_items`` scores is laid out: ``(n_groups, width)``, ``width >= n_items``.

    The work past the matrix product is two passes over the row (the group maxima, the
    comparison with the bound), a partition of the ``n_groups`` maxima and the merge of the
    scores that reach the bound. Fewer groups make the partition cheaper and the bound lower:
    with ``n_groups = 4k`` about ``1.15 k`` scores of a row reach it (standard normal scores; 1.07 k
    for ``8k`` groups, 1.37 k for ``2k``), and the partition costs less than either pass. The
    row is padded (with ``-inf``) to ``n_groups * g`` columns.
    """
    per_group = max(2, n_items // max(4 * k, 1))
    n_groups = -(-n_items // per_group)
    if n_groups <= k:  # too few items for k groups of two: no bound but the running list's
        return n_items, n_items
    return n_groups, n_groups * per_group


def merge_block(running: Running, block: NDArray[np.floating], first_item: int, n_groups: int) -> None:
    """Merge the exact top-k of ``block`` (users x ``n_groups * g`` columns) into ``running``, in place.

    ``first_item`` is the position of the block's first column, after every position already
    in ``running`` (blocks come in item order); padding columns hold ``-inf``. A score of
    ``-inf`` is never listed; a row with fewer than ``k`` finite scores keeps ``-inf`` (item
    ``-1``) in its last places.
    """
    n_users, width = block.shape
    k = running.scores.shape[1]
    found, scores = [], []
    # a few rows at a time: the comparison re-reads the rows the maxima just read, from the cache,
    # and so does the gather of the survivors' scores
    step = max(1, min(ROWS_IN_CACHE, CACHE_BYTES // (width * block.itemsize)))
    for first in range(0, n_users, step):
        rows = block[first:first + step]
        bound = running.scores[first:first + step, k - 1].copy()
        if n_groups > k:
            maxima = rows.reshape(len(rows), width // n_groups, n_groups).max(axis=1)
            np.maximum(bound, np.partition(maxima, n_groups - k, axis=1)[:, n_groups - k], out=bound)
        # the bound never admits -inf: only finite scores are listed
        np.maximum(bound, np.finfo(block.dtype).min, out=bound)
        at = np.flatnonzero(rows >= bound[:, None])
        scores.append(rows.reshape(-1).take(at))
        found.append(at + first * width)
    if not found:  # a block of no user
        return
    flat = np.concatenate(found)
    users = flat // width
    _merge(running, users, np.concatenate(scores), flat - users * width + first_item)


def _merge(running: Running, rows: NDArray[np.intp], scores: NDArray[np.floating], items: NDArray[np.int64]) -> None:
    """Each user's best ``k`` of their running list and the candidates (``rows`` ascending).

    float32 scores (positions below ``2**32``) are merged as one unsigned 64-bit key each, the score's
    bits in descending order above the position: the keys are unique, so an unstable sort of them
    orders by the tie rule, and NumPy's SIMD sort of keys takes about a quarter of a stable argsort.
    """
    if scores.dtype == np.float32 and int(items.max(initial=0)) < 2**32 - 1:
        _merge_keys(running, rows, scores, items)
        return
    n_users, k = running.scores.shape
    counts = np.bincount(rows, minlength=n_users)
    width = k + int(counts.max(initial=0))
    all_scores = np.full((n_users, width), -np.inf, dtype=running.scores.dtype)
    all_items = np.full((n_users, width), -1, dtype=np.int64)
    all_scores[:, :k] = running.scores
    all_items[:, :k] = running.items
    slots = k + _places(counts)
    all_scores[rows, slots] = scores
    all_items[rows, slots] = items
    # the candidates come row by row in item order, after every item of the running lists: the
    # concatenation is in item order, and a stable sort by score keeps ties by position
    np.negative(all_scores, out=all_scores)
    best = np.argsort(all_scores, axis=1, kind="stable")[:, :k]
    running.scores = -np.take_along_axis(all_scores, best, axis=1)
    running.items = np.where(np.isneginf(running.scores), -1, np.take_along_axis(all_items, best, axis=1))


def _places(counts: NDArray[np.int64]) -> NDArray[np.integer]:
    """The place (0-based) of every candidate among its user's, candidates grouped by user (``counts`` a user)."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return segment_positions(offsets) - 1


_EMPTY = np.uint64(2**64 - 1)  # sorts after every key: an empty place
_SIGN, _LOW31 = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)


def _descending_bits(scores: NDArray[np.float32]) -> NDArray[np.uint32]:
    """Unsigned integers in the reverse order of the float32 ``scores`` (``-0.0`` taken as ``0.0``)."""
    bits = (scores + np.float32(0)).view(np.uint32)
    return ~(bits ^ ((bits >> np.uint32(31)) * _LOW31 | _SIGN))


def _scores_of(descending: NDArray[np.uint32]) -> NDArray[np.float32]:
    """The float32 scores whose :func:`_descending_bits` are ``descending``."""
    ascending = ~descending
    return (ascending ^ (((ascending >> np.uint32(31)) ^ np.uint32(1)) * _LOW31 | _SIGN)).view(np.float32)


def _keys(scores: NDArray[np.float32], items: NDArray[np.integer]) -> NDArray[np.uint64]:
    return (_descending_bits(scores).astype(np.uint64) << np.uint64(32)) | items.astype(np.uint64)


def _merge_keys(running: Running, rows: NDArray[np.intp], scores: NDArray[np.float32],
                items: NDArray[np.int64]) -> None:
    """:func:`_merge` for float32 scores: one sort of unique keys (score, then position) per row."""
    n_users, k = running.scores.shape
    counts = np.bincount(rows, minlength=n_users)
    listed = running.items >= 0
    start = k if listed.any() else 0  # the first block of items: no running list to sort with the candidates
    keys = np.full((n_users, max(k, start + int(counts.max(initial=0)))), _EMPTY)
    if start:
        keys[:, :k][listed] = _keys(running.scores[listed], running.items[listed])
    keys[rows, start + _places(counts)] = _keys(scores, items)
    keys.sort(axis=1)
    best = keys[:, :k]
    empty = best == _EMPTY
    running.scores = np.where(empty, -np.inf, _scores_of((best >> np.uint64(32)).astype(np.uint32)))
    running.items = np.where(empty, -1, (best & np.uint64(2**32 - 1)).astype(np.int64))
