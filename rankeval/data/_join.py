"""How pred rows meet truth rows: ids as shared integer codes, then one join per split.

User and item ids of both frames become integer codes in one code space per column
(:func:`factorize_grouped`, :func:`item_codes`, :func:`extend_codes`); a (user, item) pair is
then the key ``user * n_items + item``. :func:`join_in_list_order` gives every listed row the
truth score of its key: chunk of users by chunk of users on dense tables when the chunks are
large enough, otherwise by sorting the keys. The module constants below are read at call
time, so tests can patch them to reach every path on small inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from . import _keys
from ._segments import segment_ids
from ._validation import check_id_kinds, reject_missing_ids

__all__ = ["factorize_grouped", "extend_codes", "item_codes", "join_in_list_order", "rows_in_sets"]

#: entries of the dense join's lookup table (row numbers: 8 MiB of int32)
_TABLE = 1 << 21
#: the largest table, for lists so short that a chunk needs more users to be worth a loop turn
_TABLE_MAX = 1 << 23
#: listed rows one turn of the dense join's loop should see, on average
_ROWS_PER_CHUNK = 2048
#: entries of the boolean table of :func:`rows_in_sets` (4 MiB: fastest, 2^21-2^23 measured), its
#: most loop turns, and its largest table (beyond it, a hash lookup)
_MEMBER_TABLE = 1 << 22
_MEMBER_TURNS = 20_000
_MEMBER_TABLE_MAX = 1 << 27


def factorize_grouped(values: NDArray[Any] | ExtensionArray
                      ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any], bool, NDArray[np.int64] | None]:
    """Codes in order of first appearance, the uniques, whether rows are grouped, run lengths.

    Most prediction files list each user's rows together; one comparison of neighbours
    then finds the users without hashing every row.
    """
    starts = _keys.long_runs(values, 2)
    if starts is not None:
        firsts = _keys.plain(values[starts])
        if pd.Index(firsts, dtype=firsts.dtype).is_unique:  # dtype kept: no copy into Arrow on pandas 3
            lengths = np.diff(np.append(starts, len(values)))
            codes = np.repeat(np.arange(len(starts), dtype=_keys.code_dtype(len(starts))), lengths)
            return codes, firsts, True, lengths.astype(np.int64)
    codes, uniques = _keys.factorize(values)
    codes = codes.astype(_keys.code_dtype(len(uniques)), copy=False)
    # codes number users in order of appearance: rows are grouped iff codes never decrease
    grouped = bool(np.all(codes[1:] >= codes[:-1]))
    run_lengths = np.bincount(codes[codes >= 0], minlength=len(uniques)).astype(np.int64) if grouped else None
    return codes, uniques, grouped, run_lengths


def extend_codes(codes: NDArray[np.integer], values: NDArray[Any], base: int
                 ) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Give the values that ``codes`` marks -1 their own codes from ``base`` on; also the
    values of those new codes, in code order."""
    extended = codes.astype(np.int64)
    missing = extended < 0
    if not missing.any():
        return extended, np.asarray(values[:0])
    extra, uniques = pd.factorize(values[missing])
    extended[missing] = np.where(extra >= 0, base + extra, -1)  # NaN ids stay -1
    return extended, _keys.plain(uniques)


def item_codes(pred: pd.DataFrame, truth: pd.DataFrame, column: str, truth_column: str | None = None
               ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any], NDArray[np.int64], NDArray[Any]]:
    """Item codes of pred (``0 .. n_pred_items - 1``) and truth (truth-only items after them),
    pred's distinct items and the truth-only ones (each in code order); missing ids and items
    of kinds that never match are refused here. ``truth_column``: truth's item column, when
    not ``column``."""
    theirs = column if truth_column is None else truth_column
    pred_values = _keys.id_values(pred[column])
    truth_values = _keys.id_values(truth[theirs])
    together = _keys.factorize_together(pred_values, truth_values)
    if together is not None:
        pred_codes, truth_codes, uniques = together
        if len(pred_codes) and pred_codes.min() < 0:
            reject_missing_ids(pred, "pred", column, pred_codes < 0)
        n_pred_items = int(pred_codes.max()) + 1
        pred_items = uniques[:n_pred_items]
        in_truth = np.bincount(truth_codes[truth_codes >= 0], minlength=len(uniques)) > 0
        check_id_kinds(pred, truth, column, pred_items, uniques[in_truth], other_column=theirs)
        truth_codes = truth_codes.astype(np.int64)
        truth_only = uniques[n_pred_items:]
    else:
        pred_codes, pred_items = _keys.factorize(pred_values)
        if len(pred_codes) and pred_codes.min() < 0:
            reject_missing_ids(pred, "pred", column, pred_codes < 0)
        n_pred_items = len(pred_items)
        truth_codes, truth_items = _keys.codes_in(pd.Index(pred_items, dtype=pred_items.dtype), truth_values)
        check_id_kinds(pred, truth, column, pred_items, truth_items, other_column=theirs)
        truth_codes, truth_only = extend_codes(truth_codes, truth_values, n_pred_items)
    reject_missing_ids(truth, "truth", theirs, truth_codes < 0)
    return pred_codes, pred_items, truth_codes, truth_only


