"""The audit's profile lines: what kind of data the split holds, and how much it can tell apart.

None of these is an error of the split by itself; each says when an evaluation reads more
into the data than is there:

- timestamps that are not a sequence (Woolridge et al., "Sequence or pseudo-sequence?",
  RecSys 2021; Fan et al., "Our model achieves excellent performance on MovieLens: what
  does it mean?", TOIS 2024): interactions tied in time with another of the same user (in
  all the data, and among the test rows), test interactions at their user's last training
  time (train or test was then decided by row order alone: a problem), and the
  interactions of each user's first session (a new session after a gap of more than
  ``session_gap``), with the users who made more than half of theirs in it;
- repeat items (Li et al., "A next basket recommendation reality check", TOIS 2023): test
  interactions whose ``(user, item)`` pair is in train;
- items that do not exist: listed rows whose item is not in a given catalog (a problem);
- the evaluation set's size: the smallest standardised difference a paired t-test
  detects with the test users that have a relevant item (:func:`rankeval.stats.ttest_mde`).

Every count works on integer codes with sorts and bincounts; the Spark audit builds the
same lines with the ``*_of`` constructors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data._keys import codes_in, id_values, plain
from ..data._side import catalog_index
from ..data._validation import check_id_kinds
from ..stats._power import ttest_mde
from ._checks import Line, PairIndex, affected_users
from ._coded import Coded

__all__ = ["TEMPORAL", "SESSION_GAP", "MDE_ALPHA", "MDE_POWER", "check_session_gap", "time_profile_lines", "ties_of",
           "sessions_of", "repeat_line", "repeat_of", "catalog_ids", "catalog_line", "catalog_of", "mde_line",
           "session_gap_ticks", "mde_lines", "gap_text"]

#: the checks a time column makes possible, as ``Audit.skipped`` names them when it is missing
TEMPORAL = ("temporal leakage, per user", "temporal leakage, global", "time ties and first sessions",
            "future items recommended")
#: the default gap between two sessions, in seconds (one hour)
SESSION_GAP = 3600.0
#: the level and the power of the minimum detectable effect the audit prints
MDE_ALPHA, MDE_POWER = 0.05, 0.8


def check_session_gap(session_gap: Any) -> float:
    """The gap in seconds: a positive number, or a ``timedelta``/``pd.Timedelta``."""
    if isinstance(session_gap, (pd.Timedelta, np.timedelta64)) or hasattr(session_gap, "total_seconds"):
        session_gap = pd.Timedelta(session_gap).total_seconds()
    if isinstance(session_gap, bool) or not isinstance(session_gap, (int, float, np.integer, np.floating)) \
            or not np.isfinite(session_gap) or session_gap < 0:
        raise ValueError(f"`session_gap` must be a non-negative number of seconds (or a timedelta), "
                         f"got {session_gap!r}")
    return float(session_gap)


def gap_text(gap: float) -> str:
    """The session gap as the table's note says it (``1 hour(s)``, ``90 s``)."""
    return f"{gap / 3600:g} hour(s)" if gap >= 3600 and gap % 900 == 0 else f"{gap:g} s"


def session_gap_ticks(gap: float, datetimes: bool) -> float:
    """The gap in the units the times are compared in: nanoseconds for datetimes, else as given."""
    return gap * 1e9 if datetimes else gap


