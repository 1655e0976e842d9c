"""Set-based metrics over the first k positions: PrecisionAtK, RecallAtK, HitRateAtK."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .._validation import check_choice, check_cutoff
from ._base import RankingMetric

if TYPE_CHECKING:
    from ..ranked import RankedLists

__all__ = ["PrecisionAtK", "RecallAtK", "HitRateAtK"]


class _AtK(RankingMetric):
    needs_relevant = True

    def __init__(self, k: int, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(check_cutoff(k, required=True), relevant_threshold, name, no_relevant=no_relevant)

    def _head_is_enough(self) -> bool:
        return True

    def _hits(self, lists: RankedLists) -> NDArray[np.float64]:
        """Relevant items among the first k positions of each list."""
        return lists.segment_sum(lists.relevant & (lists.position <= self.k))


class PrecisionAtK(_AtK):
    r"""Share of the first ``k`` positions holding a relevant item.

    .. math::

        P@k_u = \frac{|\{i \le k : rel_u(i) = 1\}|}{k}

    A list shorter than ``k`` still divides by ``k`` (its empty positions count as
    misses), unless ``denominator="listed"`` divides by :math:`\min(k, N_u)`.

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"k", "listed"}
        ``k`` (default), or the number of listed items within ``k`` (ClayRS, LensKit).
    name : str, optional
        Overrides the name ``"P@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: a user with no relevant truth item gets NaN (left out of the mean),
    or 0 with ``no_relevant="zero"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{PrecisionAtK(2).perform(Split(pred, truth)).system.loc['sys', 'P@2']:.4f}")
    0.5000
    """

    stem = "P"

    def __init__(self, k: int, relevant_threshold: float | None = None, *, denominator: str = "k",
                 name: str | None = None, no_relevant: str = "nan") -> None:
        super().__init__(k, relevant_threshold, name=name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, ("k", "listed"))

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        hits = self._hits(lists)
        if self.denominator == "k":
            return hits / self.k
        return hits / np.minimum(lists.n_listed, self.k)


class RecallAtK(_AtK):
    r"""Share of the user's relevant truth items found in the first ``k`` positions.

    .. math::

        R@k_u = \frac{|\{i \le k : rel_u(i) = 1\}|}{m_u}

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"relevant", "min_k"}
        :math:`m_u` (default), or :math:`\min(m_u, k)` (LensKit), which lets a user with
        more than ``k`` relevant items reach 1.
    name : str, optional
        Overrides the name ``"R@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{RecallAtK(2).perform(Split(pred, truth)).system.loc['sys', 'R@2']:.4f}")
    0.5000
    """

    stem = "R"

    def __init__(self, k: int, relevant_threshold: float | None = None, *, denominator: str = "relevant",
                 name: str | None = None, no_relevant: str = "nan") -> None:
        super().__init__(k, relevant_threshold, name=name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, ("relevant", "min_k"))

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        m = lists.n_relevant if self.denominator == "relevant" else np.minimum(lists.n_relevant, self.k)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._hits(lists) / m


class HitRateAtK(_AtK):
    r"""Whether a relevant item appears in the first ``k`` positions.

    .. math::

        HR@k_u = \mathbb{1}\left[\exists\, i \le k : rel_u(i) = 1\right]

    The system value is the share of users with a hit.

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"HR@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.

    Notes
    -----
    Undefined cases: a user with no relevant truth item gets NaN (or 0 with
    ``no_relevant="zero"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{HitRateAtK(1).perform(Split(pred, truth)).system.loc['sys', 'HR@1']:.4f}")
    1.0000
    """

    stem = "HR"

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        return (self._hits(lists) > 0).astype(np.float64)
