r"""Area under the ROC curve of each user's list: AUC, GAUC (weighted by positives), LAUC.

For user :math:`u`, the *positives* are the listed relevant items (truth score >= the
threshold) and the *negatives* the other listed items (``negatives="listed"``) or only
the listed items judged non-relevant (``negatives="judged"``). With :math:`P_u`
positives, :math:`N_u` negatives, and for a positive :math:`j` :math:`a_j` negatives
ranked above it and :math:`t_j` negatives tied with it (same predicted score),

.. math:: AUC_u = \frac{1}{P_u N_u} \sum_{j=1}^{P_u} \left( N_u - a_j - \tfrac12 t_j \right)

the share of (positive, negative) pairs the list orders right, ties counting 1/2: the
Mann-Whitney U statistic over :math:`P_u N_u`, ``sklearn.metrics.roc_auc_score`` of the
user's items. Items are ordered by predicted score when ``pred`` has one (equal scores
tie), else by list position (no ties).

Why these positives and negatives: a ranking evaluation knows only the listed items'
order. When the list holds every candidate item (a full ranking, training items left
out) "listed" is RecBole's GAUC per user and torchmetrics' ``RetrievalAUROC`` on it;
"judged" is the AUC over rating predictions (MS Recommenders' data model, per user).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff, segment_argsort, segment_sum
from ...exceptions import RankevalWarning
from .._base import RankingMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["AUC", "GAUC", "LAUC", "UndefinedAUCWarning"]

NEGATIVES = ("listed", "judged")
TIES = ("half", "list_order")


class UndefinedAUCWarning(RankevalWarning):
    """Users without a positive or without a negative item were left out of GAUC (the message counts them)."""


class _PairCounts:
    """Per positive row, :math:`N_u - a_j - t_j / 2`; per user :math:`P_u`, :math:`N_u`."""

    __slots__ = ("positive", "credit", "position", "n_pos", "n_neg")

    def __init__(self, positive: NDArray[np.bool_], credit: NDArray[np.float64], position: NDArray[np.int32],
                 n_pos: NDArray[np.float64], n_neg: NDArray[np.float64]) -> None:
        self.positive, self.credit, self.position = positive, credit, position
        self.n_pos, self.n_neg = n_pos, n_neg


def pair_counts(lists: RankedLists, negatives: str, ties: str) -> _PairCounts:
    """Every user's concordant-pair credit in a few passes over the rows (no loop over users)."""
    offsets = lists.offsets
    positive = lists.relevant
    negative = ~positive if negatives == "listed" else lists.judged & ~positive
    position = lists.position
    if ties == "half" and lists.has_pred_score:
        key = np.asarray(lists.pred_score, dtype=np.float64)
    else:
        key = -position.astype(np.float64)
    user = lists.user_of_row
    same_user = user[1:] == user[:-1]
    if np.any(same_user & (key[1:] > key[:-1])):  # a rank column that disagrees with the scores
        order = segment_argsort(key, offsets, descending=True)
        key, positive, negative, position = key[order], positive[order], negative[order], position[order]
    n_rows = len(key)
    neg64 = negative.astype(np.int64)
    n_neg = segment_sum(negative, offsets)
    n_pos = segment_sum(positive, offsets)
    if n_rows == 0:
        return _PairCounts(positive, np.zeros(0), position, n_pos, n_neg)
    rows = np.flatnonzero(positive)
    credit = np.zeros(n_rows)
    seen = lists.segment_cumsum(neg64)  # negatives up to each row, inclusive
    tie = same_user & (key[1:] == key[:-1])
    if not tie.any():  # distinct scores: a positive has exactly the negatives before it above it
        credit[rows] = n_neg[user[rows]] - seen[rows]
        return _PairCounts(positive, credit, position, n_pos, n_neg)
    new_group = np.ones(n_rows, dtype=bool)
    new_group[1:] = ~tie
    starts = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    tied = np.add.reduceat(neg64, starts)
    above = (seen - neg64)[starts]  # negatives strictly before each tie group
    g = group[rows]
    credit[rows] = n_neg[user[rows]] - above[g] - 0.5 * tied[g]
    return _PairCounts(positive, credit, position, n_pos, n_neg)


