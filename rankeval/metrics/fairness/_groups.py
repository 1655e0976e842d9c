"""What the fairness metrics share: item groupings, the short head, truth rows, the base class.

A grouping gives every item a group code (-1: no group). Two kinds:

- the split's ``item_groups`` (any grouping: providers, genres);
- the short head and the long tail of ``train`` (Elliot's ``Popularity``): the training
  items in order of popularity descending (distinct training users per item; ties by item
  id ascending), the short head the fewest first items whose popularity adds up to at
  least ``pop_ratio`` of the training interactions (distinct (user, item) pairs), the long
  tail every other training item. Items not in ``train`` are in neither.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data import internal as data_internal
from ...data.internal import check_share, popularity_order, row_item_codes
from ...exceptions import RankevalWarning
from .._side_metric import SystemLevelMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Grouping", "GroupedMetric", "short_head", "popularity_grouping", "item_grouping", "truth_rows",
           "POP_LABELS"]

#: the two groups of the popularity metrics, in this order
POP_LABELS = ("short_head", "long_tail")


class Grouping(NamedTuple):
    """Group labels, items per group, the group code of each listed item code and of each
    training item (-1: no group), and a function giving the codes of any item ids."""

    labels: pd.Index
    sizes: NDArray[np.int64]
    of_item: NDArray[np.int64]
    of_train_item: NDArray[np.int64] | None
    codes_of: Any


def short_head(side: Any, pop_ratio: float) -> NDArray[np.bool_]:
    """Per training item (``side.train_items``): whether it is in the short head (cached)."""
    key = ("short_head", pop_ratio)
    cache = side.cache
    if key not in cache:
        items = side.side.train_items
        pop = side.side.item_popularity().to_numpy()
        order = popularity_order(items, pop)
        # Elliot: add items from the most popular while the limit transactions * pop_ratio is not reached
        reached = np.flatnonzero(np.cumsum(pop[order]) >= float(pop.sum()) * pop_ratio)
        n_head = int(reached[0]) + 1 if len(reached) else len(items)
        head = np.zeros(len(items), dtype=bool)
        head[order[:n_head]] = True
        cache[key] = head
    return cache[key]


def popularity_grouping(side: Any, lists: RankedLists, pop_ratio: float) -> Grouping:
    """The short head (code 0) and the long tail (code 1) of ``train``."""
    key = ("pop_grouping", pop_ratio)
    if key not in side.cache:
        head = short_head(side, pop_ratio)
        train_code = np.where(head, 0, 1).astype(np.int64)
        train_items = side.side.train_items

        def codes_of(items: Any) -> NDArray[np.int64]:
            at = train_items.get_indexer(pd.Index(items))
            return np.where(at >= 0, train_code[np.maximum(at, 0)], -1).astype(np.int64)

        sizes = np.array([int(head.sum()), int((~head).sum())], dtype=np.int64)
        side.cache[key] = Grouping(pd.Index(list(POP_LABELS)), sizes, codes_of(pd.Index(lists.item_uniques)),
                                   train_code, codes_of)
    return side.cache[key]


def item_grouping(side: Any) -> Grouping:
    """The split's ``item_groups``."""
    if "item_grouping" not in side.cache:
        groups = side.side.groups
        of_train = groups.codes_of(side.side.train_items) if side.side.train is not None else None
        side.cache["item_grouping"] = Grouping(groups.labels, groups.sizes, side.item_group, of_train,
                                               groups.codes_of)
    return side.cache["item_grouping"]


def truth_rows(side: Any, lists: RankedLists) -> tuple[NDArray[np.intp], NDArray[np.intp], pd.Index,
                                                      NDArray[np.float64]]:
    """The truth rows of the evaluated users: their user's index in ``lists.user_ids``, their
    item's code, the id of every code and the scores (the split's own codes, grouped by user)."""
    return (data_internal.segment_ids(lists.truth_offsets).astype(np.intp), lists.truth_item_codes.astype(np.intp),
            side.item_index(lists), lists.truth_values)


