"""The stages of :meth:`RankedLists.build <rankeval.data.RankedLists.build>`: ids to codes, the join, the
evaluated users, their rows in list order, and their truth data (:class:`Truth`, shared by every view of a split).

Kept apart from :mod:`rankeval.data._ranked` so that the class metrics read stays short; each stage is one
function whose result is a frozen record the next stage reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from . import _keys
from . import _segments as seg
from ._columns import Columns
from ._join import factorize_grouped, item_codes, join_in_list_order
from ._list_order import Ties, list_order, ordered_scores, rank_like_users
from ._mean_threshold import exact_mean_threshold
from ._truth_codes import TruthCodes, truth_users_in
from ._validation import check_id_kinds, reject_duplicate_pairs, reject_missing_ids

__all__ = ["Truth", "IdCodes", "code_ids", "join_listed_rows", "Users", "evaluated_users", "Rows",
           "rows_of_evaluated", "truth_of_evaluated"]


@dataclass(eq=False)
class Truth:
    """Per-user truth data of the evaluated users, shared by every view of one split."""

    user_ids: NDArray[Any]                 # caller's ids of evaluated users, in list order
    n_truth: NDArray[np.int64]
    truth_offsets: NDArray[np.int64]       # segments of truth_values
    truth_values: NDArray[np.float64]      # truth scores grouped by user (unsorted within)
    truth_mean: NDArray[np.float64]        # mean truth score, clamped into [min, max]
    missing_user_ids: NDArray[Any]         # truth users without a list
    pred_only_user_ids: NDArray[Any]       # pred users without truth
    item_codes: NDArray[np.int64]          # item code of each truth value (past pred's: truth_only_items)
    truth_only_items: NDArray[Any]         # ids of the items no list holds, in code order
    unlisted_truth_rows: NDArray[np.int64]  # truth rows of the users without a list
    unevaluated_pred_rows: NDArray[np.int64]  # pred rows of the users without truth
    truth_max: float = float("nan")        # largest score of the whole truth frame (every user)
    score_order: str = "descending"        # how pred's score column was read (pred_score: higher is better)
    rank_like_users: int = 0               # pred users, when every one's scores are exactly 1..n_u
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



@dataclass(frozen=True)
class IdCodes:
    """The user and item ids of both frames as integer codes, one code space per column."""

    pred_user_codes: NDArray[np.signedinteger[Any]]  # user code of every pred row, in pred's row order
    pred_users: NDArray[Any]                         # pred's distinct user ids, in code order
    grouped: bool                                    # pred lists each user's rows together
    run_lengths: NDArray[np.int64] | None            # rows of every user; None unless grouped
    pred_item_codes: NDArray[np.signedinteger[Any]]  # item code of every pred row, in pred's row order
    pred_items: NDArray[Any]                         # pred's distinct item ids, in code order
    truth_item_codes: NDArray[np.int64]              # truth-only items numbered after pred's
    truth_only_items: NDArray[Any]                   # their ids, in code order
    n_items: int
    truth_user_values: NDArray[Any] | ExtensionArray  # truth's user ids, as hashed
    truth_users: NDArray[Any]                        # truth's distinct user ids
    truth_user_codes: NDArray[np.intp]               # code of every truth row's user, -1 when not in pred
    truth_user_codes_all: NDArray[np.int64]          # the same, users absent from pred numbered after pred's


def code_ids(pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, coded: TruthCodes | None = None) -> IdCodes:
    """Codes of every id of both frames; missing ids and ids of kinds that never match are refused.
    ``coded``: the truth's ids hashed once already (the codes are the same)."""
    # ids become integer codes; factorizing also finds missing ids (code -1) for free
    pred_user_values = _keys.id_values(pred[c.user])
    pred_user_codes, pred_users, grouped, run_lengths = factorize_grouped(pred_user_values)
    if grouped and pd.isna(pred_users).any():
        reject_missing_ids(pred, "pred", c.user)
    reject_missing_ids(pred, "pred", c.user, pred_user_codes < 0)
    pred_item_codes, pred_items, truth_item_codes, truth_only_items = (
        item_codes(pred, truth, c.item, c.truth_item) if coded is None else coded.item_codes(pred, c))

    # truth users in the same code space; users absent from pred get codes of their own
    users = (truth_users_in(pred_users, truth, c) if coded is None
             else coded.users_in(pred_users, pred_user_values, run_lengths))
    # ids that can never match (numbers in one frame, text in the other) would give every
    # user a silent zero: refuse them before anything is computed
    check_id_kinds(pred, truth, c.user, pred_users, users.uniques, other_column=c.truth_user)
    reject_missing_ids(truth, "truth", c.truth_user, users.codes_all < 0)
    return IdCodes(
        pred_user_codes=pred_user_codes, pred_users=pred_users, grouped=grouped, run_lengths=run_lengths,
        pred_item_codes=pred_item_codes, pred_items=pred_items, truth_item_codes=truth_item_codes,
        truth_only_items=truth_only_items, n_items=len(pred_items) + len(truth_only_items),
        truth_user_values=users.values, truth_users=users.uniques,
        truth_user_codes=users.codes, truth_user_codes_all=users.codes_all)


