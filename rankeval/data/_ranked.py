"""RankedLists: every user's recommendation list joined to its truth scores, as segments.

This is the one place where ids are touched. Building it factorizes user and item ids
into shared integer codes, orders each list, and joins every listed item to its truth
score in one vectorized step; afterwards metrics only see integer and float arrays laid
out user after user (see :mod:`rankeval.segments`). One instance is built per split and
shared by every metric; :meth:`RankedLists.for_threshold` hands each metric a cheap view
whose ``relevant`` / ``n_relevant`` / ``threshold`` follow that metric's threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from . import _keys
from . import _segments as seg
from ._validation import check_id_kinds, reject_duplicate_pairs, reject_missing_ids, show, where

__all__ = ["RankedLists", "Columns"]

Ties = Literal["row_order", "item_id", "item_id_desc"]


@dataclass(frozen=True)
class Columns:
    """Column names of the ``pred`` and ``truth`` frames."""

    user: str = "user_id"
    item: str = "item_id"
    score: str = "score"
    rank: str = "rank"


def _factorize_grouped(values: NDArray[Any] | ExtensionArray
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
    lengths = np.bincount(codes[codes >= 0], minlength=len(uniques)).astype(np.int64) if grouped else None
    return codes, uniques, grouped, lengths


def _extend_codes(codes: NDArray[np.integer], values: NDArray[Any], base: int) -> NDArray[np.int64]:
    """Give the values that ``codes`` marks -1 their own codes from ``base`` on."""
    codes = codes.astype(np.int64)
    missing = codes < 0
    if missing.any():
        extra, _ = pd.factorize(values[missing])
        codes[missing] = np.where(extra >= 0, base + extra, -1)  # NaN ids stay -1
    return codes


def _item_codes(pred: pd.DataFrame, truth: pd.DataFrame, column: str
                ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any], NDArray[np.int64], int]:
    """Item codes of pred (``0 .. n_pred_items - 1``) and truth (truth-only items after them),
    pred's distinct items, and the number of codes; missing ids and items of kinds that never
    match are refused here."""
    pi = _keys.id_values(pred[column])
    ti = _keys.id_values(truth[column])
    together = _keys.factorize_together(pi, ti)
    if together is not None:
        picode, ticode, uniques = together
        if len(picode) and picode.min() < 0:
            reject_missing_ids(pred, "pred", column, picode < 0)
        n_pitems = int(picode.max()) + 1
        pitems = uniques[:n_pitems]
        in_truth = np.bincount(ticode[ticode >= 0], minlength=len(uniques)) > 0
        check_id_kinds(pred, truth, column, pitems, uniques[in_truth])
        ticode = ticode.astype(np.int64)
    else:
        picode, pitems = _keys.factorize(pi)
        if len(picode) and picode.min() < 0:
            reject_missing_ids(pred, "pred", column, picode < 0)
        n_pitems = len(pitems)
        ticode, titems = _keys.codes_in(pd.Index(pitems, dtype=pitems.dtype), ti)
        check_id_kinds(pred, truth, column, pitems, titems)
        ticode = _extend_codes(ticode, ti, n_pitems)
    reject_missing_ids(truth, "truth", column, ticode < 0)
    n_items = max(n_pitems, int(ticode.max()) + 1 if len(ticode) else 0)
    return picode, pitems, ticode, n_items


def _join(pkeys: NDArray[np.int64], tkeys: NDArray[np.int64], tscores: NDArray[np.float64],
          n_users: int, n_items: int) -> NDArray[np.float64] | None:
    """Truth score of every pred row (NaN when unrated), or None if a pred key repeats.

    Sort-merge join; ``tkeys`` must be sorted. When a key and a row number fit in 63 bits
    together, both are packed into one int64 and sorted at once: the sort carries the row
    numbers with it (no argsort, no random gathers), repeated pred keys become neighbours,
    and the sorted truth keys are then looked up among the sorted pred keys in one
    forward sweep (searchsorted with sorted needles stays in cache: 15 times faster than
    with needles in random order).
    """
    n_rows = len(pkeys)
    row_bits = max(n_rows.bit_length(), 1)
    if (n_users * n_items).bit_length() + row_bits <= 63:
        packed = pkeys  # reused in place: the caller's keys are not needed afterwards
        packed <<= row_bits
        packed |= np.arange(n_rows, dtype=np.int64)
        packed.sort()
        keys = packed >> row_bits
        if np.any(keys[1:] == keys[:-1]):
            return None
        at = np.searchsorted(keys, tkeys)
        np.minimum(at, n_rows - 1, out=at)
        found = keys[at] == tkeys
        del keys
        out = np.full(n_rows, np.nan)
        out[packed[at[found]] & ((1 << row_bits) - 1)] = tscores[found]
        return out
    order = np.argsort(pkeys, kind="stable")  # too many ids to pack: the same join, unpacked
    keys = pkeys[order]
    if np.any(keys[1:] == keys[:-1]):
        return None
    at = np.searchsorted(keys, tkeys)
    np.minimum(at, n_rows - 1, out=at)
    found = keys[at] == tkeys
    out = np.full(n_rows, np.nan)
    out[order[at[found]]] = tscores[found]
    return out


#: entries of each lookup table of the dense join: two 8-byte tables of 16 MiB
_TABLE = 1 << 21
#: the largest table, for lists so short that a chunk needs more users to be worth a loop turn
_TABLE_MAX = 1 << 23
#: listed rows one turn of the dense join's loop should see, on average
_ROWS_PER_CHUNK = 2048


def _join_in_list_order(pcode: NDArray[np.integer], picode: NDArray[np.integer], order: NDArray[np.int64] | None,
                        run_lengths: NDArray[np.int64] | None, n_users: int, n_items: int,
                        tkeys: NDArray[np.int64], tscores: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Truth score of every pred row taken in list order, or None if a (user, item) pair repeats.

    ``tkeys`` (sorted) and ``tscores`` are the truth keys ``user * n_items + item``. After
    ``order`` every user's rows are contiguous and users come in code order, so the join runs
    chunk of users by chunk of users on dense tables (:func:`_join_dense`) when the chunks are
    large enough; otherwise it sorts the keys (:func:`_join`).
    """
    if order is not None:
        pcode, picode = pcode[order], picode[order]
    pkeys = pcode.astype(np.int64)
    pkeys *= n_items
    pkeys += picode
    n_rows = len(pkeys)
    per_chunk = max(_TABLE // max(n_items, 1), -(-_ROWS_PER_CHUNK * n_users // max(n_rows, 1)))
    per_chunk = min(per_chunk, max(n_users, 1))  # a small split gets a table of its own size
    if per_chunk * n_items > _TABLE_MAX or len(tkeys) == 0:
        return _join(pkeys, tkeys, tscores, n_users + 1, n_items)
    if order is None and run_lengths is not None:
        n_listed = run_lengths
    else:
        n_listed = np.bincount(pcode, minlength=n_users)
    row_offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_listed, out=row_offsets[1:])
    return _join_dense(pkeys, row_offsets, tkeys, tscores, n_items, per_chunk)