def train_group_counts(side: Any, grouping: Grouping) -> NDArray[np.int64]:
    """Per group: training interactions of the evaluated users with the group's items."""
    pair_user, pair_item = side.side.train_pairs()
    positions = side.user_positions()
    evaluated = np.zeros(side.side.n_train_users, dtype=bool)
    evaluated[positions[positions >= 0]] = True
    assert grouping.of_train_item is not None
    codes = grouping.of_train_item[pair_item[evaluated[pair_user]]]
    return np.bincount(codes[codes >= 0], minlength=len(grouping.labels)).astype(np.int64)


#: item ids a warning about ungrouped items shows
_EXAMPLES = 5


class GroupedMetric(SystemLevelMetric):
    """A system-level metric over item groups: per group a numerator and a denominator of
    integer counts (exactly mergeable), the value from their ratios."""

    higher_is_better = False
    #: "item_groups" or "popularity": what the groups are
    grouping_kind = "item_groups"
    pop_ratio: float = 0.8

    def _grouping(self, lists: RankedLists) -> tuple[Any, Grouping]:
        side = self.side_data(lists)
        if self.grouping_kind == "popularity":
            return side, popularity_grouping(side, lists, self.pop_ratio)
        return side, item_grouping(side)

    def _listed_groups(self, lists: RankedLists, grouping: Grouping) -> tuple[RankedLists, NDArray[np.int64]]:
        """The first k rows and their group codes (-1: the item has no group)."""
        view = lists.head(self.k)
        return view, grouping.of_item[row_item_codes(view)]

    @staticmethod
    def _ungrouped_parts(view: RankedLists, codes: NDArray[np.int64]) -> dict[str, Any]:
        """The listed rows without a group, as parts: their count, the rows, and the smallest
        of their item ids (the examples the warning shows, the same whatever the buckets)."""
        missing = codes < 0
        ids = pd.Index(pd.unique(np.asarray(view.item_ids)[missing])).sort_values()[:_EXAMPLES]
        return {"ungrouped": np.array([float(missing.sum())]), "listed_rows": np.array([float(len(codes))]),
                "ungrouped_ids": pd.Series(np.ones(len(ids), dtype=np.int64), index=ids)}

    def _warn_ungrouped(self, parts: dict[str, Any]) -> None:
        """The warning about rows without a group: from the merged parts, so once per split on
        every engine (a Spark bucket warns nothing)."""
        missing = int(float(parts["ungrouped"]))
        if not missing:
            return
        examples = sorted(parts["ungrouped_ids"].index.tolist())[:_EXAMPLES]
        where = ("are not in `train` (neither short head nor long tail)" if self.grouping_kind == "popularity"
                 else "have no group in `item_groups`")
        warnings.warn(RankevalWarning(
            f"{self}: {missing} of {int(float(parts['listed_rows']))} listed items {where}, e.g. {examples}: they "
            f"count for no group"), stacklevel=5)

    @staticmethod
    def _keyed_counts(labels: pd.Index, counts: NDArray[Any]) -> pd.Series:
        return pd.Series(np.asarray(counts, dtype=np.int64), index=labels)

    def system_value(self, parts: dict[str, Any]) -> float:
        self._warn_ungrouped(parts)
        num = parts["num"].to_numpy(dtype=np.float64)
        den = parts["den"].to_numpy(dtype=np.float64)
        if len(den) == 0 or (den == 0).any():
            return float("nan")
        pr = num / den
        mean = float(np.mean(pr))
        # Elliot: np.std(PR) / np.mean(PR), the population standard deviation
        return float("nan") if mean == 0 else float(np.std(pr)) / mean


def check_pop_ratio(pop_ratio: float) -> float:
    return check_share(pop_ratio, "pop_ratio")
