"""PooledMetric: a per-user value made from per-user counts, and its micro average.

Precision, recall, F, R-precision and the error metrics are each a function ``f`` of a
few per-user counts or sums (relevant items found, items listed, relevant items, summed
errors, judged pairs). Their macro average is the mean of ``f(counts_u)`` over users;
their micro average (ClayRS's ``sys_average="micro"``) is ``f`` of the counts summed over
users, ``f(sum_u counts_u)``. The counts go through the system-value hook
(:meth:`RankingMetric.system_parts`) as exact sums, so buckets of users merge exactly.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import check_choice
from ._base import AVERAGES, RankingMetric

if TYPE_CHECKING:
    from ..data import RankedLists

__all__ = ["PooledMetric"]

#: the part counting the users behind a pooled value (those whose own value is defined)
_USERS = "users"


class PooledMetric(RankingMetric):
    """Base of the metrics made from per-user counts, with ``average="macro"|"micro"``.

    A subclass implements :meth:`counts` (per-user arrays) and :meth:`from_counts` (the
    value from counts, elementwise on arrays and on pooled scalars alike). Its constructor
    takes ``average`` and calls ``self._set_average(average)``.

    - ``average="macro"`` (default): the system value is the mean of the users' values,
      NaN users left out.
    - ``average="micro"``: ``from_counts`` of the counts summed over the users whose own
      value is defined (not NaN: with ``no_relevant="zero"`` the users without a relevant
      item count too); NaN when there is none, and 0 where the pooled ratio is 0 / 0.
      ``str()`` then ends in ``-micro`` (``P@10-micro``).

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
    The share of listed items that are relevant, pooled over users with ``average="micro"``:

    >>> import pandas as pd, rankeval as rk
    >>> class Hits(rk.PooledMetric):
    ...     stem = "Hits"
    ...     def __init__(self, *, average="macro"):
    ...         super().__init__()
    ...         self._set_average(average)
    ...     def counts(self, lists):
    ...         return {"hit": lists.segment_sum(lists.relevant), "listed": lists.n_listed.astype(float)}
    ...     def from_counts(self, c):
    ...         return c["hit"] / c["listed"]
    >>> pred = pd.DataFrame({"user_id": [1, 2, 2, 2], "item_id": ["a", "a", "b", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "a"], "score": [1.0, 1.0]})
    >>> split = rk.Split(pred, truth)
    >>> print(Hits().perform(split).system.iloc[0, 0], Hits(average="micro").perform(split).system.iloc[0, 0])
    0.6666666666666666 0.5
    """

    averages: ClassVar[tuple[str, ...]] = AVERAGES
    system_parts_scale_free: ClassVar[bool] = True  # from_counts is a function of ratios
    average: str

    def _set_average(self, average: str) -> None:
        self.average = check_choice("average", average, self.averages)

    @abc.abstractmethod
    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        """Per-user counts or sums (one float per user each), whose sums over users pool.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        """

    @abc.abstractmethod
    def from_counts(self, counts: dict[str, Any]) -> Any:
        """The value from ``counts`` (arrays per user, or pooled floats); NaN where undefined.

        Parameters
        ----------
        counts : dict of str to ndarray or float
            The counts of :meth:`counts`: per user, or summed over the users (micro average).
        """

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(self.from_counts(self.counts(lists)), dtype=np.float64)

    @property
    def system_is_user_mean(self) -> bool:
        return self.average == "macro"

    def system_parts(self, lists: RankedLists,
                     values: NDArray[np.float64]) -> dict[str, NDArray[np.float64] | pd.Series] | None:
        if self.average == "macro":
            return None
        if self.k is not None and self._head_is_enough():
            lists = lists.head(self.k)
        defined = ~np.isnan(values)
        parts: dict[str, NDArray[np.float64] | pd.Series] = {
            name: np.asarray(c, dtype=np.float64)[defined] for name, c in self.counts(lists).items()}
        parts[_USERS] = defined.astype(np.float64)
        return parts

    def system_value(self, parts: dict[str, float | pd.Series]) -> float:
        if parts[_USERS] == 0:
            return float("nan")
        counts = {n: np.float64(v) for n, v in parts.items() if n != _USERS}
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(self.from_counts(counts))
        return 0.0 if np.isnan(value) else value  # 0 / 0 pooled over users that exist: 0 (ClayRS's safediv)
