r"""Bias disparity between what user groups trained on and what they are recommended (Tsintzou et al. 2019)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, row_item_codes
from .._base import MetricResult, RankingMetric
from .._side_metric import SystemLevelMetric, split_constant
from ._groups import item_grouping

if TYPE_CHECKING:
    from ...data import RankedLists, Split

__all__ = ["BiasDisparity"]

MEASURES = ("BD", "BR", "BS")


class BiasDisparity(SystemLevelMetric):
    r"""Bias disparity of a user group towards an item category: recommended vs trained on.

    .. math::

        B(G, C) = \frac{PR(G, C)}{P(C)}, \qquad
        BD(G, C) = \frac{B_R(G, C) - B_S(G, C)}{B_S(G, C)}

    :math:`PR(G, C)` the share of category C among the items of group G's users that have
    a category: in their recommendations (the first k items of each list, :math:`B_R`,
    ``measure="BR"``) or in their training interactions (:math:`B_S`, ``measure="BS"``);
    :math:`P(C)` the share of the ``item_groups`` items in category C. BD > 0: the
    recommender amplifies the group's preference for C; < 0: dampens it. Elliot's
    ``BiasDisparityBD``, ``BiasDisparityBR``, ``BiasDisparityBS``
    (``fairness/BiasDisparity/``), its item clustering as ``item_groups`` and its user
    clustering as ``user_groups``.

    Parameters
    ----------
    category : label or list of labels
        The item group(s) C (labels of ``item_groups``); a list gives one column each.
    k : int, optional
        Cutoff of the recommendation lists; None: whole lists.
    user_groups : mapping or Series, optional
        Group name -> user ids, or a Series user id -> group; one column per group. None
        (default): every user in one group (Elliot without a user clustering).
    measure : {"BD", "BR", "BS"}
        The bias disparity, the bias of the recommendations or of the training data.
    user_group : str, optional
        Compute only this user group's cells (EvalModel expands the metric into one per
        (user group, category)); None: every group of ``user_groups``.
    name : str, optional
        Overrides the column name of a single cell.

    Notes
    -----
    Needs ``item_groups=`` and, for BD and BS, ``train=``. :math:`B_R` counts the lists of
    the evaluated users of G; :math:`B_S` every training user of G (as Elliot). Items
    without a category count for neither numerator nor denominator; users in no group
    are left out. NaN when a denominator is 0 (no categorised item recommended to or
    trained on by G, or :math:`B_S = 0` for BD). Names: ``BD@10[C]``, or
    ``BD@10[G,C]`` with user groups. System level only; ``higher_is_better = False``
    (BD closer to 0 is better, for either sign).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "c", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["b", "b"], "score": [1.0, 1.0]})
    >>> groups = pd.Series({"a": "x", "b": "x", "c": "y", "d": "y"})
    >>> split = rk.Split(pred, truth, train=train, item_groups=groups)
    >>> res = rk.BiasDisparity(["x", "y"]).perform(split)  # B_R: (4/4) / (1/2), (0/4) / (1/2); B_S: 2/3, 4/3
    >>> print(res.system.round(4).to_string())
         BD[x]  BD[y]
    sys    2.0   -1.0
    """

    stem = "BD"
    higher_is_better = False

    def __init__(self, category: Any, k: int | None = None, user_groups: Any = None, measure: str = "BD",
                 user_group: str | None = None, *, name: str | None = None) -> None:
        from ...groups import check_user_groups

        super().__init__(k, None, name)
        self.measure = check_choice("measure", measure, MEASURES)
        self.category = category
        self.user_groups = None if user_groups is None else check_user_groups(user_groups)
        if self.user_groups is not None and isinstance(next(iter(self.user_groups.values())), float):
            raise ValueError("`user_groups` of BiasDisparity must give the users of each group, not shares")
        if user_group is not None and (self.user_groups is None or str(user_group) not in self.user_groups):
            raise ValueError(f"`user_group` {user_group!r} is not among the groups "
                             f"{[] if self.user_groups is None else list(self.user_groups)}")
        self.user_group = None if user_group is None else str(user_group)
        self.needs_side = ("item_groups",) if self.measure == "BR" else ("item_groups", "train")
        if name is not None and len(self._cells()) > 1:
            raise ValueError(f"`name` cannot name the {len(self._cells())} cells: drop name= or pass one category "
                             f"and user_group=")

    def _cells(self) -> list[tuple[str | None, Any]]:
        cats = list(self.category) if isinstance(self.category, (list, tuple)) else [self.category]
        users: list[str | None] = [None] if self.user_groups is None else (
            [self.user_group] if self.user_group is not None else list(self.user_groups))
        return [(g, c) for g in users for c in cats]

    def _stem_text(self) -> str:
        return self.measure

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = super().__str__()
        cells = self._cells()
        if len(cells) > 1:  # several cells: each has its own name (columns)
            return text
        group, cat = cells[0]
        return f"{text}[{cat}]" if group is None else f"{text}[{group},{cat}]"

    def expand(self) -> list[RankingMetric]:
        if self.__dict__.get("cutoffs") is not None:
            raise ValueError("BiasDisparity takes one cutoff k, not a list: make one per cutoff")
        cells = self._cells()
        if len(cells) == 1:
            return [self]
        out: list[RankingMetric] = []
        for group, cat in cells:
            clone = copy.copy(self)
            clone.category, clone.user_group = cat, group
            out.append(clone)
        return out

    def perform(self, split: Split) -> MetricResult:
        if len(self._cells()) > 1:
            results = [m.perform(split) for m in self.expand()]
            return MetricResult(pd.concat([r.users for r in results], axis=1),
                                pd.concat([r.system for r in results], axis=1))
        return super().perform(split)

    def _members(self, users: Any) -> NDArray[np.bool_]:
        if self.user_groups is None:
            return np.ones(len(users), dtype=bool)
        group = self.user_group if self.user_group is not None else next(iter(self.user_groups))
        return pd.Index(users).isin(self.user_groups[group])

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side = self.side_data(lists)
        grouping = item_grouping(side)
        (_, cat), = self._cells()
        at = grouping.labels.get_indexer([cat])[0]
        if at < 0:
            raise ValueError(f"{self}: category {cat!r} is not a group of `item_groups` "
                             f"(its groups: {grouping.labels.tolist()[:10]})")
        view = lists.head(self.k)
        codes = grouping.of_item[row_item_codes(view)]
        rows = self._members(lists.user_ids)[view.user_of_row] & (codes >= 0)
        parts: dict[str, Any] = {"rec_cat": np.array([float((codes[rows] == at).sum())]),
                                 "rec_all": np.array([float(rows.sum())]), "parts": np.array([1.0]),
                                 "p_cat": np.array([float(grouping.sizes[at])]),
                                 "p_all": np.array([float(grouping.sizes.sum())])}
        if self.measure != "BR":
            pair_user, pair_item = side.side.train_pairs()
            assert grouping.of_train_item is not None
            item_codes = grouping.of_train_item[pair_item]
            keep = self._members(side.side.train_users)[pair_user] & (item_codes >= 0)
            parts["src_cat"] = np.array([float((item_codes[keep] == at).sum())])
            parts["src_all"] = np.array([float(keep.sum())])
        return parts

    def system_value(self, parts: dict[str, Any]) -> float:
        p = split_constant(parts, "p_cat") / split_constant(parts, "p_all")
        with np.errstate(divide="ignore", invalid="ignore"):
            br = np.float64(parts["rec_cat"]) / np.float64(parts["rec_all"]) / p
            if self.measure == "BR":
                return float(br) if np.isfinite(br) else float("nan")
            bs = np.float64(split_constant(parts, "src_cat")) / np.float64(split_constant(parts, "src_all")) / p
            value = bs if self.measure == "BS" else (br - bs) / bs
        return float(value) if np.isfinite(value) else float("nan")

    def users_behind(self, lists: RankedLists) -> int:
        return int(self._members(lists.user_ids).sum())
