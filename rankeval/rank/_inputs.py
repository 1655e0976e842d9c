"""The inputs of a ranking, checked once: vectors, ids, the tie order, the seen and allowed items.

Items are renumbered once into *positions*: the order that breaks score ties (the first
position wins). The seen (``exclude=``) and allowed (``candidates=``) items of every user
become CSR arrays of positions, so a block of users finds its pairs by slicing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import check_choice, codes_in, id_values, is_local_frame, require_columns, show, to_pandas

__all__ = ["TIES", "SIMILARITIES", "RankTies", "Pairs", "parse_memory", "id_index", "vectors", "tie_order",
           "pairs_by_user", "global_candidates", "ScoreFunction"]

#: how tied scores are ordered: the item vectors' row order, or the item ids ascending / descending
TIES = ("row_order", "item_id", "item_id_desc")
#: the similarities of two vectors
SIMILARITIES = ("dot", "cosine")
RankTies = Literal["row_order", "item_id", "item_id_desc"]
#: ``f(user_ids, item_ids) -> scores``: one block of scores, users x items
ScoreFunction = Callable[[NDArray[Any], NDArray[Any]], Any]

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_MEMORY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_memory(memory: Any) -> int:
    """A number of bytes from an integer or a string such as ``"1GiB"``, ``"512MB"`` or ``"2e9"``."""
    if isinstance(memory, (int, np.integer)) and not isinstance(memory, bool) and memory > 0:
        return int(memory)
    if isinstance(memory, float) and np.isfinite(memory) and memory >= 1:
        return int(memory)
    match = _MEMORY.match(memory) if isinstance(memory, str) else None
    if match is None or match.group(2).lower() not in _UNITS or float(match.group(1)) * _UNITS[
            match.group(2).lower()] < 1:
        raise ValueError(f"`memory` must be a positive number of bytes or a size such as '1GiB', '512MB', "
                         f"got {memory!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def id_index(ids: Any, n: int, name: str, rows: str) -> pd.Index:
    """The ids of ``n`` vectors as an Index (positions when ``ids`` is None); missing or repeated ids refused."""
    if ids is None:
        return pd.RangeIndex(n)
    if hasattr(ids, "to_pandas") and not isinstance(ids, (pd.Series, pd.Index)):
        ids = ids.to_pandas()  # an Arrow array or chunked array
    index = pd.Index(ids)
    if index.nlevels != 1:
        raise ValueError(f"`{name}` must be one id per row, got {index.nlevels} levels")
    if len(index) != n:
        raise ValueError(f"`{name}` has {len(index):,} ids for {n:,} rows of `{rows}`: give one id per row")
    if index.hasnans:
        raise ValueError(f"`{name}` has {int(index.isna().sum()):,} missing ids: every row of `{rows}` needs an id")
    if index.has_duplicates:
        repeated = index[index.duplicated()].unique()
        raise ValueError(f"`{name}` repeats {len(repeated):,} ids ({show(list(repeated[:5]))}): ids must be "
                         f"unique, one row of `{rows}` per id")
    return index


def vectors(values: Any, name: str) -> NDArray[np.floating]:
    """``values`` as a 2-D float array (float32 and float64 kept, other numbers as float64), all finite."""
    if is_local_frame(values):
        values = to_pandas(values, name).to_numpy()
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[1] == 0:
        raise ValueError(f"`{name}` must be a 2-D array (one row per id, one column per dimension), "
                         f"got shape {array.shape}")
    if array.dtype not in (np.float32, np.float64):
        if not (np.issubdtype(array.dtype, np.number) or array.dtype == bool) or np.iscomplexobj(array):
            raise ValueError(f"`{name}` must hold real numbers, got dtype {array.dtype}")
        array = array.astype(np.float64)
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(f"`{name}` has {rows.size:,} rows with NaN or infinite values (rows {show(list(rows[:5]))}): "
                         f"every vector must be finite")
    return array


def tie_order(items: pd.Index, ties: str) -> NDArray[np.intp] | None:
    """The item rows in the order that breaks ties (None: their own order)."""
    check_choice("ties", ties, TIES)
    if ties == "row_order":
        return None
    try:
        order = np.argsort(items.to_numpy(), kind="stable")
    except TypeError as exc:
        raise ValueError(f"`item_ids` of mixed types cannot be ordered for ties={ties!r}: {exc}") from exc
    return order[::-1].copy() if ties == "item_id_desc" else order


@dataclass(frozen=True)
class Pairs:
    """Each user's items as positions, CSR: user ``u``'s are ``items[starts[u]:starts[u + 1]]``."""

    starts: NDArray[np.int64]
    items: NDArray[np.int32]

    def block(self, first: int, stop: int) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        """(row within the block, position) of the pairs of users ``first`` to ``stop - 1``."""
        counts = np.diff(self.starts[first:stop + 1])
        rows = np.repeat(np.arange(stop - first, dtype=np.int64), counts)
        return rows, self.items[self.starts[first]:self.starts[stop]]

    def counts(self) -> NDArray[np.int64]:
        """How many items every user has."""
        return np.diff(self.starts)


def pairs_by_user(frame: Any, name: str, users: pd.Index, positions: pd.Index, user_col: str,
                  item_col: str) -> Pairs:
    """The (user, item) rows of ``frame`` as each user's item positions; rows of unknown users or items are not
    pairs of the ranking and are left out (a frame none of whose rows match is refused: ids of another kind)."""
    df = to_pandas(frame, name)
    require_columns(df, name, [user_col, item_col])
    user = indexer(users, df[user_col])
    item = indexer(positions, df[item_col])
    # int32 codes, and the masking and the sort only when needed: a training set of 18 million rows
    # (usually all known, often already grouped by user) then costs a few passes of 4 bytes a row
    user32, item32 = user.astype(np.int32, copy=False), item.astype(np.int32, copy=False)
    if len(df) and min(int(user32.min()), int(item32.min())) < 0:
        known = (user32 >= 0) & (item32 >= 0)
        if not known.any():
            raise ValueError(f"`{name}`: none of its {len(df):,} rows names a known user and item (columns "
                             f"{user_col!r}, {item_col!r}); are its ids of another kind than `user_ids` / "
                             f"`item_ids` (numbers and strings differ)?")
        user32, item32 = user32[known], item32[known]
    if len(user32) < 2 or (user32[1:] >= user32[:-1]).all():  # grouped by user: each user's first row found
        starts = np.searchsorted(user32, np.arange(len(users) + 1, dtype=user32.dtype)).astype(np.int64)
        return Pairs(starts, item32)
    starts = np.zeros(len(users) + 1, dtype=np.int64)
    np.cumsum(np.bincount(user32, minlength=len(users)), out=starts[1:])
    return Pairs(starts, item32[np.argsort(user32, kind="stable")])


def indexer(index: pd.Index, values: pd.Series) -> NDArray[np.integer]:
    """``index.get_indexer(values)`` (``-1``: not in ``index``), through a table of the positions when both hold
    plain integers and ``index`` spans a dense range: a lookup per row instead of a hash (a training set of 18
    million pairs: about a quarter of pandas' time), and no lookup at all for ids ``0, 1, ...`` in order (the
    ``RangeIndex`` of ids not given), which are their own positions. Text ids are factorized first (Arrow's
    hash, runs looked up once): 0.7-0.8 s instead of 4.4 for those 18 million pairs as pyarrow ``str``."""
    kinds = (index.dtype, values.dtype)
    if isinstance(values.dtype, pd.CategoricalDtype) or not len(index):
        return index.get_indexer(values)  # a categorical's categories are looked up once each
    if not all(isinstance(d, np.dtype) and d.kind in "iu" for d in kinds):
        # text ids: each distinct value (or run of a grouped column) hashed once, Arrow's hash for strings
        return codes_in(index, id_values(values))[0]
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return _own_positions(values.to_numpy(), len(index))
    keys = index.to_numpy()
    low, high = int(keys.min()), int(keys.max())
    if high - low > 4 * len(keys) + 1024 or (values.dtype.kind == "u" and len(values)
                                             and int(values.max()) > np.iinfo(np.int64).max):
        return index.get_indexer(values)
    # int32 positions (half the bytes of a long frame's codes); the table's last slot (-1) answers every
    # value outside the span, which the clip sends there or to -1
    table = np.full(high - low + 2, -1, dtype=np.int32 if len(keys) < 2**31 else np.intp)
    table[keys - low] = np.arange(len(keys))
    raw = values.to_numpy()
    if len(raw) and low == 0 and int(raw.min()) >= 0 and int(raw.max()) <= high:
        return table.take(raw)  # ids from 0 (the common case): no shifted copy
    # a value far outside the span wraps around in int64 to another value far outside it: never a hit
    shifted = np.subtract(raw, low, dtype=np.int64)
    np.clip(shifted, -1, high - low + 1, out=shifted)
    return table.take(shifted)


def _own_positions(raw: NDArray[np.integer], n: int) -> NDArray[np.integer]:
    """The positions of integer ids ``raw`` in ``range(n)``: the ids themselves (``-1`` outside), no lookup."""
    code_type = np.dtype(np.int32 if n < 2**31 else np.int64)
    if not len(raw) or (int(raw.min()) >= 0 and int(raw.max()) < n):
        return raw.astype(code_type)
    codes: NDArray[np.integer] = np.full(len(raw), -1, dtype=code_type)
    inside = (raw >= 0) & (raw < n)
    codes[inside] = raw[inside]
    return codes


def global_candidates(candidates: Any, items: pd.Index) -> NDArray[np.intp]:
    """The rows of ``items`` allowed for every user, ascending; unknown ids refused."""
    wanted = pd.Index(pd.unique(pd.Index(candidates)))
    rows = items.get_indexer(wanted)
    if (rows < 0).any():
        unknown = list(wanted[rows < 0][:5])
        raise ValueError(f"`candidates` names {int((rows < 0).sum()):,} items with no vector in `item_vectors` "
                         f"({show(unknown)}): every candidate needs an item vector")
    return np.sort(rows)
