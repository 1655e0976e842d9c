r"""Measures from IR evaluation practice: bpref, rank-biased precision, expected reciprocal rank.

Notation as in docs/metrics.md: positions :math:`i = 1, 2, \dots` of the list,
:math:`rel_u(i)` relevance (binary, with the metric's threshold), :math:`g_{u,i}` the
truth score (grade) of the item at position :math:`i` (none when unjudged),
:math:`m_u` relevant truth items of the user.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff, check_number, segment_max
from .._base import RankingMetric
from .._weighting import GeometricWeight, RankWeight, as_rank_weight

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["BPref", "RBP", "ERRAtK"]


class BPref(RankingMetric):
    r"""Binary preference (bpref), as trec_eval computes it: judged items only.

    .. math::

        bpref_u = \frac{1}{m_u} \sum_{i : rel_u(i) = 1}
                  \left( 1 - \frac{\min(n_u(i),\, m_u)}{\min(M_u,\, m_u)} \right)

    where :math:`n_u(i)` counts the judged non-relevant items listed above position
    :math:`i` and :math:`M_u` the user's judged non-relevant truth items (truth score
    below the threshold), listed or not; a term with :math:`n_u(i) = 0` is 1. Listed items
    without a truth score are skipped: bpref looks at judged items only.

    trec_eval's ``bpref`` (m_bpref.c). ranx's ``bpref`` agrees except for a user without
    any judged non-relevant item who has a relevant item listed: ranx divides 0 by 0 there
    (NaN), trec_eval and rankeval count each such relevant item as 1. trec_eval also treats
    a negative qrels level as "in the pool but unjudged" (skipped); rankeval's negative
    truth scores are judged non-relevant (drop those rows to match).

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold (trec_eval's ``-l``, usually 1); None (default) uses
        each user's mean truth score.
    name : str, optional
        Overrides the name ``"BPref"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items (trec_eval and ranx: 0).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    References
    ----------
    C. Buckley and E. M. Voorhees, "Retrieval evaluation with incomplete information",
    SIGIR 2004.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["n1", "a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "n1", "n2"], "score": [2, 1, 0, 0]})
    >>> print(f"{BPref(relevant_threshold=1).perform(Split(pred, truth)).system.loc['sys', 'BPref']:.4f}")
    0.5000
    """

    stem = "BPref"
    needs_relevant = True
    names = ("BPref",)

    def __init__(self, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(None, relevant_threshold, name, no_relevant=no_relevant)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        relevant = lists.relevant
        nonrelevant = lists.judged & ~relevant
        above = lists.segment_cumsum(nonrelevant)  # at a relevant row: the non-relevant rows above it
        m = lists.n_relevant
        m_row = np.repeat(m, lists.n_listed)
        pool_row = np.repeat(np.minimum(lists.n_truth - m, m), lists.n_listed)
        rows = np.flatnonzero(relevant)
        term = np.zeros(lists.n_rows)
        seen = above[rows]
        # seen > 0 implies both minima >= 1 at a relevant row: no division by zero
        term[rows] = np.where(seen > 0, 1.0 - np.minimum(seen, m_row[rows]) / np.maximum(pool_row[rows], 1), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return lists.segment_sum(term) / m


def _check_persistence(p: Any) -> float:
    return check_number("p", p)


class RBP(RankingMetric):
    r"""Rank-biased precision (Moffat and Zobel 2008), with binary relevance.

    .. math::

        RBP_u = (1 - p) \sum_{i \ge 1} rel_u(i)\, p^{\,i - 1}

    The user reads on from one item to the next with probability ``p`` (persistence);
    RBP is the expected rate of relevant items seen. The whole list counts (no cutoff):
    the weights of positions past the list sum to the residual :math:`p^{N_u}`.

    ``gains="graded"`` replaces :math:`rel_u(i)` by the truth score of the relevant items
    (:math:`rel_u(i)\, g_{u,i}`, 0 for the others), which is what ranx's ``rbp`` computes
    (its docstring says binary; its code multiplies by the qrels grade).

    Parameters
    ----------
    p : float or GeometricWeight
        Persistence, in (0, 1); 0.8 by default. ``GeometricWeight(p)`` is the same metric
        (same values and name); another rank weight is a ValueError.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    gains : {"binary", "graded"}
        Binary relevance (default, Moffat and Zobel) or the grade of relevant items (ranx).
    name : str, optional
        Overrides the name ``"RBP"`` (``"RBP.95"`` for ``p=0.95``: the stem holds p).
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items (ranx: 0).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    References
    ----------
    A. Moffat and J. Zobel, "Rank-biased precision for measurement of retrieval
    effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [1, 1, 0]})
    >>> print(f"{RBP(0.5, relevant_threshold=1).perform(Split(pred, truth)).system.loc['sys', 'RBP.5']:.4f}")
    0.6250
    """

    stem = "RBP"
    needs_relevant = True
    name_patterns = {"RBP": r"RBP(?P<p>\.[0-9]+)?"}

    def __init__(self, p: float | GeometricWeight = 0.8, relevant_threshold: float | None = None, *,
                 gains: str = "binary", name: str | None = None, no_relevant: str = "nan") -> None:
        # a GeometricWeight is kept as given (the repr shows it); its patience is the persistence (the name)
        self.p = p if isinstance(p, RankWeight) else _check_persistence(p)
        self.rank_weight = cast(GeometricWeight, as_rank_weight(
            self.p, "p", "RBP", patience=True, accepts=(GeometricWeight,),
            why=" (its 1 - p normalization is the sum of geometric weights)"))
        self._persistence = self.rank_weight.patience
        super().__init__(None, relevant_threshold, name, no_relevant=no_relevant)
        self.gains = check_choice("gains", gains, ("binary", "graded"))

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> RBP:
        """``RBP()`` for ``RBP``, ``RBP(0.95)`` for ``RBP.95``.

        Parameters
        ----------
        name : str
            ``RBP``, then the persistence's decimals after the point.
        k : int or list of int, optional
            Always None: RBP takes no cutoff.
        """
        return cls() if name == "RBP" else cls(float("0" + name[3:]))

    def _stem_text(self) -> str:
        # RBP(0.95) and RBP(GeometricWeight(0.95)) are one metric: one column name
        if self._persistence == 0.8:
            return "RBP"
        # 0.95 -> "RBP.95", as ranx's "rbp.95"; positional, so 1e-06 is "RBP.000001" (reads back)
        return "RBP" + np.format_float_positional(self._persistence, trim="-")[1:]

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        relevant = lists.relevant
        if self.gains == "binary":
            gain = relevant.astype(np.float64)
        else:
            gain = np.where(relevant, lists.truth_score, 0.0)
        weight = self.rank_weight.weights(lists.position)  # the cascade shared with ExposureGini
        return (1.0 - self._persistence) * lists.segment_sum(gain * weight)


def _check_max_grade(max_grade: Any) -> float | None:
    if max_grade is None:
        return None
    return check_number("max_grade", max_grade, None, None, why=" or None")


class ERRAtK(RankingMetric):
    r"""Expected reciprocal rank at k (Chapelle et al. 2009), with graded relevance.

    .. math::

        ERR@k_u = \sum_{i=1}^{k} \frac{R_{u,i}}{i} \prod_{j < i} \left(1 - R_{u,j}\right),
        \qquad
        R_{u,i} = \frac{2^{\max(g_{u,i},\, 0)} - 1}{2^{g_{max}}}

    :math:`R_{u,i}` is the probability that the user stops at position :math:`i`,
    satisfied; an unjudged item has :math:`R = 0`, and so has a grade <= 0. This is the
    TREC Web track's ``gdeval.pl`` (ir_measures' ``ERR@k``), which fixes
    :math:`g_{max} = 4`: pass ``max_grade=4`` to reproduce it. With ``max_grade=None``
    (default), :math:`g_{max}` is the largest score of the split's truth frame (every
    user's, listed or not), i.e. the top of the grading scale as the data show it.

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    max_grade : float, optional
        :math:`g_{max}`; a truth score above it is a ValueError. None: the split's largest
        truth score.
    name : str, optional
        Overrides the name ``"ERR@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user with no truth score above 0 (whose best list scores 0);
        gdeval leaves such users out, as NaN does.

    Notes
    -----
    Undefined cases: a user without a positive truth score gets NaN (or 0 with
    ``no_relevant="zero"``). ERR ignores ``relevant_threshold``: it is graded.

    References
    ----------
    O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal rank for
    graded relevance", CIKM 2009.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [1, 2]})
    >>> print(f"{ERRAtK(3).perform(Split(pred, truth)).system.loc['sys', 'ERR@3']:.4f}")
    0.5312
    """

    stem = "ERR"
    names = ("ERR",)

    def __init__(self, k: int, max_grade: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan") -> None:
        super().__init__(check_cutoff(k, required=True), None, name, no_relevant=no_relevant)
        self.max_grade = _check_max_grade(max_grade)

    def _head_is_enough(self) -> bool:
        return True

    @property
    def needs_truth_score_max(self) -> bool:
        """Whether the value depends on the split's largest truth score (``max_grade=None``):
        an engine that cuts the users into buckets fixes it first (:meth:`with_truth_score_max`)."""
        return self.max_grade is None

    def with_truth_score_max(self, value: float) -> ERRAtK:
        """This metric with ``max_grade`` set to ``value`` (the whole split's largest truth
        score, found by the engine before cutting the users into buckets); same name.

        Parameters
        ----------
        value : float
            The largest truth score of the split.
        """
        bound = copy.copy(self)
        bound.max_grade = _check_max_grade(value)
        return bound

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        assert self.k is not None
        best = segment_max(lists.truth_values, lists.truth_offsets)  # every evaluated user has truth
        if self.max_grade is None:
            g_max = lists.truth_score_max
        else:
            g_max = self.max_grade
            above = np.flatnonzero(best > g_max)
            if len(above):
                u = above[0]
                raise ValueError(f"`max_grade`={g_max:g} of {self} is below a truth score: user "
                                 f"{lists.user_ids[u]!r} has {best[u]:g} ({len(above)} user(s) in all); pass "
                                 f"max_grade >= the largest grade, or None for the split's largest")
        judged = lists.judged & (lists.position <= self.k)
        grade = np.zeros(lists.n_rows)
        grade[judged] = np.maximum(lists.truth_score[judged], 0.0)
        stop = _stop_probability(grade, g_max)
        # the cascade, position by position for all users at once (users sorted by list
        # length, so position p touches only the lists that reach it: n_rows steps in all),
        # in gdeval's order of operations: err += R * decay / p; decay *= 1 - R
        n = np.minimum(lists.n_listed, self.k)
        by_length = np.argsort(-n, kind="stable")
        reaching = np.bincount(n, minlength=int(n.max(initial=0)) + 2)[::-1].cumsum()[::-1]  # users with n >= p
        starts = lists.offsets[:-1]
        err = np.zeros(lists.n_users)
        decay = np.ones(lists.n_users)
        for p in range(1, int(n.max(initial=0)) + 1):
            users = by_length[:reaching[p]]
            r = stop[starts[users] + (p - 1)]
            err[users] += r * decay[users] / p
            decay[users] *= 1.0 - r
        return np.where(best > 0, err, self._undefined())


def _stop_probability(grade: NDArray[np.float64], g_max: float) -> NDArray[np.float64]:
    """(2^g - 1) / 2^g_max, as gdeval writes it (without overflow for very large grades)."""
    g_max = max(g_max, 0.0)  # every grade <= 0: every probability is 0
    if g_max <= 1000:
        # expm1 keeps the digits of 2^g - 1 for |g| < 1 (2^g - 1 cancels to 0 for tiny grades);
        # elsewhere 2^g - 1 is exact for the integer grades trec_eval and gdeval see
        gain = np.where(np.abs(grade) < 1.0, np.expm1(grade * np.log(2.0)), np.exp2(grade) - 1.0)
        return gain / np.exp2(g_max)
    return np.exp2(grade - g_max) - np.exp2(-g_max)