def _join_dense(pkeys: NDArray[np.int64], row_offsets: NDArray[np.int64], tkeys: NDArray[np.int64],
                tscores: NDArray[np.float64], n_items: int, per_chunk: int) -> NDArray[np.float64] | None:
    """:func:`_join` for rows grouped by user in code order, without sorting them.

    Users are taken ``per_chunk`` at a time; within a chunk a key less the chunk's first key
    is a slot of a table of ``per_chunk * n_items`` entries. The chunk's truth scores are
    written to their slots of a table of NaN, every listed row reads its slot (NaN: not
    rated; truth scores are finite), and the truth slots are set back to NaN. Repeated pred
    keys are found with a second table: each row writes its own number to its slot and reads
    the slot back; a row whose slot holds another number shares its key with that row,
    whichever write numpy kept, and a number left by an earlier chunk is never a row of this
    one. Exact, with no sort: a few passes over the rows, the table accesses staying within
    one chunk's slots.
    """
    n_users = len(row_offsets) - 1
    n_rows = len(pkeys)
    user_bounds = np.append(np.arange(0, n_users, per_chunk, dtype=np.int64), n_users)
    row_bounds = row_offsets[user_bounds].tolist()
    truth_bounds = np.searchsorted(tkeys, user_bounds * n_items).tolist()
    score_at = np.full(per_chunk * n_items, np.nan)
    row_type = np.int32 if n_rows < 2**31 else np.int64  # half the memory traffic of int64
    row_at = np.empty(per_chunk * n_items, dtype=row_type)
    out = np.empty(n_rows)
    for chunk, first_user in enumerate(user_bounds[:-1].tolist()):
        a, b = row_bounds[chunk], row_bounds[chunk + 1]
        if a == b:
            continue
        base = first_user * n_items
        slots = pkeys[a:b] - base
        rows = np.arange(a, b, dtype=row_type)
        row_at[slots] = rows
        if not np.array_equal(row_at[slots], rows):
            return None
        ta, tb = truth_bounds[chunk], truth_bounds[chunk + 1]
        truth_slots = tkeys[ta:tb] - base
        score_at[truth_slots] = tscores[ta:tb]
        np.take(score_at, slots, out=out[a:b])
        score_at[truth_slots] = np.nan
    return out