def _by_user_then_time(users: NDArray[np.int64], times: NDArray[Any]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The rows in (user, time) order, and per sorted row whether it has its user's row before it."""
    order = np.lexsort((times, users))
    u = users[order]
    after = np.zeros(len(u), dtype=bool)
    np.equal(u[1:], u[:-1], out=after[1:])
    return order, after


def _tied(times: NDArray[Any], order: NDArray[np.int64], after: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per row (original order): another row of its user has its time."""
    t = times[order]
    same = after[1:] & (t[1:] == t[:-1])
    tied_sorted = np.zeros(len(t), dtype=bool)
    tied_sorted[1:] |= same
    tied_sorted[:-1] |= same
    tied = np.empty(len(t), dtype=bool)
    tied[order] = tied_sorted
    return tied


def _first_session(times: NDArray[Any], order: NDArray[np.int64], after: NDArray[np.bool_],
                   gap: float) -> NDArray[np.bool_]:
    """Per row (original order): no gap of more than ``gap`` separates it from its user's first row."""
    t = times[order]
    breaks = np.zeros(len(t), dtype=np.int64)
    breaks[1:] = after[1:] & ((t[1:] - t[:-1]) > gap)
    seen = np.cumsum(breaks)
    # the breaks before each user's first row: the running count where a user starts
    base = np.maximum.accumulate(np.where(~after, seen, 0))
    first = np.empty(len(t), dtype=bool)
    first[order] = seen == base
    return first


def time_profile_lines(coded: Coded, train_times: NDArray[Any], test_times: NDArray[Any], gap: float,
                       gap_text: str) -> list[Line]:
    """Tied timestamps (all rows, test rows), test rows at their user's last training time, and
    the first sessions, from both frames' times as comparable numbers and ``gap`` in their units."""
    users = np.concatenate([coded.train_users, coded.test_users])
    times = np.concatenate([train_times, test_times])
    n_train = len(train_times)
    order, after = _by_user_then_time(users, times)
    tied = _tied(times, order, after)
    test_tied = tied[n_train:]
    fill = np.iinfo(times.dtype).min if times.dtype.kind in "iu" else -np.inf
    last = np.full(coded.n_users, fill, dtype=times.dtype)
    np.maximum.at(last, coded.train_users, train_times.astype(times.dtype, copy=False))
    has_train = np.zeros(coded.n_users, dtype=bool)
    has_train[coded.train_users] = True
    at_last = has_train[coded.test_users] & (test_times == last[coded.test_users])
    first = _first_session(times, order, after, gap)
    rows = np.bincount(users, minlength=coded.n_users)
    in_first = np.bincount(users[first], minlength=coded.n_users)
    over_half = int(np.count_nonzero(2 * in_first > rows))
    n_all_users = int(np.count_nonzero(rows))
    return ties_of((int(tied.sum()), len(times), affected_users(users[tied], coded.n_users)),
                   (int(test_tied.sum()), len(test_times), affected_users(coded.test_users[test_tied], coded.n_users)),
                   (int(at_last.sum()), affected_users(coded.test_users[at_last], coded.n_users))) + \
        sessions_of(int(first.sum()), len(times), over_half, n_all_users, gap_text)


def ties_of(every: tuple[int, int, int], test: tuple[int, int, int], last: tuple[int, int]) -> list[Line]:
    """The tie lines from (tied rows, rows, users) of all the data and of the test, and (test rows
    at their user's last training time, users)."""
    return [
        Line("tied timestamps", every[0], every[1], every[2], "interactions in train ∪ test",
             "interactions whose time another interaction of the same user has (Woolridge et al., RecSys 2021)",
             problem=False, profile=True),
        Line("tied timestamps, test", test[0], test[1], test[2], "test interactions",
             "test interactions whose time another interaction (train or test) of the same user has",
             problem=False, profile=True),
        Line("test at the last train time", last[0], test[1], last[1], "test interactions",
             "test interactions at their user's last training time: train or test was decided by row order"),
    ]


def sessions_of(rows: int, n_rows: int, users: int, n_users: int, gap_text: str) -> list[Line]:
    """The first-session lines from (rows in their user's first session, rows) and (users with
    more than half of theirs in it, users)."""
    return [
        Line("first-session interactions", rows, n_rows, None, "interactions in train ∪ test",
             f"interactions in their user's first session (a new session after a gap of more than {gap_text}; "
             f"Fan et al., TOIS 2024)", problem=False, profile=True),
        Line("users mostly in their first session", users, n_users, users, "users in train ∪ test",
             "users with more than half of their interactions in their first session", problem=False, profile=True),
    ]


def repeat_line(coded: Coded, train: PairIndex) -> Line:
    """Test rows whose (user, item) pair is in train."""
    repeat = train.holds(coded.pairs(coded.test_users, coded.test_items))
    return repeat_of(int(repeat.sum()), len(repeat), affected_users(coded.test_users[repeat], coded.n_users))


def repeat_of(count: int, of: int, users: int) -> Line:
    return Line("repeat test interactions", count, of, users, "test interactions",
                "test interactions with an item already in their user's train (Li et al., TOIS 2023); "
                "truth_items='repeat' or 'explore' evaluates each part", problem=False, profile=True)


def catalog_ids(catalog: Any, item_col: str) -> pd.Index:
    """The catalog's distinct item ids (an iterable, a Series or a frame's ``item_col``)."""
    return catalog_index(catalog, item_col)


def catalog_line(catalog: pd.Index, pred: pd.DataFrame, user_col: str, item_col: str, system: str) -> Line:
    """Listed rows whose item the catalog does not hold, the distinct such items, and their users."""
    items = id_values(pred[item_col])
    at, uniques = codes_in(catalog, items)
    check_id_kinds(pred, pd.DataFrame({item_col: catalog}), item_col, plain(uniques), plain(catalog.to_numpy()),
                   other="catalog")
    out = np.asarray(at) < 0
    listed = pred[item_col].to_numpy()[out]
    users = pd.unique(np.asarray(id_values(pred[user_col]))[out])
    return catalog_of(system, int(out.sum()), len(pred), len(users), len(pd.unique(listed)))


def catalog_of(system: str, count: int, of: int, users: int, items: int) -> Line:
    return Line(f"items not in the catalog{system}", count, of, users, "listed rows",
                f"listed items the catalog does not hold ({items:,} distinct): they do not exist")


def mde_line(n_users: int, what: str) -> Line:
    """The smallest standardised paired difference (Cohen's d_z) a two-sided paired t-test detects
    with ``n_users`` users, at :data:`MDE_ALPHA` and :data:`MDE_POWER`."""
    d = ttest_mde(n_users, alpha=MDE_ALPHA, power=MDE_POWER)
    return Line("minimum detectable effect", n_users, None, None, "",
                f"d_z = {d:.4g}: the smallest mean paired difference, in standard deviations of the "
                f"differences, a paired t-test detects over these {n_users:,} {what} (alpha {MDE_ALPHA:g}, "
                f"power {MDE_POWER:g}; rankeval.stats.ttest_mde)", problem=False, profile=True, value=d)


def mde_lines(lines: list[Line], n_systems: int, skipped: dict[str, str]) -> list[Line]:
    """The minimum detectable effect when two systems or more are audited: over the test users
    with a relevant item (every test user without scores: every truth row is then relevant)."""
    if n_systems < 2:  # no comparison audited: nothing to say, and nothing skipped
        return []
    by_check = {line.check: line for line in lines}
    relevant = by_check.get("test users with a relevant item")
    n, what = ((relevant.count, "test users with a relevant item") if relevant is not None
               else (by_check["test users"].count, "test users"))
    if n < 2:
        skipped["minimum detectable effect"] = f"{n} {what}: a paired test needs 2"
        return []
    return [mde_line(n, what)]
