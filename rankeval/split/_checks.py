"""The audit's lines, each a count, the whole it is a share of, and the users it touches.

Every check works on integer codes (:mod:`._coded`) with sorts, binary searches and
bincounts: no per-user loop. A line is a :class:`Line`; :mod:`._audit` assembles them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import sorted_unique
from ._coded import Coded

__all__ = ["CheapCheck", "CHEAP_CHECKS", "cheap_counts", "Line", "PairIndex",
           "pair_lines", "cold_lines", "seen_line", "leakage_lines", "future_line",
           "shape_lines", "affected_users", "item_first_times", "user_test_starts", "overlap_of", "duplicates_of",
           "cold_of", "seen_of", "leakage_of", "future_of", "shape_of"]


@dataclass(frozen=True)
class CheapCheck:
    """A train-vs-test check cheap enough for every evaluation given ``train``: what it counts,
    under one set of names for the audit's line, :func:`~rankeval.split.cheap_checks`' dict
    (pandas and Spark) and an evaluation's protocol warning."""

    line: str    # the audit's line
    count: str   # the key of its count in cheap_checks' dict
    whole: str   # the key of the whole the count is a share of
    text: str    # what a non-zero count means, as the evaluation's warning says it


#: the cheap checks by name (an evaluation's ``protocol_checks``), in the order of cheap_checks' dict
CHEAP_CHECKS = {
    "seen": CheapCheck("seen items recommended", "seen_items_recommended", "pred_rows",
                       "listed rows recommend an item the user already has in `train`"),
    "overlap": CheapCheck("overlap train ∩ test", "overlap", "test_pairs",
                          "test (user, item) pairs are also in `train`"),
    "cold": CheapCheck("cold users", "cold_users", "test_users", "test users have no `train` row"),
}


def cheap_counts(**found: tuple[int | None, int | None]) -> dict[str, int | None]:
    """:func:`~rankeval.split.cheap_checks`' dict from each named check's ``(count, whole)``
    (a check not given: None and None)."""
    out: dict[str, int | None] = {}
    for name, check in CHEAP_CHECKS.items():
        out[check.count], out[check.whole] = found.pop(name, (None, None))
    assert not found, f"no such cheap check: {sorted(found)}"
    return out


@dataclass
class Line:
    """One row of the audit's table."""

    check: str
    count: int
    of: int | None
    users_affected: int | None
    whole: str       # what ``of`` counts
    meaning: str     # what ``count`` counts
    problem: bool = True  # named by the verdict when non-zero
    profile: bool = False  # named by the verdict's profile of the data, whatever its count
    value: float | None = None  # a number that is no count (the minimum detectable effect)

    @property
    def note(self) -> str:
        return f"{self.meaning} (share of {self.whole})" if self.whole else self.meaning

    @property
    def share(self) -> float:
        return self.count / self.of if self.of else float("nan")


def affected_users(users: NDArray[np.int64], n_users: int) -> int:
    """How many distinct users (codes >= 0) ``users`` holds."""
    users = users[users >= 0]
    return int(np.count_nonzero(np.bincount(users, minlength=n_users))) if len(users) else 0