def _in_score_order(lists: RankedLists, ties: str) -> bool:
    """Whether every list is in strictly decreasing score order (or ranks decide): then a
    positive's negatives above it are the rows before it that are not positive. Cached per rows."""
    cache = lists.rows_cache
    if ("auc_in_order", ties) not in cache:
        ordered = True
        if ties == "half" and lists.has_pred_score and lists.n_rows > 1:
            key = lists.pred_score
            later = lists.user_of_row[1:] == lists.user_of_row[:-1]
            ordered = not np.any(later & (key[1:] >= key[:-1]))  # a tie or a rank disagreeing with the scores
        cache[("auc_in_order", ties)] = ordered
    return bool(cache[("auc_in_order", ties)])


def listed_counts(lists: RankedLists, k: int | None = None) -> tuple[NDArray[np.float64], ...]:
    r"""Per user, with every non-positive listed row a negative and the lists in score order:
    the summed credit of the positives within the first ``k`` (None: all), :math:`m_u` those
    positives, :math:`P_u` and :math:`N_u`.

    A positive at position :math:`p_j`, the :math:`c_j`-th positive, has :math:`p_j - c_j`
    negatives above it, so :math:`\sum_j (N_u - a_j) = m_u N_u - \sum_j p_j + m_u (m_u + 1) / 2`
    (the Mann-Whitney rank sum): one pass over the rows, every term an exact integer.
    """
    positive = lists.relevant
    position = lists.position
    n_pos = lists.segment_sum(positive)
    n_neg = lists.n_listed - n_pos
    if k is None:
        m, rank_sum = n_pos, lists.segment_sum(np.where(positive, position, 0))
    else:
        within = positive & (position <= k)
        m, rank_sum = lists.segment_sum(within), lists.segment_sum(np.where(within, position, 0))
    return m * n_neg - rank_sum + m * (m + 1) / 2, m, n_pos, n_neg


