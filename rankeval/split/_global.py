"""One time cut for every user: the split that does not leak the future."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import is_spark_frame, show
from ._assemble import Plan, finish, share_of_users
from ._input import InteractionColumns, Interactions, count_duplicates, prepare
from ._rules import check_test_size
from ._run import Options
from ._splits import Splits
from ._times import parse_cutoff
from ._warn import warn

__all__ = ["global_temporal"]


def _cut(times: pd.Series, cutoff: Any, test_size: Any, column: str) -> tuple[Any, float | None]:
    if (cutoff is None) == (test_size is None):
        raise ValueError(f"pass exactly one of `cutoff` (a time) and `test_size` (a share of the interactions), "
                         f"got cutoff={cutoff!r}, test_size={test_size!r}")
    if cutoff is not None:
        return parse_cutoff(cutoff, times, column), None
    share = check_test_size(test_size)
    # LensKit's split_temporal_fraction: pandas' quantile, linear interpolation between order statistics
    return times.quantile(1.0 - share), share


def _shown(value: Any) -> str:
    return value.isoformat() if isinstance(value, pd.Timestamp) else show(value)


def global_temporal(frame: Any, cutoff: Any = None, *, test_size: float | None = None, min_interactions: int = 1,
                    drop_cold_items: bool = False, user_col: str = "user_id", item_col: str = "item_id",
                    score_col: str = "score", time_col: str = "timestamp") -> Splits:
    """One time cut for every user: train strictly before ``cutoff``, test at or after it.

    No training interaction is later than any test interaction, so the split does not leak
    the future (Ji et al., "A Critical Study on Data Leakage in Recommender System Offline
    Evaluation", TOIS 2023): audit() finds 0 temporal leakage, exactly.

    With ``test_size`` instead of a time, the cut is the ``1 - test_size`` quantile of the
    times by pandas' ``Series.quantile`` (linear interpolation between the two nearest
    order statistics), and test holds the interactions at or after it: LensKit's
    ``split_temporal_fraction`` (``split_global_time`` at that point), which puts *about*
    ``test_size`` of the interactions in test (all interactions at the cut time go to test).
    The cut found is recorded in ``Splits.params["cutoff"]``.

    Users who interact only after the cut are cold users in test (audit() counts them;
    LensKit's ``filter_test_users`` would drop them). Users with fewer than
    ``min_interactions`` interactions in all keep their train rows, and their test rows
    are dropped (counted in a warning): moving them to train would leak the future.

    Parameters
    ----------
    frame : DataFrame
        Interactions with a time column (numbers or datetimes); not modified.
    cutoff : number, datetime, pd.Timestamp or ISO text, optional
        The first test time, of the column's kind (a number for a numeric column; a
        timezone-aware time for an aware column, a naive one for a naive column).
    test_size : float in (0, 1), optional
        The share of interactions wanted in test (give one of ``cutoff`` and ``test_size``).
    min_interactions : int >= 1
        Users with fewer interactions in all keep their train rows and lose their test rows
        (counted in a warning).
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
        The time of each interaction (numbers or datetimes), required: it decides the side
        of the cut.

    Returns
    -------
    Splits
        One ``(train, test)`` pair, named ``"fold1"``.

    Raises
    ------
    ValueError
        No time column, NaN or mixed aware/naive times, both or neither of ``cutoff`` and
        ``test_size``, a cutoff of another kind than the column, or a cut that leaves train or
        test empty (the message gives the range of the times).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": list("ababa"),
    ...                       "timestamp": [1, 4, 2, 5, 3]})
    >>> train, test = global_temporal(frame, cutoff=4)[0]
    >>> train["timestamp"].tolist(), test["timestamp"].tolist()
    ([1, 2, 3], [4, 5])
    """
    columns = InteractionColumns(user_col, item_col, score_col, time_col)
    options = Options.check(min_interactions, drop_cold_items, columns)
    if is_spark_frame(frame):
        from ._spark_global import global_temporal_on_spark
        share = None if test_size is None else check_test_size(test_size)
        if (cutoff is None) == (test_size is None):
            _cut(pd.Series([], dtype="float64"), cutoff, test_size, time_col)  # the pandas message
        return global_temporal_on_spark(frame, cutoff, share, options.min_interactions,
                                        options.params("global_temporal"), options.columns)
    data = prepare(frame, options.columns, need_time=True)
    assert data.times is not None
    cut, share = _cut(data.times, cutoff, test_size, time_col)
    in_test = np.array(data.times >= cut, dtype=bool)  # a writable copy (pandas hands out read-only views)
    n_test = int(in_test.sum())
    if n_test in (0, data.n_rows):
        side = "test" if n_test == data.n_rows else "train"
        raise ValueError(f"global_temporal: the cut at {_shown(cut)} puts every interaction in {side}: the times of "
                         f"`frame`['{time_col}'] run from {_shown(data.times.min())} to {_shown(data.times.max())}")
    train_rows = np.flatnonzero(~in_test)
    _drop_below(data, in_test, options.min_interactions)
    plan = Plan([in_test], [], count_duplicates(data), trains=[train_rows])
    return finish(data, "global_temporal", plan, options.params("global_temporal", cutoff=cut, test_size=share),
                  drop_cold_items=options.drop_cold_items)


def _drop_below(data: Interactions, in_test: NDArray[np.bool_], min_interactions: int) -> None:
    """Test rows of users below ``min_interactions`` dropped (in place), counted in a warning."""
    below = data.user_counts() < min_interactions
    dropped = in_test & below[data.user_codes]
    if dropped.any():
        in_test &= ~dropped
        users = int(np.unique(data.user_codes[dropped]).size)
        warn(f"global_temporal: {share_of_users(users, data.n_users)} with fewer than "
             f"min_interactions={min_interactions} interactions keep only their train rows: their "
             f"{int(dropped.sum()):,} interaction(s) after the cut are dropped")