class PairIndex:
    """The sorted ``(user, item)`` pair keys of a frame, for membership tests."""

    def __init__(self, keys: NDArray[np.int64]) -> None:
        self.sorted = np.sort(keys)

    def repeats(self) -> NDArray[np.bool_]:
        """Per sorted key: it equals the key before it (a duplicate row)."""
        out = np.zeros(len(self.sorted), dtype=bool)
        np.equal(self.sorted[1:], self.sorted[:-1], out=out[1:])
        return out

    def unique(self) -> NDArray[np.int64]:
        return self.sorted[~self.repeats()]

    def holds(self, keys: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Per key: whether the index holds it (-1, an unknown id, never)."""
        if not len(self.sorted):
            return np.zeros(len(keys), dtype=bool)
        # a hash lookup: a binary search per key jumps all over a large index (10x slower for
        # 10M keys in random order)
        return pd.Series(keys, copy=False).isin(self.sorted).to_numpy() & (keys >= 0)


def _duplicates(name: str, index: PairIndex, n_items: int, n_users: int) -> Line:
    repeat = index.repeats()
    users = index.sorted[repeat] // max(n_items, 1)
    return duplicates_of(name, int(repeat.sum()), len(index.sorted), affected_users(users, n_users))


def duplicates_of(name: str, count: int, of: int, users: int) -> Line:
    return Line(f"duplicates in {name}", count, of, users, f"{name} interactions",
                "rows repeating an earlier row's (user, item) pair")


def overlap_of(count: int, of: int, users: int) -> Line:
    return Line(CHEAP_CHECKS["overlap"].line, count, of, users, "distinct test (user, item) pairs",
                "test pairs also in train: the answer is in the training data")


def pair_lines(coded: Coded, train: PairIndex, test: PairIndex) -> list[Line]:
    """Overlap of train and test pairs, and duplicates within each."""
    test_pairs = test.unique()
    both = train.holds(test_pairs)
    users = test_pairs[both] // max(coded.n_items, 1)
    overlap = overlap_of(int(both.sum()), len(test_pairs), affected_users(users, coded.n_users))
    return [overlap, _duplicates("train", train, coded.n_items, coded.n_users),
            _duplicates("test", test, coded.n_items, coded.n_users)]


def cold_lines(coded: Coded) -> list[Line]:
    """Test users and items without a train row (their codes come after train's)."""
    test_users = sorted_unique(coded.test_users)
    test_items = sorted_unique(coded.test_items)
    cold_users = test_users >= coded.n_train_users
    cold_item_rows = coded.test_items >= coded.n_train_items
    n_cold_rows = int(np.count_nonzero(coded.test_users >= coded.n_train_users))
    return cold_of((int(cold_users.sum()), len(test_users), n_cold_rows),
                   (int((test_items >= coded.n_train_items).sum()), len(test_items),
                    affected_users(coded.test_users[cold_item_rows], coded.n_users), int(cold_item_rows.sum())))


def cold_of(users: tuple[int, int, int], items: tuple[int, int, int, int]) -> list[Line]:
    """The cold lines from (cold users, test users, their test rows) and (cold items, test items,
    users with a cold test item, their test rows)."""
    return [Line(CHEAP_CHECKS["cold"].line, users[0], users[1], users[0], "test users",
                 f"users without a train interaction ({users[2]:,} test interaction(s))"),
            Line("cold items", items[0], items[1], items[2], "test items",
                 f"items without a train interaction ({items[3]:,} test interaction(s))")]


def seen_line(coded: Coded, train: PairIndex, users: NDArray[np.int64], items: NDArray[np.int64],
              system: str) -> Line:
    """Listed (user, item) pairs already in that user's train."""
    seen = train.holds(coded.pairs(users, items))
    return seen_of(system, int(seen.sum()), len(users), affected_users(users[seen], coded.n_users))


def seen_of(system: str, count: int, of: int, users: int) -> Line:
    return Line(f"{CHEAP_CHECKS['seen'].line}{system}", count, of, users, "listed rows",
                "items the user already has in train (a recommender that does not exclude them)")


def _earliest(codes: NDArray[np.int64], times: NDArray[Any], size: int) -> NDArray[Any]:
    """The earliest time per code (the largest value of the dtype where a code has none)."""
    fill = np.iinfo(times.dtype).max if times.dtype.kind in "iu" else np.inf
    out = np.full(size, fill, dtype=times.dtype)
    np.minimum.at(out, codes, times)
    return out


def leakage_lines(coded: Coded, train_times: NDArray[Any], starts: tuple[NDArray[Any], NDArray[np.bool_]]
                  ) -> list[Line]:
    """Train interactions later than the user's own earliest test time, and than anyone's."""
    earliest, has_test = starts
    own = has_test[coded.train_users] & (train_times > earliest[coded.train_users])
    late = train_times > earliest[has_test].min()
    return leakage_of((int(own.sum()), affected_users(coded.train_users[own], coded.n_users)),
                      (int(late.sum()), affected_users(coded.train_users[late], coded.n_users)), len(train_times))


def leakage_of(own: tuple[int, int], late: tuple[int, int], n_train: int) -> list[Line]:
    """The leakage lines from (rows, users) later than their own earliest test time, and than anyone's."""
    return [
        Line("temporal leakage, per user", own[0], n_train, own[1],
             "train interactions", "later than their user's own earliest test interaction"),
        Line("temporal leakage, global", late[0], n_train, late[1],
             "train interactions", "later than the earliest test interaction of any user (Ji et al., TOIS 2023)"),
    ]


def item_first_times(coded: Coded, train_times: NDArray[Any], test_times: NDArray[Any]) -> NDArray[Any]:
    """The first interaction time of every item in train ∪ test."""
    items = np.concatenate([coded.train_items, coded.test_items])
    times = np.concatenate([train_times, test_times])
    return _earliest(items, times, coded.n_items)


def user_test_starts(coded: Coded, test_times: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """Each user's earliest test time, and whether the user has test rows."""
    earliest = _earliest(coded.test_users, test_times, coded.n_users)
    has_test = np.zeros(coded.n_users, dtype=bool)
    has_test[coded.test_users] = True
    return earliest, has_test


def future_line(coded: Coded, item_first: NDArray[Any], starts: tuple[NDArray[Any], NDArray[np.bool_]],
                users: NDArray[np.int64], items: NDArray[np.int64], system: str) -> Line:
    """Listed items whose first interaction (train ∪ test) is after the user's earliest test time."""
    earliest, has_test = starts
    known = (users >= 0) & (items >= 0)
    known[known] &= has_test[users[known]]
    future = np.zeros(len(users), dtype=bool)
    future[known] = item_first[items[known]] > earliest[users[known]]
    return future_of(system, int(future.sum()), len(users), affected_users(users[future], coded.n_users))


def future_of(system: str, count: int, of: int, users: int) -> Line:
    return Line(f"future items recommended{system}", count, of, users, "listed rows",
                "items first interacted with after the user's earliest test interaction: no model "
                "trained before then could know them")


def shape_lines(coded: Coded, scores: NDArray[np.float64] | None, threshold: float | None) -> list[Line]:
    """Test users, items, interactions per user, and users with a relevant test item."""
    per_user = np.bincount(coded.test_users, minlength=coded.n_users)
    per_user = per_user[per_user > 0]
    n_users, n_items = len(per_user), int(np.count_nonzero(np.bincount(coded.test_items)))
    relevant = None
    if scores is not None:
        # every user's largest score is at or above their own mean score
        relevant = n_users if threshold is None else affected_users(coded.test_users[scores >= threshold],
                                                                    coded.n_users)
    return shape_of((n_users, coded.n_users), (n_items, coded.n_items),
                    (len(coded.test_users), int(per_user.min()), float(np.median(per_user)), int(per_user.max())),
                    relevant, threshold)


def shape_of(users: tuple[int, int], items: tuple[int, int], rows: tuple[int, int, float, int],
             relevant: int | None, threshold: float | None) -> list[Line]:
    """The shape lines from (test users, all users), (test items, all items), (test rows, min,
    median and max per user) and the test users with a relevant item (None: no scores)."""
    lines = [
        Line("test users", users[0], users[1], None, "users in train ∪ test", "users with a test interaction",
             problem=False),
        Line("test items", items[0], items[1], None, "items in train ∪ test", "items with a test interaction",
             problem=False),
        Line("test interactions per user", rows[0], None, None, "",
             f"test interactions; per user: min {rows[1]}, median {rows[2]:g}, max {rows[3]}", problem=False),
    ]
    if relevant is not None:
        rule = ("score >= the user's mean score (true of every user's best item)" if threshold is None
                else f"score >= {threshold:g}")
        lines.append(Line("test users with a relevant item", relevant, users[0], relevant, "test users",
                          f"relevant: {rule}", problem=False, profile=True))
    return lines