@dataclass(eq=False)
class _Truth:
    """Per-user truth data of the evaluated users, shared by every view of one split."""

    user_ids: NDArray[Any]                 # caller's ids of evaluated users, in list order
    n_truth: NDArray[np.int64]
    truth_offsets: NDArray[np.int64]       # segments of truth_values
    truth_values: NDArray[np.float64]      # truth scores grouped by user (unsorted within)
    truth_mean: NDArray[np.float64]        # mean truth score, clamped into [min, max]
    missing_user_ids: NDArray[Any]         # truth users without a list
    pred_only_user_ids: NDArray[Any]       # pred users without truth
    truth_max: float = float("nan")        # largest score of the whole truth frame (every user)
    n_relevant: dict[float | None, tuple[NDArray[np.int64], NDArray[np.float64]]] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict)

    def relevance(self, key: float | None) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(n_relevant, threshold) per user for a threshold (None: each user's mean)."""
        if key not in self.n_relevant:
            if key is None:
                threshold = self.truth_mean
                relevant = self.truth_values >= np.repeat(threshold, self.n_truth)
            else:
                threshold = np.full(len(self.user_ids), key)
                relevant = self.truth_values >= key
            n_relevant = np.add.reduceat(relevant.astype(np.int64), self.truth_offsets[:-1]) \
                if len(relevant) else np.zeros(len(self.user_ids), dtype=np.int64)
            self.n_relevant[key] = (n_relevant, threshold)
        return self.n_relevant[key]


@dataclass(eq=False)
class _Core:
    """Listed rows (all of them, or the first k of each list) and the shared truth data."""

    truth: _Truth
    offsets: NDArray[np.int64]             # segment starts, length n_users + 1
    truth_score: NDArray[np.float64]       # NaN where the listed item has no truth score
    pred_score: NDArray[np.float64]        # score column, or -position without one
    has_pred_score: bool
    item_codes: NDArray[np.signedinteger[Any]]  # item code of every pred row, in pred's row order
    item_uniques: NDArray[Any]             # the caller's item id of every code
    item_rows: NDArray[np.int64] | None    # pred rows in list order (None: as is)
    relevant: dict[float | None, NDArray[np.bool_]] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)

    def positions(self) -> NDArray[np.int32]:
        """1-based position of each listed row (built on first use: @k metrics read the head's)."""
        if "position" not in self.cache:
            self.cache["position"] = seg.segment_positions(self.offsets)
        return self.cache["position"]  # type: ignore[no-any-return]

    def user_of_row(self) -> NDArray[np.int32]:
        if "user_of_row" not in self.cache:
            self.cache["user_of_row"] = seg.segment_ids(self.offsets)
        return self.cache["user_of_row"]  # type: ignore[no-any-return]

    def judged_rows(self) -> NDArray[np.int64]:
        """Indices of the rows whose item has a truth score (the only rows with a gain)."""
        if "judged_rows" not in self.cache:
            self.cache["judged_rows"] = np.flatnonzero(~np.isnan(self.truth_score))
        return self.cache["judged_rows"]  # type: ignore[no-any-return]

    def relevant_rows(self, key: float | None) -> NDArray[np.bool_]:
        if key not in self.relevant:
            threshold = self.truth.relevance(key)[1]
            with np.errstate(invalid="ignore"):
                if key is None:
                    judged = self.judged_rows()
                    rows = np.zeros(len(self.truth_score), dtype=bool)
                    rows[judged] = self.truth_score[judged] >= threshold[self.user_of_row()[judged]]
                else:
                    rows = self.truth_score >= key  # NaN (unjudged) compares False
            self.relevant[key] = rows
        return self.relevant[key]

    def head(self, k: int) -> _Core:
        """The first ``k`` rows of every list, sharing the truth data (cached per k)."""
        key = ("head", k)
        if key not in self.cache:
            n_listed = np.diff(self.offsets)
            if int(n_listed.max(initial=0)) <= k:
                self.cache[key] = self
            else:
                n_kept = np.minimum(n_listed, k)
                offsets = np.zeros(len(self.offsets), dtype=np.int64)
                np.cumsum(n_kept, out=offsets[1:])
                position = seg.segment_positions(offsets)
                rows = np.repeat(self.offsets[:-1], n_kept)  # from the segments: no scan of every row
                rows += position
                rows -= 1
                head = _Core(
                    truth=self.truth, offsets=offsets,
                    truth_score=self.truth_score[rows], pred_score=self.pred_score[rows],
                    has_pred_score=self.has_pred_score, item_codes=self.item_codes,
                    item_uniques=self.item_uniques,
                    item_rows=rows if self.item_rows is None else self.item_rows[rows])
                head.cache["position"] = position
                self.cache[key] = head
        return self.cache[key]  # type: ignore[no-any-return]