class AUC(RankingMetric):
    r"""Area under the ROC curve of each user's list, averaged over users.

    .. math:: AUC_u = \frac{1}{P_u N_u} \sum_{j=1}^{P_u} \left( N_u - a_j - \tfrac12 t_j \right)

    (notation in the module docstring): the probability that a random positive of the
    user is ranked above a random negative, ties counting 1/2. ``AUC@k`` is the AUC of the
    first k items (torchmetrics' ``RetrievalAUROC(top_k=k)``).

    Peers: torchmetrics ``RetrievalAUROC`` (per query, mean over queries) is this metric
    with ``negatives="listed"``; RecBole's per-user AUC inside ``GAUC`` is too, on full
    rankings (see :class:`GAUC` for its weighting). RecBole's ``AUC`` and MS Recommenders'
    ``auc`` are one AUC over every (user, item) pair of all users at once, comparing
    scores across users: not a ranking metric, not reproduced (per user, MS Recommenders'
    data is ``negatives="judged"``). Elliot's ``AUC`` is :class:`GAUC` with
    ``extra_negative=True, ties="list_order"``.

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff: the AUC of the first k items. None (default): the whole list.
    relevant_threshold : float, optional
        A truth score >= this makes a positive; None uses each user's mean truth score.
    negatives : {"listed", "judged"}
        The negatives: every listed item that is not relevant (default; unjudged items
        are negatives, as in every ranking metric), or only the listed items judged
        non-relevant (unjudged items left out).
    ties : {"half", "list_order"}
        Equal predicted scores count 1/2 (default), or the list's order decides (Elliot,
        which reads positions only). Without a score column the list order decides.
    extra_negative : bool
        Count one negative more in :math:`N_u` (Elliot's ``neg_num = |I| - |train_u| -
        |rel_u| + 1``): :math:`(N_u + 1 - a_j) / (N_u + 1)` per positive.
    name : str, optional
        Overrides the name ``"AUC"``.

    Notes
    -----
    Undefined cases: a user with no positive or no negative among the items counted gets
    NaN, left out of the mean. Items are ordered by predicted score when ``pred`` has one;
    a ``rank`` column that disagrees with the scores is re-sorted by score.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": list("abcd"), "score": [0.9, 0.8, 0.8, 0.1]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "c"], "score": [1.0, 1.0]})
    >>> # a above b, d (2 pairs); c tied with b (1/2), above d (1): 3.5 / 4
    >>> print(f"{rk.AUC(relevant_threshold=1).perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")
    0.8750
    """

    stem = "AUC"
    names = ("AUC",)

    def __init__(self, k: int | None = None, relevant_threshold: float | None = None, *,
                 negatives: str = "listed", ties: str = "half", extra_negative: bool = False,
                 name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)
        self.negatives = check_choice("negatives", negatives, NEGATIVES)
        self.ties = check_choice("ties", ties, TIES)
        if not isinstance(extra_negative, (bool, np.bool_)):
            raise ValueError(f"`extra_negative` must be True or False, got {extra_negative!r}")
        self.extra_negative = bool(extra_negative)

    def _head_is_enough(self) -> bool:
        return True

    def _counts(self, lists: RankedLists) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Per user: summed credit, positives, negatives (the extra one included), within the cutoff."""
        if self.k is not None and lists.n_rows and int(lists.position.max()) > self.k:
            lists = lists.head(self.k)  # k=[...] hands every cutoff the rows of the longest
        if self.negatives == "listed" and _in_score_order(lists, self.ties):
            credit, _, n_pos, n_neg = listed_counts(lists)
            if self.extra_negative:
                return credit + n_pos, n_pos, n_neg + 1.0
            return credit, n_pos, n_neg
        pairs = pair_counts(lists, self.negatives, self.ties)
        credit = lists.segment_sum(pairs.credit)
        n_neg = pairs.n_neg
        if self.extra_negative:
            credit = credit + pairs.n_pos
            n_neg = n_neg + 1.0
        return credit, pairs.n_pos, n_neg

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        credit, n_pos, n_neg = self._counts(lists)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((n_pos > 0) & (n_neg > 0), credit / (n_pos * n_neg), np.nan)


class GAUC(AUC):
    r"""Group AUC: each user's :class:`AUC` weighted by the user's number of positives.

    .. math:: GAUC = \frac{\sum_{u \in D} P_u\, AUC_u}{\sum_{u \in D} P_u}

    over the users :math:`D` with at least one positive and one negative; the others are
    left out with an :class:`UndefinedAUCWarning` that counts them. Per-user values are
    :math:`AUC_u` (as :class:`AUC`); only the system value is weighted.

    Peers: RecBole's ``GAUC`` (``recbole/evaluator/metrics.py``, ``GAUC.metric_info``:
    ``(user_auc * pos_len_list).sum() / pos_len_list.sum()``, per-user AUC from the
    average ranks of the positives over every non-training item, users without a positive
    or a negative removed with a logged warning) is ``GAUC()`` on full rankings
    (``pred`` holding every candidate item with its score; RecBole's positives are all
    test items, so pass ``relevant_threshold=-inf`` or ``convention="recbole"``).
    Elliot's ``AUC`` (``accuracy/AUC/auc.py``: the mean over every (user, listed
    positive) of ``(neg_num - r + p) / neg_num``) is ``GAUC(extra_negative=True,
    ties="list_order")``. Elliot's ``GAUC``, despite the name, is unweighted and divides
    by all relevant items: see :class:`LAUC`.

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff: each user's AUC over the first k items. None (default): the whole list.
    relevant_threshold : float, optional
        A truth score >= this makes a positive; None uses each user's mean truth score.
    negatives : {"listed", "judged"}
        The negatives: every listed item that is not relevant (default), or only the
        listed items judged non-relevant, as :class:`AUC`'s.
    ties : {"half", "list_order"}
        Equal predicted scores count 1/2 (default), or the list's order decides (Elliot),
        as :class:`AUC`'s.
    extra_negative : bool, default False
        Count one negative more in :math:`N_u`, as Elliot does (see :class:`AUC`).
    name : str, optional
        Overrides the name ``"GAUC"`` (``"GAUC@k"`` with a cutoff).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": list("abcabc")})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 2], "item_id": ["b", "a", "c"], "score": [1.0] * 3})
    >>> res = rk.GAUC(relevant_threshold=1).perform(rk.Split(pred, truth))
    >>> res.users["GAUC"].tolist()  # user 1: b above c only; user 2: a above b, b above c
    [0.5, 0.5]
    >>> print(f"{res.system.iloc[0, 0]:.4f}")  # (1 * 0.5 + 2 * 0.5) / 3
    0.5000
    """

    stem = "GAUC"
    names = ("GAUC",)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        positive = lists.relevant if self.k is None else lists.relevant & (lists.position <= self.k)
        n_pos = lists.segment_sum(positive)  # the weights: positives within the cutoff
        defined = ~np.isnan(values)
        # the users left out are counted in the parts, so the warning comes from system_value: once,
        # with the count over all users, wherever the parts were made (a Spark bucket warns nothing)
        return {"weighted": n_pos[defined] * values[defined], "positives": n_pos[defined],
                "left_out": np.ones(int((~defined).sum())), "users": np.array([float(len(values))])}

    def system_value(self, parts: dict[str, float | pd.Series]) -> float:
        left_out = int(float(parts["left_out"]))  # array parts arrive as floats
        if left_out:
            warnings.warn(f"{self}: {left_out} of {int(float(parts['users']))} user(s) have no positive or no "
                          f"negative item and are left out of the system value", UndefinedAUCWarning, stacklevel=5)
        positives = float(parts["positives"])
        return float(parts["weighted"]) / positives if positives > 0 else float("nan")


class LAUC(AUC):
    r"""Limited AUC at k (Elliot's ``LAUC``): the positives within the first k, over all relevant items.

    .. math:: LAUC@k_u = \frac{1}{\min(k, m_u)\, N_u} \sum_{j : pos_j \le k} \left( N_u - a_j - \tfrac12 t_j \right)

    :math:`m_u` counts all the user's relevant truth items (listed or not), :math:`N_u`
    the negatives of the whole list (not only the first k): a positive ranked below k, or
    not listed, adds 0. 1 when the first :math:`\min(k, m_u)` items are all relevant.

    Elliot (``elliot/evaluation/metrics/accuracy/AUC/lauc.py``, ``__user_auc_at_k``) is
    ``LAUC(k, extra_negative=True, ties="list_order")``: it counts the negatives as every
    item outside the user's training set and the relevant ones plus one (``neg_num =
    num_items - train_size - len(rel) + 1``), which is :math:`N_u + 1` on the full
    rankings Elliot requires. Elliot's ``GAUC`` (``gauc.py``) is the same sum over the
    whole list divided by :math:`m_u`: ``LAUC(k >= the longest list, extra_negative=True,
    ties="list_order")``. RecBole has no limited AUC.

    Parameters
    ----------
    k : int or list of int
        Cutoff, >= 1.
    relevant_threshold : float, optional
        A truth score >= this makes a positive; None uses each user's mean truth score.
    negatives : {"listed", "judged"}
        The negatives, those of the whole list (not only of the first k): every listed item
        that is not relevant (default), or only the listed items judged non-relevant, as
        :class:`AUC`'s.
    ties : {"half", "list_order"}
        Equal predicted scores count 1/2 (default), or the list's order decides (Elliot),
        as :class:`AUC`'s.
    extra_negative : bool, default False
        Count one negative more in :math:`N_u`, as Elliot does (see :class:`AUC`).
    name : str, optional
        Overrides the name ``"LAUC@k"``.

    Notes
    -----
    Undefined cases: NaN for a user with no relevant truth item or no negative.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": list("abcd")})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "c", "z"], "score": [1.0] * 3})
    >>> # N = 2 (b, d); within k = 2 only a counts, with 2 negatives below: 2 / (min(2, 3) * 2)
    >>> print(f"{rk.LAUC(2, relevant_threshold=1).perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")
    0.5000
    """

    stem = "LAUC"
    names = ("LAUC",)

    def __init__(self, k: int, relevant_threshold: float | None = None, *, negatives: str = "listed",
                 ties: str = "half", extra_negative: bool = False, name: str | None = None) -> None:
        super().__init__(check_cutoff(k, required=True), relevant_threshold, negatives=negatives, ties=ties,
                         extra_negative=extra_negative, name=name)

    def _head_is_enough(self) -> bool:
        return False  # the negatives of the whole list count

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        if self.negatives == "listed" and _in_score_order(lists, self.ties):
            credit, n_within, _, n_neg = listed_counts(lists, self.k)
        else:
            pairs = pair_counts(lists, self.negatives, self.ties)
            within = pairs.positive & (pairs.position <= self.k)
            credit = lists.segment_sum(np.where(within, pairs.credit, 0.0))
            n_within, n_neg = lists.segment_sum(within), pairs.n_neg
        if self.extra_negative:
            credit = credit + n_within
            n_neg = n_neg + 1.0
        m = np.minimum(lists.n_relevant, self.k).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((m > 0) & (n_neg > 0), credit / (m * n_neg), np.nan)
