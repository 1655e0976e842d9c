r"""Ranking-based equal opportunity and statistical parity over item groups (Zhu et al., SIGIR 2020).

For item groups :math:`g_1 \dots g_A`, :math:`L_u` the first k items of user u's list,
:math:`T_u` u's training items, :math:`Y_u` u's relevant truth items and :math:`G_a` the
items of group a:

.. math::

    P_{RSP}(g_a) = \frac{\sum_u |L_u \cap G_a|}{\sum_u |G_a \setminus T_u|}, \qquad
    P_{REO}(g_a) = \frac{\sum_u |L_u \cap Y_u \cap G_a|}{\sum_u |(Y_u \cap G_a) \setminus T_u|}

and the metric is the coefficient of variation of the A probabilities,
:math:`std(P) / mean(P)` (population standard deviation): 0 when every group is equally
likely to be ranked (RSP) or, once relevant, ranked (REO). The sums run over the evaluated
users; the numerators and denominators are integer counts, merged exactly across Spark
buckets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._groups import GroupedMetric, Grouping, check_pop_ratio, train_group_counts, truth_rows

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["REO", "RSP", "PopREO", "PopRSP"]


class _Parity(GroupedMetric):
    """RSP's counts: recommended items of each group over the group's items not trained on."""

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side, grouping = self._grouping(lists)
        view, codes = self._listed_groups(lists, grouping)
        n_groups = len(grouping.labels)
        num = np.bincount(codes[codes >= 0], minlength=n_groups)
        den = lists.n_users * grouping.sizes - train_group_counts(side, grouping)
        return {"num": self._keyed_counts(grouping.labels, num), "den": self._keyed_counts(grouping.labels, den),
                **self._ungrouped_parts(view, codes)}


class _Opportunity(GroupedMetric):
    """REO's counts: relevant recommended items of each group over the group's relevant items not trained on."""

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side, grouping = self._grouping(lists)
        view, codes = self._listed_groups(lists, grouping)
        n_groups = len(grouping.labels)
        hit = view.relevant & (codes >= 0)
        num = np.bincount(codes[hit], minlength=n_groups)
        user_at, truth_codes, untrained, scores = self._truth(side, lists, grouping)
        relevant = scores >= lists.threshold[user_at]
        den = np.bincount(truth_codes[relevant & untrained], minlength=n_groups)
        return {"num": self._keyed_counts(grouping.labels, num), "den": self._keyed_counts(grouping.labels, den),
                **self._ungrouped_parts(view, codes)}

    def _truth(self, side: Any, lists: RankedLists, grouping: Grouping) -> tuple[Any, ...]:
        """Per truth row of an evaluated user: the user, the item's group (rows without one
        dropped), whether the pair is not a training interaction, the score (cached)."""
        key = ("reo_truth", self.grouping_kind, self.pop_ratio)
        if key not in side.cache:
            user_at, item_code, items, scores = truth_rows(side, lists)
            codes = grouping.codes_of(items)[item_code]
            keep = codes >= 0
            side.cache[key] = (user_at[keep], codes[keep], ~side.truth_in_train(lists)[keep], scores[keep])
        return side.cache[key]


class RSP(_Parity):
    r"""Ranking-based statistical parity over item groups: how unequally the groups are recommended.

    .. math::

        RSP = \frac{std(P(g_1), \dots, P(g_A))}{mean(P(g_1), \dots, P(g_A))}, \qquad
        P(g_a) = \frac{\sum_u |L_u \cap G_a|}{\sum_u |G_a \setminus T_u|}

    :math:`L_u` the first k items of user u's list, :math:`T_u` u's training items,
    :math:`G_a` the items of group a; std is the population standard deviation.
    Elliot's ``RSP`` (``fairness/rsp/rsp.py``, its clustering file as ``item_groups``).

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"RSP"``.

    Notes
    -----
    Needs ``item_groups=`` (item id -> group; the groups are its distinct labels, each of
    the size the mapping gives it) and ``train=`` (the items each user trained on, left
    out of the denominators; users without training rows leave none out). Listed items
    without a group count for no group (a warning counts them). NaN when a group's
    denominator is 0 or every probability is 0. Lower is fairer (``higher_is_better =
    False``). System level only: no per-user value. Sums over the evaluated users (those
    with a list and truth ratings).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["b", "c", "a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["b", "d"], "score": [1.0, 1.0]})
    >>> groups = pd.Series({"a": "x", "b": "x", "c": "y", "d": "y"})
    >>> split = rk.Split(pred, truth, train=train, item_groups=groups)
    >>> print(f"{rk.RSP().perform(split).system.iloc[0, 0]:.4f}")  # P(x) = 3/3, P(y) = 1/3
    0.5000
    """

    stem = "RSP"
    needs_side = ("item_groups", "train")
    names = ("RSP",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)


class REO(_Opportunity):
    r"""Ranking-based equal opportunity over item groups: how unequally relevant items of each group are recommended.

    .. math::

        REO = \frac{std(P(g_1), \dots, P(g_A))}{mean(P(g_1), \dots, P(g_A))}, \qquad
        P(g_a) = \frac{\sum_u |L_u \cap Y_u \cap G_a|}{\sum_u |(Y_u \cap G_a) \setminus T_u|}

    :math:`Y_u` the relevant truth items of user u (truth score ``>=`` the threshold),
    :math:`L_u` the first k items of u's list, :math:`T_u` u's training items, :math:`G_a`
    the items of group a; std is the population standard deviation. Elliot's ``REO``
    (``fairness/reo/reo.py``, its clustering file as ``item_groups``; its global
    relevance threshold as ``relevant_threshold``).

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None: each user's mean truth score.
    name : str, optional
        Overrides the name ``"REO"``.

    Notes
    -----
    Needs ``item_groups=`` and ``train=`` (the training items are left out of the
    denominators only, as Elliot does). Listed items without a group count for no group
    (a warning counts them); so do truth items without one. NaN when a group has no
    relevant truth item outside the training items (denominator 0) or every probability
    is 0. Lower is fairer (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2], "item_id": ["e", "e"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "c", "a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "d", "b", "c"], "score": [1.0] * 4})
    >>> groups = pd.Series({"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"})
    >>> split = rk.Split(pred, truth, train=train, item_groups=groups)
    >>> print(f"{rk.REO(relevant_threshold=1).perform(split).system.iloc[0, 0]:.4f}")  # P(x) = 2/2, P(y) = 0/2
    1.0000
    """

    stem = "REO"
    needs_side = ("item_groups", "train")
    names = ("REO",)

    def __init__(self, k: int | None = None, relevant_threshold: float | None = None, *,
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)


class PopRSP(_Parity):
    r"""Ranking-based statistical parity between the short head and the long tail (popularity bias).

    :class:`RSP` with two groups, the short head and the long tail of ``train``:

    .. math::

        PopRSP = \frac{std(P_{head}, P_{tail})}{mean(P_{head}, P_{tail})} =
        \frac{|P_{head} - P_{tail}|}{P_{head} + P_{tail}}

    The short head: the training items in order of popularity (distinct training users)
    descending, the fewest first ones whose popularity adds up to at least ``pop_ratio``
    of the training interactions (distinct (user, item) pairs); the long tail: every other
    training item (Elliot's ``Popularity.get_short_head`` / ``get_long_tail``). Ties in
    popularity are broken by item id ascending (Elliot keeps its item order, which
    follows a Python set). Items not in ``train`` are in neither group. Elliot's
    ``PopRSP`` (``bias/pop_rsp/pop_rsp.py``).

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    pop_ratio : float
        In (0, 1]: share of the training interactions the short head holds (Elliot: 0.8).
    name : str, optional
        Overrides the name ``"PopRSP"``.

    Notes
    -----
    Needs ``train=``. Listed items not in ``train`` count for neither group (a warning
    counts them). NaN when a group's denominator is 0 or both probabilities are 0. Lower
    is fairer (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [3, 4, 5, 5], "item_id": ["a", "a", "a", "b"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["b", "b"], "score": [1.0, 1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(f"{rk.PopRSP(pop_ratio=0.5).perform(split).system.iloc[0, 0]:.4f}")  # head a: P 1/2, tail b: 2/2
    0.3333
    """

    stem = "PopRSP"
    needs_side = ("train",)
    grouping_kind = "popularity"
    names = ("PopRSP",)

    def __init__(self, k: int | None = None, pop_ratio: float = 0.8, *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.pop_ratio = check_pop_ratio(pop_ratio)


class PopREO(_Opportunity):
    r"""Ranking-based equal opportunity between the short head and the long tail (popularity bias).

    :class:`REO` with two groups, the short head and the long tail of ``train`` (as
    :class:`PopRSP` forms them):

    .. math::

        PopREO = \frac{std(P_{head}, P_{tail})}{mean(P_{head}, P_{tail})}, \qquad
        P_g = \frac{\sum_u |L_u \cap Y_u \cap G_g|}{\sum_u |(Y_u \cap G_g) \setminus T_u|}

    Elliot's ``PopREO`` (``bias/pop_reo/pop_reo.py``; its relevance threshold as
    ``relevant_threshold``).

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    pop_ratio : float
        In (0, 1]: share of the training interactions the short head holds (Elliot: 0.8).
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None: each user's mean truth score.
    name : str, optional
        Overrides the name ``"PopREO"``.

    Notes
    -----
    Needs ``train=``. Items not in ``train`` (listed or relevant) count for neither group.
    NaN when a group has no relevant truth item outside the training items, or both
    probabilities are 0. Lower is fairer (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [3, 4, 5, 3, 4], "item_id": ["a", "a", "a", "b", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["b", "c", "a", "b"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 2], "item_id": ["b", "a", "c"], "score": [1.0] * 3})
    >>> split = rk.Split(pred, truth, train=train)
    >>> metric = rk.PopREO(pop_ratio=0.5, relevant_threshold=1)  # head a: P 1/1; tail b, c: P 1/2
    >>> print(f"{metric.perform(split).system.iloc[0, 0]:.4f}")
    0.3333
    """

    stem = "PopREO"
    needs_side = ("train",)
    grouping_kind = "popularity"
    names = ("PopREO",)

    def __init__(self, k: int | None = None, pop_ratio: float = 0.8, relevant_threshold: float | None = None, *,
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)
        self.pop_ratio = check_pop_ratio(pop_ratio)
