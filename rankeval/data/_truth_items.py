"""The truth restricted to repeat items or to new items, for an evaluation of either part.

In re-consumption data (next baskets, music, groceries) most of a user's test items were
already in their history, and a recommender that only repeats them scores well (Li et al.,
"A next basket recommendation reality check", TOIS 2023). An evaluation told
``truth_items="repeat"`` keeps each user's truth rows whose ``(user, item)`` pair is in
the split's ``train``; ``"explore"`` keeps the others (items new to the user); ``"all"``
keeps every row. Every metric is then computed as usual on the kept truth, per user.

A user with no truth row of the kind asked for has nothing to be judged on: the user is
left out, with their listed rows (one warning counts them per evaluation); the listed
rows of the other users are untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..exceptions import MissingUsersWarning
from ._frames import is_spark_frame, to_pandas
from ._keys import codes_in, factorize, id_values
from ._spark import functions_of, quoted

__all__ = ["TRUTH_ITEMS", "repeat_rows", "truth_of_kind", "trains_of", "select_truth"]

#: the parts of the truth an evaluation can be told to keep
TRUTH_ITEMS = ("all", "repeat", "explore")


def repeat_rows(truth: pd.DataFrame, train: pd.DataFrame, user_col: str, item_col: str) -> NDArray[np.bool_]:
    """Per row of ``truth``: whether its ``(user, item)`` pair is a pair of ``train``.

    Both frames hold the ids in ``user_col`` and ``item_col``. The pairs are coded in
    ``train``'s distinct users and items (a truth id ``train`` lacks, or a missing id, is
    never a repeat), then looked up by hash: one pass over each frame, no loop.

    Parameters
    ----------
    truth : DataFrame
        The held-out rows.
    train : DataFrame
        The rows the recommender learned from.
    user_col : str
        The user id column of both frames.
    item_col : str
        The item id column of both frames.

    Returns
    -------
    ndarray of bool
        One flag per row of ``truth``, in its order.
    """
    for name, frame in (("truth", truth), ("train", train)):
        missing = [c for c in (user_col, item_col) if c not in frame.columns]
        if missing:
            raise ValueError(f"truth_items needs the truth's id columns in `{name}`: it has no {missing} "
                             f"(train= comes with the truth's column names)")
    train_users, user_ids = factorize(id_values(train[user_col]))
    train_items, item_ids = factorize(id_values(train[item_col]))
    n_items = max(len(item_ids), 1)
    known = (train_users >= 0) & (train_items >= 0)
    train_keys = train_users[known].astype(np.int64) * n_items + train_items[known]
    users, _ = codes_in(pd.Index(user_ids), id_values(truth[user_col]))
    items, _ = codes_in(pd.Index(item_ids), id_values(truth[item_col]))
    keys = users.astype(np.int64) * n_items + items
    found = pd.Series(keys, copy=False).isin(np.unique(train_keys)).to_numpy()
    return found & (users >= 0) & (items >= 0)


def _local(truth: pd.DataFrame, preds: list[Any], train: Any, keep_repeat: bool, user_col: str, item_col: str,
           pred_user_col: str) -> tuple[pd.DataFrame, list[Any], int]:
    truth = to_pandas(truth, "truth")
    repeat = repeat_rows(truth, to_pandas(train, "train"), user_col, item_col)
    kept = truth[repeat if keep_repeat else ~repeat]
    gone = pd.Index(truth[user_col].unique()).difference(pd.Index(kept[user_col].unique()))
    if len(gone):
        preds = [(p := to_pandas(frame, "pred"))[~p[pred_user_col].isin(gone)] for frame in preds]
    return kept, preds, len(gone)


def _spark(truth: Any, preds: list[Any], train: Any, keep_repeat: bool, user_col: str, item_col: str,
           pred_user_col: str) -> tuple[Any, list[Any], int]:
    F = functions_of(truth)
    if not is_spark_frame(train):  # local side data: its distinct pairs go to the cluster once
        train = truth.sparkSession.createDataFrame(
            to_pandas(train, "train")[[user_col, item_col]].drop_duplicates())
    pairs = train.select(F.col(quoted(user_col)).alias("_u"), F.col(quoted(item_col)).alias("_i")).distinct()
    on = (truth[quoted(user_col)] == pairs["_u"]) & (truth[quoted(item_col)] == pairs["_i"])
    kept = truth.join(pairs, on, "left_semi" if keep_repeat else "left_anti")
    users = truth.select(F.col(quoted(user_col)).alias("_g")).distinct()
    gone = users.join(kept.select(F.col(quoted(user_col)).alias("_g")).distinct(), "_g", "left_anti")
    n_gone = gone.count()
    if n_gone == users.count():
        return truth.limit(0), preds, n_gone
    if n_gone:
        preds = [p.join(gone, p[quoted(pred_user_col)] == gone["_g"], "left_anti") for p in preds]
    return kept, preds, n_gone


def trains_of(train: Any, side: Any, n_splits: int) -> list[Any]:
    """The train frame of every split, from ``train=`` (one frame, or one per split) or from the
    side data's; a ValueError naming the option when there is none."""
    given = train if train is not None else side
    frames = list(given) if isinstance(given, (list, tuple)) else [given] * n_splits
    if given is not None and train is None:  # SideData: its train frame
        frames = [getattr(one, "train", None) for one in frames]
    if given is None or len(frames) != n_splits or any(f is None for f in frames):
        raise ValueError("truth_items='repeat' or 'explore' needs each split's `train` (train=, a Splits truth, "
                         "or side data with train): a repeat item is one the user has in train")
    return frames


