"""Mean average precision: MAP and MAPAtK."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff, rank_within
from .._base import RankingMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["MAP", "MAPAtK"]

#: what AP is divided by: m_u, min(m_u, k), the relevant items found in the first k, or
#: min(m_u, items listed within k) (LensKit)
DENOMINATORS = ("relevant", "min_k", "hits", "listed")


class MAP(RankingMetric):
    r"""Mean average precision over the whole list.

    .. math::

        AP_u = \frac{1}{m_u} \sum_{i=1}^{N_u} P_u(i)\, rel_u(i),
        \qquad P_u(i) = \frac{1}{i} \sum_{j \le i} rel_u(j)

    where :math:`m_u` counts every relevant truth item of :math:`u`, listed or not,
    :math:`N_u` is the length of the list and :math:`rel_u(i)` is 1 when the item at
    position :math:`i` is relevant (truth score ``>= relevant_threshold``, by default
    the user's mean truth score).

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"relevant", "min_k", "hits", "listed"}
        What AP is divided by: :math:`m_u` (default; trec_eval, ClayRS, ranx),
        :math:`\min(m_u, k)` (RecBole, Spark MLlib, Microsoft Recommenders; for MAP
        without k the same as ``"relevant"``), the relevant items found in the list
        (0 when none), or :math:`\min(m_u, \text{items listed within } k)` (LensKit).
    name : str, optional
        Overrides the name ``"MAP"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: a user with :math:`m_u = 0` gets NaN (left out of the system mean),
    or 0 with ``no_relevant="zero"``. Relevant items that are not listed still count in
    :math:`m_u`, so a list that misses them cannot reach 1.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*,
       section 8.4, Cambridge University Press, 2008.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> res = MAP().perform(Split(pred, truth))   # mean 3.33: a and b relevant
    >>> print(f"{res.system.loc['sys', 'MAP']:.4f}")  # (1/1 + 2/3) / 2
    0.8333
    """

    stem = "MAP"
    needs_relevant = True
    names = ("MAP",)
    aliases = ("map_cut",)

    def __init__(self, relevant_threshold: float | None = None, *, denominator: str = "relevant",
                 name: str | None = None, no_relevant: str = "nan") -> None:
        super().__init__(None, relevant_threshold, name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, DENOMINATORS)

    def _head_is_enough(self) -> bool:
        return True

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        hit = lists.relevant
        cut = self._in_cutoff(lists)
        if cut is not None:
            hit = hit & cut
        rows = np.flatnonzero(hit)
        users = lists.user_of_row[rows]
        # precision at each relevant position: (relevant rows so far) / position
        precision = rank_within(users) / lists.position[rows]
        total = np.bincount(users, weights=precision, minlength=lists.n_users)
        m = lists.n_relevant
        if self.denominator == "min_k" and self.k is not None:
            m = np.minimum(m, self.k)
        elif self.denominator == "hits":
            m = np.bincount(users, minlength=lists.n_users)
        elif self.denominator == "listed":
            # LensKit: at most as many relevant items as the list shows within k
            m = np.minimum(m, lists.n_listed if self.k is None else np.minimum(lists.n_listed, self.k))
        with np.errstate(divide="ignore", invalid="ignore"):
            ap = total / m
        if self.denominator == "hits":
            ap = np.where(m > 0, ap, 0.0)  # no relevant item found: 0 (the user may still have some)
        return ap

    def per_user_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """Every cutoff from one pass: the precision at each relevant position does not
        depend on the cutoff, so each cutoff sums a prefix of the same terms (in the same
        order as :meth:`per_user` at that cutoff: the same values, bit for bit).

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        cutoffs : tuple of int
            The cutoffs, one column each.
        """
        rows = np.flatnonzero(lists.relevant)
        users = lists.user_of_row[rows]
        position = lists.position[rows]
        precision = rank_within(users) / position
        out = np.empty((lists.n_users, len(cutoffs)))
        for j, k in enumerate(cutoffs):
            keep = position <= k
            total = np.bincount(users[keep], weights=precision[keep], minlength=lists.n_users)
            m = lists.n_relevant
            if self.denominator == "min_k":
                m = np.minimum(m, k)
            elif self.denominator == "hits":
                m = np.bincount(users[keep], minlength=lists.n_users)
            elif self.denominator == "listed":
                m = np.minimum(m, np.minimum(lists.n_listed, k))
            with np.errstate(divide="ignore", invalid="ignore"):
                ap = total / m
            out[:, j] = np.where(m > 0, ap, 0.0) if self.denominator == "hits" else ap
        return out


class MAPAtK(MAP):
    r"""Mean average precision over the first ``k`` positions.

    .. math::

        AP@k_u = \frac{1}{m_u} \sum_{i=1}^{\min(k, N_u)} P_u(i)\, rel_u(i)

    The denominator is still :math:`m_u`, all relevant truth items of the user (ClayRS,
    trec_eval's ``map_cut``), so a user with more than ``k`` relevant items cannot reach 1.

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"relevant", "min_k", "hits", "listed"}
        See :class:`MAP`; ``"min_k"`` divides by :math:`\min(m_u, k)`.
    name : str, optional
        Overrides the name ``"MAP@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: a user with :math:`m_u = 0` gets NaN (or 0 with ``no_relevant="zero"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> res = MAPAtK(2).perform(Split(pred, truth))
    >>> print(f"{res.system.loc['sys', 'MAP@2']:.4f}")  # (1/1) / 2
    0.5000
    """

    names = ("MAP",)

    def __init__(self, k: int, relevant_threshold: float | None = None, *, denominator: str = "relevant",
                 name: str | None = None, no_relevant: str = "nan") -> None:
        super().__init__(relevant_threshold, denominator=denominator, name=name, no_relevant=no_relevant)
        self.k = check_cutoff(k, required=True)
