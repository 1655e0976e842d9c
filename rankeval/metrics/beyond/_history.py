"""The training history of every evaluated user, gathered once per split, in a fixed order.

Calibration and serendipity compare each list with the items its user had in ``train``.
The history is gathered with one vectorized pass over ``train``'s distinct (user, item)
pairs and ordered within each user by item id (not by the rows of ``train``), so that
every sum over a history is taken in the same order whatever the order of the inputs:
results are the same to the last bit after any shuffle of ``train``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data import SideData
from ...data.internal import argsort_ids

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["History", "evaluated_history", "id_ranks", "train_history", "pair_scores"]


@dataclass(frozen=True)
class History:
    """Per evaluated user (``lists.user_ids`` order) the distinct training items they had.

    ``offsets`` (n_users + 1) cut ``item`` (positions in ``train_items``) and ``pair``
    (positions among ``train``'s distinct pairs) into users; within a user, items by id.
    """

    offsets: NDArray[np.int64]
    item: NDArray[np.int64]
    pair: NDArray[np.int64]
    train_items: pd.Index

    @property
    def size(self) -> NDArray[np.int64]:
        return np.diff(self.offsets)

    @property
    def user(self) -> NDArray[np.int64]:
        """The evaluated user (0-based) of every history entry."""
        return np.repeat(np.arange(len(self.offsets) - 1, dtype=np.int64), self.size)


def id_ranks(items: pd.Index) -> NDArray[np.int64]:
    """Per position of ``items``: its rank when the ids are sorted."""
    rank = np.empty(len(items), dtype=np.int64)
    rank[argsort_ids(items)] = np.arange(len(items))
    return rank


def evaluated_history(lists: RankedLists, side: Any) -> History:
    """The history of every user of ``lists`` (cached per split; empty for users not in ``train``)."""
    cache = lists.split_cache
    if "history" in cache:
        return cache["history"]
    train_users, train_items, pair_user, pair_item = train_history(side.side)
    counts = np.bincount(pair_user, minlength=len(train_users)).astype(np.int64)
    starts = np.zeros(len(train_users) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    pos = np.asarray(side.user_positions(), dtype=np.int64)
    n = np.where(pos >= 0, counts[np.maximum(pos, 0)], 0)
    offsets = np.zeros(len(pos) + 1, dtype=np.int64)
    np.cumsum(n, out=offsets[1:])
    total = int(offsets[-1])
    pair = np.repeat(starts[np.maximum(pos, 0)] - offsets[:-1], n) + np.arange(total, dtype=np.int64)
    rank = id_ranks(train_items)
    user = np.repeat(np.arange(len(pos), dtype=np.int64), n)
    # pairs come sorted by item code (first appearance in train): re-sort each user's by item id
    order = np.lexsort((rank[pair_item[pair]], user))
    pair = pair[order]
    history = History(offsets, pair_item[pair].astype(np.int64), pair, train_items)
    cache["history"] = history
    return history


def train_history(side: SideData) -> tuple[pd.Index, pd.Index, NDArray[np.int64], NDArray[np.int64]]:
    """``train``'s users, its items, and its distinct (user, item) pairs as positions in them
    (two arrays, sorted by user then item; a repeated pair counts once)."""
    pair_user, pair_item = side.train_pairs()
    return side.train_users, side.train_items, pair_user, pair_item


def pair_scores(side: SideData) -> NDArray[np.float64]:
    """Per distinct pair of :func:`train_history`: the sum of its rows' ``score``."""
    df = side.train
    assert df is not None
    if side.score_col not in df.columns:
        raise ValueError(f"`train` has no '{side.score_col}' column to weight the history by")
    users, items, pair_user, pair_item = train_history(side)
    scores = df[side.score_col].to_numpy(dtype=np.float64, na_value=np.nan)
    keys = (users.get_indexer(df[side.user_col]).astype(np.int64) * len(items)
            + items.get_indexer(df[side.item_col]))
    pairs = pair_user * len(items) + pair_item  # sorted: by user, then item
    return np.asarray(np.bincount(np.searchsorted(pairs, keys), weights=scores, minlength=len(pairs)),
                      dtype=np.float64)
