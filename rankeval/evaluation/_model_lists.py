"""Lists ranked by :mod:`rankeval.rank` evaluated as they are: a :class:`~rankeval.rank.TopK` wherever
a pred frame is taken, and :meth:`EvalModel.from_model <rankeval.EvalModel.from_model>`'s ranking.

A TopK holds every list as integer codes into its users and its catalog. It reaches the join as
a pred frame whose id columns are those codes (pandas Categoricals over the TopK's ids, for ids
that are not numbers), so no Python object is made per listed row, and ids are hashed once per
distinct id, not once per row. Each list keeps the TopK's order whatever tie rule the evaluation
is given (a rank column, unless the tie rule keeps the row order, which is the lists' order).
:meth:`EvalModel.__init__` and :func:`~rankeval.compare` call :func:`lists_as_frames` on what they
are given, before anything else reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..conventions import get_convention
from ..data import Columns
from ..data.internal import id_kind, is_frame, is_spark_frame, show
from ..rank import TopK, top_k
from ._protocol import splits_as_truth

__all__ = ["lists_as_frames", "rank_for_evaluation", "pred_columns"]

#: the first ids of a truth column whose kind is compared with a TopK's (mixed columns are the join's to refuse)
_PROBE = 64


def pred_columns(truth: Any, split_options: Mapping[str, Any]) -> Columns:
    """The columns an evaluation reads: its options, with a Splits truth's names as defaults."""
    return Columns.from_options(splits_as_truth(truth, None, None, split_options)[3])


def lists_as_frames(lists: Any, truth: Any, split_options: Mapping[str, Any], what: str,
                    convention: str | None = None) -> Any:
    """``lists`` (one pred frame or TopK, or a list of them, one per split) with every TopK made a pred frame.

    Parameters
    ----------
    lists : DataFrame, TopK or list of them
        What the caller passed as one system's lists (``pred_list``, or a value of ``systems``).
    truth : DataFrame, list of DataFrame or Splits
        The caller's truth, one frame per split: its columns name the frame's, and a TopK's ids are
        checked against its ids.
    split_options : mapping
        The evaluation's column options (``user_col``, ``item_col``, ``score_col``, ``rank_col``,
        ``score_order``, ...).
    what : str
        How the message of a bad TopK names ``lists``, e.g. ``"pred_list"``.
    convention : str or None, default None
        The evaluation's convention, whose tie rule applies unless ``split_options`` gives one.

    Returns
    -------
    DataFrame or list
        ``lists`` itself when it holds no TopK; else the same with each TopK replaced by its frame.
    """
    if isinstance(lists, TopK):
        lists, single = [lists], True
    elif is_frame(lists) or isinstance(lists, (str, bytes, Mapping)) or not isinstance(lists, Iterable):
        return lists  # not lists of splits: frames_per_split says what is wrong
    else:
        lists, single = list(lists), False
    if not any(isinstance(x, TopK) for x in lists):
        return lists
    columns = pred_columns(truth, split_options)
    ties = split_options.get("ties", "row_order" if convention is None else get_convention(convention).ties)
    tests = _truth_frames(truth) or []
    # the Spark engine has no row order (it breaks score ties by item id): there the ranks are needed too
    ranked = ties != "row_order" or any(is_spark_frame(t) for t in tests)
    frames = []
    for i, x in enumerate(lists):
        if isinstance(x, TopK):
            if i < len(tests) and isinstance(tests[i], pd.DataFrame):  # other kinds: checked by the join
                _check_id_kinds(x, tests[i], columns, what if single else f"{what}[{i}]")
            x = top_k_frame(x, columns, ranked=ranked)
        frames.append(x)
    return frames[0] if single else frames


