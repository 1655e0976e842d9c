"""SampledMetric: a full-catalog metric estimated from sampled-candidate lists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, check_number
from .._base import RankingMetric
from ..ranking import MAP, MRR, NDCG, HitRateAtK, NDCGAtK, RecallAtK
from ._design import SampledCandidates
from ._tables import ESTIMATORS, RankValue, estimator_table, estimator_tables

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["SampledMetric", "SUPPORTED", "rank_value", "sampled_columns", "check_sampled_options"]

#: the metrics with an estimator (MRRAtK and MAPAtK are subclasses of MRR and MAP)
SUPPORTED = ("HitRateAtK", "RecallAtK", "NDCGAtK", "MRR", "MRRAtK", "MAP", "MAPAtK")
#: the default weight of the variance in the bias-variance estimator: the value that ordered
#: recommenders best in Krichene & Rendle's experiments (docs/sampled.md says where that is from)
DEFAULT_GAMMA = 0.1


def check_sampled_options(estimator: Any, gamma: Any) -> tuple[str, float]:
    """``estimator`` one of :data:`ESTIMATORS` and ``gamma`` in [0, 1], else a ValueError naming the argument."""
    return (check_choice("estimator", estimator, ESTIMATORS),
            check_number("gamma", gamma, 0.0, 1.0, closed_low=True, closed_high=True))


def rank_value(metric: RankingMetric) -> RankValue:
    """The metric as a function of the positive's rank (one positive), or ValueError."""
    if isinstance(metric, (HitRateAtK, RecallAtK)):
        return RankValue("hit", metric.k)
    if isinstance(metric, (MRR, MAP)):
        return RankValue("rr", metric.k)
    if isinstance(metric, NDCGAtK) and not metric.judged_only:
        return RankValue("dcg", metric.k, metric.discount, metric.discount_log)
    why = " with judged_only=True (its condensed list puts the positive first)" if isinstance(metric, NDCG) else ""
    raise ValueError(f"metric {metric} ({type(metric).__name__}){why} has no sampled-candidate estimator; "
                     f"supported: {', '.join(SUPPORTED)}")


