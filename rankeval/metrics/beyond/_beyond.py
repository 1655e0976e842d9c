r"""Beyond accuracy: coverage, concentration, popularity bias, novelty, diversity, group gaps.

These metrics read side data (:mod:`rankeval.side`): the training interactions
(``train=``), the catalog (``catalog=``) and item features (``item_features=``). Each
declares what it needs in ``needs_side``; evaluating it without that side data is a
ValueError naming the argument.

Two kinds:

- **system level** (``system_level = True``): :class:`CatalogCoverage`,
  :class:`GiniIndex`, :class:`ShannonEntropy`, :class:`DeltaGap`. They have no
  per-user value (they are absent from EvalModel's ``users_result``); their system value
  comes from per-item counts or per-group sums that add up exactly over any partition of
  the users (:meth:`~rankeval.RankingMetric.system_parts`).
- **per user**: :class:`AveragePopularity`, :class:`TailShare`, :class:`Novelty`,
  :class:`IntraListDiversity`; the system value is the mean over users, as for accuracy
  metrics.

Notation: :math:`L_u` the first k items of user u's list (the whole list for
``k=None``), :math:`U` the users of ``train``, :math:`pop_i` the number of distinct
training users who had item i, :math:`C` the catalog, :math:`c_i` the number of lists
(of evaluated users, cut at k) holding item i.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data._side import CHUNK_ROWS, require_side, row_item_codes, warn_featureless
from ...data._validation import check_choice
from .._base import MetricResult, RankingMetric

if TYPE_CHECKING:
    from ...data._ranked import RankedLists
    from ...data._split import Split

__all__ = ["CatalogCoverage", "GiniIndex", "ShannonEntropy", "AveragePopularity", "TailShare", "Novelty",
           "IntraListDiversity", "DeltaGap"]


class _SideMetric(RankingMetric):
    """A metric reading side data; per-user values from the first k rows only."""

    #: side data the metric reads: any of "train", "catalog", "item_features"
    needs_side: ClassVar[tuple[str, ...]] = ()
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


class _SystemLevel(_SideMetric):
    """A metric with a system value only (NaN per user; left out of per-user results)."""

    system_level = True

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        return np.full(lists.n_users, np.nan)

    def _item_counts(self, lists: RankedLists) -> NDArray[np.int64]:
        """Per item code: how many lists hold the item within the first k."""
        view = lists.head(self.k)
        return np.bincount(row_item_codes(view), minlength=len(lists._core.item_uniques)).astype(np.int64)

    @staticmethod
    def _keyed(lists: RankedLists, counts: NDArray[np.int64], keep: NDArray[np.bool_]) -> pd.Series:
        return pd.Series(counts[keep], index=pd.Index(lists._core.item_uniques[keep]))

    def users_behind(self, lists: RankedLists) -> int:
        """How many users' lists enter the system value (every evaluated user)."""
        return int(lists.n_users)


def _constant(parts: Mapping[str, Any], name: str) -> float:
    """A per-split constant stored as ``name`` (summed once per part) and ``"parts"`` (1 per part)."""
    return float(parts[name]) / float(parts["parts"])


