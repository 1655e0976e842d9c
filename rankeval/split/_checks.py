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

from ..data._keys import sorted_unique
from ._coded import Coded

__all__ = ["Line", "PairIndex", "pair_lines", "cold_lines", "seen_line", "leakage_lines", "future_line",
           "shape_lines", "affected_users", "item_first_times", "user_test_starts"]


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
    return Line(f"duplicates in {name}", int(repeat.sum()), len(index.sorted), affected_users(users, n_users),
                f"{name} interactions", "rows repeating an earlier row's (user, item) pair")


def pair_lines(coded: Coded, train: PairIndex, test: PairIndex) -> list[Line]:
    """Overlap of train and test pairs, and duplicates within each."""
    test_pairs = test.unique()
    both = train.holds(test_pairs)
    users = test_pairs[both] // max(coded.n_items, 1)
    overlap = Line("overlap train ∩ test", int(both.sum()), len(test_pairs), affected_users(users, coded.n_users),
                   "distinct test (user, item) pairs", "test pairs also in train: the answer is in the training data")
    return [overlap, _duplicates("train", train, coded.n_items, coded.n_users),
            _duplicates("test", test, coded.n_items, coded.n_users)]


def cold_lines(coded: Coded) -> list[Line]:
    """Test users and items without a train row (their codes come after train's)."""
    test_users = sorted_unique(coded.test_users)
    test_items = sorted_unique(coded.test_items)
    cold_users = test_users >= coded.n_train_users
    cold_item_rows = coded.test_items >= coded.n_train_items
    n_cold_rows = int(np.count_nonzero(coded.test_users >= coded.n_train_users))
    users = Line("cold users", int(cold_users.sum()), len(test_users), int(cold_users.sum()),
                 "test users", f"users without a train interaction ({n_cold_rows:,} test interaction(s))")
    items = Line("cold items", int((test_items >= coded.n_train_items).sum()), len(test_items),
                 affected_users(coded.test_users[cold_item_rows], coded.n_users),
                 "test items", f"items without a train interaction ({int(cold_item_rows.sum()):,} test "
                 f"interaction(s))")
    return [users, items]


def seen_line(coded: Coded, train: PairIndex, users: NDArray[np.int64], items: NDArray[np.int64],
              system: str) -> Line:
    """Listed (user, item) pairs already in that user's train."""
    seen = train.holds(coded.pairs(users, items))
    return Line(f"seen items recommended{system}", int(seen.sum()), len(users),
                affected_users(users[seen], coded.n_users),
                "listed rows", "items the user already has in train (a recommender that does not exclude them)")


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
    n_train = len(train_times)
    return [
        Line("temporal leakage, per user", int(own.sum()), n_train,
             affected_users(coded.train_users[own], coded.n_users),
             "train interactions", "later than their user's own earliest test interaction"),
        Line("temporal leakage, global", int(late.sum()), n_train,
             affected_users(coded.train_users[late], coded.n_users),
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
    return Line(f"future items recommended{system}", int(future.sum()), len(users),
                affected_users(users[future], coded.n_users),
                "listed rows", "items first interacted with after the user's earliest test interaction: no model "
                "trained before then could know them")


def shape_lines(coded: Coded, scores: NDArray[np.float64] | None, threshold: float | None) -> list[Line]:
    """Test users, items, interactions per user, and users with a relevant test item."""
    per_user = np.bincount(coded.test_users, minlength=coded.n_users)
    per_user = per_user[per_user > 0]
    n_users, n_items = len(per_user), int(np.count_nonzero(np.bincount(coded.test_items)))
    lines = [
        Line("test users", n_users, coded.n_users, None, "users in train ∪ test", "users with a test interaction",
             problem=False),
        Line("test items", n_items, coded.n_items, None, "items in train ∪ test", "items with a test interaction",
             problem=False),
        Line("test interactions per user", len(coded.test_users), None, None, "",
             f"test interactions; per user: min {int(per_user.min())}, median {float(np.median(per_user)):g}, "
             f"max {int(per_user.max())}", problem=False),
    ]
    if scores is not None:
        if threshold is None:
            # every user's largest score is at or above their own mean score
            relevant, rule = n_users, "score >= the user's mean score (true of every user's best item)"
        else:
            relevant = affected_users(coded.test_users[scores >= threshold], coded.n_users)
            rule = f"score >= {threshold:g}"
        lines.append(Line("test users with a relevant item", relevant, n_users, relevant, "test users",
                          f"relevant: {rule}", problem=False))
    return lines
