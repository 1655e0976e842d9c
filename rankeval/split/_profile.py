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

import math
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import catalog_index, check_id_kinds, codes_in, id_values, plain
from ..stats import ttest_mde
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


def _time_keys(times: NDArray[Any], free_bits: int) -> tuple[NDArray[np.uint64], int, Any]:
    """Non-negative integers ordered as the times (equal times, equal keys), their width in bits
    and how to read a time back from a key: integer times less their minimum when they fit in
    ``free_bits``, else the dense rank among the distinct times (one argsort)."""
    if times.dtype.kind in "iu" and len(times):
        low = np.uint64(int(times.min()) % (1 << 64))
        keys = times.astype(np.uint64) - low  # wraps as two's complement: exact
        width = max(int(keys.max()).bit_length(), 1)
        if width <= free_bits:
            return keys, width, lambda k: (k + low).astype(times.dtype)
    order = np.argsort(times, kind="stable")
    ordered = times[order]
    new = np.ones(len(times), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    distinct = ordered[new]
    keys = np.empty(len(times), dtype=np.uint64)
    keys[order] = np.cumsum(new, dtype=np.uint64) - np.uint64(1)
    return keys, max(len(distinct).bit_length(), 1), lambda k: distinct[k.astype(np.int64)]


def _sorted_rows(users: NDArray[np.int64], times: NDArray[Any], n_train: int
                 ) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[np.bool_]]:
    """Every row's user, time and test flag, in (user, time) order.

    No permutation is needed, only counts: each row becomes one uint64, its user code, then its
    time's key (:func:`_time_keys`), then one bit saying it is a test row; one ``np.sort`` of
    those words orders them. A dense rank and a code below the number of rows fit in 63 bits.
    """
    user_bits = max(int(users.max()).bit_length(), 1) if len(users) else 1
    keys, time_bits, time_of = _time_keys(times, 63 - user_bits)
    words = users.astype(np.uint64) << np.uint64(time_bits + 1)
    words |= keys << np.uint64(1)
    words[n_train:] |= np.uint64(1)
    words.sort()
    test = (words & np.uint64(1)).astype(bool)
    words >>= np.uint64(1)
    sorted_times = time_of(words & np.uint64((1 << time_bits) - 1))
    words >>= np.uint64(time_bits)
    return words.astype(np.int64), sorted_times, test


def _first_session(u: NDArray[np.int64], t: NDArray[Any], after: NDArray[np.bool_], gap: float) -> NDArray[np.bool_]:
    """Per row in (user, time) order: no gap of more than ``gap`` separates it from its user's first row."""
    breaks = np.zeros(len(t), dtype=np.int64)
    if t.dtype.kind in "iu":  # a user's times ascend: their difference in uint64 never wraps; integers
        # exceed the gap when they exceed its floor, compared exactly (not as floats)
        steps = t[1:].astype(np.uint64) - t[:-1].astype(np.uint64)
        breaks[1:] = after[1:] & (steps > np.uint64(min(math.floor(gap), 2 ** 64 - 1)))
    else:
        breaks[1:] = after[1:] & ((t[1:] - t[:-1]) > gap)
    seen = np.cumsum(breaks)
    # the breaks before each user's first row: the running count where a user starts
    base = np.maximum.accumulate(np.where(~after, seen, 0))
    return seen == base


def _at_last(coded: Coded, train_times: NDArray[Any], test_times: NDArray[Any]) -> NDArray[np.bool_]:
    """Per test row: its time is its user's latest training time."""
    dtype = np.result_type(train_times, test_times)
    fill = np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf
    last = np.full(coded.n_users, fill, dtype=dtype)
    np.maximum.at(last, coded.train_users, train_times.astype(dtype, copy=False))
    has_train = np.zeros(coded.n_users, dtype=bool)
    has_train[coded.train_users] = True
    return has_train[coded.test_users] & (test_times == last[coded.test_users])


def time_profile_lines(coded: Coded, train_times: NDArray[Any], test_times: NDArray[Any], gap: float,
                       gap_text: str) -> list[Line]:
    """Tied timestamps (all rows, test rows), test rows at their user's last training time, and
    the first sessions, from both frames' times as comparable numbers and ``gap`` in their units."""
    users = np.concatenate([coded.train_users, coded.test_users])
    u, t, test = _sorted_rows(users, np.concatenate([train_times, test_times]), len(train_times))
    after = np.zeros(len(u), dtype=bool)
    np.equal(u[1:], u[:-1], out=after[1:])
    same = after[1:] & (t[1:] == t[:-1])
    tied = np.zeros(len(t), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    at_last = _at_last(coded, train_times, test_times)
    first = _first_session(u, t, after, gap)
    rows = np.bincount(users, minlength=coded.n_users)
    in_first = np.bincount(u[first], minlength=coded.n_users)
    over_half = int(np.count_nonzero(2 * in_first > rows))
    n = coded.n_users
    return ties_of((int(tied.sum()), len(t), affected_users(u[tied], n)),
                   (int((tied & test).sum()), len(test_times), affected_users(u[tied & test], n)),
                   (int(at_last.sum()), affected_users(coded.test_users[at_last], n))) + \
        sessions_of(int(first.sum()), len(t), over_half, int(np.count_nonzero(rows)), gap_text)


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
