"""One interactions frame, checked once and read as integer codes, for every splitter.

Every splitter takes the same frame (pandas, polars or Arrow: converted once, the
caller's frame never modified) and the same column options. Here the frame's ids become
integer codes, its times an order key, and its duplicate ``(user, item)`` pairs are
counted; the splitters only decide which rows go where.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import (
    check_integer,
    factorize,
    id_values,
    is_spark_frame,
    reject_empty,
    reject_missing_ids,
    reject_mixed_ids,
    to_pandas,
)
from ._coded import IdSpace
from ._draws import id_hashes, pair_keys
from ._times import order_key, read_times, require_named
from ._warn import warn

__all__ = ["InteractionColumns", "Interactions", "prepare", "check_seed", "count_duplicates", "warn_duplicates"]

#: integer ids spanning up to this many values (or twice the rows) are coded by a lookup table
_DENSE_MIN_SPAN = 1 << 20


@dataclass(frozen=True)
class InteractionColumns:
    """The column names of one interactions frame (user, item, score, time), as a splitter or the
    audit takes them. Not :class:`rankeval.data.Columns`, the names of an evaluation's ``pred``
    and ``truth`` frames (with a rank column, the truth's own names and the score order)."""

    user: str = "user_id"
    item: str = "item_id"
    score: str = "score"
    time: str = "timestamp"

    def as_params(self) -> dict[str, str]:
        return {"user_col": self.user, "item_col": self.item, "score_col": self.score, "time_col": self.time}


@dataclass
class Interactions(IdSpace):
    """The frame and its rows as codes (users and items numbered in order of first appearance, or of
    value for integer ids over a narrow range: the splits depend on the ids, never on their codes)."""

    frame: pd.DataFrame
    columns: InteractionColumns
    user_codes: NDArray[np.signedinteger[Any]]
    user_ids: NDArray[Any]
    item_codes: NDArray[np.signedinteger[Any]]
    item_ids: NDArray[Any]
    times: pd.Series | None = None
    _cache: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    def user_counts(self) -> NDArray[np.int64]:
        """Interactions of every user (by user code)."""
        if "counts" not in self._cache:
            self._cache["counts"] = np.bincount(self.user_codes, minlength=self.n_users).astype(np.int64)
        return self._cache["counts"]

    def offsets(self) -> NDArray[np.int64]:
        """Where each user's rows start once the rows are grouped by user code."""
        counts = self.user_counts()
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return offsets

    def keys(self, seed: int) -> NDArray[np.uint64]:
        """The seeded key of every row's ``(user, item)`` pair (see :mod:`._draws`)."""
        return pair_keys(self.user_hashes(), self.user_codes, id_hashes(self.item_ids), self.item_codes, seed)

    def user_hashes(self) -> NDArray[np.uint64]:
        if "user_hashes" not in self._cache:
            self._cache["user_hashes"] = id_hashes(self.user_ids)
        return self._cache["user_hashes"]

    def time_key(self) -> NDArray[np.uint64]:
        assert self.times is not None
        return order_key(self.times)

    def tie_keys(self) -> list[NDArray[Any]]:
        """The columns that order the rows of one duplicated pair: time, then score (those present)."""
        keys: list[NDArray[Any]] = []
        if self.times is not None:
            keys.append(self.time_key())
        elif self.columns.time in self.frame.columns:
            # a splitter that needs no time only orders repeated pairs by it: a column it cannot
            # read (text, NaN) is left out of that order rather than refused
            with contextlib.suppress(ValueError):
                keys.append(order_key(read_times(self.frame, "frame", self.columns.time)))
        score = self.columns.score
        if score in self.frame.columns and pd.api.types.is_numeric_dtype(self.frame[score].dtype) \
                and not pd.api.types.is_bool_dtype(self.frame[score].dtype):
            keys.append(self.frame[score].to_numpy(dtype=np.float64, na_value=np.nan))
        return keys


def _dense_codes(values: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[Any]] | None:
    """Integer ids over a narrow range coded by a table of the range (ids in ascending order), else None.

    A splitter's result depends on the ids' values, never on their codes, so the codes may
    number the ids in ascending order rather than in order of first appearance; a lookup
    table as long as the range is several times faster than hashing every row.
    """
    if values.dtype.kind not in "iu" or not len(values):
        return None
    lo, hi = int(values.min()), int(values.max())
    if hi - lo + 1 > max(2 * len(values), _DENSE_MIN_SPAN) or hi >= 1 << 63:
        return None
    span = hi - lo + 1
    offset = values.astype(np.intp)
    if lo:
        offset -= lo
    present = np.zeros(span, dtype=bool)
    present[offset] = True
    code_of = np.cumsum(present, dtype=np.intp)
    code_of -= 1
    uniques = np.flatnonzero(present)
    if lo:
        uniques += lo
    return code_of[offset], uniques.astype(values.dtype)


def _codes(df: pd.DataFrame, column: str) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any]]:
    values = id_values(df[column])
    if isinstance(values, np.ndarray):
        dense = _dense_codes(values)
        if dense is not None:
            return dense
    codes, uniques = factorize(values)
    reject_missing_ids(df, "frame", column, codes < 0)
    reject_mixed_ids(df, "frame", column, uniques)
    return codes, uniques


def prepare(frame: Any, columns: InteractionColumns, *, need_time: bool) -> Interactions:
    """The frame checked and coded.

    Raises
    ------
    TypeError
        ``frame`` is not a local frame (a Spark DataFrame, or not a frame at all).
    ValueError
        Missing columns, an empty frame, missing ids, an id column mixing kinds (1 and "1"),
        and, when ``need_time``, a time column that is missing or holds NaN, text or mixed
        aware and naive times.
    """
    if is_spark_frame(frame):
        raise TypeError("`frame` is a Spark DataFrame: the splitters take it themselves (rankeval.split), "
                        "not this local reader")
    df = to_pandas(frame, "frame")
    require_named(df, "frame", [columns.user, columns.item])
    reject_empty(df, "frame")
    times = read_times(df, "frame", columns.time) if need_time else None
    user_codes, user_ids = _codes(df, columns.user)
    item_codes, item_ids = _codes(df, columns.item)
    return Interactions(df, columns, user_codes, user_ids, item_codes, item_ids, times)


def check_seed(seed: Any) -> int:
    return check_integer("seed", seed, 0)


def count_duplicates(data: Interactions, rows: NDArray[np.integer] | None = None) -> tuple[int, int]:
    """Rows that repeat an earlier row's ``(user, item)`` pair, and the pairs repeated (among ``rows``, or all)."""
    users, items = data.user_codes, data.item_codes
    if rows is not None:
        users, items = users[rows], items[rows]
    pairs = users.astype(np.int64) * max(data.n_items, 1) + items
    pairs.sort()
    repeat = pairs[1:] == pairs[:-1]
    n_rows = int(repeat.sum())
    if not n_rows:
        return 0, 0
    first_repeat = repeat & np.concatenate(([True], ~repeat[:-1]))
    return n_rows, int(first_repeat.sum())


def warn_duplicates(cols: InteractionColumns, method: str, counts: tuple[int, int]) -> None:
    """A counted warning for duplicate pairs (kept: they are interactions the caller gave)."""
    n_rows, n_pairs = counts
    if not n_rows:
        return
    warn(
        f"{method}: `frame` has {n_rows:,} row(s) repeating a ({cols.user}, {cols.item}) pair ({n_pairs:,} pair(s) "
        f"occur more than once); they are kept and split like any row, so a pair can land in both train and test "
        f"(audit() counts it as overlap). Drop or aggregate them first to split each pair once")
