r"""Mean absolute deviation of a metric between user groups (UserMAD) or item groups (ItemMAD), Deldjoo et al. 2021."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, exact_mean, row_item_codes
from .._base import RankingMetric
from .._parts import KeyedSums
from .._side_metric import SystemLevelMetric
from ._groups import GroupedMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["UserMAD", "ItemMAD", "ITEM_GAINS"]

#: the per-(user, item) gain an ItemMAD averages per item
ITEM_GAINS = ("binary", "linear", "exponential", "score")


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
        if not isinstance(metric, RankingMetric) or metric.system_level \
                or metric.__dict__.get("cutoffs") is not None or not metric.system_is_user_mean:
            raise ValueError(f"`metric` of UserMAD must be one per-user metric whose system value is the mean of "
                             f"its users' (e.g. rk.NDCGAtK(10)), got {metric!r}")
        self.metric = metric
        self.needs_side = tuple(metric.needs_side)

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
        return _mean_gaps([parts[f"sum{j}"] / parts[f"n{j}"] for j in range(len(self.user_groups))])

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


def _mean_gaps(means: list[float]) -> float:
    """The mean of ``|means[a] - means[b]|`` over every pair a < b (NaN for fewer than two)."""
    differences = [abs(means[a] - means[b]) for a in range(len(means)) for b in range(a + 1, len(means))]
    return float(np.mean(differences)) if differences else float("nan")


class ItemMAD(GroupedMetric):
    r"""Mean absolute difference, over every pair of item groups, of the groups' mean per-item gain.

    .. math::

        ItemMAD = \frac{2}{A(A-1)} \sum_{a < b} \left| \bar v(G_a) - \bar v(G_b) \right|,
        \qquad \bar v(G) = \frac{1}{|I_G|} \sum_{i \in I_G} v_i, \qquad
        v_i = \frac{1}{|U_i|} \sum_{u \in U_i} g_{u,i}

    :math:`U_i` the users with at least one relevant truth item whose first k items hold
    item i, :math:`I_G` the items of group G that some such list holds, :math:`A` the
    number of groups of ``item_groups``, :math:`g_{u,i}` the gain of i for u, 0 when i is
    not relevant to u (truth score below the threshold, or no truth score) and otherwise
    1 (``gains="binary"``: :math:`v_i` is the share of i's recommendations that hit), the
    truth score r (``"linear"``), :math:`2^r - 1` (``"exponential"``) or the list's
    predicted score (``"score"``). 0: every group's items are, on average, recommended
    equally well. Elliot's ``ItemMADranking`` (``fairness/MAD/ItemMADranking.py``, lines
    79-106: per item, the mean of its gains :math:`2^{r - t + 1} - 1` over the lists holding
    it) is ``ItemMAD(k, relevant_threshold=1, gains="exponential")`` when its threshold t
    is 1; its ``ItemMADrating`` (``ItemMADrating.py``, lines 79-106: the predicted
    score when the item is relevant, else 0) is ``ItemMAD(k, relevant_threshold=t,
    gains="score")``.

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None: each user's mean truth score.
    gains : {"binary", "linear", "exponential", "score"}
        The gain of a relevant listed item (see above); ``"score"`` needs a score column in
        ``pred``.
    name : str, optional
        Overrides the name ``"ItemMAD"`` (give one to tell two ``gains`` apart).

    Notes
    -----
    Needs ``item_groups=``. Users without a relevant truth item are left out (as Elliot).
    Listed items without a group count for no group (a warning counts them). NaN when a
    group has no item in any such list (Elliot: its mean is 0/0) or there is one group.
    The per-item gain sums are exact float sums per item (kept as keyed exact sums)
    and the counts integers, so Spark buckets merge to the pandas value bit for bit.
    Lower is fairer (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "c", "a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 2], "item_id": ["a", "b", "c"], "score": [1.0] * 3})
    >>> groups = pd.Series({"a": "x", "b": "y", "c": "y"})
    >>> split = rk.Split(pred, truth, item_groups=groups)
    >>> # v_a = 1/2 (hit for user 1 only), v_b = 1, v_c = 0: |1/2 - (1 + 0)/2| = 0
    >>> print(f"{rk.ItemMAD(relevant_threshold=1).perform(split).system.iloc[0, 0]:.4f}")
    0.0000
    """

    stem = "ItemMAD"
    needs_side = ("item_groups",)
    names = ("ItemMAD",)

    def __init__(self, k: int | None = None, relevant_threshold: float | None = None, *, gains: str = "binary",
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)
        self.gains = check_choice("gains", gains, ITEM_GAINS)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        _, grouping = self._grouping(lists)
        view, codes = self._listed_groups(lists, grouping)
        ungrouped = self._ungrouped_parts(view, codes)
        keep = (codes >= 0) & (view.n_relevant > 0)[view.user_of_row]  # Elliot: users with a relevant item
        items = row_item_codes(view)[keep]
        gain = self._gains(view)[keep]
        codes = codes[keep]
        n_items = len(lists.item_uniques)
        parts: dict[str, Any] = {}
        for j in range(len(grouping.labels)):
            mine = codes == j
            held = np.bincount(items[mine], minlength=n_items)
            parts[f"lists{j}"] = pd.Series(held[held > 0].astype(np.int64),
                                           index=pd.Index(lists.item_uniques[held > 0]))
            parts[f"gain{j}"] = KeyedSums(lists.item_uniques[items[mine]], gain[mine])
        return {**parts, **ungrouped}

    def _gains(self, view: RankedLists) -> NDArray[np.float64]:
        """The gain of every listed row (0 when the item is not relevant to the user)."""
        relevant = view.relevant
        if self.gains == "binary":
            return relevant.astype(np.float64)
        if self.gains == "score":
            if not view.has_pred_score:
                raise ValueError(f"{self} with gains='score' needs predicted scores: `pred` has no score column")
            if view.score_order == "ascending":
                raise ValueError(f"{self} with gains='score' uses `pred` scores as gains, which score_order="
                                 f"'ascending' (lower is better, CLI --score-order) rules out; use another gains=")
            gain = np.where(relevant, view.pred_score, 0.0)
        else:
            with np.errstate(over="ignore"):
                gain = np.where(relevant, view.truth_score if self.gains == "linear" else 2.0 ** view.truth_score
                                - 1.0, 0.0)
        bad = np.flatnonzero(~np.isfinite(gain))
        if len(bad):
            user = view.user_ids[view.user_of_row[bad[0]]]
            raise ValueError(f"{self}: the gain of item {view.item_ids[bad[0]]!r} for user {user!r} is not finite "
                             f"({gain[bad[0]]}); gains='{self.gains}' needs finite gains")
        return gain

    def system_value(self, parts: dict[str, Any]) -> float:
        self._warn_ungrouped(parts)
        means = []
        for j in range(sum(name.startswith("lists") for name in parts)):
            held = parts[f"lists{j}"]
            if not len(held):
                return float("nan")  # Elliot: a group without a recommended item has the mean 0/0
            gain = parts[f"gain{j}"].reindex(held.index).to_numpy(dtype=np.float64)
            means.append(exact_mean(gain / held.to_numpy(dtype=np.float64)))
        return _mean_gaps(means)

    def users_behind(self, lists: RankedLists) -> int:
        return int((lists.for_threshold(self.relevant_threshold).n_relevant > 0).sum())
