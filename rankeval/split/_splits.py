"""``Splits``: the train/test pairs a splitter made, their names and the parameters that made them."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..io import write_frame
from ..io.internal import atomic_path

__all__ = ["Splits", "Rows", "json_ready"]


def json_ready(value: Any) -> Any:
    """A parameter as JSON can hold it: numpy scalars as Python ones, times as ISO text."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(value).isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: how one pair is cut from the frame: train (a row mask, or row positions, repeats allowed) and the test mask
Rows = tuple[NDArray[np.bool_] | NDArray[np.int64], NDArray[np.bool_]]


def _copy_on_write() -> bool:
    """Whether pandas copies a shared column on write (always from pandas 3; an option in pandas 2)."""
    return int(pd.__version__.split(".")[0]) >= 3 or pd.get_option("mode.copy_on_write") is True


def _every_row(positions: NDArray[np.intp], n: int) -> bool:
    """Whether ``positions`` are ``0, 1, ..., n - 1`` (the ends first: the full check costs a pass)."""
    if len(positions) != n:
        return False
    return n == 0 or (positions[0] == 0 and positions[-1] == n - 1
            and bool(np.array_equal(positions, np.arange(n, dtype=positions.dtype))))


def _take(frame: pd.DataFrame, rows: NDArray[np.bool_] | NDArray[np.int64]) -> pd.DataFrame:
    """``frame.take`` of the rows (a mask, or positions in range), to the bit, with less fresh memory.

    Cutting every pair writes gigabytes of new frames, and first writes to fresh memory
    are most of the cost; ``DataFrame.take`` writes one more array than the result holds
    (a ``RangeIndex`` casts the positions to a new array before making them the labels).
    Here the labels of a ``RangeIndex(0, n)`` are the position array itself, and each
    column is one gather; the values, dtypes, index and column labels are those of
    ``frame.take``, and only the blocks differ: one a column, as pandas' constructor
    makes them without copying. Subclasses, frames without columns, a take of no row (a
    ``RangeIndex`` stays one) and of every row in order (a shallow copy of ``frame``)
    keep ``frame.take``.
    """
    positions = np.flatnonzero(rows) if rows.dtype == np.bool_ else np.asarray(rows, dtype=np.intp)
    if (type(frame) is not pd.DataFrame or frame.shape[1] == 0 or len(positions) == 0
            or _every_row(positions, len(frame))):
        return frame.take(positions)
    labels = frame.index
    if isinstance(labels, pd.RangeIndex) and labels.start == 0 and labels.step == 1:
        index = pd.Index(positions, dtype=np.int64, name=labels.name, copy=False)
    else:
        index = labels.take(positions)
    columns = {}
    for j in range(frame.shape[1]):
        column = frame.iloc[:, j]
        # numpy columns by np.take (object arrays through a Series of their dtype, which pandas
        # would otherwise read as strings); extension arrays (categorical, str, Arrow) by their own take
        values = (np.take(column.to_numpy(), positions) if isinstance(column.dtype, np.dtype)
                  else column.array.take(positions))
        columns[j] = pd.Series(values, index=index, dtype=column.dtype, copy=False)
    cut = pd.DataFrame(columns, index=index, copy=False).set_axis(frame.columns, axis=1)
    return cut.__finalize__(frame, method="take")


def _size(rows: NDArray[np.bool_] | NDArray[np.int64]) -> int:
    return int(np.count_nonzero(rows)) if rows.dtype == np.bool_ else len(rows)


