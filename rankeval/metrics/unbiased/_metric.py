r"""Propensity-weighted metrics: IPS and SNIPS forms of the metrics that sum over relevant items.

For user :math:`u` with relevant truth items :math:`S_u` (:math:`n_u = |S_u|`, the wrapped
metric's relevance threshold), weights :math:`w_i = 1/p_{u,i}` (:class:`Propensity`) and
:math:`W_u = \sum_{i \in S_u} w_i`, each metric is a sum of per-item contributions
:math:`c_u(i)` over :math:`S_u` divided by a per-user normaliser :math:`Z_u`:

.. math:: M^{IPS}_u = \frac{1}{Z_u} \sum_{i \in S_u} w_i\, c_u(i), \qquad
          M^{SNIPS}_u = \frac{n_u}{W_u} M^{IPS}_u

With every :math:`p = 1` both are the plain metric with binary gains. The contributions
(:math:`r_i` the item's list position, :math:`\infty` when unlisted; :math:`f` the first
relevant item listed):

====================  ===========================================  ===================
metric                :math:`c_u(i)`                               :math:`Z_u`
====================  ===========================================  ===================
Recall@k              :math:`[r_i \le k]`                          :math:`n_u`
Precision@k           :math:`[r_i \le k]`                          :math:`k`
HitRate@k             :math:`[i = f,\ r_f \le k]`                  1
MRR(@k)               :math:`[i = f,\ r_f \le k] / r_f`            1
DCG(@k)               :math:`[r_i \le k] / \log_2(r_i + 1)`        1
NDCG(@k)              as DCG                                       IDCG of :math:`\min(n_u, k)` ones
MAP(@k)               :math:`[r_i \le k]\,(1 + \sum_{j \in S_u, r_j < r_i} w_j) / r_i`  :math:`n_u`
AOA                   :math:`(N_u - a_i) / N_u`                    :math:`n_u`
====================  ===========================================  ===================

AP weights the relevant items above :math:`i` too (the unbiased estimate of the pair terms
under independent observation); AOA is Yang et al.'s "average over all" with the AUC
contribution: :math:`N_u` the listed non-relevant items, :math:`a_i` those above :math:`i`
(an unlisted relevant item contributes 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...data import internal as data_internal
from ...data.internal import check_choice
from .._base import RankingMetric
from ..ranking import DCG, MAP, MRR, NDCG, HitRateAtK, PrecisionAtK, RecallAtK
from ._propensity import Propensity

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Unbiased", "AOA", "ESTIMATORS", "SUPPORTED", "with_propensity"]

ESTIMATORS = ("ips", "snips")
#: the metrics with an IPS form (subclasses included: DCGAtK, NDCGAtK, MAPAtK, MRRAtK)
SUPPORTED = ("RecallAtK", "PrecisionAtK", "HitRateAtK", "MRR", "MAP", "DCG", "NDCG", "AOA")


class AOA(RankingMetric):
    r"""Yang et al.'s "average over all" AUC: each relevant item's share of the listed
    non-relevant items ranked below it, averaged over the user's relevant items.

    .. math:: AOA_u = \frac{1}{n_u} \sum_{i \in S_u,\ r_i < \infty} \frac{N_u - a_i}{N_u}

    :math:`N_u` counts the listed non-relevant items and :math:`a_i` those above item
    :math:`i`; an unlisted relevant item adds 0 (it ranks below every listed item).

    Undefined cases: a user without a relevant truth item, or without a listed non-relevant
    item, gets NaN (left out of the mean).

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"AOA"``.

    References
    ----------
    .. [1] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie, D. Estrin, "Unbiased offline
       recommender evaluation for missing-not-at-random implicit feedback", RecSys 2018.
    """

    stem = "AOA"
    names = ("AOA",)
    needs_relevant = True

    def __init__(self, relevant_threshold: float | None = None, *, name: str | None = None) -> None:
        super().__init__(None, relevant_threshold, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        rows = np.flatnonzero(lists.relevant)
        return _weighted(self, "aoa", lists, rows, np.ones(len(rows)))


def _kind(metric: RankingMetric) -> str:
    """What the wrapped metric sums, or a ValueError naming what is supported."""
    for cls, kind in ((NDCG, "ndcg"), (DCG, "dcg"), (RecallAtK, "recall"), (PrecisionAtK, "precision"),
                      (HitRateAtK, "hit"), (MRR, "rr"), (MAP, "ap"), (AOA, "aoa")):
        if isinstance(metric, cls):
            return kind
    raise ValueError(f"metric {metric} ({type(metric).__name__}) has no propensity-weighted form; supported: "
                     f"{', '.join(SUPPORTED)}")


class Unbiased(RankingMetric):
    r"""The IPS or SNIPS form of a metric that sums over relevant items (module docstring: the formulas).

    ``str()`` is the wrapped metric's name plus ``-IPS`` or ``-SNIPS`` (``R@10-IPS``,
    ``NDCG@10-SNIPS``), which :func:`~rankeval.parse_metric` reads back (with the default
    propensity model).

    Undefined cases: a user without a relevant truth item gets NaN (as the wrapped metric);
    AOA also for a user without a listed non-relevant item. A relevant truth item without a
    propensity is a ValueError (:class:`Propensity` says which default the estimated forms use).

    Parameters
    ----------
    metric : RankingMetric
        RecallAtK, PrecisionAtK, HitRateAtK, MRR(AtK), MAP(AtK) (denominator ``"relevant"``
        or ``"min_k"``), DCG(AtK), NDCG(AtK) (binary gains, ideal of :math:`\min(n_u, k)`
        ones) or AOA; its cutoff and relevance threshold are kept.
    propensity : Propensity, optional
        The propensity model; None: ``Propensity.popularity(0.5)`` (from ``train``).
    estimator : {"ips", "snips"}
        Inverse propensity scoring, or its self-normalised form.
    name : str, optional
        The column name; None: ``str(metric)`` plus ``-IPS`` / ``-SNIPS``.

    References
    ----------
    .. [1] L. Yang et al., "Unbiased offline recommender evaluation for missing-not-at-random
       implicit feedback", RecSys 2018.
    .. [2] T. Schnabel et al., "Recommendations as treatments: debiasing learning and
       evaluation", ICML 2016 (IPS and SNIPS estimators).
    """

    stem = "unbiased"

    def __init__(self, metric: RankingMetric, propensity: Propensity | None = None, estimator: str = "ips", *,
                 name: str | None = None) -> None:
        if not isinstance(metric, RankingMetric):
            raise TypeError(f"`metric` must be a RankingMetric, got {type(metric).__name__}")
        if propensity is not None and not isinstance(propensity, Propensity):
            raise TypeError(f"`propensity` must be a rankeval.unbiased.Propensity, got {type(propensity).__name__}")
        if metric.__dict__.get("cutoffs") is not None:
            raise ValueError(f"`metric` {metric} has several cutoffs: wrap one metric per cutoff")
        self.kind = _kind(metric)
        denominator = getattr(metric, "denominator", "relevant")
        if self.kind == "ap" and denominator not in ("relevant", "min_k"):
            raise ValueError(f"`metric` {metric}: the IPS form of AP divides by n_u or min(n_u, k), not "
                             f"denominator={denominator!r}")
        if self.kind == "precision" and denominator != "k":
            raise ValueError(f"`metric` {metric}: the IPS form of precision divides by k, not "
                             f"denominator={denominator!r}")
        average = getattr(metric, "average", None)
        if average is not None and average != metric.default_average:
            raise ValueError(f"`metric` {metric}: a weighted form is a mean over users, not average={average!r}")
        self.estimator = check_choice("estimator", estimator, ESTIMATORS)
        super().__init__(metric.k, metric.relevant_threshold, name)
        self.metric = metric
        self.propensity = Propensity.popularity() if propensity is None else propensity
        self.needs_side = self.propensity.needs_side
        self.needs_relevant = True

    def __str__(self) -> str:
        return self.name if self.name is not None else f"{self.metric}-{self.estimator.upper()}"

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def with_convention(self, convention: str) -> RankingMetric:
        """The same estimator over the wrapped metric under a peer's definitions.

        Parameters
        ----------
        convention : str
            The peer's convention (one of :func:`rankeval.conventions.names`).
        """
        return Unbiased(self.metric.with_convention(convention), self.propensity, self.estimator, name=self.name)

    def _head_is_enough(self) -> bool:
        return self.kind != "aoa"

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        model = self.propensity
        code_w = model.code_weights(lists, self)
        hit = lists.relevant if self.k is None else lists.relevant & (lists.position <= self.k)
        rows = np.flatnonzero(hit)
        users = _users_of(lists, rows)
        if self.kind in ("hit", "rr"):  # only each user's first relevant row counts: weigh no other
            first = np.ones(len(rows), dtype=bool)
            np.not_equal(users[1:], users[:-1], out=first[1:])
            rows, users = rows[first], users[first]
        # the items of these rows alone (not of every listed row, which costs more than the metric)
        w = _listed_weights(lists, rows, users, model.truth_weights(lists, self)) if code_w is None \
            else code_w[lists.item_codes_at(rows)]
        values = _weighted(self.metric, self.kind, lists, rows, w, users)
        if self.estimator == "snips":
            with np.errstate(divide="ignore", invalid="ignore"):
                values = values * (lists.n_relevant / self._weight_sums(lists, users))
        return values

    def _weight_sums(self, lists: RankedLists, users: NDArray[np.int64]) -> NDArray[np.float64]:
        """:math:`W_u` of the users with a selected row; :math:`n_u` of the others.

        A user without a selected row has the value 0, or NaN when undefined: times :math:`n_u / W_u`
        (:math:`W_u \\ge n_u`, every :math:`w \\ge 1`) that is 0, or NaN, as times :math:`n_u / n_u`
        (NaN when :math:`n_u = 0`), so only the others' sums are needed."""
        chosen = users[np.r_[True, users[1:] != users[:-1]]] if len(users) else users
        sums = lists.n_relevant.astype(np.float64)
        sums[chosen] = self.propensity.weight_sums(lists, self, chosen)
        return sums