class RankedLists:
    """Every evaluated user's ranked list, joined to truth, as contiguous segments.

    Users are those present in both ``pred`` and ``truth``, in the order they first
    appear in ``pred``. Rows of a user are contiguous and in list order, and lists are
    never cut at ``k``: a metric applies ``position <= k`` itself.

    Attributes
    ----------
    user_ids : ndarray
        The caller's user ids, one per evaluated user.
    offsets : ndarray of int64, shape (n_users + 1,)
        User ``u`` owns rows ``offsets[u]:offsets[u + 1]``.
    position : ndarray of int32
        1-based position of each row in its list.
    item_ids : ndarray
        The caller's item id of each row.
    pred_score : ndarray of float64
        Predicted score of each row; ``-position`` when ``pred`` has no score column.
    truth_score : ndarray of float64
        Truth score of each listed item, NaN when the user did not rate it (unjudged).
    relevant : ndarray of bool
        ``truth_score >= threshold`` of the row's user (False when unjudged).
    n_listed, n_truth, n_relevant : ndarray of int64
        Per user: listed items, truth items, relevant truth items (listed or not).
    threshold : ndarray of float64
        Per user relevance threshold of this view.
    """

    __slots__ = ("_core", "relevant_threshold")

    def __init__(self, core: _Core, relevant_threshold: float | None = None) -> None:
        self._core = core
        self.relevant_threshold = relevant_threshold

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, pred: pd.DataFrame, truth: pd.DataFrame, columns: Columns = Columns(),
              ties: Ties = "row_order") -> RankedLists:
        """Join ``pred`` to ``truth``; both frames must already be validated by :class:`~rankeval.Split`.

        Raises ``ValueError`` for what only the join can see: duplicate (user, item) pairs,
        duplicate ranks within a user, or no user common to both frames.
        """
        c = columns
        # ids become integer codes; factorizing also finds missing ids (code -1) for free
        pu = _keys.id_values(pred[c.user])
        pcode, users, grouped, run_lengths = _factorize_grouped(pu)
        if grouped and pd.isna(users).any():
            reject_missing_ids(pred, "pred", c.user)
        reject_missing_ids(pred, "pred", c.user, pcode < 0)
        n_users_all = len(users)
        picode, pitems, ticode, n_items = _item_codes(pred, truth, c.item)

        # truth users in the same code space; users absent from pred get codes of their own
        tu = _keys.id_values(truth[c.user])
        # dtype kept: an Index of Python strings would otherwise be copied into Arrow by pandas 3
        tcode, tusers = _keys.codes_in(pd.Index(users, dtype=users.dtype), tu)
        # ids that can never match (numbers in one frame, text in the other) would give every
        # user a silent zero: refuse them before anything is computed
        check_id_kinds(pred, truth, c.user, users, tusers)
        tcode_ext = _extend_codes(tcode, tu, n_users_all)
        reject_missing_ids(truth, "truth", c.user, tcode_ext < 0)

        users_in_order = bool(np.all(tcode_ext[1:] >= tcode_ext[:-1]))  # truth grouped by user, as pred
        tkeys, t_rows = _keys.sorted_with_rows(tcode_ext * n_items + ticode, in_runs=users_in_order)
        if np.any(tkeys[1:] == tkeys[:-1]):
            reject_duplicate_pairs(truth, "truth", c.user, c.item,
                                   pd.Series(tcode_ext * n_items + ticode).duplicated(keep=False).to_numpy())
        ts_all = truth[c.score].to_numpy(dtype=np.float64)

        # list order first: the join then reads every list in order, user after user
        order = cls._list_order(pred, c, ties, pcode, picode, pitems, grouped)
        truth_score = _join_in_list_order(pcode, picode, order, run_lengths if grouped else None,
                                          n_users_all, n_items, tkeys, ts_all[t_rows])
        if truth_score is None:
            pkeys = pcode.astype(np.int64) * n_items + picode
            reject_duplicate_pairs(pred, "pred", c.user, c.item, pd.Series(pkeys).duplicated(keep=False).to_numpy())
        del tkeys, t_rows
        assert truth_score is not None

        # users: evaluated = listed and rated
        in_pred = tcode >= 0
        n_truth_all = np.bincount(tcode[in_pred], minlength=n_users_all).astype(np.int64)
        evaluated = n_truth_all > 0
        if not evaluated.any():
            raise ValueError(
                f"no user of `pred` appears in `truth` (pred has {n_users_all} users, e.g. "
                f"{users[:3].tolist()}; truth has e.g. {tusers[:3].tolist()}); check that "
                f"both `{c.user}` columns hold the same ids with the same dtype")
        missing_user_ids = _keys.plain(pd.unique(tu[~in_pred]))
        pred_only_user_ids = users[~evaluated]

        if order is not None:
            pcode = pcode[order]
        pred_score, has_score = cls._pred_scores(pred, c, order)

        # keep evaluated users only, renumbered 0..n-1 in first-appearance order
        if not evaluated.all():
            keep_rows = evaluated[pcode]
            renumber = np.cumsum(evaluated) - 1
            pcode = renumber[pcode[keep_rows]].astype(pcode.dtype, copy=False)
            truth_score = truth_score[keep_rows]
            if pred_score is not None:
                pred_score = pred_score[keep_rows]
            rows = np.flatnonzero(keep_rows)
            item_rows = rows if order is None else order[rows]
        else:
            renumber = None
            item_rows = order
        user_ids = users[evaluated]
        n_users = len(user_ids)
        if grouped and order is None and renumber is None:
            n_listed = run_lengths
        else:
            n_listed = np.bincount(pcode, minlength=n_users).astype(np.int64)
        offsets = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(n_listed, out=offsets[1:])
        position = None
        if pred_score is None:
            position = seg.segment_positions(offsets)
            pred_score = -position.astype(np.float64)

        # truth rows of evaluated users, grouped by user: per-user counts, mean, ideal gains
        t_keep = np.flatnonzero(in_pred & evaluated[np.maximum(tcode, 0)])
        t_user = tcode[t_keep] if renumber is None else renumber[tcode[t_keep]]
        t_group = _keys.lexsort([t_user]) if np.any(t_user[1:] < t_user[:-1]) else slice(None)
        truth_values = ts_all[t_keep[t_group]]
        n_truth = np.bincount(t_user, minlength=n_users).astype(np.int64)
        truth_offsets = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(n_truth, out=truth_offsets[1:])
        mean = _exact_mean_threshold(truth_values, truth_offsets, n_truth)

        truth_data = _Truth(
            user_ids=user_ids, n_truth=n_truth, truth_offsets=truth_offsets, truth_values=truth_values,
            truth_mean=mean, missing_user_ids=missing_user_ids, pred_only_user_ids=pred_only_user_ids,
            truth_max=float(ts_all.max()))
        core = _Core(
            truth=truth_data, offsets=offsets, truth_score=truth_score,
            pred_score=pred_score, has_pred_score=has_score, item_codes=picode, item_uniques=pitems,
            item_rows=item_rows)
        if position is not None:
            core.cache["position"] = position
        return cls(core)

    @staticmethod
    def _list_order(pred: pd.DataFrame, c: Columns, ties: Ties, pcode: NDArray[np.integer],
                    picode: NDArray[np.integer], pitems: NDArray[Any], grouped: bool) -> NDArray[np.int64] | None:
        """Row permutation that puts every list in order, or None when it already is."""
        n = len(pcode)
        boundary = np.zeros(max(n - 1, 0), dtype=bool)  # True between two users' rows
        if n > 1:
            np.not_equal(pcode[1:], pcode[:-1], out=boundary)

        if c.rank in pred.columns:
            rank = pred[c.rank].to_numpy(dtype=np.float64)
            if grouped and bool(np.all((rank[1:] > rank[:-1]) | boundary)):
                return None
            order = _keys.lexsort([_ascending_key(rank), pcode])
            r, u = rank[order], pcode[order]
            dup = (r[1:] == r[:-1]) & (u[1:] == u[:-1])
            if dup.any():
                at = np.flatnonzero(dup)[0]
                mask = np.zeros(len(pred), dtype=bool)
                mask[order[[at, at + 1]]] = True
                raise ValueError(
                    f"`pred`['{c.rank}'] repeats rank {r[at]:g} for {c.user}="
                    f"{show(pred[c.user].iloc[order[at]])} {where(pred, mask)} "
                    f"({int(dup.sum())} repeated ranks in all); ranks must be distinct within a user")
            return order

        if c.score in pred.columns:
            score = pred[c.score].to_numpy(dtype=np.float64)
            descending = score[1:] <= score[:-1]
            if ties == "row_order":
                if grouped and bool(np.all(descending | boundary)):
                    return None
                return _keys.lexsort([_keys.descending_float_key(score), pcode])
            if grouped and bool(np.all(descending | boundary)):
                tied = np.flatnonzero((score[1:] == score[:-1]) & ~boundary)
                if len(tied) == 0:
                    return None  # distinct scores: the tie rule changes nothing
                key = _item_sort_key(pitems, ties)
                if bool(np.all(key[picode[tied + 1]] > key[picode[tied]])):
                    return None
            return _keys.lexsort([_item_sort_key(pitems, ties)[picode], _keys.descending_float_key(score), pcode])

        return None if grouped else _keys.lexsort([pcode])

    @staticmethod
    def _pred_scores(pred: pd.DataFrame, c: Columns,
                     order: NDArray[np.int64] | None) -> tuple[NDArray[np.float64] | None, bool]:
        if c.score in pred.columns:
            values = pred[c.score].to_numpy(dtype=np.float64)
            has = True
        else:
            # ranks only order a list (1, 3, 7 are positions 1, 2, 3): -position stands in
            return None, False
        return (values if order is None else values[order]), has

    # ------------------------------------------------------------------ views
    def for_threshold(self, relevant_threshold: float | None) -> RankedLists:
        """A view sharing every array, whose relevance follows ``relevant_threshold``."""
        return RankedLists(self._core, relevant_threshold)

    def head(self, k: int | None) -> RankedLists:
        """A view of the first ``k`` rows of every list (all rows when ``k`` is None).

        Per-user truth data (``n_truth``, ``n_relevant``, ``threshold``, truth values) are
        the full lists'; only the rows are cut, so a metric that applies
        ``position <= k`` itself gets the same values on either, faster on the head.
        """
        if k is None:
            return self
        return RankedLists(self._core.head(k), self.relevant_threshold)

    # ------------------------------------------------------------------ per row
    @property
    def n_users(self) -> int:
        return len(self._core.truth.user_ids)

    @property
    def n_rows(self) -> int:
        return len(self._core.truth_score)

    @property
    def user_ids(self) -> NDArray[Any]:
        return _read_only(self._core.truth.user_ids)

    @property
    def offsets(self) -> NDArray[np.int64]:
        return _read_only(self._core.offsets)

    @property
    def position(self) -> NDArray[np.int32]:
        return _read_only(self._core.positions())

    @property
    def truth_score(self) -> NDArray[np.float64]:
        return _read_only(self._core.truth_score)

    @property
    def pred_score(self) -> NDArray[np.float64]:
        return _read_only(self._core.pred_score)

    @property
    def has_pred_score(self) -> bool:
        """Whether ``pred_score`` comes from a score column (else it is ``-position``)."""
        return self._core.has_pred_score

    @property
    def item_ids(self) -> NDArray[Any]:
        core = self._core
        if "item_ids" not in core.cache:
            codes = core.item_codes if core.item_rows is None else core.item_codes[core.item_rows]
            core.cache["item_ids"] = _read_only(core.item_uniques[codes])
        return core.cache["item_ids"]  # type: ignore[no-any-return]

    @property
    def judged_rows(self) -> NDArray[np.int64]:
        """Indices of the rows whose item has a truth score, ascending (cached)."""
        return _read_only(self._core.judged_rows())

    @property
    def judged(self) -> NDArray[np.bool_]:
        """Whether each listed item has a truth score."""
        core = self._core
        if "judged" not in core.cache:
            core.cache["judged"] = ~np.isnan(core.truth_score)
        return _read_only(core.cache["judged"])  # type: ignore[no-any-return]

    @property
    def user_of_row(self) -> NDArray[np.int32]:
        """Index (0..n_users-1) of the user owning each row."""
        return _read_only(self._core.user_of_row())

    @property
    def relevant(self) -> NDArray[np.bool_]:
        return _read_only(self._core.relevant_rows(self.relevant_threshold))

    # ------------------------------------------------------------------ per user
    @property
    def n_listed(self) -> NDArray[np.int64]:
        return _read_only(np.diff(self._core.offsets))

    @property
    def n_truth(self) -> NDArray[np.int64]:
        return _read_only(self._core.truth.n_truth)

    @property
    def n_relevant(self) -> NDArray[np.int64]:
        return _read_only(self._core.truth.relevance(self.relevant_threshold)[0])

    @property
    def threshold(self) -> NDArray[np.float64]:
        return _read_only(self._core.truth.relevance(self.relevant_threshold)[1])

    @property
    def truth_offsets(self) -> NDArray[np.int64]:
        """Segments of ``truth_values``: user ``u``'s truth rows are ``truth_offsets[u]:truth_offsets[u+1]``."""
        return _read_only(self._core.truth.truth_offsets)

    @property
    def truth_values(self) -> NDArray[np.float64]:
        """Truth scores of the evaluated users, grouped by user (in no particular order within a user)."""
        return _read_only(self._core.truth.truth_values)

    def ideal_scores(self) -> NDArray[np.float64]:
        """Each user's truth scores sorted descending, segmented by ``truth_offsets``."""
        truth = self._core.truth
        if "ideal" not in truth.cache:
            order = seg.segment_argsort(truth.truth_values, truth.truth_offsets, descending=True)
            truth.cache["ideal"] = truth.truth_values[order]
        return _read_only(truth.cache["ideal"])  # type: ignore[no-any-return]

    @property
    def truth_score_max(self) -> float:
        """The largest score of the split's whole ``truth`` frame, users without a list included."""
        return self._core.truth.truth_max

    @property
    def missing_user_ids(self) -> NDArray[Any]:
        """Truth users without a recommendation list (not evaluated)."""
        return _read_only(self._core.truth.missing_user_ids)

    @property
    def pred_only_user_ids(self) -> NDArray[Any]:
        """Pred users without any truth rating (not evaluated)."""
        return _read_only(self._core.truth.pred_only_user_ids)

    # ------------------------------------------------------------------ segment helpers
    def segment_sum(self, x: Any) -> NDArray[np.float64]:
        """Per user sum of a per-row array."""
        return seg.segment_sum(x, self._core.offsets)

    def segment_cumsum(self, x: Any) -> NDArray[Any]:
        """Per row inclusive cumulative sum, restarting at each user."""
        return seg.segment_cumsum(x, self._core.offsets)

    def segment_first(self, mask: Any) -> NDArray[np.int64]:
        """Per user 1-based position of the first True row, 0 if none."""
        return seg.segment_first(mask, self._core.offsets)

    def __repr__(self) -> str:
        thr = "user mean" if self.relevant_threshold is None else f"{self.relevant_threshold:g}"
        return f"RankedLists(n_users={self.n_users}, n_rows={self.n_rows}, threshold={thr})"


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    """The array, marked read-only: a metric writing into shared lists (or, through a view,
    into the caller's frame) gets an error instead of corrupting every later metric."""
    array.flags.writeable = False
    return array


