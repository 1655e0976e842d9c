r"""Mean absolute deviation of a metric between user groups (UserMAD, Deldjoo et al. 2021)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._base import RankingMetric
from ..beyond._side_metric import SystemLevelMetric

if TYPE_CHECKING:
    from ...data._ranked import RankedLists

__all__ = ["UserMAD"]


class UserMAD(SystemLevelMetric):
    r"""Mean absolute difference of a per-user metric's group means over every pair of user groups.

    .. math::

        UserMAD = \frac{2}{A(A-1)} \sum_{a < b} \left| \bar m(G_a) - \bar m(G_b) \right|,
        \qquad \bar m(G) = \frac{1}{|G'|} \sum_{u \in G'} m_u

    :math:`m_u` the per-user value of ``metric`` (NDCG@10 by default), :math:`G'` the
    evaluated users of group G with a defined (non-NaN) value, :math:`A` the number of
    groups. 0: every group is served equally well. Elliot's ``UserMADranking``
    (``fairness/MAD/UserMADranking.py``, lines 117-135) with its own nDCG as ``metric``
    (Elliot's gain :math:`2^{r - t + 1} - 1` for relevant ratings: ``NDCGAtK(k,
    gains="exponential")`` when the threshold t is 1 and every rating is relevant);
    ``UserMADrating`` is ``UserMAD(groups, rk.MAE())``.

    Parameters
    ----------
    user_groups : mapping or Series
        Group name -> user ids, or a Series user id -> group (groups must not overlap).
        Users in no group are left out (as Elliot's users absent from its clustering file).
    metric : RankingMetric, optional
        Any per-user metric (default ``NDCGAtK(10)``); its cutoff and relevance apply.
    name : str, optional
        Overrides the name ``"UserMAD[<metric>]"``.

    Notes
    -----
    Needs no side data. Users whose value is NaN (e.g. no relevant item) are left out of
    their group's mean, as Elliot leaves out users without relevant items. NaN when a group
    has no evaluated user with a value, or there is one group (Elliot: 0/0, or the mean of
    no difference). The group
    sums are exact sums that merge across Spark buckets. Lower is fairer
    (``higher_is_better = False``). System level only. :meth:`rankeval.EvalModel.by_group`
    gives each group's mean and the tested gaps for any per-user metric.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a", "a", "a"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a", "b", "a"], "score": [1.0] * 3})
    >>> metric = rk.UserMAD({"x": [1, 2], "y": [3]}, rk.PrecisionAtK(1))  # means 1/2 and 1
    >>> print(f"{metric.perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")
    0.5000
    """

    stem = "UserMAD"
    higher_is_better = False

    def __init__(self, user_groups: Any, metric: RankingMetric | None = None, *, name: str | None = None) -> None:
        from ...groups import check_user_groups
        from ..ranking import NDCGAtK

        super().__init__(None, None, name)
        groups = check_user_groups(user_groups)
        if isinstance(next(iter(groups.values())), float):
            raise ValueError("`user_groups` of UserMAD must give the users of each group (name -> user ids, or a "
                             "Series user id -> group), not shares")
        self.user_groups: dict[str, pd.Index] = groups
        metric = NDCGAtK(10) if metric is None else metric
        if not isinstance(metric, RankingMetric) or getattr(metric, "system_level", False) \
                or metric.__dict__.get("cutoffs") is not None or not metric.system_is_user_mean:
            raise ValueError(f"`metric` of UserMAD must be one per-user metric whose system value is the mean of "
                             f"its users' (e.g. rk.NDCGAtK(10)), got {metric!r}")
        self.metric = metric
        self.needs_side = tuple(getattr(metric, "needs_side", ()))

    def _stem_text(self) -> str:
        return f"UserMAD[{self.metric}]"

    def __str__(self) -> str:
        return self.name if self.name is not None else self._stem_text()

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        inner = self.metric.compute(lists.for_threshold(self.metric.relevant_threshold))
        group = self._group_codes(lists)
        parts: dict[str, Any] = {}
        for j in range(len(self.user_groups)):
            mine = inner[group == j]
            parts[f"sum{j}"] = mine
            parts[f"n{j}"] = np.where(np.isnan(mine), np.nan, 1.0)
        return parts

    def system_value(self, parts: dict[str, Any]) -> float:
        if any(parts[f"n{j}"] == 0 for j in range(len(self.user_groups))):
            return float("nan")  # Elliot: a group without users has the mean 0/0
        means = [parts[f"sum{j}"] / parts[f"n{j}"] for j in range(len(self.user_groups))]
        differences = [abs(means[a] - means[b]) for a in range(len(means)) for b in range(a + 1, len(means))]
        return float(np.mean(differences)) if differences else float("nan")

    def _group_codes(self, lists: RankedLists) -> NDArray[np.int64]:
        """Per evaluated user: the position of their group (-1: in none), one lookup for all groups."""
        if "_members" not in self.__dict__:
            ids = [ix for ix in self.user_groups.values() if len(ix)]
            codes = [np.full(len(ix), j) for j, ix in enumerate(self.user_groups.values()) if len(ix)]
            self._members = (ids[0].append(ids[1:]) if ids else pd.Index([]),
                             np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64))
        index, group_of = self._members
        if not len(index):
            return np.full(lists.n_users, -1, dtype=np.int64)
        at = index.get_indexer(pd.Index(lists.user_ids))
        return np.where(at >= 0, group_of[np.maximum(at, 0)], -1).astype(np.int64)

    def users_behind(self, lists: RankedLists) -> int:
        return int((self._group_codes(lists) >= 0).sum())
