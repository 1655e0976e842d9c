"""Item groups: which provider, genre or popularity class each item belongs to, for the fairness metrics.

``item_groups`` maps item id -> group label: a Series indexed by item id, a mapping, or a
frame of two columns (the item column, or the first column, and the group column). Each
item is in exactly one group; an item given twice, a missing item id or a missing group
label is a ValueError naming the rows. The groups are the distinct labels (sorted when
they sort); the size of a group is how many items the mapping gives it (every item of the
mapping counts, recommended or not, as in Elliot's clustering files).

Items without a group (listed, rated or trained on, but absent from the mapping) belong
to no group: they count for no group's numerator or denominator. The fairness metrics
count the listed ones in a warning.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from . import _keys
from ._frames import is_frame, to_pandas
from ._validation import repeated_keys

__all__ = ["ItemGroups"]


class ItemGroups:
    """A validated item -> group mapping: ``items`` (Index of item ids), ``codes`` (the group
    code of each item), ``labels`` (Index of group labels, by code) and ``sizes`` (items per group)."""

    def __init__(self, value: Any, item_col: str = "item_id") -> None:
        series = _as_series(value, item_col)
        if len(series) == 0:
            raise ValueError("`item_groups` is empty: give a group for the items (item id -> group label)")
        index = series.index
        missing = np.asarray(pd.isna(index))
        if missing.any():
            raise ValueError(f"`item_groups` has {int(missing.sum())} missing item id(s) at positions "
                             f"{np.flatnonzero(missing)[:5].tolist()}; every item needs an id")
        no_label = series.isna().to_numpy()
        if no_label.any():
            raise ValueError(f"`item_groups` has {int(no_label.sum())} item(s) without a group label, e.g. "
                             f"{index[no_label][:5].tolist()}: give every item a group, or leave it out")
        try:
            repeated = index.duplicated(keep=False)
        except TypeError as exc:
            raise ValueError(f"`item_groups` holds item ids that cannot be ids: {exc}; ids must be hashable "
                             f"scalars such as str or int") from exc
        if repeated.any():
            n_items, listing = repeated_keys(pd.DataFrame({"item": index[repeated]},
                                                          index=np.flatnonzero(repeated)), "item ids",
                                             place="positions")
            raise ValueError(f"`item_groups` repeats {n_items} item id{'s' if n_items > 1 else ''} in "
                             f"{int(repeated.sum())} rows: {listing}; give each item one group")
        labels = pd.unique(series.to_numpy())
        with contextlib.suppress(TypeError):  # labels of mixed types: in order of first appearance
            labels = np.sort(labels)
        self.labels = pd.Index(labels)
        self.codes = self.labels.get_indexer(series.to_numpy()).astype(np.int64)
        self.items = pd.Index(_keys.plain(index.to_numpy()) if index.dtype == object else index)
        self.sizes = np.bincount(self.codes, minlength=len(self.labels)).astype(np.int64)
        self.series = series

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    def codes_of(self, items: Any) -> NDArray[np.int64]:
        """The group code of each of ``items`` (-1 for an item without a group)."""
        at = self.items.get_indexer(pd.Index(items))
        return np.where(at >= 0, self.codes[np.maximum(at, 0)], -1).astype(np.int64)

    def __repr__(self) -> str:
        return f"ItemGroups({len(self.items)} items in {self.n_groups} groups)"


def _as_series(value: Any, item_col: str) -> pd.Series:
    """``item_groups`` as a Series indexed by item id."""
    if isinstance(value, pd.Series):
        return value
    if isinstance(value, Mapping):
        return pd.Series(list(value.values()), index=pd.Index(list(value.keys())), dtype=object)
    if is_frame(value):
        df = to_pandas(value, "item_groups")
        if item_col in df.columns and df.shape[1] == 2:
            other = [c for c in df.columns if c != item_col][0]
            return pd.Series(df[other].to_numpy(), index=pd.Index(df[item_col].to_numpy()))
        if df.shape[1] == 2:
            return pd.Series(df.iloc[:, 1].to_numpy(), index=pd.Index(df.iloc[:, 0].to_numpy()))
        if df.shape[1] == 1:
            return df.iloc[:, 0]
        raise ValueError(f"`item_groups` is a frame with {df.shape[1]} columns {list(df.columns)}: give two "
                         f"columns ({item_col}, group) or a Series indexed by item id")
    raise TypeError(f"`item_groups` must be a Series (item id -> group), a mapping or a two-column frame, "
                    f"got {type(value).__name__}")