def _users_of(lists: RankedLists, rows: NDArray[np.int64]) -> NDArray[np.int64]:
    """The user (0..n_users-1) of each of the ascending ``rows``, from the offsets alone."""
    return np.searchsorted(lists.offsets, rows, side="right") - 1


def _listed_weights(lists: RankedLists, rows: NDArray[np.int64], users: NDArray[np.int64],
                    truth_w: NDArray[np.float64]) -> NDArray[np.float64]:
    """The weight of each listed relevant row (of user ``users``): that of its (user, item) truth
    row (per-pair propensities)."""
    cache = lists.split_cache
    key = "propensity-truth-keys"  # the (user, item) key of every truth row, whatever the threshold
    if key not in cache:
        n_codes = np.int64(len(lists.item_uniques) + len(lists.truth_only_item_ids))
        truth_users = data_internal.segment_ids(lists.truth_offsets).astype(np.int64)
        truth_keys = truth_users * n_codes + lists.truth_item_codes
        order = np.argsort(truth_keys, kind="stable")
        cache[key] = (n_codes, truth_keys[order], order)
    n_codes, sorted_keys, order = cache[key]
    keys = users.astype(np.int64) * n_codes + lists.item_codes_at(rows)
    return truth_w[order[np.searchsorted(sorted_keys, keys)]]


