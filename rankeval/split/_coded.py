"""Train, test and recommendation lists read in one id space, for the audit's checks.

Users (and items) of train and test get one code space, train's ids first: an id of test
whose code is past train's last code has no train row (a cold user or item). Ids of the
lists are looked up in that space (-1: an id neither train nor test holds). A ``(user,
item)`` pair is the int64 ``user * n_items + item``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import (
    IdColumn,
    codes_in,
    factorize,
    factorize_together,
    id_kind,
    id_kind_error,
    id_values,
    is_spark_frame,
    reject_empty,
    reject_missing_ids,
    reject_mixed_ids,
    show,
    to_pandas,
)
from ._times import require_named

__all__ = ["Coded", "IdSpace", "code_frames", "code_pred", "local_frame"]


def local_frame(frame: Any, name: str) -> pd.DataFrame:
    if is_spark_frame(frame):
        raise TypeError(f"`{name}` is a Spark DataFrame among local frames: give the audit Spark frames only, "
                        f"or local frames only (.toPandas())")
    return to_pandas(frame, name)


class IdSpace:
    """The distinct user and item ids that integer codes index (code ``c`` is ``user_ids[c]``)."""

    user_ids: NDArray[Any]
    item_ids: NDArray[Any]

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)


@dataclass
class Coded(IdSpace):
    """Codes of the train and test rows in one space; train's ids hold the first codes."""

    train_users: NDArray[np.int64]
    train_items: NDArray[np.int64]
    test_users: NDArray[np.int64]
    test_items: NDArray[np.int64]
    user_ids: NDArray[Any]
    item_ids: NDArray[Any]
    n_train_users: int
    n_train_items: int

    def pairs(self, users: NDArray[np.int64], items: NDArray[np.int64]) -> NDArray[np.int64]:
        """The pair key of each row (-1 where either id is unknown)."""
        keys = users * max(self.n_items, 1) + items
        keys[(users < 0) | (items < 0)] = -1
        return keys


def _joint(train: pd.DataFrame, test: pd.DataFrame, column: str) -> tuple[NDArray[np.int64], NDArray[np.int64],
                                                                         NDArray[Any], int]:
    """Codes of one id column of train and test in one space, and how many ids train holds."""
    first, second = id_values(train[column]), id_values(test[column])
    together = factorize_together(first, second)
    if together is not None:
        train_codes, test_codes, ids = together
    else:  # different dtypes (int and float ids, text in different Arrow types): compared as Python values
        both = np.concatenate([np.asarray(first, dtype=object), np.asarray(second, dtype=object)])
        codes, ids = factorize(both)  # in order of first appearance: train's ids first
        train_codes, test_codes = codes[:len(first)], codes[len(first):]
    reject_missing_ids(train, "train", column, np.asarray(train_codes) < 0)
    reject_missing_ids(test, "test", column, np.asarray(test_codes) < 0)
    train_ids = ids[:int(train_codes.max()) + 1]
    test_ids_seen = ids[np.bincount(test_codes, minlength=len(ids)) > 0]
    reject_mixed_ids(train, "train", column, train_ids)
    reject_mixed_ids(test, "test", column, test_ids_seen)
    kinds = id_kind(train_ids), id_kind(test_ids_seen)
    if None not in kinds and kinds[0] != kinds[1]:
        raise id_kind_error(f"`train`['{column}'] holds {kinds[0]} (e.g. {show(train_ids[0])}) but `test`['{column}'] "
                            f"holds {kinds[1]} (e.g. {show(test_ids_seen[0])})",
                            IdColumn("train", column, kinds[0], train_ids),
                            IdColumn("test", column, kinds[1], test_ids_seen))
    return (np.asarray(train_codes, dtype=np.int64), np.asarray(test_codes, dtype=np.int64), np.asarray(ids),
            len(train_ids))


def code_frames(train: pd.DataFrame, test: pd.DataFrame, user_col: str, item_col: str) -> Coded:
    """Both frames checked (columns, ids, not empty) and coded."""
    for df, name in ((train, "train"), (test, "test")):
        require_named(df, name, [user_col, item_col])
        reject_empty(df, name)
    train_users, test_users, user_ids, n_train_users = _joint(train, test, user_col)
    train_items, test_items, item_ids, n_train_items = _joint(train, test, item_col)
    return Coded(train_users, train_items, test_users, test_items, user_ids, item_ids, n_train_users, n_train_items)


def code_pred(coded: Coded, pred: pd.DataFrame, name: str, user_col: str, item_col: str
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The list rows' user and item codes (-1: an id neither train nor test holds)."""
    require_named(pred, name, [user_col, item_col])
    out = []
    for column, ids in ((user_col, coded.user_ids), (item_col, coded.item_ids)):
        values = id_values(pred[column])
        codes, uniques = codes_in(pd.Index(ids), values)
        reject_missing_ids(pred, name, column, np.asarray(pd.isna(pred[column])))
        reject_mixed_ids(pred, name, column, np.asarray(uniques))
        out.append(np.asarray(codes, dtype=np.int64))
    return out[0], out[1]