def top_k_frame(lists: TopK, columns: Columns, *, ranked: bool) -> pd.DataFrame:
    """The pred frame of a TopK under an evaluation's column names, built from its arrays.

    The ids are codes: Categoricals over the TopK's users and catalog for ids that are not
    numbers, numeric ids as their own numpy dtype (as :meth:`TopK.to_frame`). When every list is
    full the scores are the TopK's own array (a view, no copy). Under ``score_order="ascending"``
    they are written negated (exactly), so that read lower-is-better they are the TopK's
    higher-is-better scores again, bit for bit. ``ranked``: a rank column (1, 2, ...) fixes each
    list's order, for an evaluation whose tie rule would reorder tied scores (not ``row_order``, or
    the Spark engine); under ``row_order`` the rows, already in list order with scores
    non-increasing, give that order themselves.
    """
    n_users, width = lists.items.shape
    full = bool(np.all(lists.lengths == width))
    listed = None if full else (lists.items >= 0).ravel()
    flat_items, flat_scores = lists.items.reshape(-1), lists.scores.reshape(-1)
    user_codes: NDArray[np.integer] = np.repeat(np.arange(n_users, dtype=np.int32 if n_users < 2**31 - 1
                                                          else np.int64), lists.lengths)
    item_codes = flat_items if listed is None else flat_items[listed]
    scores = flat_scores if listed is None else flat_scores[listed]
    data: dict[str, Any] = {columns.user: _id_column(lists.users, user_codes),
                            columns.item: _id_column(lists.catalog, item_codes),
                            columns.score: -scores if columns.ascending else scores}
    if ranked:
        rank = np.tile(np.arange(1, width + 1, dtype=np.int64), n_users)
        data[columns.rank] = rank if listed is None else rank[listed]
    return pd.DataFrame(data, copy=False)


def _id_column(ids: pd.Index, codes: NDArray[np.integer]) -> Any:
    """The ids of ``codes``: a Categorical over ``ids`` (no Python object per row), or numbers taken by code."""
    if ids.dtype == object or isinstance(ids.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(ids.dtype):
        return pd.Categorical.from_codes(codes, categories=ids)
    return ids.take(codes).to_numpy()


def _truth_frames(truth: Any) -> list[Any] | None:
    """The truth's frames as given, one per split (a Splits object's tests); None: no frame or list of
    frames, which the plan refuses. Only pandas ones get the id check here: polars and Arrow frames
    are checked by the join once they are pandas (converting them twice would cost more)."""
    tests = splits_as_truth(truth, None, None, {})[0]
    if is_frame(tests):
        return [tests]
    return list(tests) if isinstance(tests, (list, tuple)) else None


def _check_id_kinds(lists: TopK, truth: pd.DataFrame, columns: Columns, what: str) -> None:
    """Refuse a TopK whose user or item ids are of a kind the truth's never equal (7 and "7")."""
    for ids, column, argument in ((lists.users, columns.truth_user, "user_ids"),
                                  (lists.catalog, columns.truth_item, "item_ids")):
        if column not in truth.columns:
            continue  # the join names the missing column
        theirs = truth[column].iloc[:_PROBE].dropna()
        kinds = id_kind(np.asarray(ids[:_PROBE], dtype=object)), id_kind(np.asarray(theirs, dtype=object))
        if None in kinds or kinds[0] == kinds[1]:
            continue
        raise ValueError(
            f"`{what}` (a TopK) has {argument.split('_')[0]} ids that are {kinds[0]} (e.g. {show(ids[0])}) but the "
            f"truth's '{column}' holds {kinds[1]} (dtype {truth[column].dtype}, e.g. {show(theirs.iloc[0])}): no "
            f"id could ever match. Rank with ids of the truth's kind (top_k(..., {argument}=...)), or convert "
            f"the truth's column to {kinds[0]}")


def rank_for_evaluation(user_vectors: Any, item_vectors: Any, truth: Any, split_options: Mapping[str, Any], *,
                        k: int, user_ids: Any, item_ids: Any, similarity: str, exclude: Any, candidates: Any,
                        ties: Any, memory: int | str, progress: bool | None) -> TopK:
    """The lists of :meth:`EvalModel.from_model <rankeval.EvalModel.from_model>`: one split's, ranked
    by :func:`rankeval.rank.top_k` with ``exclude`` and ``candidates`` read under the truth's columns."""
    if is_spark_frame(user_vectors):
        raise ValueError("`user_vectors` is a Spark DataFrame: rank it with rankeval.rank.top_k (a Spark "
                         "DataFrame of lists) and pass that to EvalModel; from_model ranks in memory")
    n_splits = len(_truth_frames(truth) or [None])
    if n_splits != 1:
        raise ValueError(f"`truth_list` has {n_splits} splits, but one model's vectors rank one split: evaluate "
                         f"each split's model on its own truth, or rank each with rankeval.rank.top_k and pass "
                         f"the lists to EvalModel")
    columns = pred_columns(truth, split_options)
    return top_k(user_vectors, item_vectors, k, user_ids=user_ids, item_ids=item_ids, similarity=similarity,
                 exclude=exclude, candidates=candidates, ties=ties, memory=memory, progress=progress,
                 user_col=columns.truth_user, item_col=columns.truth_item)
