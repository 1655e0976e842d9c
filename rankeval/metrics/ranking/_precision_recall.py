"""Set-based metrics over the first k positions: PrecisionAtK, RecallAtK, HitRateAtK."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff
from .._base import RankingMetric
from .._pooled import PooledMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["PrecisionAtK", "RecallAtK", "HitRateAtK"]


class _AtK(RankingMetric):
    needs_relevant = True
    k: int  # required: the cutoff is no option here

    def __init__(self, k: int, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(check_cutoff(k, required=True), relevant_threshold, name, no_relevant=no_relevant)

    def _head_is_enough(self) -> bool:
        return True

    def _hits(self, lists: RankedLists) -> NDArray[np.float64]:
        """Relevant items among the first k positions of each list."""
        return lists.segment_sum(lists.relevant & (lists.position <= self.k))

    def _hits_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """Relevant items among the first k positions for every k of ``cutoffs`` (ascending),
        shape ``(n_users, len(cutoffs))``: one bincount of the relevant rows by (user, the
        first cutoff that holds the row), then a running sum over the cutoffs."""
        rows = np.flatnonzero(lists.relevant)
        first_cutoff = np.searchsorted(np.asarray(cutoffs), lists.position[rows], side="left")
        n_bins = len(cutoffs) + 1  # the last bin: rows below the largest cutoff
        keys = lists.user_of_row[rows].astype(np.int64) * n_bins + first_cutoff
        counts = np.bincount(keys, minlength=lists.n_users * n_bins).reshape(lists.n_users, n_bins)
        return np.cumsum(counts[:, :-1], axis=1).astype(np.float64)

    @abc.abstractmethod
    def _value_from_hits(self, lists: RankedLists, hits: NDArray[np.float64]) -> NDArray[np.float64]:
        """The per-user value at this metric's cutoff from its hit counts."""

    def per_user_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """Every cutoff from one count of the relevant rows (:meth:`_hits_at`)."""
        hits = self._hits_at(lists, cutoffs)
        out = np.empty_like(hits)
        for j, k in enumerate(cutoffs):  # a few cutoffs, each a vectorized pass over users
            out[:, j] = self._at(k)._value_from_hits(lists, hits[:, j])
        return out


class PrecisionAtK(_AtK, PooledMetric):
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
    average : {"macro", "micro"}
        System value: the mean of the users' values (default), or ClayRS's micro average
        :math:`\sum_u h_u(k) / \sum_u d_u` with :math:`d_u` the denominator above
        (named ``P@k-micro``).

    Notes
    -----
    Undefined cases: a user with no relevant truth item gets NaN (left out of the mean
    and of the micro sums), or 0 with ``no_relevant="zero"``.

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
    names = ("P",)

    def __init__(self, k: int, relevant_threshold: float | None = None, *, denominator: str = "k",
                 name: str | None = None, no_relevant: str = "nan", average: str = "macro") -> None:
        super().__init__(k, relevant_threshold, name=name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, ("k", "listed"))
        self._set_average(average)

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"hits": self._hits(lists), "retrieved": self._retrieved(lists)}

    def _retrieved(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        if self.denominator == "k":
            return np.full(lists.n_users, float(self.k))
        return np.minimum(lists.n_listed, self.k).astype(np.float64)

    def _value_from_hits(self, lists: RankedLists, hits: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(self.from_counts({"hits": hits, "retrieved": self._retrieved(lists)}),
                              dtype=np.float64)

    def from_counts(self, counts: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
        return counts["hits"] / counts["retrieved"]


class RecallAtK(_AtK, PooledMetric):
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
    average : {"macro", "micro"}
        System value: the mean of the users' values (default), or ClayRS's micro average
        :math:`\sum_u h_u(k) / \sum_u m_u` (named ``R@k-micro``).

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
    names = ("R",)

    def __init__(self, k: int, relevant_threshold: float | None = None, *, denominator: str = "relevant",
                 name: str | None = None, no_relevant: str = "nan", average: str = "macro") -> None:
        super().__init__(k, relevant_threshold, name=name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, ("relevant", "min_k"))
        self._set_average(average)

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"hits": self._hits(lists), "relevant": self._relevant(lists)}

    def _relevant(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        m = lists.n_relevant if self.denominator == "relevant" else np.minimum(lists.n_relevant, self.k)
        return m.astype(np.float64)

    def _value_from_hits(self, lists: RankedLists, hits: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(self.from_counts({"hits": hits, "relevant": self._relevant(lists)}),
                              dtype=np.float64)

    def from_counts(self, counts: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
        return counts["hits"] / counts["relevant"]


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
    names = ("HR",)
    aliases = ("hit", "hitrate", "hit_rate", "hits")

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        return (self._hits(lists) > 0).astype(np.float64)

    def _value_from_hits(self, lists: RankedLists, hits: NDArray[np.float64]) -> NDArray[np.float64]:
        return (hits > 0).astype(np.float64)