class SampledMetric(RankingMetric):
    r"""The estimate of a full-catalog metric from a sampled-candidate list.

    Each user's list holds one positive (a relevant truth item) and ``design.n_negatives``
    sampled negatives. The sampled rank of the positive is
    :math:`\tilde r_u = 1 + \#\{\text{negatives listed above it}\}` (ties: the split's tie
    rule) and the user's value is :math:`\tilde M(\tilde r_u)`, the estimator's table for
    the user's ``n_items`` (see :func:`rankeval.metrics.sampled.estimator_table`).

    Undefined cases: none; a user without a positive, with several, or with a number of
    negatives other than ``design.n_negatives`` is a ValueError naming the user.

    Parameters
    ----------
    metric : RankingMetric
        HitRateAtK, RecallAtK, NDCGAtK, MRR, MRRAtK, MAP or MAPAtK (with one positive,
        R@k = HR@k and AP = RR); its relevance threshold picks the positive.
    design : SampledCandidates
        How the negatives were drawn.
    estimator : {"bias_variance", "naive", "rescaled", "minimal_bias"}
        How a sampled rank becomes an estimate of the full-catalog value: Krichene &
        Rendle's bias-variance trade-off (the default), the metric of the sampled list as
        it is (``naive``), the metric at the true rank whose expected sampled rank it is
        (``rescaled``), or the least-squares table without a variance term
        (``minimal_bias``).
    gamma : float, default 0.1
        Weight of the variance in the bias-variance estimator, in [0, 1]; the default is
        ``DEFAULT_GAMMA`` (docs/sampled.md says why).
    name : str, optional
        The column name; None: ``str(metric)``, plus ``-naive`` for the naive estimator.
    """

    stem = "sampled"

    def __init__(self, metric: RankingMetric, design: SampledCandidates, estimator: str = "bias_variance",
                 gamma: float = DEFAULT_GAMMA, *, name: str | None = None) -> None:
        if not isinstance(metric, RankingMetric):
            raise TypeError(f"`metric` must be a RankingMetric, got {type(metric).__name__}")
        if not isinstance(design, SampledCandidates):
            raise TypeError(f"`design` must be a SampledCandidates, got {type(design).__name__}")
        estimator, gamma = check_sampled_options(estimator, gamma)
        self.value = rank_value(metric)
        if name is None:
            name = f"{metric}-naive" if estimator == "naive" else str(metric)
        super().__init__(k=metric.k, relevant_threshold=metric.relevant_threshold, name=name)
        self.metric, self.design, self.estimator, self.gamma = metric, design, estimator, float(gamma)

    def with_convention(self, convention: str) -> RankingMetric:
        """The same estimate of the wrapped metric under a peer's definitions (same column name).

        Parameters
        ----------
        convention : str
            The peer's convention (one of :func:`rankeval.conventions.names`).
        """
        return SampledMetric(self.metric.with_convention(convention), self.design, self.estimator, self.gamma,
                             name=self.name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        sampled_rank = self.sampled_ranks(lists)
        sizes, which = self._sizes(lists)
        m = self.design.n_negatives
        if len(sizes) == 1:
            return estimator_table(int(sizes[0]), m, self.value, self.estimator, self.gamma)[sampled_rank - 1]
        tables = estimator_tables(sizes, m, self.value, self.estimator, self.gamma, desc=f"tables of {self}")
        return tables[which, sampled_rank - 1]

    def _sizes(self, lists: RankedLists) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
        """The distinct ``n_items`` and each user's index into them (once per split and design)."""
        cache = lists.rows_cache
        key = ("sampled-n-items", id(self.design))
        hit = cache.get(key)
        if hit is None or hit[0] is not self.design:  # the design object itself, not a reused id
            if isinstance(self.design.n_items, pd.Series):
                hit = (self.design, *np.unique(self.design.n_items_of(lists.user_ids), return_inverse=True))
            else:  # one n for everyone: nothing to sort
                hit = (self.design, np.array([self.design.n_items]), np.zeros(lists.n_users, dtype=np.intp))
            cache[key] = hit
        return hit[1], hit[2]

    def sampled_ranks(self, lists: RankedLists) -> NDArray[np.int64]:
        """The sampled rank of each user's positive, after checking the list against the design
        (once per split, threshold and number of negatives: every sampled metric shares it).

        Parameters
        ----------
        lists : RankedLists
            The split's sampled-candidate lists, at the metric's relevance threshold.
        """
        key = ("sampled-rank", lists.relevant_threshold, self.design.n_negatives)
        cache = lists.rows_cache
        if key not in cache:
            # one pass over the rows finds the positives; the rest is per positive, not per row
            positive_rows = np.flatnonzero(lists.relevant)
            starts = lists.offsets[:-1]
            owner = np.searchsorted(starts, positive_rows, side="right") - 1
            n_positive = np.bincount(owner, minlength=lists.n_users).astype(np.int64)
            _reject_users(lists.user_ids, n_positive != 1, n_positive,
                          "positives (relevant listed items); a sampled-candidate list holds exactly one "
                          "(users without one have no relevant truth item in their list)")
            n_negative = lists.n_listed - n_positive
            _reject_users(lists.user_ids, n_negative != self.design.n_negatives, n_negative,
                          f"negatives, but the design declares n_negatives={self.design.n_negatives}")
            # every user has exactly one positive row now, in user order: its place in the list
            cache[key] = positive_rows - starts + 1
        return cache[key]


def _reject_users(user_ids: NDArray[Any], bad: NDArray[np.bool_], counts: NDArray[np.int64], what: str) -> None:
    if bad.any():
        rows = np.flatnonzero(bad)[:5]
        listed = ", ".join(f"{uid!r}: {int(c)}" for uid, c in zip(user_ids[rows].tolist(), counts[rows]))
        raise ValueError(f"`pred`: {int(bad.sum())} users have a list with a wrong number of {what}; "
                         f"e.g. (user: count) {listed}")


def sampled_columns(metrics: list[RankingMetric], design: SampledCandidates, estimator: str = "bias_variance",
                    gamma: float = DEFAULT_GAMMA) -> list[RankingMetric]:
    """Each metric as its corrected estimate (named as the metric) and its naive value (``-naive``).

    Parameters
    ----------
    metrics : list of RankingMetric
        The full-catalog metrics to estimate (each one :class:`SampledMetric` supports).
    design : SampledCandidates
        How the negatives were drawn.
    estimator : {"bias_variance", "naive", "rescaled", "minimal_bias"}
        The estimator of the corrected column (``"naive"``: the naive column only).
    gamma : float, default 0.1
        Weight of the variance in the bias-variance estimator, in [0, 1]
        (``DEFAULT_GAMMA``).
    """
    out: list[RankingMetric] = []
    for metric in metrics:
        if estimator != "naive":
            out.append(SampledMetric(metric, design, estimator, gamma))
        out.append(SampledMetric(metric, design, "naive"))
    return out
