"""The bases of the metrics reading side data: per user (:class:`SideMetric`) or system level only
(:class:`SystemLevelMetric`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import require_side, row_item_codes
from ._base import RankingMetric

if TYPE_CHECKING:
    from ..data import RankedLists, Split
    from ..data.internal import BoundSide

__all__ = ["SideMetric", "SystemLevelMetric", "split_constant", "system_level_counts"]


class SideMetric(RankingMetric):
    r"""Base of a per-user metric that reads side data (training interactions, catalog, item
    features or item groups); its per-user values read the first ``k`` rows only.

    A subclass declares what it reads in ``needs_side`` (a class attribute, or set on the
    instance) and implements :meth:`~rankeval.RankingMetric.per_user`, reading the side
    data through :meth:`side_data`. Evaluated without that side data, it is a ValueError
    naming the argument to pass (``train=``, ``catalog=``, ...).

    Parameters
    ----------
    k : int, optional
        Cutoff: only the first ``k`` positions of each list count. None: whole list.
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None uses each user's mean truth score.
    name : str, optional
        Overrides ``str(metric)``, the column name in every result.
    no_relevant : {"nan", "zero"}
        Value of a user who has no relevant truth item, for metrics that are undefined
        then (``needs_relevant``): NaN (left out of the mean) or 0.

    Examples
    --------
    The share of the first k items that the training users never had:

    >>> import numpy as np, pandas as pd, rankeval as rk
    >>> class NeverSeen(rk.SideMetric):
    ...     stem = "NeverSeen"
    ...     needs_side = ("train",)
    ...     def per_user(self, lists):
    ...         unseen = self.side_data(lists).popularity[lists.item_codes] == 0
    ...         return lists.segment_sum((lists.position <= self.k) & unseen) / self.k
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> train = pd.DataFrame({"user_id": [2], "item_id": ["a"], "score": [1.0]})
    >>> print(NeverSeen(2).perform(rk.Split(pred, truth, train=train)).system)
         NeverSeen@2
    sys          0.5
    """

    def _head_is_enough(self) -> bool:
        return True

    def side_data(self, lists: RankedLists) -> BoundSide:
        """The split's side data aligned with ``lists``' item codes, or a ValueError naming
        the argument when a side data in ``needs_side`` is missing.

        Per distinct listed item (index it with ``lists.item_codes``): ``popularity``
        (distinct training users who had it), ``in_catalog``, ``feature_row`` (-1 without
        features), ``item_group`` (-1 without a group); ``n_train_users``, ``n_catalog``;
        ``side``, the :class:`~rankeval.SideData` itself.

        Parameters
        ----------
        lists : RankedLists
            The split's lists, as :meth:`~rankeval.RankingMetric.per_user` receives them.
        """
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
    r"""Base of a metric with a system value only (coverage, concentration, group gaps): NaN
    per user, left out of per-user results and of paired tests.

    A subclass implements :meth:`~rankeval.RankingMetric.system_parts` (additive parts,
    e.g. per-item counts keyed by item id, that merge exactly over any partition of the
    users, so Spark's buckets give the same value) and
    :meth:`~rankeval.RankingMetric.system_value` (the value from the merged parts);
    :meth:`~rankeval.RankingMetric.users_behind` counts the users whose lists enter it
    (every evaluated user by default). ``needs_side`` is empty unless it reads side data.

    Parameters
    ----------
    k : int, optional
        Cutoff: only the first ``k`` positions of each list count. None: whole list.
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None uses each user's mean truth score.
    name : str, optional
        Overrides ``str(metric)``, the column name in every result.
    no_relevant : {"nan", "zero"}
        Value of a user who has no relevant truth item, for metrics that are undefined
        then (``needs_relevant``): NaN (left out of the mean) or 0.

    Examples
    --------
    The number of distinct items in the first k positions of all lists:

    >>> import numpy as np, pandas as pd, rankeval as rk
    >>> class DistinctItems(rk.SystemLevelMetric):
    ...     stem = "Distinct"
    ...     def system_parts(self, lists, values):  # per item id: the lists holding it in their first k
    ...         top = lists.item_codes[lists.position <= self.k]
    ...         return {"lists": pd.Series(lists.item_uniques[top]).value_counts()}
    ...     def system_value(self, parts):
    ...         return float((parts["lists"] > 0).sum())
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "a"], "score": [1.0, 1.0]})
    >>> print(DistinctItems(2).perform(rk.Split(pred, truth)).system)
         Distinct@2
    sys         2.0
    """

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


def split_constant(parts: Mapping[str, Any], name: str) -> float:
    """A per-split constant stored as ``name`` (summed once per part) and ``"parts"`` (1 per part)."""
    return float(parts[name]) / float(parts["parts"])


def system_level_counts(metrics: Any, split: Split) -> dict[str, int]:
    """Per system-level metric, the users whose lists enter its value on ``split``."""
    out = {}
    for m in metrics:
        if m.system_level:
            out[str(m)] = int(m.users_behind(split.ranked_lists()))
    return out
