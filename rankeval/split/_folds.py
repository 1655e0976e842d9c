"""Several train/test pairs from one frame: k folds, and ClayRS's bootstrap partitioning."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.internal import check_integer, segment_ids, segment_positions
from ._assemble import Plan
from ._draws import uniform, user_draws
from ._input import InteractionColumns, Interactions, check_seed, count_duplicates
from ._order import order_rows
from ._rules import eligible_rows
from ._run import Options, split_with
from ._splits import Splits

__all__ = ["kfold", "bootstrap", "fold_of_position", "plan_kfold", "plan_bootstrap"]


def fold_of_position(position: NDArray[np.integer], k: int) -> NDArray[np.int16]:
    """The fold of the ``position``-th (0-based) of a user's shuffled rows: ``position mod k``.

    Of ``n`` rows, the first ``n % k`` folds get ``n // k + 1`` and the others ``n // k``:
    scikit-learn's ``KFold`` sizes (and ``np.array_split``'s), dealt in turn rather than
    cut in blocks, which is the same draw since the rows are in random order.
    """
    return (position % k).astype(np.int16)


def _user_folds(data: Interactions, order: NDArray[np.int64], k: int, min_interactions: int
                ) -> tuple[NDArray[np.int16], list[tuple[int, str]]]:
    counts = data.user_counts()
    offsets = data.offsets()
    user = segment_ids(offsets)
    folds_sorted = fold_of_position(segment_positions(offsets) - 1, k)
    below = counts < min_interactions
    too_few = ~below & (counts < k)
    folds_sorted[(below | too_few)[user]] = -1
    fold = np.empty(data.n_rows, dtype=np.int16)
    fold[order] = folds_sorted
    return fold, [(int(below.sum()), f"have fewer than min_interactions={min_interactions} interactions"),
                  (int(too_few.sum()), f"have fewer interactions than n_splits={k} folds")]


def _record_folds(data: Interactions, key: NDArray[np.uint64], k: int, min_interactions: int
                  ) -> tuple[NDArray[np.int16], list[tuple[int, str]], Any]:
    eligible = eligible_rows(data, min_interactions)
    n_eligible = int(eligible.sum())
    if n_eligible < k:
        raise ValueError(f"kfold: `n_splits`={k} is more than the {n_eligible} interaction(s) to spread over the "
                         f"folds; lower n_splits or min_interactions")
    ranked = order_rows(key, (~eligible).astype(np.int8), 2, random=True, tie_keys=data.tie_keys)
    fold = np.full(data.n_rows, -1, dtype=np.int16)
    fold[ranked.order[:n_eligible]] = fold_of_position(np.arange(n_eligible, dtype=np.int64), k)
    # a user whose tested rows all fall in one fold would have an empty train there
    tested = fold >= 0
    per_fold = np.bincount(data.user_codes[tested].astype(np.int64) * k + fold[tested],
                           minlength=data.n_users * k).reshape(data.n_users, k)
    alone = (per_fold.max(axis=1) == data.user_counts()) & (data.user_counts() >= min_interactions)
    fold[alone[data.user_codes]] = -1
    below = int((data.user_counts() < min_interactions).sum())
    return fold, [(below, f"have fewer than min_interactions={min_interactions} interactions"),
                  (int(alone.sum()), "had every interaction drawn into one fold (its train would be empty)")], ranked


def kfold(frame: Any, n_splits: int = 5, *, by: str = "user", seed: int = 0, min_interactions: int = 1,
          drop_cold_items: bool = False, user_col: str = "user_id", item_col: str = "item_id",
          score_col: str = "score", time_col: str = "timestamp") -> Splits:
    """``n_splits`` train/test pairs whose tests partition the interactions.

    ``by="user"``: each user's interactions are shuffled (by seeded keys of the pairs) and
    dealt to the folds in turn, so the first ``n_u % n_splits`` folds get
    ``n_u // n_splits + 1`` of them and the others ``n_u // n_splits``: the fold sizes of
    ClayRS's ``KFoldPartitioning``, which runs scikit-learn's shuffled ``KFold`` on each user.
    A user with fewer interactions than folds keeps them all in train in every fold
    (counted in a warning; ClayRS leaves such users out of train and test alike).
    ``by="record"``: all interactions dealt to the folds the same way (the fold sizes of
    LensKit's ``crossfold_records``); a user whose interactions all land in one fold keeps them all
    in train.

    The same seed gives the same folds, bit for bit, under any row order of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        Interactions (pandas, polars, pyarrow or Spark: see docs/protocol.md); not modified.
    n_splits : int >= 2
        The number of folds, each the test of one pair.
    by : {"user", "record"}
        Deal each user's interactions to the folds, or all interactions at once.
    seed : int >= 0
        The shuffle's seed.
    min_interactions : int >= 1
        Users with fewer interactions stay whole in train in every fold (counted).
    drop_cold_items : bool
        Drop test interactions of items that have none in the fold's train (counted).
    user_col : str, default "user_id"
        The user id column of ``frame``.
    item_col : str, default "item_id"
        The item id column of ``frame``.
    score_col : str, default "score"
        An optional numeric column of ``frame``: after ``time_col``, it orders the rows that
        repeat one ``(user, item)`` pair. Kept in the output.
    time_col : str, default "timestamp"
        An optional time column of ``frame`` (numbers or datetimes): the draw does not use it;
        it only orders the rows that repeat one ``(user, item)`` pair.

    Returns
    -------
    Splits
        ``n_splits`` pairs, ``"fold1"`` ... ``"fold{n_splits}"``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": [1] * 6 + [2] * 3, "item_id": list("abcdefabc")})
    >>> splits = kfold(frame, n_splits=3)
    >>> [len(test) for test in splits.tests]
    [3, 3, 3]
    """
    own = {"n_splits": check_integer("n_splits", n_splits, 2, 32767), "by": by, "seed": check_seed(seed)}
    columns = InteractionColumns(user_col, item_col, score_col, time_col)
    options = Options.check(min_interactions, drop_cold_items, columns, by)
    return split_with(frame, "kfold", plan_kfold, own, options, need_time=False)


def plan_kfold(data: Interactions, *, n_splits: int, by: str, seed: int, min_interactions: int) -> Plan:
    """Where :func:`kfold` puts each row of ``data``."""
    k = n_splits
    key = data.keys(seed)
    if by == "user":
        ranked = order_rows(key, data.user_codes, data.n_users, random=True, tie_keys=data.tie_keys)
        fold, reasons = _user_folds(data, ranked.order, k, min_interactions)
    else:
        fold, reasons, ranked = _record_folds(data, key, k, min_interactions)
    return Plan([fold == f for f in range(k)], reasons, count_duplicates(data, ranked.tied_rows),
                where="whole in train in every fold")


def _bootstrap_draws(data: Interactions, order: NDArray[np.int64], seed: int, min_interactions: int
                     ) -> NDArray[np.int64]:
    """How many times each row is drawn: ``n_u`` draws with replacement from each user's rows."""
    counts = data.user_counts()
    offsets = data.offsets()
    user = segment_ids(offsets)
    slot = segment_positions(offsets).astype(np.int64) - 1
    size = counts[user]
    # the slot-th draw of a user is a function of the user's id, the slot and the seed: each user's
    # rows are in key order, so which rows are drawn does not depend on the frame's row order
    pick = np.floor(uniform(user_draws(data.user_hashes(), user, slot, seed)) * size).astype(np.int64)
    np.minimum(pick, size - 1, out=pick)
    kept = (counts < min_interactions)[user]
    pick[kept] = slot[kept]  # users kept whole: every row once
    drawn = order[offsets[:-1][user] + pick]
    return np.bincount(drawn, minlength=data.n_rows)


def bootstrap(frame: Any, *, seed: int = 0, min_interactions: int = 1, drop_cold_items: bool = False,
              user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
              time_col: str = "timestamp") -> Splits:
    """ClayRS's bootstrap partitioning: train draws ``n_u`` of each user's interactions with replacement.

    Train is the bootstrap sample (a row drawn twice appears twice, in the input's order);
    test holds the user's interactions never drawn (out of bag, about ``(1 - 1/n_u)^n_u``,
    some 37%, of them). ClayRS's ``BootstrapPartitioning`` with these differences: each
    user's draws are independent (ClayRS seeds every user's ``resample`` with the same
    ``random_state``, so users of equal size draw the same positions), and a user with no
    out-of-bag interaction (one with a single interaction always) keeps their train rows and has no
    test rows, counted in a warning (ClayRS leaves such users out of train and test).

    The same seed gives the same split, bit for bit, under any row order of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        Interactions (pandas, polars, pyarrow or Spark: see docs/protocol.md); not modified.
    seed : int >= 0
        The draws' seed.
    min_interactions : int >= 1
        Users with fewer interactions keep each of them once in train, and have no test rows.
    drop_cold_items : bool
        Drop test interactions of items that have none in train (counted).
    user_col : str, default "user_id"
        The user id column of ``frame``.
    item_col : str, default "item_id"
        The item id column of ``frame``.
    score_col : str, default "score"
        An optional numeric column of ``frame``: after ``time_col``, it orders the rows that
        repeat one ``(user, item)`` pair. Kept in the output.
    time_col : str, default "timestamp"
        An optional time column of ``frame`` (numbers or datetimes): the draw does not use it;
        it only orders the rows that repeat one ``(user, item)`` pair.

    Returns
    -------
    Splits
        One ``(train, test)`` pair, named ``"fold1"``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": [1] * 8, "item_id": list("abcdefgh")})
    >>> train, test = bootstrap(frame, seed=3)[0]
    >>> len(train), len(test) + train["item_id"].nunique()
    (8, 8)
    """
    own = {"seed": check_seed(seed)}
    columns = InteractionColumns(user_col, item_col, score_col, time_col)
    options = Options.check(min_interactions, drop_cold_items, columns)
    return split_with(frame, "bootstrap", plan_bootstrap, own, options, need_time=False)


def plan_bootstrap(data: Interactions, *, seed: int, min_interactions: int) -> Plan:
    """Where :func:`bootstrap` puts each row of ``data`` (train: each row as many times as drawn)."""
    ranked = order_rows(data.keys(seed), data.user_codes, data.n_users, random=True, tie_keys=data.tie_keys)
    drawn = _bootstrap_draws(data, ranked.order, seed, min_interactions)
    in_test = drawn == 0
    tested = np.bincount(data.user_codes[in_test], minlength=data.n_users)
    below = data.user_counts() < min_interactions
    reasons = [(int(below.sum()), f"have fewer than min_interactions={min_interactions} interactions"),
               (int((~below & (tested == 0)).sum()), "had every interaction drawn (no out-of-bag interaction)")]
    train_rows = np.repeat(np.arange(data.n_rows, dtype=np.int64), drawn)
    return Plan([in_test], reasons, count_duplicates(data, ranked.tied_rows), where="in train only",
                trains=[train_rows], drawn=drawn)
