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

from ..io import write_frame
from ..io._atomic import atomic_path

__all__ = ["Splits", "json_ready"]


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


class Splits:
    """Train/test pairs made from one interactions frame, iterable as ``(train, test)``.

    Every frame holds the caller's columns and rows (with their index labels), in the
    input's row order; a bootstrap train repeats a row as many times as it was drawn.

    Attributes
    ----------
    names : list of str
        ``"fold1"``, ``"fold2"``, ... (one name for a holdout).
    trains, tests : list of DataFrame
        The training and test frames, in the order of ``names``.
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
        self._pairs = list(pairs)
        self.params: dict[str, Any] = json_ready(params)
        self.names: list[str] = [f"fold{i}" for i in range(1, len(self._pairs) + 1)]

    @property
    def trains(self) -> list[pd.DataFrame]:
        return [train for train, _ in self._pairs]

    @property
    def tests(self) -> list[pd.DataFrame]:
        return [test for _, test in self._pairs]

    def __len__(self) -> int:
        return len(self._pairs)

    def __iter__(self) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
        return iter(self._pairs)

    def __getitem__(self, key: int | str) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The pair at a position (``splits[0]``) or of a name (``splits["fold1"]``)."""
        if isinstance(key, str):
            if key not in self.names:
                raise KeyError(f"no split named {key!r}; the names are {self.names}")
            return self._pairs[self.names.index(key)]
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
            raise TypeError(f"Splits are indexed by position or name, got {type(key).__name__}")
        return self._pairs[int(key)]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items()
                          if k != "method" and not k.endswith("_col"))
        sizes = "; ".join(f"{name}: train {len(train):,} / test {len(test):,}"
                          for name, (train, test) in list(zip(self.names, self._pairs))[:5])
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
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        for name, (train, test) in zip(self.names, self._pairs):
            folder = root / name
            folder.mkdir(exist_ok=True)
            write_frame(train.reset_index(drop=True), folder / f"train.{format}")
            write_frame(test.reset_index(drop=True), folder / f"test.{format}")
        with atomic_path(root / "params.json") as temporary:
            Path(temporary).write_text(json.dumps(self.params, indent=2) + "\n", encoding="utf-8")
        return root