def _exact_mean_threshold(values: NDArray[np.float64], offsets: NDArray[np.int64],
                          counts: NDArray[np.int64]) -> NDArray[np.float64]:
    """Each user's mean truth score, as a threshold that decides ``score >= mean`` exactly.

    A float sum depends on the order of its terms, so a score within rounding of the
    mean could be relevant or not depending on the truth frame's row order (and a user
    rating three items 0.1 would have a mean of 0.10000000000000002: nothing relevant).
    Sums of integers and halves are exact in any order. For the other users, every score
    is compared with the exact mean in integer arithmetic (:func:`_at_or_above_mean`, all
    users at once) and the threshold becomes the smallest score at or above it.
    """
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


def _ascending_key(rank: NDArray[np.float64]) -> NDArray[Any]:
    """Validated ranks (integers >= 1) as integers, or as sortable float bits when too large for int64."""
    if len(rank) and rank.max() >= 2.0 ** 62:
        return _keys.descending_float_key(-rank)
    return rank.astype(np.int64)


def _item_sort_key(pitems: NDArray[Any], ties: Ties) -> NDArray[np.int64]:
    """Rank of every distinct item id in the order ``ties`` breaks score ties."""
    if ties == "item_id_desc":
        # trec_eval compares document numbers as strings, from the highest down
        as_text = np.asarray([str(x) for x in pitems], dtype=object)
        order = np.argsort(as_text, kind="stable")[::-1]
    else:
        try:
            order = np.argsort(np.asarray(pitems), kind="stable")
        except TypeError as exc:
            raise ValueError(
                f"`pred` item ids of mixed types cannot be ordered for ties='item_id': {exc}") from exc
    key = np.empty(len(pitems), dtype=np.int64)
    key[order] = np.arange(len(pitems))
    return key