# ---------------------------------------------------------------------- system level
class CatalogCoverage(_SystemLevel):
    r"""Share of the catalog recommended to at least one user (within the first k).

    .. math:: Coverage = \frac{|C \cap \bigcup_u L_u|}{|C|}

    ClayRS's ``CatalogCoverage(catalog, top_n=k)`` and ``PredictionCoverage(catalog)``
    (which report a percentage rounded to 2 decimals: ``round(100 * Coverage, 2)``),
    RecBole's ``ItemCoverage@k`` (over every item of the dataset: pass that as the
    catalog), Elliot's ``ItemCoverage`` (a count, not a share: ``Coverage * |C|``).

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"Coverage"``.

    Notes
    -----
    Needs the catalog (``catalog=``, or ``train=``: by default the catalog is every item
    of train and of the split's truth). Recommended items outside the catalog do not
    count. System level only: no per-user value. Only evaluated users' lists count (those
    with truth ratings), as in ClayRS, which keeps the users common to pred and truth.
    ClayRS's ``CatalogCoverage(k=n)``, which samples n users at random, is not
    reproduced.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [5.0, 4.0]})
    >>> split = rk.Split(pred, truth, catalog=["a", "b", "c", "d", "e"])
    >>> print(f"{rk.CatalogCoverage().perform(split).system.iloc[0, 0]:.2f}")
    0.60
    >>> print(f"{rk.CatalogCoverage(k=1).perform(split).system.iloc[0, 0]:.2f}")
    0.20
    """

    stem = "Coverage"
    needs_side = ("catalog",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side = self._side(lists)
        counts = self._item_counts(lists)
        return {"items": self._keyed(lists, counts, (counts > 0) & side.in_catalog),
                "catalog": np.array([float(side.n_catalog)]), "parts": np.array([1.0])}

    def system_value(self, parts: dict[str, Any]) -> float:
        items = parts["items"]
        return float(int((items > 0).sum()) / _constant(parts, "catalog"))


class GiniIndex(_SystemLevel):
    r"""Inequality of how often items are recommended (0: all equally often, towards 1: a few items).

    With the counts :math:`x_1 \le \dots \le x_n` sorted ascending,

    .. math:: Gini = \frac{\sum_{i=1}^{n} (2i - n - 1)\, x_i}{n \sum_{i=1}^{n} x_i}

    ``items="recommended"`` (default): over the n distinct items recommended (within the
    first k), as ClayRS's ``GiniIndex(top_n=k)`` (``(n + 1 - 2 * sum(cumsum(x)) /
    sum(x)) / n``, the same value). ``items="catalog"``: over every catalog item, those
    never recommended counting 0, as RecBole's ``GiniIndex@k`` (with its ``num_items``
    as the catalog). Elliot's ``Gini`` is a diversity, :math:`1 - Gini \cdot n / (n - 1)`
    over the catalog.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    items : {"recommended", "catalog"}
        Which items the distribution is over.
    name : str, optional
        Overrides the name ``"Gini"``.

    Notes
    -----
    ``items="catalog"`` needs the catalog (``catalog=`` or ``train=``); recommended items
    outside it are left out. The value is computed from the integer counts exactly and
    rounded once. NaN when no (catalog) item is recommended. Lower is more equal
    (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": list("abacad")})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": list("bcd"), "score": [1.0] * 3})
    >>> split = rk.Split(pred, truth, catalog=list("abcdef"))
    >>> print(f"{rk.GiniIndex().perform(split).system.iloc[0, 0]:.4f}")  # counts 1, 1, 1, 3
    0.2500
    >>> print(f"{rk.GiniIndex(items='catalog').perform(split).system.iloc[0, 0]:.4f}")  # 0, 0, 1, 1, 1, 3
    0.5000
    """

    stem = "Gini"
    higher_is_better = False

    def __init__(self, k: int | None = None, items: str = "recommended", *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.items = check_choice("items", items, ("recommended", "catalog"))
        self.needs_side = ("catalog",) if self.items == "catalog" else ()

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        counts = self._item_counts(lists)
        keep = counts > 0
        if self.items == "recommended":
            return {"items": self._keyed(lists, counts, keep)}
        side = self._side(lists)
        return {"items": self._keyed(lists, counts, keep & side.in_catalog),
                "catalog": np.array([float(side.n_catalog)]), "parts": np.array([1.0])}

    def system_value(self, parts: dict[str, Any]) -> float:
        x = np.sort(parts["items"].to_numpy()[parts["items"].to_numpy() > 0]).astype(object)
        m = len(x)
        n = m if self.items == "recommended" else int(round(_constant(parts, "catalog")))
        total = int(x.sum()) if m else 0
        if total == 0:
            return float("nan")
        weights = (2 * np.arange(n - m + 1, n + 1, dtype=object) - n - 1)
        numerator = int((weights * x).sum())  # exact integers: no rounding before the one division
        return float(Fraction(numerator, n * total))


class ShannonEntropy(_SystemLevel):
    r"""Entropy of the distribution of recommendations over items.

    .. math:: H = -\sum_{i} p_i \log_b p_i, \qquad p_i = \frac{c_i}{\sum_j c_j}

    over the items recommended within the first k (:math:`c_i` lists hold item i).
    Higher: recommendations spread over more items, more evenly.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    base : float
        Base of the logarithm: 2 (default, bits; Elliot's ``SEntropy`` on lists of equal
        length), ``math.e`` (nats, RecBole).
    per_item : bool
        Divide H by the number of distinct items recommended, as RecBole's
        ``ShannonEntropy@k`` does (``result / len(item_count)``).
    name : str, optional
        Overrides the name ``"Entropy"``.

    Notes
    -----
    RecBole's value is ``ShannonEntropy(k, base=math.e, per_item=True)`` (its lists all
    have k items). Needs no side data. System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [5.0, 4.0]})
    >>> print(f"{rk.ShannonEntropy().perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")  # p = 1/2, 1/4, 1/4
    1.5000
    """

    stem = "Entropy"

    def __init__(self, k: int | None = None, base: float = 2.0, per_item: bool = False, *,
                 name: str | None = None) -> None:
        super().__init__(k, None, name)
        if isinstance(base, bool) or not isinstance(base, (int, float, np.integer, np.floating)) \
                or not math.isfinite(base) or base <= 0 or base == 1:
            raise ValueError(f"`base` must be a finite number > 0 other than 1, got {base!r}")
        self.base = float(base)
        if not isinstance(per_item, (bool, np.bool_)):
            raise ValueError(f"`per_item` must be True or False, got {per_item!r}")
        self.per_item = bool(per_item)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        counts = self._item_counts(lists)
        return {"items": self._keyed(lists, counts, counts > 0)}

    def system_value(self, parts: dict[str, Any]) -> float:
        c = np.sort(parts["items"].to_numpy().astype(np.float64))
        c = c[c > 0]
        if len(c) == 0:
            return float("nan")
        p = c / math.fsum(c)
        h = math.fsum(-p * np.log(p)) / math.log(self.base)
        return h / len(c) if self.per_item else h + 0.0


class DeltaGap(_SystemLevel):
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
        from ...data._validation import check_share
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
        out = []
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
        if isinstance(next(iter(self.user_groups.values())), float):
            ids = side.side.popularity_groups(self.user_groups, self.pop_percentage)[self.group]
        else:
            ids = self.user_groups[self.group]
        in_train = side.user_positions() >= 0
        return pd.Index(lists.user_ids).isin(ids) & in_train

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side = self._side(lists)
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
        side = self._side(lists)
        return int(self._members(lists, side).sum())


# ---------------------------------------------------------------------- per user
class AveragePopularity(_SideMetric):
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

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
        return self._per_user_mean(lists, side.popularity[row_item_codes(lists)].astype(np.float64))


class TailShare(_SideMetric):
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

    def __init__(self, k: int | None = None, head: float = 0.2, head_by: str = "items", *,
                 name: str | None = None) -> None:
        from ...data._validation import check_share

        super().__init__(k, None, name)
        self.head = check_share(head, "head")
        self.head_by = check_choice("head_by", head_by, ("items", "interactions"))

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
        tail = side.in_catalog & ~side.in_head(self.head, self.head_by)
        return self._per_user_mean(lists, tail[row_item_codes(lists)].astype(np.float64))


class Novelty(_SideMetric):
    r"""Novelty of the recommended items: how few training users had them.

    ``definition="self_information"`` (default): the mean self-information,

    .. math:: Novelty_u = \frac{1}{|L_u|} \sum_{i \in L_u} -\log_2 \frac{pop_i}{|U|}

    (Zhou et al. 2010); an item no training user had counts :math:`\log_2 |U|`, as an
    item one user had (the largest finite value).

    ``definition="epc"``: Elliot's expected popularity complement (Vargas and Castells
    2011), rank- and relevance-aware,

    .. math::

        EPC_u = \frac{\sum_{r=1}^{|L_u|} disc(r)\, rel_u(i_r)\, (1 - pop_{i_r} / |U|)}
                     {\sum_{r=1}^{|L_u|} disc(r)},
        \qquad disc(r) = \frac{1}{\log_2(r + 1)}

    (Elliot's ``EPC``: ``logarithmic_ranking_discount``, binary relevance, items not in
    train count 1). Its name is ``EPC@k``.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    definition : {"self_information", "epc"}
        Which novelty.
    relevant_threshold : float, optional
        EPC only: a truth score ``>=`` this is relevant; None uses each user's mean
        (Elliot: its global ``relevance_threshold``; pass that number).
    no_relevant : {"nan", "zero"}
        EPC only: value of a user without relevant truth items (Elliot leaves them out:
        NaN).
    name : str, optional
        Overrides the name (``"Novelty"`` or ``"EPC"``).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 4, 1], "item_id": list("aaaab")})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["b"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(f"{rk.Novelty().perform(split).users.iloc[0, 0]:.4f}")  # (-log2 1 - log2 1/4) / 2
    1.0000
    """

    stem = "Novelty"
    needs_side = ("train",)

    def __init__(self, k: int | None = None, definition: str = "self_information",
                 relevant_threshold: float | None = None, *, no_relevant: str = "nan",
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name, no_relevant=no_relevant)
        self.definition = check_choice("definition", definition, ("self_information", "epc"))
        self.needs_relevant = self.definition == "epc"

    def _stem_text(self) -> str:
        return "EPC" if self.definition == "epc" else self.stem

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
        pop = side.popularity[row_item_codes(lists)].astype(np.float64)
        n = float(side.n_train_users)
        if self.definition == "self_information":
            return self._per_user_mean(lists, -np.log2(np.maximum(pop, 1.0) / n))
        rows = self._rows(lists)
        disc = np.where(rows, 1.0 / np.log2(lists.position.astype(np.float64) + 1.0), 0.0)
        gain = disc * lists.relevant * (1.0 - pop / n)
        with np.errstate(invalid="ignore", divide="ignore"):
            return lists.segment_sum(gain) / lists.segment_sum(disc)


class IntraListDiversity(_SideMetric):
    r"""Mean pairwise distance between the features of the recommended items (ILD).

    .. math:: ILD_u = \frac{2}{m_u (m_u - 1)} \sum_{i < j \in L_u} d(i, j)

    over the :math:`m_u` items of :math:`L_u` that have features. Vectors:
    :math:`d = 1 - \cos(x_i, x_j)`; category sets: :math:`d = 1 - |A_i \cap A_j| /
    |A_i \cup A_j|` (Jaccard). Computed without a loop over users: for vectors from the
    per-user sums of unit vectors, :math:`\sum_{i<j} \cos = (\lVert \sum_i \hat x_i
    \rVert^2 - \sum_i \lVert \hat x_i \rVert^2) / 2`; for sets from a sparse incidence
    matrix whose block-diagonal Gram matrix holds every in-list intersection.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"ILD"``.

    Notes
    -----
    Needs ``item_features=``. Listed items without features (absent from
    ``item_features``, an empty set or an all-zero vector: no distance is defined) are
    left out, with a :class:`~rankeval.RankevalWarning` that counts them. NaN for a user
    with fewer than 2 such items.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> features = pd.DataFrame({"genres": [{"drama"}, {"drama", "war"}, {"comedy"}]}, index=list("abc"))
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": list("abc")})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, item_features=features)
    >>> print(f"{rk.IntraListDiversity().perform(split).users.iloc[0, 0]:.4f}")  # (1/2 + 1 + 1) / 3
    0.8333
    """

    stem = "ILD"
    needs_side = ("item_features",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
        rows = self._rows(lists)
        feature = side.feature_row[row_item_codes(lists)]
        has = rows & (feature >= 0)
        has[has] = side.side._feature_valid[feature[has]]
        n_missing = int(rows.sum() - has.sum())
        if n_missing:
            missing = rows & ~has
            warn_featureless(self, n_missing, int(rows.sum()), pd.unique(lists.item_ids[missing])[:5].tolist())
        m = lists.segment_sum(has).astype(np.int64)
        offsets = np.zeros(lists.n_users + 1, dtype=np.int64)
        np.cumsum(m, out=offsets[1:])
        f = feature[has]
        if side.side.features_kind == "vectors":
            similar = _vector_pair_sums(side.side._unit, f, offsets)
        else:
            similar = _set_pair_sums(side.side._set_matrix, f, offsets)
        pairs = m * (m - 1) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m >= 2, 1.0 - similar / pairs, np.nan)


def _user_chunks(offsets: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Ranges of users [a, b) whose rows add up to about ``CHUNK_ROWS``."""
    n_users = len(offsets) - 1
    bounds = np.searchsorted(offsets, np.arange(0, offsets[-1] + CHUNK_ROWS, CHUNK_ROWS), side="left")
    bounds = np.unique(np.clip(np.concatenate([[0], bounds, [n_users]]), 0, n_users))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _vector_pair_sums(unit: NDArray[np.float64], f: NDArray[np.int64], offsets: NDArray[np.int64]
                      ) -> NDArray[np.float64]:
    """Per user: the sum over pairs of rows of their cosine similarity (unit rows ``unit[f]``)."""
    n_users = len(offsets) - 1
    out = np.zeros(n_users)
    counts = np.diff(offsets)
    for a, b in _user_chunks(offsets):
        users = a + np.flatnonzero(counts[a:b] > 0)
        if len(users) == 0:
            continue
        r0, r1 = int(offsets[users[0]]), int(offsets[users[-1] + 1])
        block = unit[f[r0:r1]]
        starts = offsets[users] - r0
        total = np.add.reduceat(block, starts, axis=0)
        own = np.add.reduceat(np.einsum("ij,ij->i", block, block), starts)
        out[users] = (np.einsum("ij,ij->i", total, total) - own) / 2.0
    return out


def _set_pair_sums(incidence: Any, f: NDArray[np.int64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per user: the sum over pairs of rows of the Jaccard similarity of their category sets."""
    from scipy import sparse

    n_users = len(offsets) - 1
    out = np.zeros(n_users)
    sizes_all = np.diff(incidence.indptr)
    for a, b in _user_chunks(offsets):
        r0, r1 = int(offsets[a]), int(offsets[b])
        if r1 - r0 < 2:
            continue
        rows = incidence[f[r0:r1]]  # one row per listed item: its categories
        user = np.repeat(np.arange(b - a), np.diff(offsets[a:b + 1]))
        # columns (user, category): rows of different users share no column, so the Gram
        # matrix is block diagonal and holds exactly the in-list intersections
        row_of_entry = np.repeat(np.arange(r1 - r0), np.diff(rows.indptr))
        keys = user[row_of_entry].astype(np.int64) * incidence.shape[1] + rows.indices
        _, columns = np.unique(keys, return_inverse=True)
        blocked = sparse.csr_matrix((np.ones(len(columns), dtype=np.int32), columns.ravel(), rows.indptr),
                                    shape=(r1 - r0, int(columns.max()) + 1 if len(columns) else 1))
        gram = (blocked @ blocked.T).tocoo()
        upper = gram.row < gram.col
        i, j, inter = gram.row[upper], gram.col[upper], gram.data[upper].astype(np.float64)
        sizes = sizes_all[f[r0:r1]].astype(np.float64)
        jaccard = inter / (sizes[i] + sizes[j] - inter)
        out[a:b] = np.bincount(user[i], weights=jaccard, minlength=b - a)
    return out


def system_level_counts(metrics: Any, split: Split) -> dict[str, int]:
    """Per system-level metric, the users whose lists enter its value on ``split``."""
    out = {}
    for m in metrics:
        if getattr(m, "system_level", False):
            out[str(m)] = int(m.users_behind(split.ranked_lists()))
    return out
