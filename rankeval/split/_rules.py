"""The rules every splitter shares: parameter checks, test counts per user, users kept whole.

Rounding. A user with ``n_u`` interactions gives ``⌊test_size · n_u⌋`` of them to test,
the product read as the decimal written (``0.29 · 100`` is 29, where binary floating
point gives 28.999999999999996): RecBole's rule (``_calcu_split_ids``, which truncates the
binary product) and the one the peers agree on at large ``n_u``, never more than the share
asked (RecBole also lends a user with ``0 < test_size · n_u < 1`` one test interaction,
which the floor does not). :func:`~rankeval.split.temporal_holdout` takes two more rules
(``rounding=``, :data:`ROUNDING`), each the peer's arithmetic on the binary product:
``"half_even"``, ``round(test_size · n_u)`` (LensKit's ``LastFrac``: Python's ``round``,
ties to even) and ``"train_half_even"``, ``n_u - round((1 - test_size) · n_u)`` (MS
Recommenders' ``python_chrono_split(ratio=1 - test_size)`` rounds the train share, ties to
even, with NumPy's ``round``).

Users kept whole. A user with fewer than ``min_interactions`` interactions, or whose
train would be empty (``n_last >= n_u``), or whose ``⌊test_size · n_u⌋`` is 0, keeps
every interaction in train; one :class:`~rankeval.exceptions.RankevalWarning` per call
counts them by reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.internal import check_choice, check_integer, check_number, segment_ids, segment_positions
from ._input import Interactions

__all__ = ["check_test_size", "check_common", "floor_share", "share_counts", "user_test_counts", "take_per_user",
           "move_back_whole_users", "eligible_rows", "BY", "ROUNDING"]

BY = ("user", "record")
#: how ``test_size · n`` becomes a count of test interactions (see the module's docstring)
ROUNDING = ("floor", "half_even", "train_half_even")
#: a product within this many units in the last place below an integer is that integer
_ULPS = 4


def check_test_size(test_size: Any) -> float:
    return check_number("test_size", test_size, 0.0, 1.0, why=" (the share of interactions put in test)")


def check_common(min_interactions: Any, drop_cold_items: Any, by: str | None = None) -> int:
    """Check the options every splitter takes; returns ``min_interactions``."""
    if by is not None:
        check_choice("by", by, BY)
    if not isinstance(drop_cold_items, (bool, np.bool_)):
        raise ValueError(f"`drop_cold_items` must be True or False, got {drop_cold_items!r}")
    return check_integer("min_interactions", min_interactions, 1)


def floor_share(test_size: float, counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """``⌊test_size · n⌋`` for every ``n``, products a few ulps below an integer read as that integer."""
    product = test_size * counts.astype(np.float64)
    return np.floor(product * (1.0 + _ULPS * np.finfo(np.float64).eps)).astype(np.int64)


def share_counts(test_size: float, counts: NDArray[np.int64], rounding: str = "floor") -> NDArray[np.int64]:
    """``test_size · n`` as a count of test interactions for every ``n``, by one rule of :data:`ROUNDING`."""
    if rounding == "floor":
        return floor_share(test_size, counts)
    n = counts.astype(np.float64)
    if rounding == "half_even":  # np.rint rounds ties to even, as Python's round and NumPy's round do
        return np.rint(test_size * n).astype(np.int64)
    return counts.astype(np.int64) - np.rint((1.0 - test_size) * n).astype(np.int64)


def _rounded(test_size: float, rounding: str) -> str:
    """The rule, written for a warning: ``⌊0.25·n_u⌋``, ``round(0.25·n_u)``, ``n_u - round(0.75·n_u)``."""
    if rounding == "floor":
        return f"⌊{test_size:g}·n_u⌋"
    if rounding == "half_even":
        return f"round({test_size:g}·n_u)"
    return f"n_u - round({1.0 - test_size:g}·n_u)"


def user_test_counts(counts: NDArray[np.int64], *, test_size: float | None, n_last: int | None,
                     min_interactions: int, rounding: str = "floor"
                     ) -> tuple[NDArray[np.int64], list[tuple[int, str]]]:
    """Test interactions of every user, and the users kept whole in train, counted by reason."""
    if n_last is not None:
        n_test = np.full(len(counts), n_last, dtype=np.int64)
        whole = f"have no more than n_last={n_last} interactions (train would be empty)"
    else:
        assert test_size is not None
        n_test = share_counts(test_size, counts, rounding)
        whole = f"would have every interaction in test ({_rounded(test_size, rounding)} = n_u: train would be empty)"
    below = counts < min_interactions
    empty_train = ~below & (n_test >= counts)
    no_test = ~below & ~empty_train & (n_test == 0)
    n_test[below | empty_train] = 0
    reasons = [(int(below.sum()), f"have fewer than min_interactions={min_interactions} interactions"),
               (int(empty_train.sum()), whole),
               (int(no_test.sum()), f"would get no test interaction ({_rounded(test_size, rounding)} = 0)"
                if test_size is not None else "")]
    return n_test, reasons


def take_per_user(data: Interactions, order: NDArray[np.int64], n_test: NDArray[np.int64], *,
                  from_end: bool) -> NDArray[np.bool_]:
    """The test mask: each user's first (or last, ``from_end``) ``n_test`` rows of ``order``.

    ``order`` groups the rows by user code (ascending), each user's rows in rank order.
    """
    offsets = data.offsets()
    user = segment_ids(offsets)
    position = segment_positions(offsets)
    wanted = n_test[user]
    take = position > data.user_counts()[user] - wanted if from_end else position <= wanted
    in_test = np.zeros(data.n_rows, dtype=bool)
    in_test[order[take]] = True
    return in_test


def move_back_whole_users(data: Interactions, in_test: NDArray[np.bool_]) -> int:
    """Users whose every row is in test go back to train, whole (in place); returns how many."""
    tested = np.bincount(data.user_codes[in_test], minlength=data.n_users)
    whole = tested == data.user_counts()
    if whole.any():
        in_test &= ~whole[data.user_codes]
    return int(whole.sum())


def eligible_rows(data: Interactions, min_interactions: int) -> NDArray[np.bool_]:
    """Rows of users with at least ``min_interactions`` interactions."""
    return data.user_counts()[data.user_codes] >= min_interactions
