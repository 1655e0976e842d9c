"""The bases of the beyond-accuracy metrics: a metric reading side data, a system-level metric."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import require_side, row_item_codes
from .._base import RankingMetric

if TYPE_CHECKING:
    from ...data import RankedLists, Split

__all__ = ["SideMetric", "SystemLevelMetric", "split_constant", "system_level_counts"]


class SideMetric(RankingMetric):
    """A metric reading side data; per-user values from the first k rows only."""

    #: side data the metric reads: any of "train", "catalog", "item_features" (an instance
    #: may narrow it: GiniIndex needs the catalog only with ``items="catalog"``)
    needs_side: tuple[str, ...] = ()
    #: no per-user value: the system value comes from system_parts only
    system_level: ClassVar[bool] = False

    def _head_is_enough(self) -> bool:
        return True

    def _side(self, lists: RankedLists) -> Any:
        return require_side(lists, self, self.needs_side)

    def _rows(self, lists: RankedLists) -> NDArray[np.bool_]:
        """Rows within the cutoff (every row without one)."""
        if self.k is None:
            return np.ones(lists.n_rows, dtype=bool)
        return lists.position <= self.k

    def _per_user_mean(self, lists: RankedLists, row_values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Mean of ``row_values`` over each user's first k rows."""
        rows = self._rows(lists)
        n = lists.segment_sum(rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            return lists.segment_sum(np.where(rows, row_values, 0.0)) / n


class SystemLevelMetric(SideMetric):
    """A metric with a system value only (NaN per user; left out of per-user results)."""

    system_level = True

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        return np.full(lists.n_users, np.nan)

    def _item_counts(self, lists: RankedLists) -> NDArray[np.int64]:
        """Per item code: how many lists hold the item within the first k."""
        view = lists.head(self.k)
        return np.bincount(row_item_codes(view), minlength=len(lists.item_uniques)).astype(np.int64)

    @staticmethod
    def _keyed(lists: RankedLists, counts: NDArray[np.int64], keep: NDArray[np.bool_]) -> pd.Series:
        return pd.Series(counts[keep], index=pd.Index(lists.item_uniques[keep]))

    def users_behind(self, lists: RankedLists) -> int:
        """How many users' lists enter the system value (every evaluated user)."""
        return int(lists.n_users)


def split_constant(parts: Mapping[str, Any], name: str) -> float:
    """A per-split constant stored as ``name`` (summed once per part) and ``"parts"`` (1 per part)."""
    return float(parts[name]) / float(parts["parts"])


def system_level_counts(metrics: Any, split: Split) -> dict[str, int]:
    """Per system-level metric, the users whose lists enter its value on ``split``."""
    out = {}
    for m in metrics:
        if getattr(m, "system_level", False):
            out[str(m)] = int(m.users_behind(split.ranked_lists()))
    return out
