"""Vectorized operations over contiguous segments of rows, one per user: see :mod:`rankeval.segments`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ._keys import lexsort

__all__ = [
    "segment_lengths",
    "segment_ids",
    "concat_ranges",
    "segment_positions",
    "segment_sum",
    "segment_cumsum",
    "segment_first",
    "segment_max",
    "segment_min",
    "segment_argsort",
    "rank_within",
]


def segment_lengths(offsets: NDArray[np.integer]) -> NDArray[np.int64]:
    """Number of rows of each segment.

    Parameters
    ----------
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    return np.diff(offsets).astype(np.int64, copy=False)


def segment_ids(offsets: NDArray[np.integer]) -> NDArray[np.int32]:
    """The segment (user) index of every row.

    Parameters
    ----------
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    n = len(offsets) - 1
    dtype = np.int32 if n < 2**31 else np.int64
    return np.repeat(np.arange(n, dtype=dtype), segment_lengths(offsets))


def concat_ranges(start: NDArray[np.integer], length: NDArray[np.integer]) -> NDArray[np.int64]:
    """The ranges ``start[j] .. start[j] + length[j] - 1``, end to end (a gather index of segments)."""
    length = np.asarray(length, dtype=np.int64)
    before = np.cumsum(length) - length
    total = int(before[-1] + length[-1]) if len(length) else 0
    return np.repeat(np.asarray(start, dtype=np.int64) - before, length) + np.arange(total, dtype=np.int64)


def segment_positions(offsets: NDArray[np.integer]) -> NDArray[np.int32]:
    """1-based position of every row inside its segment.

    Parameters
    ----------
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    n_rows = int(offsets[-1])
    lengths = segment_lengths(offsets)
    dtype = np.int32 if n_rows < 2**31 else np.int64
    # +1 per row, except that each segment's first row drops back by the previous length
    step = np.ones(n_rows, dtype=dtype)
    nonempty = lengths > 0
    starts, kept = offsets[:-1][nonempty], lengths[nonempty]
    step[starts[1:]] = 1 - kept[:-1]
    return np.cumsum(step, dtype=dtype)


def _reduceat(ufunc: np.ufunc, x: NDArray, offsets: NDArray[np.integer], empty: float) -> NDArray:
    lengths = np.diff(offsets)
    out = np.full(len(lengths), empty, dtype=np.result_type(x.dtype, type(empty)))
    nonempty = lengths > 0
    if nonempty.any():
        # reduceat misreads empty segments (it returns x[start]), so reduce only the others
        out[nonempty] = ufunc.reduceat(x, offsets[:-1][nonempty])
    return out


def segment_sum(x: ArrayLike, offsets: NDArray[np.integer]) -> NDArray[np.float64]:
    """Sum of ``x`` over each segment (0 for an empty segment), as float64.

    Parameters
    ----------
    x : array of shape (n_rows,)
        One value per row (booleans count 1).
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    x = np.asarray(x)
    if x.dtype == np.bool_:
        x = x.view(np.int8)
    x = x.astype(np.float64, copy=False)
    return _reduceat(np.add, x, offsets, 0.0)


def segment_max(x: ArrayLike, offsets: NDArray[np.integer]) -> NDArray[np.float64]:
    """Maximum of ``x`` over each segment (NaN for an empty segment).

    Parameters
    ----------
    x : array of shape (n_rows,)
        One number per row.
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    return _reduceat(np.maximum, np.asarray(x, dtype=np.float64), offsets, np.nan)


def segment_min(x: ArrayLike, offsets: NDArray[np.integer]) -> NDArray[np.float64]:
    """Minimum of ``x`` over each segment (NaN for an empty segment).

    Parameters
    ----------
    x : array of shape (n_rows,)
        One number per row.
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    return _reduceat(np.minimum, np.asarray(x, dtype=np.float64), offsets, np.nan)


def segment_cumsum(x: ArrayLike, offsets: NDArray[np.integer]) -> NDArray:
    """Inclusive cumulative sum of ``x`` that restarts at every segment.

    Booleans and integers are summed exactly in int64. Floats are summed in one global
    pass that subtracts each segment's total where the next one starts, so a row's
    absolute error is bounded by the machine epsilon times the running total before it.

    Parameters
    ----------
    x : array of shape (n_rows,)
        One value per row: booleans, integers or floats.
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    x = np.asarray(x)
    if x.dtype == np.bool_ or np.issubdtype(x.dtype, np.integer):
        steps = x.astype(np.int64)  # a copy: adjusted below
    else:
        steps = x.astype(np.float64, copy=True)
    lengths = np.diff(offsets)
    starts = offsets[:-1][lengths > 0]
    if len(starts) > 1:
        totals = np.add.reduceat(steps, starts)
        steps[starts[1:]] -= totals[:-1]  # the running sum drops back to 0 at each new segment
    return np.cumsum(steps)


def rank_within(groups: ArrayLike) -> NDArray[np.int64]:
    """1-based index of each element within its run of equal, consecutive ``groups`` values.

    With ``groups = user_of_row[rows]`` for ascending ``rows``, this is each selected row's
    position among the selected rows of its user: the cumulative count of a mask, at the
    True rows only, without a pass over the rows that are not selected.

    Parameters
    ----------
    groups : array
        Group labels; equal labels next to each other form a run.

    Examples
    --------
    >>> rank_within(np.array([0, 0, 0, 2, 2, 5])).tolist()
    [1, 2, 3, 1, 2, 1]
    """
    groups = np.asarray(groups)
    n = len(groups)
    index = np.arange(n, dtype=np.int64)
    start = np.zeros(n, dtype=np.int64)
    if n:
        new = np.ones(n, dtype=bool)
        np.not_equal(groups[1:], groups[:-1], out=new[1:])
        start[new] = index[new]
        np.maximum.accumulate(start, out=start)
    return index - start + 1


def segment_first(mask: ArrayLike, offsets: NDArray[np.integer]) -> NDArray[np.int64]:
    """1-based position of the first True row of each segment, 0 when it has none.

    Parameters
    ----------
    mask : bool array of shape (n_rows,)
        One flag per row.
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    """
    mask = np.asarray(mask, dtype=bool)
    rows = np.flatnonzero(mask)
    out = np.zeros(len(offsets) - 1, dtype=np.int64)
    if len(rows) == 0:
        return out
    seg = np.searchsorted(offsets, rows, side="right") - 1
    first = np.empty(len(rows), dtype=bool)
    first[0] = True
    np.not_equal(seg[1:], seg[:-1], out=first[1:])
    out[seg[first]] = rows[first] - offsets[seg[first]] + 1
    return out


def segment_argsort(values: ArrayLike, offsets: NDArray[np.integer], *, descending: bool = False) -> NDArray[np.int64]:
    """Row permutation that sorts ``values`` within each segment, keeping segments in place.

    Ties keep their row order. Values are replaced by their dense rank first, so the one
    sort works on integers whatever the values (rating scales have few distinct values).

    Parameters
    ----------
    values : array of shape (n_rows,)
        The numbers to sort by.
    offsets : int array of shape (n_segments + 1,)
        Segment ``s`` is rows ``offsets[s]:offsets[s + 1]`` (``RankedLists.offsets``).
    descending : bool
        Largest first (ties still in row order).
    """
    values = np.asarray(values, dtype=np.float64)
    ranks, uniques = pd.factorize(values, sort=True)
    n = len(uniques)
    if descending:
        ranks = (n - 1) - ranks
    key = segment_ids(offsets).astype(np.int64) * max(n, 1) + ranks
    return lexsort([key])