class Splits:
    """Train/test pairs made from one interactions frame, iterable as ``(train, test)``.

    Every frame holds the caller's columns and rows (with their index labels), in the
    input's row order; a bootstrap train repeats a row as many times as it was drawn.
    Split from a Spark DataFrame, every train and test is a Spark DataFrame (the same rows
    as on pandas; no row order, no index) over one cached result of the split.
    A splitter's pairs are cut from the frame when first used (``splits[0]``, iteration,
    ``trains``), then kept: ``kfold`` returns before copying its folds, and a loop over the
    folds holds only those it has reached.

    Parameters
    ----------
    pairs : list of (DataFrame, DataFrame)
        Train/test pairs made elsewhere (the splitters build theirs with :meth:`from_rows`).
    params : dict
        How they were made.

    Attributes
    ----------
    names : list of str
        ``"fold1"``, ``"fold2"``, ... (one name for a holdout).
    trains : list of DataFrame
        The training frames, in the order of ``names``.
    tests : list of DataFrame
        The test frames, in the order of ``names``.
    params : dict
        The method (``"random_holdout"``, ``"temporal_holdout"``, ``"global_temporal"``,
        ``"kfold"``, ``"bootstrap"``) and every parameter, as JSON-ready values; a
        ``global_temporal`` split made from ``test_size`` also records the ``cutoff`` it
        found.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval.split import temporal_holdout
    >>> frame = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("abcab"),
    ...                       "score": [5.0, 3, 4, 2, 1], "timestamp": [3, 1, 2, 1, 2]})
    >>> splits = temporal_holdout(frame)          # each user's latest interaction
    >>> splits.tests[0][["user_id", "item_id"]].values.tolist()
    [[1, 'a'], [2, 'b']]
    >>> train, test = splits[0]
    >>> len(splits), splits.names, len(train)
    (1, ['fold1'], 3)
    """

    def __init__(self, pairs: list[tuple[pd.DataFrame, pd.DataFrame]], params: dict[str, Any]) -> None:
        self._pairs: list[tuple[pd.DataFrame, pd.DataFrame] | None] = list(pairs)
        self._frame: pd.DataFrame | None = None
        self._rows: list[Rows] = []
        self._sizes = [(len(train), len(test)) for train, test in pairs]
        self.params: dict[str, Any] = json_ready(params)
        self.names: list[str] = [f"fold{i}" for i in range(1, len(self._pairs) + 1)]

    @classmethod
    def from_rows(cls, frame: pd.DataFrame, rows: list[Rows], params: dict[str, Any]) -> Splits:
        """Pairs cut from ``frame`` when first used: each pair's train rows (a mask, or positions) and test mask.

        Parameters
        ----------
        frame : DataFrame
            The interactions split (copied: later edits of the caller's frame stay out).
        rows : list of (ndarray, ndarray)
            Per pair: the train rows (a boolean mask, or positions, which may repeat) and
            the test rows (a boolean mask).
        params : dict
            The method and its parameters (:attr:`params`).
        """
        splits = cls([], params)
        splits._frame = frame.copy(deep=not _copy_on_write())  # later edits of the caller's frame stay out
        splits._rows = list(rows)
        splits._pairs = [None] * len(rows)
        splits._sizes = [(_size(train), _size(test)) for train, test in rows]
        splits.names = [f"fold{i}" for i in range(1, len(rows) + 1)]
        return splits

    @classmethod
    def from_frames(cls, pairs: list[tuple[Any, Any]], sizes: list[tuple[int, int]], params: dict[str, Any]) -> Splits:
        """Pairs of frames whose sizes are known without counting them (Spark DataFrames).

        Parameters
        ----------
        pairs : list of (DataFrame, DataFrame)
            The train/test pairs.
        sizes : list of (int, int)
            The number of rows of each pair's train and test.
        params : dict
            The method and its parameters (:attr:`params`).
        """
        splits = cls([], params)
        splits._pairs = list(pairs)
        splits._sizes = list(sizes)
        splits.names = [f"fold{i}" for i in range(1, len(pairs) + 1)]
        return splits

    def _build(self, i: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        assert self._frame is not None
        train, test = self._rows[i]
        return _take(self._frame, train), _take(self._frame, test)

    def _pair(self, i: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        pair = self._pairs[i]
        if pair is None:
            pair = self._pairs[i] = self._build(i)
        return pair

    @property
    def trains(self) -> list[pd.DataFrame]:
        return [self._pair(i)[0] for i in range(len(self))]

    @property
    def tests(self) -> list[pd.DataFrame]:
        return [self._pair(i)[1] for i in range(len(self))]

    def __len__(self) -> int:
        return len(self._pairs)

    def __iter__(self) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
        return (self._pair(i) for i in range(len(self)))

    def __getitem__(self, key: int | str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The pair at a position (``splits[0]``, ``splits[-1]``) or of a name (``splits["fold1"]``).

        Parameters
        ----------
        key : int or str
            A position (negative from the end) or one of :attr:`names`.
        """
        if isinstance(key, str):
            if key not in self.names:
                raise KeyError(f"no split named {key!r}; the names are {self.names}")
            return self._pair(self.names.index(key))
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
            raise TypeError(f"Splits are indexed by position or name, got {type(key).__name__}")
        if not -len(self) <= key < len(self):
            raise IndexError(f"split {int(key)} out of range: there are {len(self)}")
        return self._pair(int(key) % len(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items()
                          if k != "method" and not k.endswith("_col"))
        sizes = "; ".join(f"{name}: train {train:,} / test {test:,}"
                          for name, (train, test) in list(zip(self.names, self._sizes))[:5])
        more = f"; ... ({len(self) - 5} more)" if len(self) > 5 else ""
        return f"Splits({self.params.get('method')}: {shown}; {sizes}{more})"

    def to_dir(self, path: str | os.PathLike[str], *, format: str = "csv") -> Path:
        """Write ``fold1/train.csv``, ``fold1/test.csv``, ... and ``params.json`` under ``path``.

        Each file is written under a temporary name and renamed when complete, so a run
        that fails leaves no half-written file. The frames' index labels are not written.

        Parameters
        ----------
        path : str or path-like
            The folder (created with its parents when missing; files already there are replaced).
        format : {"csv", "tsv", "parquet"}
            The files' format (and extension). Floats are written exactly.

        Returns
        -------
        Path
            ``path``.
        """
        if format not in ("csv", "tsv", "parquet"):
            raise ValueError(f"`format` must be one of ['csv', 'tsv', 'parquet'], got {format!r}")
        first = self._pairs[0] if self._pairs else None
        if first is not None and not isinstance(first[0], pd.DataFrame):
            raise TypeError("to_dir writes local frames; these splits hold Spark DataFrames: write each one with "
                            "Spark (train.write.parquet(...)), or collect them first")
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        for i, name in enumerate(self.names):
            # a pair not yet used is cut for the write and let go: five folds never all in memory
            train, test = self._pairs[i] or self._build(i)
            folder = root / name
            folder.mkdir(exist_ok=True)
            write_frame(train.reset_index(drop=True), folder / f"train.{format}")
            write_frame(test.reset_index(drop=True), folder / f"test.{format}")
        with atomic_path(root / "params.json") as temporary:
            Path(temporary).write_text(json.dumps(self.params, indent=2) + "\n", encoding="utf-8")
        return root
