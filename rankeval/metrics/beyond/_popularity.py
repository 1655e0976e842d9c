r"""Popularity bias: average popularity (ARP), long-tail share, and the popularity gap of user groups (DeltaGap).

:math:`L_u` the first k items of user u's list, :math:`U` the users of ``train``,
:math:`pop_i` the number of distinct training users who had item i, :math:`C` the catalog.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, row_item_codes
from .._base import MetricResult, RankingMetric
from .._side_metric import SideMetric, SystemLevelMetric

if TYPE_CHECKING:
    from ...data import RankedLists, Split

__all__ = ["AveragePopularity", "TailShare", "DeltaGap"]


# ---------------------------------------------------------------------- system level
class DeltaGap(SystemLevelMetric):
    r"""Change of the average item popularity from users' profiles to their recommendations, per user group (ClayRS).

    For a group G of users (those of G with a list and a training profile),

    .. math::

        GAP(G, L) = \frac{1}{|G|} \sum_{u \in G} \frac{\sum_{i \in L(u)} pop_i / |U|}{|L(u)|},
        \qquad
        \Delta GAP(G) = \frac{GAP(G, recs) - GAP(G, profile)}{GAP(G, profile)}

    with :math:`L(u)` the first k recommended items (recs) or the distinct training items
    (profile), :math:`pop_i / |U|` the share of training users who had item i. 0 when the
    profile GAP is 0; NaN for a group with no user. Negative: the recommendations are
    less popular than what the group consumed; positive: more (popularity bias).

    Parameters
    ----------
    user_groups : mapping
        name -> share of users (e.g. ``{"blockbuster": 0.2, "niche": 0.2, "diverse":
        0.6}``): the groups of :func:`rankeval.groups.popularity_groups` on each split's
        ``train`` (ClayRS's ``DeltaGap(user_groups, ...)``); or name -> user ids, groups
        given explicitly. One result column per group, ``DeltaGap@k[name]``.
    k : int, optional
        Cutoff of the recommendation lists (ClayRS's ``top_n``); None: whole lists.
    pop_percentage : float
        Share of items that are "most popular" when forming groups from shares (ClayRS's
        ``pop_percentage``); unused with explicit groups.
    group : str, optional
        Compute only this group (EvalModel expands a DeltaGap into one metric per group).
    name : str, optional
        Overrides the name (only with ``group``).

    Notes
    -----
    Needs ``train=``: popularity, profiles and the groups all come from it. ClayRS takes
    the item popularity from a separate ``original_ratings`` frame and the profiles and
    groups from ``user_profiles``; this is ClayRS with both set to the split's training
    frame. Users of a group without any training interaction are left out of it. Ties are
    broken by id, not by row order (see :func:`~rankeval.groups.popularity_groups`).
    System level only (``higher_is_better = False``: closer to 0 is better for a value
    of either sign).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "b", "a", "a"]})
    >>> pred = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["b", "b", "a"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["b", "b", "a"], "score": [1.0] * 3})
    >>> split = rk.Split(pred, truth, train=train)
    >>> res = rk.DeltaGap({"all": [1, 2, 3]}).perform(split)
    >>> print(res.system.round(4).to_string())  # profiles 2/3, 1, 1; lists 1/3, 1/3, 1: (5/9 - 8/9) / (8/9)
         DeltaGap[all]
    sys         -0.375
    """

    stem = "DeltaGap"
    needs_side = ("train",)
    higher_is_better = False

    def __init__(self, user_groups: Any, k: int | None = None, pop_percentage: float = 0.2,
                 group: str | None = None, *, name: str | None = None) -> None:
        from ...data.internal import check_share
        from ...groups import check_user_groups

        super().__init__(k, None, name)
        self.user_groups = check_user_groups(user_groups)
        self.pop_percentage = check_share(pop_percentage, "pop_percentage")
        if group is not None and str(group) not in self.user_groups:
            raise ValueError(f"`group` {group!r} is not among the groups {list(self.user_groups)}")
        self.group = None if group is None else str(group)
        if name is not None and self.group is None and len(self.user_groups) > 1:
            raise ValueError(f"`name` cannot name the {len(self.user_groups)} group columns: drop name= or "
                             f"pass group=")

    def _stem_text(self) -> str:
        return self.stem

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = super().__str__()
        return text if self.group is None else f"{text}[{self.group}]"

    def expand(self) -> list[RankingMetric]:
        if self.__dict__.get("cutoffs") is not None:
            raise ValueError("DeltaGap takes one cutoff k, not a list: make one DeltaGap per cutoff")
        if self.group is not None:
            return [self]
        out: list[RankingMetric] = []
        for g in self.user_groups:
            clone = copy.copy(self)
            clone.group = g
            out.append(clone)
        return out

    def perform(self, split: Split) -> MetricResult:
        if self.group is None:
            results = [m.perform(split) for m in self.expand()]
            return MetricResult(pd.concat([r.users for r in results], axis=1),
                                pd.concat([r.system for r in results], axis=1))
        return super().perform(split)

    def _members(self, lists: RankedLists, side: Any) -> NDArray[np.bool_]:
        """Evaluated users of this group who have a training profile."""
        group = self.group
        assert group is not None, "a DeltaGap is expanded into one metric per group before it is evaluated"
        if isinstance(next(iter(self.user_groups.values())), float):
            ids = side.side.popularity_groups(self.user_groups, self.pop_percentage)[group]
        else:
            ids = self.user_groups[group]
        in_train = side.user_positions() >= 0
        return pd.Index(lists.user_ids).isin(ids) & in_train

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side = self.side_data(lists)
        members = self._members(lists, side)
        view = lists.head(self.k)
        share = side.popularity / side.n_train_users
        recs = view.segment_sum(share[row_item_codes(view)]) / view.n_listed
        _, profile_all = side.side.user_profile_popularity()
        profile = profile_all[np.maximum(side.user_positions(), 0)]
        return {"recs": recs[members], "profile": profile[members], "users": np.ones(int(members.sum()))}

    def system_value(self, parts: dict[str, Any]) -> float:
        if parts["users"] == 0:
            return float("nan")
        recs, profile = parts["recs"] / parts["users"], parts["profile"] / parts["users"]
        return 0.0 if profile == 0 else float((recs - profile) / profile)

    def users_behind(self, lists: RankedLists) -> int:
        side = self.side_data(lists)
        return int(self._members(lists, side).sum())


# ---------------------------------------------------------------------- per user
class AveragePopularity(SideMetric):
    r"""Average popularity of the recommended items (ARP).

    .. math:: ARP_u = \frac{1}{|L_u|} \sum_{i \in L_u} pop_i

    :math:`pop_i`: distinct training users who had item i (0 for items not in
    ``train``). Elliot's ``ARP`` and RecBole's ``AveragePopularity@k`` (which counts
    training interaction rows: the same without repeated pairs, and divides by k: the
    same for lists of k items or more). Lower: less popularity bias
    (``higher_is_better = False``).

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists. A list shorter than k is averaged over its
        own length.
    name : str, optional
        Overrides the name ``"ARP"``.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "b", "a", "a"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> print(rk.AveragePopularity().perform(rk.Split(pred, truth, train=train)).users)
         ARP
    user_id
    1    2.0
    """

    stem = "ARP"
    needs_side = ("train",)
    higher_is_better = False
    names = ("ARP",)
    aliases = ("averagepopularity",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        return self._per_user_mean(lists, side.popularity[row_item_codes(lists)].astype(np.float64))


class TailShare(SideMetric):
    r"""Share of the recommended items that are long-tail items (APLT, RecBole's TailPercentage).

    .. math:: TailShare_u = \frac{|\{i \in L_u : i \in C \setminus H\}|}{|L_u|}

    The head :math:`H` holds the catalog's most popular items: with
    ``head_by="items"`` (default) the first ``round(head * |C|)`` catalog items by
    training popularity, descending (Python's ``round``, half to even); with
    ``head_by="interactions"`` the fewest most popular items whose popularity adds up to
    at least ``head`` of the catalog's (Elliot's short head, ``pop_ratio=0.8``). Ties in
    popularity are broken by item id ascending (the smaller id enters the head first),
    so that the head never depends on row order. The tail is every other catalog item;
    items outside the catalog are not tail items.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    head : float
        In (0, 1]: share of catalog items (or of interactions) in the head.
    head_by : {"items", "interactions"}
        What ``head`` is a share of.
    name : str, optional
        Overrides the name ``"TailShare"``.

    Notes
    -----
    RecBole's ``TailPercentage@k`` with ``tail_ratio=t`` < 1 takes the tail as the
    ``max(int(t * n), 1)`` least popular training items, ties by internal id: this is
    ``TailShare(k, head=1 - t)`` with the catalog set to the training items, when
    ``t * n`` is whole and no tie straddles the cut. Elliot's ``APLT`` is
    ``TailShare(k, head=0.8, head_by="interactions")`` on the training items. Needs
    ``train=`` (and the catalog, by default train's items and the split's truth items).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 1, 2, 1], "item_id": list("aaabbc")})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": list("abc")})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["c"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train, catalog=list("abcd"))
    >>> print(f"{rk.TailShare(head=0.5).perform(split).users.iloc[0, 0]:.4f}")  # head a, b
    0.3333
    """

    stem = "TailShare"
    needs_side = ("train", "catalog")
    names = ("TailShare",)
    aliases = ("tailpercentage",)

    def __init__(self, k: int | None = None, head: float = 0.2, head_by: str = "items", *,
                 name: str | None = None) -> None:
        from ...data.internal import check_share

        super().__init__(k, None, name)
        self.head = check_share(head, "head")
        self.head_by = check_choice("head_by", head_by, ("items", "interactions"))

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        tail = side.in_catalog & ~side.in_head(self.head, self.head_by)
        return self._per_user_mean(lists, tail[row_item_codes(lists)].astype(np.float64))
