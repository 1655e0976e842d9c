"""From a per-row assignment to the ``Splits``: cold test items dropped, every dropped row counted.

The splitters decide, row by row, which fold's test a row is in; what follows is common
to all of them: the frames are cut from the caller's frame (its rows, columns and index
labels, in its order), test rows of items the fold's train never saw are dropped when
asked (``drop_cold_items``), and every user or row left out of a test is announced by
one counted :class:`~rankeval.exceptions.RankevalWarning` per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._input import Interactions, warn_duplicates
from ._splits import Rows, Splits
from ._warn import warn

__all__ = ["assemble", "warn_kept_whole", "share_of_users", "Plan", "finish", "require_test", "require_tests",
           "warn_cold_dropped"]


@dataclass
class Plan:
    """Which rows a splitter puts where, and what it has to announce (nothing announced yet).

    ``tests``: one test mask per fold; ``trains``: each fold's train rows when train is not
    the complement of test (``drawn``: how many times the bootstrap drew each row);
    ``reasons``: users kept out of the test, counted by reason; ``duplicates``: rows
    repeating a pair and pairs repeated. Each count adds up over any partition of the users,
    which is what lets Spark run a plan per bucket of users.
    """

    tests: list[NDArray[np.bool_]]
    reasons: list[tuple[int, str]]
    duplicates: tuple[int, int]
    where: str = "whole in train"
    trains: list[NDArray[np.int64]] | None = None
    drawn: NDArray[np.int64] | None = None


def require_tests(method: str, counts: list[int], n_users: int) -> None:
    """Raise when a fold's test is empty (every user kept whole, or too few rows)."""
    for i, n_test in enumerate(counts, 1):
        if not n_test:
            raise ValueError(f"{method}: the test set{'' if len(counts) == 1 else f' of fold{i}'} is empty: none of "
                             f"the {n_users:,} user(s) has enough interactions to give one (see the warning "
                             f"above); lower min_interactions, or split a larger frame")


def require_test(method: str, tests: list[NDArray[np.bool_]], n_users: int) -> None:
    """Raise when a fold's test is empty (every user kept whole, or too few rows)."""
    require_tests(method, [int(np.count_nonzero(t)) for t in tests], n_users)


def finish(data: Interactions, method: str, plan: Plan, params: dict[str, Any], *, drop_cold_items: bool) -> Splits:
    """The plan announced (duplicates, users kept whole, an empty test refused) and cut into ``Splits``."""
    warn_duplicates(data.columns, method, plan.duplicates)
    warn_kept_whole(method, data.n_users, plan.reasons, where=plan.where)
    require_test(method, plan.tests, data.n_users)
    return assemble(data, params, plan.tests, drop_cold_items=drop_cold_items, trains=plan.trains)


def share_of_users(count: int, total: int) -> str:
    return f"{count:,} of {total:,} user(s) ({count / total:.1%})" if total else f"{count:,} user(s)"


def warn_kept_whole(method: str, n_users: int, reasons: list[tuple[int, str]], *,
                    where: str = "whole in train") -> None:
    """One warning counting the users a splitter kept out of the test, by reason (reasons with 0 users left out)."""
    reasons = [(n, why) for n, why in reasons if n]
    if not reasons:
        return
    total = sum(n for n, _ in reasons)
    detail = "; ".join(f"{n:,} {why}" for n, why in reasons)
    warn(f"{method}: {share_of_users(total, n_users)} stay {where}: {detail}")


def _cold_test_rows(data: Interactions, train_rows: NDArray[np.int64] | None, in_test: NDArray[np.bool_]
                    ) -> NDArray[np.bool_]:
    """Test rows whose item has no row in the fold's train."""
    seen = np.zeros(data.n_items, dtype=bool)
    codes = data.item_codes
    seen[codes[~in_test] if train_rows is None else codes[train_rows]] = True
    return in_test & ~seen[codes]


def warn_cold_dropped(method: str, dropped: list[int], tested: list[int], names: list[str]) -> None:
    total, whole = sum(dropped), sum(tested)
    if not total:
        return
    per_fold = "" if len(dropped) == 1 else " (" + ", ".join(f"{n}: {d:,}" for n, d in zip(names, dropped)) + ")"
    warn(f"{method}: drop_cold_items dropped {total:,} of {whole:,} test interaction(s) "
                  f"({total / whole:.1%}){per_fold}: their items have no interaction in the fold's train")


def assemble(data: Interactions, params: dict[str, Any], tests: list[NDArray[np.bool_]], *,
             drop_cold_items: bool, trains: list[NDArray[np.int64]] | None = None) -> Splits:
    """The ``Splits`` of test masks ``tests`` (train: every other row, or the rows ``trains``).

    ``trains`` lists a fold's train rows (repeats allowed: a bootstrap sample) when train is
    not the complement of test.
    """
    rows: list[Rows] = []
    dropped, tested = [], []
    for i, in_test in enumerate(tests):
        train_rows = None if trains is None else trains[i]
        test_mask = in_test
        if drop_cold_items:
            cold = _cold_test_rows(data, train_rows, in_test)
            dropped.append(int(cold.sum()))
            tested.append(int(in_test.sum()))
            test_mask = in_test & ~cold
        rows.append((~in_test if train_rows is None else train_rows, test_mask))
    splits = Splits.from_rows(data.frame, rows, params)
    if drop_cold_items:
        warn_cold_dropped(str(params["method"]), dropped, tested, splits.names)
    return splits
