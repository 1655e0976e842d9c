r"""Average coverage of long-tail items (ACLT, Abdollahpouri et al. 2019)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import row_item_codes
from .._side_metric import SideMetric
from ._groups import check_pop_ratio, popularity_grouping

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["ACLT"]


class ACLT(SideMetric):
    r"""Average coverage of long-tail items: how many long-tail items a list holds.

    .. math:: ACLT_u = \sum_{i \in L_u} 1(i \in \Gamma)

    :math:`L_u` the first k items of user u's list, :math:`\Gamma` the long tail of
    ``train``: the training items outside the short head, the fewest most popular ones
    whose popularity (distinct training users) adds up to at least ``pop_ratio`` of the
    training interactions (distinct (user, item) pairs), ties broken by item id ascending
    (see :class:`~rankeval.PopRSP`). A count per user, not a share; the system value is
    the mean over users. Elliot's ``ACLT`` (``bias/aclt/aclt.py``, ``pop_ratio=0.8``).
    :class:`~rankeval.TailShare` gives the share instead.

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    pop_ratio : float
        In (0, 1]: share of the training interactions the short head holds (Elliot: 0.8).
    name : str, optional
        Overrides the name ``"ACLT"``.

    Notes
    -----
    Needs ``train=``. Items not in ``train`` are not long-tail items (Elliot's long tail
    holds training items only). Defined for every user (0 when no listed item is in the
    long tail). Higher: more long-tail items recommended.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 1], "item_id": ["a", "a", "a", "b"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": ["a", "b", "z"]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["b"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(rk.ACLT(pop_ratio=0.5).perform(split).users)  # head: a (3 of 4 >= 0.5); tail: b
             ACLT
    user_id
    1         1.0
    """

    stem = "ACLT"
    needs_side = ("train",)
    names = ("ACLT",)

    def __init__(self, k: int | None = None, pop_ratio: float = 0.8, *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.pop_ratio = check_pop_ratio(pop_ratio)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        grouping = popularity_grouping(side, lists, self.pop_ratio)
        tail = (grouping.of_item == 1)[row_item_codes(lists)]
        return lists.segment_sum(self._rows(lists) & tail).astype(np.float64)
