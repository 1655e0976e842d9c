"""Mean reciprocal rank: MRR and MRRAtK."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_cutoff
from .._base import RankingMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["MRR", "MRRAtK"]


class MRR(RankingMetric):
    r"""Mean reciprocal rank of the first relevant item.

    .. math::

        RR_u = \frac{1}{\operatorname{rank}_u}

    where :math:`\operatorname{rank}_u` is the position of the first relevant listed
    item; :math:`RR_u = 0` when the list holds no relevant item.

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"MRR"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: a user with no relevant truth item at all gets NaN (left out of the
    mean), or 0 with ``no_relevant="zero"``; a user whose relevant items are all unlisted
    gets 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["x", "y", "a"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [5, 1]})
    >>> print(f"{MRR().perform(Split(pred, truth)).system.loc['sys', 'MRR']:.4f}")
    0.3333
    """

    stem = "MRR"
    needs_relevant = True
    names = ("MRR",)
    aliases = ("recip_rank", "rr")

    def __init__(self, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(None, relevant_threshold, name, no_relevant=no_relevant)

    def _head_is_enough(self) -> bool:
        return True

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        hit = lists.relevant
        cut = self._in_cutoff(lists)
        if cut is not None:
            hit = hit & cut
        first = lists.segment_first(hit).astype(np.float64)
        with np.errstate(divide="ignore"):
            return np.where(first > 0, 1.0 / first, 0.0)

    def per_user_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """Every cutoff from the first relevant position, found once.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        cutoffs : tuple of int
            The cutoffs, one column each.
        """
        first = lists.segment_first(lists.relevant).astype(np.float64)
        with np.errstate(divide="ignore"):
            reciprocal = np.where(first > 0, 1.0 / first, 0.0)
        return np.column_stack([np.where(first <= k, reciprocal, 0.0) for k in cutoffs])


class MRRAtK(MRR):
    r"""Mean reciprocal rank of the first relevant item within the first ``k`` positions.

    .. math::

        RR@k_u = \begin{cases} 1/\operatorname{rank}_u & \operatorname{rank}_u \le k \\
                 0 & \text{otherwise} \end{cases}

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"MRR@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: as :class:`MRR`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["x", "y", "a"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [5, 1]})
    >>> print(f"{MRRAtK(2).perform(Split(pred, truth)).system.loc['sys', 'MRR@2']:.4f}")
    0.0000
    """

    names = ("MRR",)

    def __init__(self, k: int, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(relevant_threshold, name=name, no_relevant=no_relevant)
        self.k = check_cutoff(k, required=True)
