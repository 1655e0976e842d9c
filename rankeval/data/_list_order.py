"""The order of every recommendation list: by rank, else by score with a tie rule, else as listed.

:func:`list_order` gives the row permutation that puts each user's rows together, in list
order, or None when the rows already are (most prediction files), so that the join and
every metric then read the lists user after user without a sort.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from . import _keys
from ._columns import Columns
from ._validation import show, where

__all__ = ["Ties", "MIN_LONG_LISTS", "list_order", "preferences", "ordered_scores", "rank_like_count",
           "rank_like_users"]

Ties = Literal["row_order", "item_id", "item_id_desc"]
#: RanksAsScoresWarning needs this many lists of 2+ items: a list of one item reads the same
#: either way, and one list alone (a user's predicted ratings 1..5) is too little evidence
MIN_LONG_LISTS = 2


def list_order(pred: pd.DataFrame, user_col: str, rank_col: str, score_col: str, ties: Ties,
               user_codes: NDArray[np.integer], item_codes: NDArray[np.integer], items: NDArray[Any],
               grouped: bool, ascending: bool = False) -> NDArray[np.int64] | None:
    """Row permutation that puts every list in order, or None when it already is.

    ``user_codes`` and ``item_codes`` are the codes of ``pred``'s rows, ``items`` the item id
    of every item code, ``grouped`` whether each user's rows are already together, users in
    code order. ``ascending``: lower scores come first (``score_order="ascending"``); the
    scores are negated (exactly) and ordered as higher-is-better ones, so ties meet the same
    rule in either direction.
    """
    n = len(user_codes)
    boundary = np.zeros(max(n - 1, 0), dtype=bool)  # True between two users' rows
    if n > 1:
        np.not_equal(user_codes[1:], user_codes[:-1], out=boundary)

    if rank_col in pred.columns:
        rank = _rank_values(pred[rank_col])
        if grouped and bool(np.all((rank[1:] > rank[:-1]) | boundary)):
            return None
        order = _keys.lexsort([_ascending_key(rank), user_codes])
        ordered_rank, ordered_user = rank[order], user_codes[order]
        dup = (ordered_rank[1:] == ordered_rank[:-1]) & (ordered_user[1:] == ordered_user[:-1])
        if dup.any():
            at = np.flatnonzero(dup)[0]
            mask = np.zeros(len(pred), dtype=bool)
            mask[order[[at, at + 1]]] = True
            raise ValueError(
                f"`pred`['{rank_col}'] repeats rank {ordered_rank[at]:g} for {user_col}="
                f"{show(pred[user_col].iloc[order[at]])} {where(pred, mask)} "
                f"({int(dup.sum())} repeated ranks in all); ranks must be distinct within a user")
        return order

    if score_col in pred.columns:
        score = preferences(pred, score_col, ascending)
        descending = score[1:] <= score[:-1]
        if ties == "row_order":
            if grouped and bool(np.all(descending | boundary)):
                return None
            return _keys.lexsort([_keys.descending_float_key(score), user_codes])
        if grouped and bool(np.all(descending | boundary)):
            tied = np.flatnonzero((score[1:] == score[:-1]) & ~boundary)
            if len(tied) == 0:
                return None  # distinct scores: the tie rule changes nothing
            key = _item_sort_key(items, ties)
            if bool(np.all(key[item_codes[tied + 1]] > key[item_codes[tied]])):
                return None
        return _keys.lexsort([_item_sort_key(items, ties)[item_codes], _keys.descending_float_key(score), user_codes])

    return None if grouped else _keys.lexsort([user_codes])


def preferences(pred: pd.DataFrame, score_col: str, ascending: bool) -> NDArray[np.float64]:
    """The score column as float64, higher is better: negated (exactly) when lower scores are
    better. The one place ``score_order`` acts: lists are ordered and ``pred_score`` is read from it."""
    score = pred[score_col].to_numpy(dtype=np.float64)
    return -score if ascending else score


def ordered_scores(pred: pd.DataFrame, c: Columns, order: NDArray[np.int64] | None
                   ) -> tuple[NDArray[np.float64] | None, bool]:
    """``pred_score`` in list order, and whether ``pred`` has a score column (without one, None:
    ranks only order a list, 1, 3, 7 are positions 1, 2, 3, and -position stands in)."""
    if c.score not in pred.columns:
        return None, False
    values = preferences(pred, c.score, c.ascending)
    return (values if order is None else values[order]), True


def _rank_values(column: pd.Series) -> NDArray[Any]:
    """The ranks as int64 when the column holds integers that fit (2**53 and 2**53 + 1 stay
    distinct, as they would not as floats), else as float64."""
    if pd.api.types.is_integer_dtype(column.dtype):
        try:
            return column.to_numpy(dtype=np.int64)
        except (OverflowError, TypeError, ValueError):  # uint64 beyond int64: compared as floats
            pass
    return column.to_numpy(dtype=np.float64)


def _ascending_key(rank: NDArray[Any]) -> NDArray[Any]:
    """Validated ranks (integers >= 1) as integers, or as sortable float bits when too large for int64."""
    if rank.dtype == np.int64:
        return rank
    if len(rank) and rank.max() >= 2.0 ** 62:
        return _keys.descending_float_key(-rank)
    return rank.astype(np.int64)


def _item_sort_key(items: NDArray[Any], ties: Ties) -> NDArray[np.int64]:
    """Rank of every distinct item id in the order ``ties`` breaks score ties."""
    if ties == "item_id_desc":
        # trec_eval compares document numbers as strings, from the highest down
        as_text = np.asarray([str(x) for x in items], dtype=object)
        order = np.argsort(as_text, kind="stable")[::-1]
    else:
        try:
            order = np.argsort(np.asarray(items), kind="stable")
        except TypeError as exc:
            raise ValueError(
                f"`pred` item ids of mixed types cannot be ordered for ties='item_id': {exc}") from exc
    key = np.empty(len(items), dtype=np.int64)
    key[order] = np.arange(len(items))
    return key


def rank_like_count(score: NDArray[np.float64], user_codes: NDArray[np.integer],
                    n_listed: NDArray[np.int64]) -> int:
    """The number of users when every user's scores are exactly 1..n_u (n_u: the user's listed
    rows), else 0: ranks given as scores, which read as higher-is-better put each list upside
    down. The callers warn only when ``MIN_LONG_LISTS`` users list 2+ items and, on pandas,
    when the rows are not already best first (a file written highest score first holds
    scores, whatever their values).

    ``score`` and ``user_codes`` are in list order (scores descending, users grouped in code
    order), so the test is exact and one pass: a user's scores are a permutation of 1..n_u iff,
    sorted descending, they start at n_u and fall by exactly 1 from row to row (n_u rows then
    end at 1). Real-valued scores fail at the last row, before any array is built.
    """
    if len(score) == 0 or score[-1] != 1.0 or score[0] != n_listed[user_codes[0]]:
        return 0
    listed = n_listed[n_listed > 0]
    starts = np.zeros(len(listed), dtype=np.int64)
    np.cumsum(listed[:-1], out=starts[1:])
    if not np.array_equal(score[starts], listed):
        return 0
    step = np.diff(score)
    step[starts[1:] - 1] = -1.0  # from one list into the next: its first score was checked above
    return len(listed) if bool(np.all(step == -1.0)) else 0


def rank_like_users(pred: pd.DataFrame, c: Columns, n_users: int, order: NDArray[np.int64] | None,
                    user_codes: NDArray[np.integer], pred_score: NDArray[np.float64] | None) -> int:
    """Every ``pred`` user (those without truth too: the scores' kind is the file's) when all
    their scores are exactly 1..n_u and ``MIN_LONG_LISTS`` lists hold 2+ items, else 0
    (RanksAsScoresWarning).

    Rows already best first in every list (``order`` None: grouped, scores descending) are
    scores written best first (2, 1 is a score then), not ranks, which a file lists from rank
    1 down. The last row of the last list is every rank list's 1: real-valued scores stop
    there, at no cost.
    """
    if (pred_score is None or order is None or c.rank in pred.columns or c.ascending
            or pred_score[-1] != 1.0):
        return 0
    n_listed = np.bincount(user_codes, minlength=n_users).astype(np.int64)
    if np.count_nonzero(n_listed >= 2) < MIN_LONG_LISTS:
        return 0
    return rank_like_count(pred_score, user_codes, n_listed)