def join_listed_rows(pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, ties: Ties, codes: IdCodes,
                      all_truth_scores: NDArray[np.float64]
                      ) -> tuple[NDArray[np.int64] | None, NDArray[np.float64]]:
    """The row order that puts every list in order (None: as is), and the truth score of every
    row in that order (NaN: not rated); repeated (user, item) pairs are refused."""
    n_items = codes.n_items
    truth_user_codes = codes.truth_user_codes_all
    users_in_order = bool(np.all(truth_user_codes[1:] >= truth_user_codes[:-1]))  # truth grouped by user, as pred
    truth_keys, truth_rows = _keys.sorted_with_rows(truth_user_codes * n_items + codes.truth_item_codes,
                                                    in_runs=users_in_order)
    if np.any(truth_keys[1:] == truth_keys[:-1]):
        reject_duplicate_pairs(truth, "truth", c.truth_user, c.truth_item, pd.Series(
            truth_user_codes * n_items + codes.truth_item_codes).duplicated(keep=False).to_numpy())

    # list order first: the join then reads every list in order, user after user
    order = list_order(pred, c.user, c.rank, c.score, ties, codes.pred_user_codes, codes.pred_item_codes,
                       codes.pred_items, codes.grouped, c.ascending)
    truth_score = join_in_list_order(codes.pred_user_codes, codes.pred_item_codes, order,
                                     codes.run_lengths, len(codes.pred_users),
                                     n_items, truth_keys, all_truth_scores[truth_rows])
    if truth_score is None:
        pred_keys = codes.pred_user_codes.astype(np.int64) * n_items + codes.pred_item_codes
        reject_duplicate_pairs(pred, "pred", c.user, c.item, pd.Series(pred_keys).duplicated(keep=False).to_numpy())
    assert truth_score is not None
    return order, truth_score


@dataclass(frozen=True)
class Users:
    """Which users are evaluated (listed and rated), and which are not."""

    truth_user_in_pred: NDArray[np.bool_]  # per truth row: whether its user has a list
    evaluated: NDArray[np.bool_]           # per pred user (code): listed and rated
    missing_user_ids: NDArray[Any]         # truth users without a list
    pred_only_user_ids: NDArray[Any]       # pred users without truth


def evaluated_users(codes: IdCodes, c: Columns) -> Users:
    """The users of both frames (a ValueError when they share none)."""
    # users: evaluated = listed and rated
    in_pred = codes.truth_user_codes >= 0
    n_pred_users = len(codes.pred_users)
    n_truth_all = np.bincount(codes.truth_user_codes[in_pred], minlength=n_pred_users).astype(np.int64)
    evaluated = n_truth_all > 0
    if not evaluated.any():
        raise ValueError(
            f"no user of `pred` appears in `truth` (pred has {n_pred_users} users, e.g. "
            f"{codes.pred_users[:3].tolist()}; truth has e.g. {codes.truth_users[:3].tolist()}); check that "
            f"`pred`['{c.user}'] and `truth`['{c.truth_user}'] hold the same ids with the same dtype")
    return Users(truth_user_in_pred=in_pred, evaluated=evaluated,
                  missing_user_ids=_keys.plain(pd.unique(codes.truth_user_values[~in_pred])),
                  pred_only_user_ids=codes.pred_users[~evaluated])