def truth_of_kind(which: str, truths: list[Any], preds: Mapping[str, list[Any]], trains: Sequence[Any],
                  user_col: str, item_col: str, pred_user_col: str) -> tuple[list[Any], dict[str, list[Any]]]:
    """Every split's truth restricted to its repeat (or new) items, and the lists of the users left.

    Parameters
    ----------
    which : {"repeat", "explore"}
        Keep the truth rows whose pair is in the split's train, or the others.
    truths : list of DataFrame
        The truth of every split (pandas or Spark).
    preds : mapping of str to list of DataFrame
        Each system's lists, one frame per split; rows of the users left out are dropped.
    trains : sequence of DataFrame
        The train of every split, under the truth's column names.
    user_col : str
        The user id column of the truth and train.
    item_col : str
        The item id column of the truth and train.
    pred_user_col : str
        The user id column of the lists.

    Returns
    -------
    truths : list of DataFrame
        The kept truth rows, in their order.
    preds : dict of str to list of DataFrame
        The lists without the rows of users left with no truth.
    """
    keep_repeat = which == "repeat"
    out_truths: list[Any] = []
    out_preds: dict[str, list[Any]] = {name: [] for name in preds}
    n_gone = 0
    for s, (truth, train) in enumerate(zip(truths, trains)):
        run = _spark if is_spark_frame(truth) else _local
        split_preds = [frames[s] for frames in preds.values()]
        kept, split_preds, gone = run(truth, split_preds, train, keep_repeat, user_col, item_col, pred_user_col)
        if gone and (not is_spark_frame(kept) and not len(kept) or is_spark_frame(kept) and not kept.take(1)):
            raise ValueError(f"truth_items={which!r} leaves split {s + 1} with no truth row: no truth user has a "
                             f"{'repeat' if keep_repeat else 'new'} item (one {'in' if keep_repeat else 'not in'} "
                             f"their train)")
        out_truths.append(kept)
        for name, frame in zip(preds, split_preds):
            out_preds[name].append(frame)
        n_gone += gone
    if n_gone:
        kind = "repeat item (one in their train)" if keep_repeat else "new item (one not in their train)"
        warnings.warn(MissingUsersWarning(
            f"truth_items={which!r}: {n_gone} truth user(s) (summed over splits) have no {kind} and are left "
            f"out, with their listed rows"), stacklevel=3)
    return out_truths, out_preds


def select_truth(which: str, truths: list[Any], preds: Any, train: Any, side: Any, columns: Any
                 ) -> tuple[list[Any], Any]:
    """EvalModel's and compare's ``truth_items``: checked, and the truth (and lists) restricted
    unless it is ``"all"``.

    Parameters
    ----------
    which : str
        ``"all"``, ``"repeat"`` or ``"explore"``.
    truths : list of DataFrame
        The truth of every split.
    preds : list of DataFrame or mapping of str to list of DataFrame
        One system's lists (one frame per split), or each system's.
    train : DataFrame or list of DataFrame
        ``train=`` (or the train frames of a Splits truth); None: the side data's.
    side : SideData or list of SideData
        ``side=``, read when ``train`` is None.
    columns : Columns
        The evaluation's column names.

    Returns
    -------
    truths : list of DataFrame
        The truth kept.
    preds : list or dict
        The lists kept, in the shape given.
    """
    from ._validation import check_choice

    if check_choice("truth_items", which, TRUTH_ITEMS) == "all":
        return truths, preds
    trains = trains_of(train, side, len(truths))
    one = not isinstance(preds, Mapping)
    kept_truths, kept = truth_of_kind(which, truths, {"": preds} if one else preds, trains, columns.truth_user,
                                      columns.truth_item, columns.user)
    return kept_truths, kept[""] if one else kept