def join_in_list_order(user_codes: NDArray[np.integer], item_codes: NDArray[np.integer],
                       order: NDArray[np.int64] | None, run_lengths: NDArray[np.int64] | None, n_users: int,
                       n_items: int, truth_keys: NDArray[np.int64],
                       truth_scores: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Truth score of every pred row taken in list order, or None if a (user, item) pair repeats.

    ``truth_keys`` (sorted) and ``truth_scores`` are the truth keys ``user * n_items + item``.
    After ``order`` every user's rows are contiguous and users come in code order, so the join
    runs chunk of users by chunk of users on dense tables (:func:`_join_dense`) when the chunks
    are large enough; otherwise it sorts the keys (:func:`_join_sorted`).
    """
    if order is not None:
        user_codes, item_codes = user_codes[order], item_codes[order]
    pred_keys = user_codes.astype(np.int64)
    pred_keys *= n_items
    pred_keys += item_codes
    n_rows = len(pred_keys)
    per_chunk = max(_TABLE // max(n_items, 1), -(-_ROWS_PER_CHUNK * n_users // max(n_rows, 1)))
    per_chunk = min(per_chunk, max(n_users, 1))  # a small split gets a table of its own size
    if per_chunk * n_items > _TABLE_MAX or len(truth_keys) == 0:
        return _join_sorted(pred_keys, truth_keys, truth_scores, n_users + 1, n_items)
    if order is None and run_lengths is not None:
        n_listed = run_lengths
    else:
        n_listed = np.bincount(user_codes, minlength=n_users)
    row_offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_listed, out=row_offsets[1:])
    return _join_dense(pred_keys, row_offsets, truth_keys, truth_scores, n_items, per_chunk)


def _join_sorted(pred_keys: NDArray[np.int64], truth_keys: NDArray[np.int64], truth_scores: NDArray[np.float64],
                 n_users: int, n_items: int) -> NDArray[np.float64] | None:
    """Truth score of every pred row (NaN when unrated), or None if a pred key repeats.

    Sort-merge join; ``truth_keys`` must be sorted. When a key and a row number fit in 63 bits
    together, both are packed into one int64 and sorted at once: the sort carries the row
    numbers with it (no argsort, no random gathers), repeated pred keys become neighbours,
    and the sorted truth keys are then looked up among the sorted pred keys in one
    forward sweep (searchsorted with sorted needles stays in cache: 15 times faster than
    with needles in random order).
    """
    n_rows = len(pred_keys)
    row_bits = max(n_rows.bit_length(), 1)
    if (n_users * n_items).bit_length() + row_bits <= 63:
        packed = pred_keys  # reused in place: the caller's keys are not needed afterwards
        packed <<= row_bits
        packed |= np.arange(n_rows, dtype=np.int64)
        packed.sort()
        keys = packed >> row_bits
        if np.any(keys[1:] == keys[:-1]):
            return None
        at = np.searchsorted(keys, truth_keys)
        np.minimum(at, n_rows - 1, out=at)
        found = keys[at] == truth_keys
        del keys
        out = np.full(n_rows, np.nan)
        out[packed[at[found]] & ((1 << row_bits) - 1)] = truth_scores[found]
        return out
    order = np.argsort(pred_keys, kind="stable")  # too many ids to pack: the same join, unpacked
    keys = pred_keys[order]
    if np.any(keys[1:] == keys[:-1]):
        return None
    at = np.searchsorted(keys, truth_keys)
    np.minimum(at, n_rows - 1, out=at)
    found = keys[at] == truth_keys
    out = np.full(n_rows, np.nan)
    out[order[at[found]]] = truth_scores[found]
    return out


def _join_dense(pred_keys: NDArray[np.int64], row_offsets: NDArray[np.int64], truth_keys: NDArray[np.int64],
                truth_scores: NDArray[np.float64], n_items: int, per_chunk: int) -> NDArray[np.float64] | None:
    """:func:`_join_sorted` for rows grouped by user in code order, without sorting them.

    Users are taken ``per_chunk`` at a time; within a chunk a key less the chunk's first key
    is a slot of a table of ``per_chunk * n_items`` row numbers. Each listed row writes its
    own number to its slot and reads the slot back: a row whose slot holds another number
    shares its key with that row (repeated pred keys), whichever write numpy kept. Each truth
    key of the chunk's users then reads its slot: a number of this chunk's rows is the row
    with that key, which gets the truth score; anything else (-1, or a row of an earlier
    chunk: a smaller number) means no row lists it, and the row keeps NaN (not rated).
    Exact, with no sort and one table: a few passes over the rows, a random access per
    listed row and two per truth row, all within one chunk's slots.
    """
    n_users = len(row_offsets) - 1
    n_rows = len(pred_keys)
    user_bounds = np.append(np.arange(0, n_users, per_chunk, dtype=np.int64), n_users)
    row_bounds = row_offsets[user_bounds].tolist()
    truth_bounds = np.searchsorted(truth_keys, user_bounds * n_items).tolist()
    row_type = np.int32 if n_rows < 2**31 else np.int64  # half the memory traffic of int64
    row_at = np.full(per_chunk * n_items, -1, dtype=row_type)
    out = np.full(n_rows, np.nan)
    for chunk, first_user in enumerate(user_bounds[:-1].tolist()):
        first_row, end_row = row_bounds[chunk], row_bounds[chunk + 1]
        if first_row == end_row:
            continue
        base = first_user * n_items
        slots = pred_keys[first_row:end_row] - base
        rows = np.arange(first_row, end_row, dtype=row_type)
        row_at[slots] = rows
        if not np.array_equal(row_at[slots], rows):
            return None
        first_truth, end_truth = truth_bounds[chunk], truth_bounds[chunk + 1]
        if first_truth == end_truth:
            continue
        listed_at = row_at[truth_keys[first_truth:end_truth] - base]
        listed = listed_at >= first_row  # rows of earlier chunks have smaller numbers
        out[listed_at[listed]] = truth_scores[first_truth:end_truth][listed]
    return out


def rows_in_sets(row_offsets: NDArray[np.int64], row_codes: NDArray[np.integer], set_offsets: NDArray[np.int64],
                 set_codes: NDArray[np.integer], n_codes: int) -> NDArray[np.bool_]:
    """Per row of group ``g`` (rows ``row_offsets[g]:row_offsets[g + 1]``): whether its code is
    among the codes of set ``g`` (``set_codes[set_offsets[g]:set_offsets[g + 1]]``).

    Both sides grouped by the same groups (a user's listed items and the user's training
    items, say), codes in ``0 .. n_codes - 1``. Groups are taken a chunk at a time: the
    chunk's sets mark their slots ``(group - first) * n_codes + code`` in a boolean table,
    every row reads its slot, and the marks are cleared. A few passes over the rows with
    the table accesses within one chunk's slots, no sort and no hash; when a table short of
    loop turns would be too large (a huge code space), one hash lookup instead.
    """
    n_groups = len(row_offsets) - 1
    out = np.zeros(len(row_codes), dtype=bool)
    if not len(row_codes) or not len(set_codes):
        return out
    # enough groups per turn to keep the loop short, even when that makes the table larger
    per_chunk = min(max(_MEMBER_TABLE // max(n_codes, 1), -(-n_groups // _MEMBER_TURNS), 1), n_groups)
    if per_chunk * n_codes > _MEMBER_TABLE_MAX:
        row_keys = segment_ids(row_offsets).astype(np.int64) * n_codes + row_codes
        set_keys = segment_ids(set_offsets).astype(np.int64) * n_codes + set_codes
        return pd.Series(row_keys, copy=False).isin(set_keys).to_numpy()
    table = np.zeros(per_chunk * n_codes, dtype=bool)
    bounds = list(range(0, n_groups, per_chunk)) + [n_groups]
    row_at, set_at = row_offsets[bounds].tolist(), set_offsets[bounds].tolist()
    row_counts, set_counts = np.diff(row_offsets), np.diff(set_offsets)
    for turn, first in enumerate(bounds[:-1]):
        r0, r1, s0, s1 = row_at[turn], row_at[turn + 1], set_at[turn], set_at[turn + 1]
        if r0 == r1 or s0 == s1:
            continue
        end = bounds[turn + 1]
        groups = np.arange(end - first, dtype=np.int64) * n_codes
        set_slots = np.repeat(groups, set_counts[first:end])
        set_slots += set_codes[s0:s1]
        table[set_slots] = True
        row_slots = np.repeat(groups, row_counts[first:end])
        row_slots += row_codes[r0:r1]
        np.take(table, row_slots, out=out[r0:r1])
        table[set_slots] = False
    return out