def _weighted(metric: RankingMetric, kind: str, lists: RankedLists, rows: NDArray[np.int64],
              w: NDArray[np.float64], users: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
    """:math:`(1/Z_u) \\sum w_i c_u(i)` per user from the listed relevant rows (within k; for HitRate
    and MRR at least each user's first), their weights and their users (None: found here)."""
    # from the selected rows alone: the per-row arrays of every listed row cost more than the metric
    n_users, offsets = lists.n_users, lists.offsets
    if users is None:
        users = _users_of(lists, rows)
    position = rows - offsets[users] + 1
    n_rel = lists.n_relevant.astype(np.float64)
    if kind in ("recall", "precision", "dcg", "ndcg"):
        term = w if kind in ("recall", "precision") else w / metric._discount(position)  # type: ignore[attr-defined]
        total = np.bincount(users, weights=term, minlength=n_users).astype(np.float64)
        if kind == "recall":
            return _divide(total, n_rel)
        if kind == "precision":
            return total / float(metric.k)  # type: ignore[arg-type]
        if kind == "dcg":
            return total
        return _divide(total, metric._ones_idcg(lists.n_relevant))  # type: ignore[attr-defined]
    if kind in ("hit", "rr"):
        first = np.ones(len(rows), dtype=bool)
        first[1:] = users[1:] != users[:-1]
        term = w[first] if kind == "hit" else w[first] / position[first]
        return np.bincount(users[first], weights=term, minlength=n_users).astype(np.float64)
    if kind == "ap":
        above = _weight_above(users, w, n_users)
        total = np.bincount(users, weights=w * (1.0 + above) / position, minlength=n_users).astype(np.float64)
        m = n_rel if getattr(metric, "denominator", "relevant") != "min_k" or metric.k is None \
            else np.minimum(n_rel, metric.k)
        return _divide(total, m)
    return _aoa(lists, rows, users, position, w, n_rel)


def _weight_above(users: NDArray[Any], w: NDArray[np.float64], n_users: int) -> NDArray[np.float64]:
    """Per selected row, the summed weight of its user's selected rows above it, added one rank
    at a time in list order: each user's sum never depends on other users' rows (a global
    cumulative sum would, in its last bits, and so on how the users are bucketed)."""
    rank = data_internal.rank_within(users)
    order = np.argsort(rank, kind="stable")
    counts = np.bincount(rank)
    running = np.zeros(n_users)
    above = np.empty(len(w))
    start = 0
    for count in counts[1:]:  # one vectorized step per rank among the relevant rows, not per user
        at = order[start:start + count]
        above[at] = running[users[at]]
        running[users[at]] += w[at]
        start += count
    return above


def _aoa(lists: RankedLists, rows: NDArray[np.int64], users: NDArray[Any], position: NDArray[Any],
         w: NDArray[np.float64], n_rel: NDArray[np.float64]) -> NDArray[np.float64]:
    n_users = lists.n_users
    listed_relevant = np.bincount(users, minlength=n_users)
    negatives = (lists.n_listed - listed_relevant).astype(np.float64)
    rank_among_relevant = data_internal.rank_within(users)  # 1 for the first relevant row of each user
    above = (position - rank_among_relevant).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = (negatives[users] - above) / negatives[users]
        total = np.bincount(users, weights=w * share, minlength=n_users).astype(np.float64)
        return np.where(negatives > 0, total / n_rel, np.nan)


def _divide(total: NDArray[np.float64], by: NDArray[Any]) -> NDArray[np.float64]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(by > 0, total / by, np.nan)


def with_propensity(metrics: list[Any], propensity: Propensity) -> list[Any]:
    """``metrics`` with every :class:`Unbiased` one reading ``propensity`` (the CLI's
    ``--propensity`` / ``--propensity-power``); other metrics as they are.

    Parameters
    ----------
    metrics : list of RankingMetric
        The metrics to evaluate.
    propensity : Propensity
        The propensity model for the weighted ones.
    """
    return [Unbiased(m.metric, propensity, m.estimator, name=m.name) if isinstance(m, Unbiased) else m
            for m in metrics]
