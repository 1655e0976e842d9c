r"""Novelty of the recommended items: self-information, or Elliot's expected popularity complement (EPC).

:math:`L_u` the first k items of user u's list, :math:`U` the users of ``train``,
:math:`pop_i` the number of distinct training users who had item i.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_choice, row_item_codes
from .._side_metric import SideMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Novelty"]


class Novelty(SideMetric):
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
    names = ("Novelty", "EPC")

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> Novelty:
        """``Novelty(k)``, or for ``EPC`` the expected popularity complement, ``Novelty(k, definition="epc")``.

        Parameters
        ----------
        name : str
            "Novelty" or "EPC".
        k : int or list of int, optional
            The cutoff after ``@`` (None: whole lists).
        """
        return cls(k, definition="epc") if name == "EPC" else cls(k)  # type: ignore[arg-type]  # a list: one pass

    def __init__(self, k: int | None = None, definition: str = "self_information",
                 relevant_threshold: float | None = None, *, no_relevant: str = "nan",
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name, no_relevant=no_relevant)
        self.definition = check_choice("definition", definition, ("self_information", "epc"))
        self.needs_relevant = self.definition == "epc"

    def _stem_text(self) -> str:
        return "EPC" if self.definition == "epc" else self.stem

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        pop = side.popularity[row_item_codes(lists)].astype(np.float64)
        n = float(side.n_train_users)
        if self.definition == "self_information":
            return self._per_user_mean(lists, -np.log2(np.maximum(pop, 1.0) / n))
        rows = self._rows(lists)
        disc = np.where(rows, 1.0 / np.log2(lists.position.astype(np.float64) + 1.0), 0.0)
        gain = disc * lists.relevant * (1.0 - pop / n)
        with np.errstate(invalid="ignore", divide="ignore"):
            return lists.segment_sum(gain) / lists.segment_sum(disc)