@dataclass(frozen=True)
class Rows:
    """The listed rows of the evaluated users, user after user, each list in order."""

    offsets: NDArray[np.int64]
    truth_score: NDArray[np.float64]
    pred_score: NDArray[np.float64]
    has_pred_score: bool
    item_rows: NDArray[np.int64] | None    # pred rows in list order (None: as is)
    renumber: NDArray[np.int64] | None     # new code of every pred user (None: codes unchanged)
    dropped: NDArray[np.int64]             # pred rows of users without truth, ascending
    position: NDArray[np.int32] | None     # 1-based positions, when they were needed already
    rank_like_users: int = 0               # pred users, when every one's scores are exactly 1..n_u


def rows_of_evaluated(pred: pd.DataFrame, c: Columns, codes: IdCodes, evaluated: NDArray[np.bool_],
                       order: NDArray[np.int64] | None, truth_score: NDArray[np.float64]) -> Rows:
    """The rows of the evaluated users (renumbered 0..n-1 in first-appearance order) and their segments."""
    user_codes = codes.pred_user_codes if order is None else codes.pred_user_codes[order]
    pred_score, has_score = ordered_scores(pred, c, order)
    rank_like = rank_like_users(pred, c, len(codes.pred_users), order, user_codes, pred_score)

    # keep evaluated users only, renumbered 0..n-1 in first-appearance order
    renumber: NDArray[np.int64] | None
    item_rows: NDArray[np.int64] | None
    if not evaluated.all():
        keep_rows = evaluated[user_codes]
        renumber = np.cumsum(evaluated) - 1
        user_codes = renumber[user_codes[keep_rows]].astype(user_codes.dtype, copy=False)
        truth_score = truth_score[keep_rows]
        if pred_score is not None:
            pred_score = pred_score[keep_rows]
        rows = np.flatnonzero(keep_rows)
        item_rows = rows if order is None else order[rows]
        dropped = np.flatnonzero(~keep_rows)
        dropped = np.sort(dropped if order is None else order[dropped])
    else:
        renumber = None
        item_rows = order
        dropped = np.zeros(0, dtype=np.int64)
    n_users = int(np.count_nonzero(evaluated))
    if codes.run_lengths is not None and order is None and renumber is None:  # grouped, all kept
        n_listed = codes.run_lengths
    else:
        n_listed = np.bincount(user_codes, minlength=n_users).astype(np.int64)
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_listed, out=offsets[1:])
    position = None
    if pred_score is None:
        position = seg.segment_positions(offsets)
        pred_score = -position.astype(np.float64)
    return Rows(offsets=offsets, truth_score=truth_score, pred_score=pred_score, has_pred_score=has_score,
                 item_rows=item_rows, renumber=renumber, dropped=dropped, position=position, rank_like_users=rank_like)


def truth_of_evaluated(codes: IdCodes, users: Users, rows: Rows, all_truth_scores: NDArray[np.float64]
                        ) -> Truth:
    """The truth data of the evaluated users, shared by every view of the split."""
    user_ids = codes.pred_users[users.evaluated]
    n_users = len(user_ids)
    # truth rows of evaluated users, grouped by user: per-user counts, mean, ideal gains
    truth_user_codes, renumber = codes.truth_user_codes, rows.renumber
    kept_rows = np.flatnonzero(users.truth_user_in_pred & users.evaluated[np.maximum(truth_user_codes, 0)])
    kept_users = truth_user_codes[kept_rows] if renumber is None else renumber[truth_user_codes[kept_rows]]
    by_user = _keys.lexsort([kept_users]) if np.any(kept_users[1:] < kept_users[:-1]) else slice(None)
    kept_rows = kept_rows[by_user]
    truth_values = all_truth_scores[kept_rows]
    n_truth = np.bincount(kept_users, minlength=n_users).astype(np.int64)
    truth_offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_truth, out=truth_offsets[1:])
    mean = exact_mean_threshold(truth_values, truth_offsets, n_truth)
    return Truth(user_ids=user_ids, n_truth=n_truth, truth_offsets=truth_offsets, truth_values=truth_values,
                  truth_mean=mean, missing_user_ids=users.missing_user_ids,
                  pred_only_user_ids=users.pred_only_user_ids, truth_max=float(all_truth_scores.max()),
                  rank_like_users=rows.rank_like_users, truth_only_items=codes.truth_only_items,
                  item_codes=codes.truth_item_codes[kept_rows].astype(_keys.code_dtype(codes.n_items)),
                  unlisted_truth_rows=np.flatnonzero(~users.truth_user_in_pred), unevaluated_pred_rows=rows.dropped)
