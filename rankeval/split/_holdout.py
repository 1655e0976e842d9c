"""Holdouts: one train/test pair, drawn at random or taken from the end of the timeline.

- :func:`random_holdout`: per user (``⌊test_size · n_u⌋`` of each user's interactions) or
  over all records, drawn by seeded keys of the ``(user, item)`` pairs (:mod:`._draws`):
  the same seed gives the same split under any row order;
- :func:`temporal_holdout`: each user's latest interactions (leave-last-``n`` out, or the
  last ``test_size`` share), or the latest records overall.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.internal import check_choice, check_integer
from ._assemble import Plan, require_test
from ._input import InteractionColumns, Interactions, check_seed, count_duplicates
from ._order import order_rows
from ._rules import (
    ROUNDING,
    check_test_size,
    eligible_rows,
    move_back_whole_users,
    share_counts,
    take_per_user,
    user_test_counts,
)
from ._run import Options, split_with
from ._splits import Splits

__all__ = ["random_holdout", "temporal_holdout", "require_test", "plan_random_holdout", "plan_temporal_holdout"]


def plan_random_holdout(data: Interactions, *, test_size: float, by: str, seed: int, min_interactions: int) -> Plan:
    """Where :func:`random_holdout` puts each row of ``data``."""
    key = data.keys(seed)
    if by == "user":
        ranked = order_rows(key, data.user_codes, data.n_users, random=True, tie_keys=data.tie_keys)
        n_test, reasons = user_test_counts(data.user_counts(), test_size=test_size, n_last=None,
                                           min_interactions=min_interactions)
        in_test = take_per_user(data, ranked.order, n_test, from_end=False)
    else:
        in_test, reasons, ranked = _record_holdout(data, key, test_size, None, min_interactions, random=True)
    return Plan([in_test], reasons, count_duplicates(data, ranked.tied_rows))


def plan_temporal_holdout(data: Interactions, *, test_size: float | None, n_last: int | None, by: str,
                          min_interactions: int, rounding: str = "floor") -> Plan:
    """Where :func:`temporal_holdout` puts each row of ``data`` (ties in time: the later row is later)."""
    if by == "user":
        ranked = order_rows(data.time_key(), data.user_codes, data.n_users, random=False)
        n_test, reasons = user_test_counts(data.user_counts(), test_size=test_size, n_last=n_last,
                                           min_interactions=min_interactions, rounding=rounding)
        in_test = take_per_user(data, ranked.order, n_test, from_end=True)
    else:
        in_test, reasons, _ = _record_holdout(data, data.time_key(), test_size, n_last, min_interactions,
                                              random=False, rounding=rounding)
    return Plan([in_test], reasons, count_duplicates(data))


def _record_holdout(data: Interactions, key: NDArray[np.uint64], test_size: float | None, n_last: int | None,
                    min_interactions: int, *, random: bool, rounding: str = "floor"
                    ) -> tuple[NDArray[np.bool_], list[tuple[int, str]], Any]:
    """Test mask over all eligible records: the lowest seeded keys, or the latest times."""
    eligible = eligible_rows(data, min_interactions)
    n_eligible = int(eligible.sum())
    # eligible rows first for a random draw (the lowest keys), last for a temporal one (the latest times)
    group = (~eligible if random else eligible).astype(np.int8)
    ranked = order_rows(key, group, 2, random=random, tie_keys=data.tie_keys)
    n_test = n_last if n_last is not None else int(share_counts(test_size or 0.0, np.array([n_eligible]), rounding)[0])
    n_test = min(n_test, n_eligible)
    in_test = np.zeros(data.n_rows, dtype=bool)
    in_test[ranked.order[:n_test] if random else ranked.order[data.n_rows - n_test:]] = True
    moved = move_back_whole_users(data, in_test)
    below = int((data.user_counts() < min_interactions).sum())
    reasons = [(below, f"have fewer than min_interactions={min_interactions} interactions"),
               (moved, "had every interaction drawn into test (train would be empty)")]
    return in_test, reasons, ranked


def random_holdout(frame: Any, test_size: float = 0.2, *, by: str = "user", seed: int = 0,
                   min_interactions: int = 1, drop_cold_items: bool = False, user_col: str = "user_id",
                   item_col: str = "item_id", score_col: str = "score", time_col: str = "timestamp") -> Splits:
    """One random train/test pair, per user or over all records.

    ``by="user"``: each user gives ``⌊test_size · n_u⌋`` of their ``n_u`` interactions to
    test, drawn at random (RecBole's ``RS`` split grouped by user, MS Recommenders'
    ``python_stratified_split``, LensKit's ``SampleFrac``, with the rounding rule of
    :mod:`rankeval.split`). ``by="record"``: ``⌊test_size · n⌋`` of the ``n`` interactions
    of eligible users, drawn over all records (RecBole's ungrouped ``RS``); a user whose
    every interaction is drawn goes back whole to train.

    The draw ranks each user's rows by a seeded 64-bit key of the ``(user, item)`` pair, so
    the same seed gives the same split, bit for bit, under any row order of ``frame``;
    rows repeating one pair are ordered by time, then score.

    Parameters
    ----------
    frame : DataFrame
        Interactions (pandas, polars, pyarrow or Spark: see docs/protocol.md), one row each; not modified.
    test_size : float in (0, 1)
        The share of each user's (or all) interactions put in test.
    by : {"user", "record"}
        Draw within each user's interactions, or over all of them.
    seed : int >= 0
        The draw's seed.
    min_interactions : int >= 1
        Users with fewer interactions keep them all in train (counted in a warning).
    drop_cold_items : bool
        Drop test interactions of items that have none in train (counted in a warning).
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

    Raises
    ------
    ValueError
        ``test_size`` outside (0, 1), a bad option, missing columns or ids, or an empty test.

    Warns
    -----
    RankevalWarning
        Users kept whole in train (by reason), repeated ``(user, item)`` pairs (kept), cold
        test items dropped, each counted once per call.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": [1] * 5 + [2] * 5, "item_id": list("abcdeabcde"),
    ...                       "score": [5.0, 3, 4, 2, 1, 2, 2, 5, 4, 3]})
    >>> train, test = random_holdout(frame, test_size=0.4, seed=7)[0]
    >>> test.groupby("user_id").size().tolist()
    [2, 2]
    """
    own = {"test_size": check_test_size(test_size), "by": by, "seed": check_seed(seed)}
    columns = InteractionColumns(user_col, item_col, score_col, time_col)
    options = Options.check(min_interactions, drop_cold_items, columns, by)
    return split_with(frame, "random_holdout", plan_random_holdout, own, options, need_time=False)


def _check_amount(test_size: Any, n_last: Any) -> tuple[float | None, int | None]:
    if test_size is not None and n_last is not None:
        raise ValueError(f"pass one of `test_size` (a share of each user's interactions) and `n_last` (a count), "
                         f"not both; got test_size={test_size!r}, n_last={n_last!r}")
    if test_size is not None:
        return check_test_size(test_size), None
    return None, check_integer("n_last", 1 if n_last is None else n_last, 1)


def temporal_holdout(frame: Any, test_size: float | None = None, *, n_last: int | None = None, by: str = "user",
                     rounding: str = "floor", min_interactions: int = 1, drop_cold_items: bool = False,
                     user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                     time_col: str = "timestamp") -> Splits:
    """Each user's latest interactions in test: leave-last-``n_last``-out, or the last ``test_size`` share.

    ``by="user"`` (the default): each user's ``n_last`` latest interactions (``n_last=1``
    when neither amount is given: leave-last-one-out), or their latest
    ``⌊test_size · n_u⌋`` (another rule with ``rounding=``). ``by="record"``: the
    ``n_last`` (or ``⌊test_size · n⌋``) latest interactions over all eligible users, a count
    rather than a time cut (see :func:`global_temporal`); a user whose every interaction is
    taken goes back whole to train.

    Ties in time are broken by the input's row order: of two interactions at the same time,
    the later row is the later one (RecBole's stable sort; MS Recommenders' and LensKit's
    sorts leave such ties to the sort algorithm).

    Peers, where they overlap: RecBole's time-ordered leave-one-out (``order: TO``,
    ``split: {LS: test_only}``): the same split, users with one interaction kept in train.
    LensKit's ``LastN(n)``: the same, except that LensKit puts a user with ``n_u <= n``
    wholly in test (here: wholly in train). LensKit's ``LastFrac(f)`` (0.14 and 2025):
    the same test rows with ``rounding="half_even"``; MS Recommenders'
    ``python_chrono_split(ratio=1 - test_size)``: the same with
    ``rounding="train_half_even"`` (both given a user's times without ties, which their
    sorts do not order by row). Both peers put a user whose rounded count is all of
    their interactions (or, in LensKit, 0 of them) wholly in test; here such a user stays
    wholly in train (counted in a warning). Tested on MovieLens-100K against each peer's
    own split.

    Note that a per-user temporal split leaks the future: a user's train holds
    interactions that happened after other users' test ones (audit() counts them;
    :func:`global_temporal` does not leak).

    Parameters
    ----------
    frame : DataFrame
        Interactions with a time column (numbers or datetimes); not modified.
    test_size : float in (0, 1), optional
        The share of each user's latest interactions put in test.
    n_last : int >= 1, optional
        How many of each user's latest interactions go to test (give one of the two).
    by : {"user", "record"}
        Take the latest interactions of each user, or the latest over all eligible users.
    rounding : {"floor", "half_even", "train_half_even"}
        How ``test_size · n_u`` becomes a count (with ``test_size`` only). ``"floor"``:
        ``⌊test_size · n_u⌋``, the product read as the decimal written, never more than the
        share asked (RecBole's rule). ``"half_even"``: ``round(test_size · n_u)``, ties to
        even, on the binary product (LensKit's ``LastFrac``). ``"train_half_even"``:
        ``n_u - round((1 - test_size) · n_u)``, ties to even, on the binary product (MS
        Recommenders' ``python_chrono_split``, which rounds the train share). With
        ``by="record"`` the rule applies to ``test_size · n``. See docs/protocol.md.
    min_interactions : int >= 1
        Users with fewer interactions keep them all in train (counted in a warning).
    drop_cold_items : bool
        Drop test interactions of items that have none in train (counted in a warning).
    user_col : str, default "user_id"
        The user id column of ``frame``.
    item_col : str, default "item_id"
        The item id column of ``frame``.
    score_col : str, default "score"
        An optional numeric column of ``frame``: after ``time_col``, it orders the rows that
        repeat one ``(user, item)`` pair. Kept in the output.
    time_col : str, default "timestamp"
        The time of each interaction (numbers or datetimes), required: it decides which
        interactions are the latest (ties: the later row).

    Returns
    -------
    Splits
        One ``(train, test)`` pair, named ``"fold1"``.

    Raises
    ------
    ValueError
        No time column (the message names it), NaN or mixed aware/naive times, both or a bad
        ``test_size`` / ``n_last``, a bad ``rounding`` (or one given without ``test_size``),
        or an empty test.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("abcab"),
    ...                       "timestamp": [10, 30, 30, 5, 1]})
    >>> temporal_holdout(frame).tests[0]["item_id"].tolist()   # ties: the later row
    ['c', 'a']
    """
    test_size, n_last = _check_amount(test_size, n_last)
    check_choice("rounding", rounding, ROUNDING)
    if rounding != "floor" and test_size is None:
        raise ValueError(f"`rounding`={rounding!r} rounds `test_size` · n_u, but no test_size was given "
                         f"(n_last={n_last} is a count): pass test_size=, or leave rounding out")
    own = {"test_size": test_size, "n_last": n_last, "by": by, "rounding": rounding}
    columns = InteractionColumns(user_col, item_col, score_col, time_col)
    options = Options.check(min_interactions, drop_cold_items, columns, by)
    return split_with(frame, "temporal_holdout", plan_temporal_holdout, own, options, need_time=True)
