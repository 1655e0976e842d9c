"""Discounted cumulative gain: DCG, DCGAtK, NDCG, NDCGAtK."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff, rank_within, segment_argsort, segment_ids, segment_positions
from .._base import RankingMetric
from .._weighting import LogWeight, log_discount

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["DCG", "DCGAtK", "NDCG", "NDCGAtK"]

GAINS = ("linear", "exponential", "binary")
DISCOUNTS = ("log2", "jarvelin")
IDEALS = ("truth", "ranked", "min_k_ones")
NEGATIVE_GRADES = ("keep", "unjudged")


class DCG(RankingMetric):
    r"""Discounted cumulative gain of each list (not normalized).

    .. math::

        DCG_u = \sum_{i=1}^{N_u} \frac{f(r_{u,i})}{d(i)}

    where :math:`r_{u,i}` is the truth score of the item at position :math:`i` (an
    unjudged item has gain 0 and keeps its position), :math:`f(r) = r` (``"linear"``),
    :math:`2^r - 1` (``"exponential"``) or :math:`\mathbb{1}[r \ge \text{threshold}]`
    (``"binary"``), and :math:`d(i)` = ``discount_log(i + 1)`` (``discount="log2"``) or
    ``discount_log(max(i, 2))`` (``discount="jarvelin"``, Järvelin and Kekäläinen).

    Parameters
    ----------
    gains : {"linear", "exponential", "binary"}
        Gain of a truth score.
    discount_log : callable
        Logarithm of the discount, applied element-wise to an array (default ``np.log2``).
    relevant_threshold : float, optional
        Threshold of ``gains="binary"``; None uses each user's mean truth score.
    discount : {"log2", "jarvelin"} or LogWeight
        Where the discount starts: ``discount_log(i + 1)`` or ``discount_log(max(i, 2))``;
        ``LogWeight(base, offset=1)`` is ``"log2"`` and ``offset=0`` is ``"jarvelin"``, with
        ``discount_log`` the logarithm of ``base`` (2, e or 10).
    judged_only : bool
        Drop listed items absent from truth before computing (condensed list).
    negative_grades : {"keep", "unjudged"}
        ``"keep"``: a negative truth grade is a judged item with a negative gain;
        ``"unjudged"``: it counts as not judged at all (no gain, and dropped from the
        condensed list with ``judged_only``), as trec_eval reads a negative qrels level.
    name : str, optional
        Overrides the name ``"DCG"``.

    Notes
    -----
    Undefined cases: none; a list without judged items has DCG 0.

    References
    ----------
    .. [1] K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
       ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": list("abcdefgh")})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("abcdefgh"),
    ...                       "score": [0, 4, 1, 3, 4, 1, 3, 2]})
    >>> print(f"{DCG().perform(Split(pred, truth)).system.loc['sys', 'DCG']:.2f}")
    7.85
    """

    stem = "DCG"
    names = ("DCG",)

    def __init__(self, gains: str = "linear", discount_log: Callable[[Any], Any] = np.log2,
                 relevant_threshold: float | None = None, *, discount: str | LogWeight = "log2",
                 judged_only: bool = False, negative_grades: str = "keep", name: str | None = None) -> None:
        super().__init__(None, relevant_threshold, name)
        self.gains = check_choice("gains", gains, GAINS)
        # a LogWeight is its alias ("log2" or "jarvelin") with its base's logarithm: one metric, one repr
        discount, discount_log = log_discount(discount, discount_log, type(self).__name__)
        self.discount = check_choice("discount", discount, DISCOUNTS)
        if not callable(discount_log):
            raise ValueError(f"`discount_log` must be a callable such as np.log2, got {discount_log!r}")
        self.discount_log = discount_log
        self.judged_only = bool(judged_only)
        self.negative_grades = check_choice("negative_grades", negative_grades, NEGATIVE_GRADES)

    # -------------------------------------------------------------- shared kernels
    def _gain(self, scores: NDArray[np.float64], relevant: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
        """Gain of truth scores (NaN, unjudged, is 0); ``relevant`` feeds the binary gain."""
        if self.gains == "binary":
            assert relevant is not None
            return relevant.astype(np.float64)
        if self.gains == "exponential":
            gain = np.power(2.0, scores) - 1.0
        else:
            gain = scores
        return np.where(np.isnan(gain), 0.0, gain)

    def _discount(self, positions: NDArray[np.integer]) -> NDArray[np.float64]:
        """Discount of 1-based positions, from a table computed once per call."""
        if len(positions) == 0:
            return np.zeros(0)
        top = int(positions.max())
        i = np.arange(0, top + 1, dtype=np.float64)
        at = i + 1 if self.discount == "log2" else np.maximum(i, 2)
        with np.errstate(divide="ignore"):
            table = np.asarray(self.discount_log(at), dtype=np.float64)
        return table[positions]

    def _list_positions(self, lists: RankedLists) -> tuple[NDArray[np.int64], NDArray[Any]]:
        """The rows with a gain (judged, within k) and their positions in the list.

        Unjudged rows have gain 0 and are skipped; with ``judged_only`` the judged rows'
        positions are renumbered 1, 2, ... within each list (the condensed list).
        """
        rows = lists.judged_rows
        position: NDArray[np.integer[Any]]
        if self.negative_grades == "unjudged":  # trec_eval: a negative qrels level is "in the pool, not judged"
            rows = rows[~(lists.truth_score[rows] < 0)]
        if self.judged_only:
            position = rank_within(lists.user_of_row[rows])
        else:
            position = lists.position[rows]
        if self.k is not None:
            keep = position <= self.k
            rows, position = rows[keep], position[keep]
        return rows, position

    def _check_exponential_gains(self, lists: RankedLists) -> None:
        """2**r - 1 overflows float64 from r = 1024 on: refuse the grade instead of an inf / NaN score."""
        if self.gains != "exponential" or not len(lists.truth_values):
            return
        at = int(np.argmax(lists.truth_values))
        grade = float(lists.truth_values[at])
        if grade >= 1024:
            user = lists.user_ids[np.searchsorted(lists.truth_offsets, at, side="right") - 1]
            raise ValueError(
                f"{self}: exponential gains 2**r - 1 overflow float64 for truth grade {grade:g} of user "
                f"{user.item() if isinstance(user, np.generic) else user!r} (grades must stay below 1024); "
                f"use gains='linear' or rescale the grades")

    def _dcg(self, lists: RankedLists) -> NDArray[np.float64]:
        self._check_exponential_gains(lists)
        rows, position = self._list_positions(lists)
        relevant = lists.relevant[rows] if self.gains == "binary" else None
        gain = self._gain(lists.truth_score[rows], relevant)
        weights = gain / self._discount(position)
        return np.bincount(lists.user_of_row[rows], weights=weights,
                           minlength=lists.n_users)  # type: ignore[return-value]  # weighted: float64 (stubs: int)

    def _head_is_enough(self) -> bool:
        # condensed positions and the re-sorted listed ideal read past position k
        return not self.judged_only and getattr(self, "ideal", "truth") != "ranked"

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        return self._dcg(lists)


class DCGAtK(DCG):
    r"""Discounted cumulative gain of the first ``k`` positions (not normalized).

    .. math::

        DCG@k_u = \sum_{i=1}^{\min(k, N_u)} \frac{f(r_{u,i})}{d(i)}

    Parameters
    ----------
    k : int or list of int
        Cutoff, >= 1 (a list: one column per cutoff, from one pass).
    gains : {"linear", "exponential", "binary"}
        Gain of a truth score: :math:`f(r) = r`, :math:`2^r - 1`, or 1 when relevant under
        ``relevant_threshold``.
    discount_log : callable
        Logarithm of the discount, applied element-wise to an array (default ``np.log2``).
    relevant_threshold : float, optional
        Threshold of ``gains="binary"``; None uses each user's mean truth score.
    discount : {"log2", "jarvelin"}
        Where the discount starts: ``discount_log(i + 1)`` or ``discount_log(max(i, 2))``.
    judged_only : bool
        Drop listed items absent from truth before computing (condensed list), then cut at k.
    negative_grades : {"keep", "unjudged"}
        ``"keep"``: a negative truth grade is a judged item with a negative gain;
        ``"unjudged"``: it counts as not judged at all, as trec_eval reads a negative
        qrels level.
    name : str, optional
        Overrides the name ``"DCG@k"``.

    Notes
    -----
    Undefined cases: none; a list without judged items in the first k has DCG@k 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": list("abcdefgh")})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("abcdefgh"),
    ...                       "score": [0, 4, 1, 3, 4, 1, 3, 2]})
    >>> print(f"{DCGAtK(4).perform(Split(pred, truth)).system.loc['sys', 'DCG@4']:.2f}")
    4.32
    """

    names = ("DCG",)

    def __init__(self, k: int, gains: str = "linear", discount_log: Callable[[Any], Any] = np.log2,
                 relevant_threshold: float | None = None, *, discount: str | LogWeight = "log2",
                 judged_only: bool = False, negative_grades: str = "keep", name: str | None = None) -> None:
        super().__init__(gains, discount_log, relevant_threshold, discount=discount,
                         judged_only=judged_only, negative_grades=negative_grades, name=name)
        self.k = check_cutoff(k, required=True)


class NDCG(DCG):
    r"""Normalized discounted cumulative gain of each list.

    .. math::

        NDCG_u = \frac{DCG_u}{IDCG_u}

    with :math:`DCG_u` as in :class:`DCG` and :math:`IDCG_u` the DCG of an ideal list:

    - ``ideal="truth"``: all of the user's truth gains sorted descending, cut at ``k``;
    - ``ideal="ranked"``: the listed items' own gains re-sorted descending (over the
      whole list, then cut at ``k``); with ``judged_only=True`` this reproduces ClayRS;
    - ``ideal="min_k_ones"``: :math:`\min(m_u, k)` gains of 1 (RecBole, Spark MLlib).

    In the first two, negative gains (negative truth scores with linear gains) are left
    out of the ideal: the best list does not show a disliked item, so :math:`NDCG_u \le 1`.
    They still count, negatively, in :math:`DCG_u`.

    Parameters
    ----------
    gains : {"linear", "exponential", "binary"}
        :math:`f(r) = r`, :math:`2^r - 1`, or 1 when relevant under ``relevant_threshold``.
    discount_log : callable
        Logarithm of the discount (default ``np.log2``).
    ideal : {"truth", "ranked", "min_k_ones"}
        Which ideal list normalizes.
    judged_only : bool
        Drop listed items absent from truth first (condensed list, Sakai's NDCG').
    negative_grades : {"keep", "unjudged"}
        ``"unjudged"`` treats negative truth grades as not judged (trec_eval, with or
        without ``-J``); ``"keep"`` gives them their (negative) gain in the list.
    relevant_threshold : float, optional
        Threshold of ``gains="binary"`` and ``ideal="min_k_ones"``; None: user mean.
    discount : {"log2", "jarvelin"} or LogWeight
        ``discount_log(i + 1)`` or ``discount_log(max(i, 2))``; a ``LogWeight`` as in
        :class:`DCG`.
    no_relevant : {"nan", "zero"}
        Value when :math:`IDCG_u = 0`.
    name : str, optional
        Overrides the name ``"NDCG"``.

    Notes
    -----
    Undefined cases: :math:`IDCG_u = 0` (every truth gain is 0, e.g. all ratings 0 with
    linear gains; with ``ideal="ranked"``, no listed item with a non-zero gain) gives NaN,
    left out of the system mean, or 0 with ``no_relevant="zero"``.

    Examples
    --------
    A worked example: truth scores ``[3, 2, 3, 0, 1, 2]`` listed in the order
    ``0, 2, 1, 5, 3, 4``, exponential gains:

    >>> import pandas as pd
    >>> from rankeval import Split
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(6), "score": [3, 2, 3, 0, 1, 2]})
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": [0, 2, 1, 5, 3, 4]})
    >>> res = NDCGAtK(5, gains="exponential").perform(Split(pred, truth))
    >>> print(f"{res.system.loc['sys', 'NDCG@5']:.4f}")
    0.9735
    """

    stem = "NDCG"
    names = ("NDCG",)
    aliases = ("ndcg_cut",)

    def __init__(self, gains: str = "linear", discount_log: Callable[[Any], Any] = np.log2,
                 ideal: str = "truth", judged_only: bool = False,
                 relevant_threshold: float | None = None, *, discount: str | LogWeight = "log2",
                 negative_grades: str = "keep", no_relevant: str = "nan", name: str | None = None) -> None:
        super().__init__(gains, discount_log, relevant_threshold, discount=discount,
                         judged_only=judged_only, negative_grades=negative_grades, name=name)
        self.ideal = check_choice("ideal", ideal, IDEALS)
        if self.ideal == "min_k_ones" and self.gains != "binary":
            raise ValueError(f"`ideal`='min_k_ones' normalizes binary gains only; pass gains='binary' "
                             f"(got gains={self.gains!r}, which could exceed 1)")
        self.no_relevant = check_choice("no_relevant", no_relevant, ("nan", "zero"))

    def _ones_idcg(self, n_ones: NDArray[np.int64], k: int | None = None) -> NDArray[np.float64]:
        """IDCG of ``n_ones`` gains of 1 (cut at k): a cumulative discount lookup."""
        k = self.k if k is None else k
        if k is not None:
            n_ones = np.minimum(n_ones, k)
        top = max(int(n_ones.max(initial=0)), 1)
        cumulative = np.concatenate([[0.0], np.cumsum(1.0 / self._discount(np.arange(1, top + 1)))])
        return cumulative[n_ones]

    def _idcg(self, lists: RankedLists) -> NDArray[np.float64]:
        if self.ideal == "min_k_ones" or (self.ideal == "truth" and self.gains == "binary"):
            # the best list shows the m_u relevant items first: min(m_u, k) gains of 1
            return self._ones_idcg(lists.n_relevant)
        if self.ideal == "truth":
            by_level = self._idcg_by_level(lists)
            if by_level is not None:
                return by_level
            offsets = lists.truth_offsets
            scores = lists.ideal_scores()
            relevant = None
        else:  # ranked: the listed items' own gains, best first
            # unjudged rows have gain 0 and negative gains are clipped to 0 in the ideal, so
            # ranking the judged rows suffices
            rows = lists.judged_rows
            offsets = np.zeros(lists.n_users + 1, dtype=np.int64)
            np.cumsum(np.bincount(lists.user_of_row[rows], minlength=lists.n_users), out=offsets[1:])
            relevant_rows = lists.relevant[rows] if self.gains == "binary" else None
            gain = np.maximum(self._gain(lists.truth_score[rows], relevant_rows), 0.0)
            ideal_gain = gain[segment_argsort(gain, offsets, descending=True)]
            return self._ideal_sum(ideal_gain, offsets, lists.n_users, gains_ready=True)
        return self._ideal_sum(scores, offsets, lists.n_users, relevant=relevant)

    def _idcg_by_level(self, lists: RankedLists) -> NDArray[np.float64] | None:
        """IDCG from each user's count of every distinct truth score, without a sort.

        Rating scales have few levels: with the levels in descending order, level ``l``
        fills positions ``prev_l + 1 .. cum_l`` of the ideal list, so its share of IDCG
        is ``gain(l) * (D[min(cum_l, k)] - D[min(prev_l, k)])`` with ``D`` the cumulative
        discount. None when there are too many levels for a count table.
        """
        table = self._level_table(lists)
        return None if table is None else self._idcg_from_levels(table, self.k)

    def _level_table(self, lists: RankedLists) -> tuple[NDArray[np.float64], NDArray[np.int64],
                                                          NDArray[np.int64]] | None:
        """(gain of each level, best first; start and end of each level in each user's
        ideal list), or None when there are too many levels for a count table."""
        values = lists.truth_values
        codes, levels = pd.factorize(values, sort=True)
        n_levels, n_users = len(levels), lists.n_users
        if n_levels == 0 or n_levels > 64 or n_users * n_levels > 50_000_000:
            return None
        users = segment_ids(lists.truth_offsets).astype(np.int64)
        counts = np.bincount(users * n_levels + (n_levels - 1 - codes), minlength=n_users * n_levels)
        counts = counts.reshape(n_users, n_levels)  # column 0: the highest score
        end = np.cumsum(counts, axis=1)
        start = end - counts
        level_gain = np.maximum(self._gain(np.asarray(levels, dtype=np.float64)[::-1]), 0.0)
        return level_gain, start, end

    def _idcg_from_levels(self, table: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]],
                          k: int | None) -> NDArray[np.float64]:
        level_gain, start, end = table
        top = int(end[:, -1].max(initial=0)) if k is None else min(k, int(end[:, -1].max(initial=0)))
        cumulative = np.concatenate([[0.0], np.cumsum(1.0 / self._discount(np.arange(1, max(top, 1) + 1)))])
        if k is not None:
            end, start = np.minimum(end, k), np.minimum(start, k)
        return ((cumulative[end] - cumulative[start]) * level_gain).sum(axis=1)

    def _ideal_sum(self, scores: NDArray[np.float64], offsets: NDArray[np.int64], n_users: int, *,
                   relevant: NDArray[np.bool_] | None = None, gains_ready: bool = False) -> NDArray[np.float64]:
        position = segment_positions(offsets)
        keep = slice(None) if self.k is None else position <= self.k
        gain = scores[keep] if gains_ready else np.maximum(self._gain(
            scores[keep], None if relevant is None else relevant[keep]), 0.0)  # the ideal skips negative gains
        users = segment_ids(offsets)[keep]
        return np.bincount(users, weights=gain / self._discount(position[keep]),
                           minlength=n_users)  # type: ignore[return-value]  # weighted: float64 (stubs: int)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        dcg = self._dcg(lists)
        idcg = self._idcg(lists)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a quotient past 1.8e308 is inf
            return np.where(idcg != 0, dcg / idcg, self._undefined())

    def per_user_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """NDCG at every cutoff from one pass: the gains and discounts of the longest
        cutoff's rows and the ideal's level table are computed once; each cutoff then
        sums its prefix (the same rows in the same order as :meth:`per_user` at that
        cutoff, so the values are bit for bit the same).

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        cutoffs : tuple of int
            The cutoffs, one column each.
        """
        if self.judged_only or self.ideal == "ranked":  # condensed or re-sorted lists: cutoff by cutoff
            return super().per_user_at(lists, cutoffs)
        self._check_exponential_gains(lists)
        longest = self._at(max(cutoffs))
        rows, position = longest._list_positions(lists)
        relevant = lists.relevant[rows] if self.gains == "binary" else None
        weight = self._gain(lists.truth_score[rows], relevant) / self._discount(position)
        users = lists.user_of_row[rows]
        ones = self.ideal == "min_k_ones" or self.gains == "binary"
        table = None if ones else self._level_table(lists)
        out = np.empty((lists.n_users, len(cutoffs)))
        for j, k in enumerate(cutoffs):
            keep = position <= k
            dcg = np.bincount(users[keep], weights=weight[keep], minlength=lists.n_users)
            if ones:
                idcg = self._ones_idcg(lists.n_relevant, k)
            elif table is not None:
                idcg = self._idcg_from_levels(table, k)
            else:
                idcg = self._at(k)._idcg(lists)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out[:, j] = np.where(idcg != 0, dcg / idcg, self._undefined())
        return out


class NDCGAtK(NDCG):
    r"""Normalized discounted cumulative gain of the first ``k`` positions.

    .. math::

        NDCG@k_u = \frac{DCG@k_u}{IDCG@k_u}

    The ideal list is cut at ``k`` as well (see :class:`NDCG` for ``ideal``).

    Parameters
    ----------
    k : int or list of int
        Cutoff, >= 1, of the list and of the ideal list (a list: one column per cutoff,
        from one pass).
    gains : {"linear", "exponential", "binary"}
        :math:`f(r) = r`, :math:`2^r - 1`, or 1 when relevant under ``relevant_threshold``.
    discount_log : callable
        Logarithm of the discount (default ``np.log2``).
    ideal : {"truth", "ranked", "min_k_ones"}
        Which ideal list normalizes (see :class:`NDCG`).
    judged_only : bool
        Drop listed items absent from truth first (condensed list, Sakai's NDCG'), then
        cut at k.
    relevant_threshold : float, optional
        Threshold of ``gains="binary"`` and ``ideal="min_k_ones"``; None: user mean.
    discount : {"log2", "jarvelin"}
        ``discount_log(i + 1)`` or ``discount_log(max(i, 2))``.
    negative_grades : {"keep", "unjudged"}
        ``"unjudged"`` treats negative truth grades as not judged (trec_eval); ``"keep"``
        gives them their (negative) gain in the list.
    no_relevant : {"nan", "zero"}
        Value when :math:`IDCG@k_u = 0`.
    name : str, optional
        Overrides the name ``"NDCG@k"``.

    Notes
    -----
    Undefined cases: :math:`IDCG@k_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    Examples
    --------
    A worked example with exponential gains and the list's own scores, re-sorted,
    as the ideal (scores ``[2, 2, 3, 0, 1, 2]`` in list order):

    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": range(6)})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(6), "score": [2, 2, 3, 0, 1, 2]})
    >>> res = NDCGAtK(5, gains="exponential", ideal="ranked").perform(Split(pred, truth))
    >>> print(f"{res.system.loc['sys', 'NDCG@5']:.4f}")
    0.7273
    """

    names = ("NDCG",)

    def __init__(self, k: int, gains: str = "linear", discount_log: Callable[[Any], Any] = np.log2,
                 ideal: str = "truth", judged_only: bool = False,
                 relevant_threshold: float | None = None, *, discount: str | LogWeight = "log2",
                 negative_grades: str = "keep", no_relevant: str = "nan", name: str | None = None) -> None:
        super().__init__(gains, discount_log, ideal, judged_only, relevant_threshold,
                         discount=discount, negative_grades=negative_grades, no_relevant=no_relevant, name=name)
        self.k = check_cutoff(k, required=True)
