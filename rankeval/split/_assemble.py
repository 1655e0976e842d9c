"""What every splitter does before and after its draw, and the ``Splits`` of a per-row assignment.

:func:`begin` checks the options every splitter takes and reads the frame; :func:`finish`
announces what the draw left out and builds the result. The splitters decide, row by row,
which fold's test a row is in; what follows is common to all of them: the frames are cut
from the caller's frame (its rows, columns and index labels, in its order), test rows of
items the fold's train never saw are dropped when asked (``drop_cold_items``), and every
user or row left out of a test is announced by one counted
:class:`~rankeval.exceptions.RankevalWarning` per call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._input import Columns, Interactions, prepare, warn_duplicates
from ._rules import check_common
from ._splits import Rows, Splits
from ._warn import warn

__all__ = ["assemble", "warn_kept_whole", "share_of_users", "require_test", "begin", "finish"]


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


def _warn_cold_dropped(method: str, dropped: list[int], tested: list[int], names: list[str]) -> None:
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
        _warn_cold_dropped(str(params["method"]), dropped, tested, splits.names)
    return splits


def require_test(method: str, tests: list[NDArray[np.bool_]], n_users: int) -> None:
    """Raise when a fold's test is empty (every user kept whole, or too few rows)."""
    for i, in_test in enumerate(tests, 1):
        if not in_test.any():
            raise ValueError(f"{method}: the test set{'' if len(tests) == 1 else f' of fold{i}'} is empty: none of "
                             f"the {n_users:,} user(s) has enough interactions to give one (see the warning "
                             f"above); lower min_interactions, or split a larger frame")


def begin(frame: Any, min_interactions: Any, drop_cold_items: Any, columns: Columns, *, need_time: bool,
          by: str | None = None) -> tuple[Interactions, int]:
    """The options every splitter takes checked, and the frame read as codes; returns ``min_interactions`` too."""
    min_interactions = check_common(min_interactions, drop_cold_items, by)
    return prepare(frame, columns, need_time=need_time), min_interactions


def finish(data: Interactions, params: dict[str, Any], tests: list[NDArray[np.bool_]], *,
           duplicates: tuple[int, int], drop_cold_items: bool, kept_whole: list[tuple[int, str]] | None = None,
           where: str = "whole in train", trains: list[NDArray[np.int64]] | None = None) -> Splits:
    """The counted warnings (repeated pairs, users kept whole), an empty test refused, and the ``Splits``.

    ``params`` start with the method and its own parameters; ``drop_cold_items`` and the
    column names are added after them.
    """
    method = str(params["method"])
    warn_duplicates(data, method, duplicates)
    if kept_whole is not None:
        warn_kept_whole(method, data.n_users, kept_whole, where=where)
    require_test(method, tests, data.n_users)
    params = {**params, "drop_cold_items": bool(drop_cold_items), **data.columns.as_params()}
    return assemble(data, params, tests, drop_cold_items=bool(drop_cold_items), trains=trains)
