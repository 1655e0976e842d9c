r"""Set metrics over whole lists: Precision, Recall, FMeasure(AtK), RPrecision, and the counts.

ClayRS's classification metrics and trec_eval's ``set_P``, ``set_recall``, ``set_F``,
``Rprec``, ``num_ret``, ``num_rel`` and ``num_rel_ret``. Notation as in docs/metrics.md:
:math:`N_u` items listed, :math:`m_u` relevant truth items (listed or not),
:math:`h_u` relevant items listed (:math:`h_u(k)` within the first k).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, check_cutoff, check_number
from .._pooled import PooledMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Precision", "Recall", "FMeasure", "FMeasureAtK", "RPrecision", "NumRet", "NumRel", "NumRelRet"]

#: the stems of the F-measures: "F" and beta ("F1", "F0.5", "F2")
F_STEMS = r"F(?P<beta>[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)"


def _number_text(value: float) -> str:
    """A float as the shortest text that reads back to it, without a trailing ``.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def check_beta(beta: Any) -> float:
    return check_number("beta", beta, 0, None)


class _Whole(PooledMetric):
    """A set metric over the whole list (no cutoff), with relevance and ``average``."""

    needs_relevant = True

    def __init__(self, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan", average: str = "macro") -> None:
        super().__init__(None, relevant_threshold, name, no_relevant=no_relevant)
        self._set_average(average)

    @staticmethod
    def _hits(lists: RankedLists) -> NDArray[np.float64]:
        return lists.segment_sum(lists.relevant)


class Precision(_Whole):
    r"""Share of the listed items that are relevant, over the whole list.

    .. math::

        P_u = \frac{h_u}{N_u}, \qquad
        P^{micro} = \frac{\sum_u h_u}{\sum_u N_u}

    ClayRS's ``Precision`` (``tp / (tp + fp)``, an unjudged listed item is a false
    positive) and trec_eval's ``set_P``.

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"P"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items (:math:`m_u = 0`).
    average : {"macro", "micro"}
        System value: the mean of :math:`P_u` (default) or the pooled ratio
        :math:`P^{micro}` over the users whose value is defined (``"P-micro"``).

    Notes
    -----
    Undefined cases: a user with no relevant truth item gets NaN (left out of the mean
    and of the micro sums, as ClayRS does), or 0 with ``no_relevant="zero"`` (trec_eval).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b", "y"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{Precision().perform(Split(pred, truth)).system.loc['sys', 'P']:.4f}")
    0.5000
    """

    stem = "P"
    names = ("P",)
    aliases = ("precision",)

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"hits": self._hits(lists), "retrieved": lists.n_listed.astype(np.float64)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["hits"] / counts["retrieved"]


class Recall(_Whole):
    r"""Share of the user's relevant truth items that the list holds, over the whole list.

    .. math::

        R_u = \frac{h_u}{m_u}, \qquad
        R^{micro} = \frac{\sum_u h_u}{\sum_u m_u}

    ClayRS's ``Recall`` (``tp / (tp + fn)``) and trec_eval's ``set_recall``.

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"R"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.
    average : {"macro", "micro"}
        System value: the mean of :math:`R_u` (default) or :math:`R^{micro}` (``"R-micro"``).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{Recall().perform(Split(pred, truth)).system.loc['sys', 'R']:.4f}")
    0.5000
    """

    stem = "R"
    names = ("R",)
    aliases = ("recall",)

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"hits": self._hits(lists), "relevant": lists.n_relevant.astype(np.float64)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["hits"] / counts["relevant"]


def _f_beta(beta: float, hits: Any, retrieved: Any, relevant: Any) -> Any:
    """(1 + b^2) P R / (b^2 P + R) = (1 + b^2) h / (b^2 m + N); 0 when h = 0 (P = R = 0)."""
    b2 = beta * beta
    value = (1.0 + b2) * hits / (b2 * relevant + retrieved)
    return np.where(hits == 0, np.where(relevant > 0, 0.0, np.nan), value)


class FMeasure(_Whole):
    r"""F-measure: the weighted harmonic mean of :class:`Precision` and :class:`Recall`.

    .. math::

        F_{\beta,u} = (1 + \beta^2)\,\frac{P_u R_u}{\beta^2 P_u + R_u}
                    = \frac{(1 + \beta^2)\, h_u}{\beta^2 m_u + N_u}

    and 0 when :math:`P_u = R_u = 0` (no relevant item listed). The micro average is
    :math:`F_\beta` of the pooled precision and recall (ClayRS's ``sys_average="micro"``):
    :math:`(1 + \beta^2) \sum_u h_u / (\beta^2 \sum_u m_u + \sum_u N_u)`.

    ClayRS's ``FMeasure``, trec_eval's ``set_F`` and ranx's ``f1`` (k = 0). trec_eval's
    ``set_F.x`` weighs with :math:`x` where this formula has :math:`\beta^2`: it equals
    ``FMeasure(beta=sqrt(x))`` (the same at the default 1).

    Parameters
    ----------
    beta : float
        Weight of recall against precision (> 0); 1 (default) is F1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"F1"`` (``"F2"``, ``"F0.5"``: the stem holds beta).
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.
    average : {"macro", "micro"}
        System value: the mean of the users' values (default), or the pooled F (``"F1-micro"``).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    References
    ----------
    C. J. van Rijsbergen, *Information Retrieval*, 2nd ed., Butterworths, 1979, ch. 7.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b", "y"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c", "d"], "score": [5, 4, 5, 1]})
    >>> print(f"{FMeasure().perform(Split(pred, truth)).system.loc['sys', 'F1']:.4f}")
    0.5714
    """

    stem = "F"
    name_patterns = {"F1": F_STEMS}

    def __init__(self, beta: float = 1.0, relevant_threshold: float | None = None, *, name: str | None = None,
                 no_relevant: str = "nan", average: str = "macro") -> None:
        self.beta = check_beta(beta)
        super().__init__(relevant_threshold, name=name, no_relevant=no_relevant, average=average)

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> FMeasure:
        """``FMeasure(beta)`` for the stem ``F<beta>`` (``F0.5``).

        Parameters
        ----------
        name : str
            The stem, ``F`` and beta.
        k : int or list of int, optional
            Always None: the names of FMeasure take no cutoff (``F1@k`` is :class:`FMeasureAtK`).
        """
        return cls(float(name[1:]))

    def _stem_text(self) -> str:
        return f"F{_number_text(self.beta)}"

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"hits": self._hits(lists), "retrieved": lists.n_listed.astype(np.float64),
                "relevant": lists.n_relevant.astype(np.float64)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return _f_beta(self.beta, counts["hits"], counts["retrieved"], counts["relevant"])


class FMeasureAtK(PooledMetric):
    r"""F-measure of :class:`~rankeval.PrecisionAtK` and :class:`~rankeval.RecallAtK`.

    .. math::

        F_{\beta}@k_u = (1 + \beta^2)\,\frac{P@k_u\, R@k_u}{\beta^2 P@k_u + R@k_u}
                      = \frac{(1 + \beta^2)\, h_u(k)}{\beta^2 m_u + d_u}

    with :math:`d_u = k` (``denominator="k"``, ranx's ``f1@k``) or
    :math:`d_u = \min(k, N_u)` (``"listed"``, ClayRS's ``FMeasureAtK``, whose precision
    counts the items of the cut list); 0 when no relevant item is in the first k.

    Parameters
    ----------
    k : int
        Cutoff, >= 1.
    beta : float
        Weight of recall against precision (> 0); 1 (default) is F1.
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"k", "listed"}
        Precision's denominator, as :class:`~rankeval.PrecisionAtK`.
    name : str, optional
        Overrides the name ``"F1@k"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.
    average : {"macro", "micro"}
        System value: the mean of the users' values (default), or F of the pooled counts
        :math:`(1 + \beta^2) \sum_u h_u(k) / (\beta^2 \sum_u m_u + \sum_u d_u)` (``"F1@k-micro"``).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b", "y"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c", "d"], "score": [5, 4, 5, 1]})
    >>> print(f"{FMeasureAtK(2).perform(Split(pred, truth)).system.loc['sys', 'F1@2']:.4f}")
    0.4000
    """

    stem = "F"
    needs_relevant = True
    name_patterns = {"F1": F_STEMS}

    def __init__(self, k: int, beta: float = 1.0, relevant_threshold: float | None = None, *,
                 denominator: str = "k", name: str | None = None, no_relevant: str = "nan",
                 average: str = "macro") -> None:
        self.beta = check_beta(beta)
        super().__init__(check_cutoff(k, required=True), relevant_threshold, name, no_relevant=no_relevant)
        self.denominator = check_choice("denominator", denominator, ("k", "listed"))
        self._set_average(average)

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> FMeasureAtK:
        """``FMeasureAtK(k, beta)`` for ``F<beta>@k`` (``F0.5@10``).

        Parameters
        ----------
        name : str
            The stem, ``F`` and beta.
        k : int or list of int
            The cutoff (a list for several).
        """
        return cls(k, float(name[1:]))  # type: ignore[arg-type]  # a list of cutoffs: one pass over all (_base)

    def _stem_text(self) -> str:
        return f"F{_number_text(self.beta)}"

    def _head_is_enough(self) -> bool:
        return True

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        assert self.k is not None
        hits = lists.segment_sum(lists.relevant & (lists.position <= self.k))
        if self.denominator == "k":
            retrieved = np.full(lists.n_users, float(self.k))
        else:
            retrieved = np.minimum(lists.n_listed, self.k).astype(np.float64)
        return {"hits": hits, "retrieved": retrieved, "relevant": lists.n_relevant.astype(np.float64)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return _f_beta(self.beta, counts["hits"], counts["retrieved"], counts["relevant"])


class RPrecision(_Whole):
    r"""R-precision: precision at rank :math:`m_u`, the user's number of relevant items.

    .. math::

        RP_u = \frac{h_u(m_u)}{m_u}

    where the list is cut at :math:`m_u`; at that rank precision equals recall.
    ``denominator="listed"`` divides by :math:`\min(m_u, N_u)` instead (ClayRS's
    ``RPrecision``, whose precision counts the items of the cut list: a list shorter
    than :math:`m_u` is not penalized for its missing positions). trec_eval's ``Rprec``
    and ranx's ``r-precision`` divide by :math:`m_u` (the default).

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    denominator : {"relevant", "listed"}
        :math:`m_u` (default) or :math:`\min(m_u, N_u)`.
    name : str, optional
        Overrides the name ``"RPrec"``.
    no_relevant : {"nan", "zero"}
        Value of a user without relevant truth items.
    average : {"macro", "micro"}
        System value: the mean of the users' values (default), or the pooled ratio
        :math:`\sum_u h_u(m_u) / \sum_u d_u` (ClayRS's micro, ``"RPrec-micro"``).

    Notes
    -----
    Undefined cases: :math:`m_u = 0` gives NaN (or 0 with ``no_relevant="zero"``, as
    trec_eval and ranx).

    References
    ----------
    C. Buckley and E. M. Voorhees, "Retrieval System Evaluation", in *TREC: Experiment
    and Evaluation in Information Retrieval*, MIT Press, 2005.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b", "y"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(f"{RPrecision().perform(Split(pred, truth)).system.loc['sys', 'RPrec']:.4f}")
    0.5000
    """

    stem = "RPrec"
    names = ("RPrec",)
    aliases = ("r-precision",)

    def __init__(self, relevant_threshold: float | None = None, *, denominator: str = "relevant",
                 name: str | None = None, no_relevant: str = "nan", average: str = "macro") -> None:
        super().__init__(relevant_threshold, name=name, no_relevant=no_relevant, average=average)
        self.denominator = check_choice("denominator", denominator, ("relevant", "listed"))

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        m = lists.n_relevant
        within = lists.position <= np.repeat(m, lists.n_listed)
        hits = lists.segment_sum(lists.relevant & within)
        den = m if self.denominator == "relevant" else np.minimum(m, lists.n_listed)
        return {"hits": hits, "retrieved": den.astype(np.float64)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["hits"] / counts["retrieved"]


class _Count(PooledMetric):
    """A per-user count; the system value is the sum over users (trec_eval's summary line,
    the default) or, with ``average="macro"``, the mean."""

    averages: ClassVar[tuple[str, ...]] = ("sum", "macro")
    system_parts_scale_free: ClassVar[bool] = False  # a sum, not a ratio
    default_average: ClassVar[str] = "sum"

    def __init__(self, relevant_threshold: float | None = None, *, name: str | None = None,
                 average: str = "sum") -> None:
        super().__init__(None, relevant_threshold, name)
        self._set_average(average)

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        return {"count": self._count(lists)}

    @abc.abstractmethod
    def _count(self, lists: RankedLists) -> NDArray[np.float64]:
        """The per-user count."""

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["count"]

    def system_parts(self, lists: RankedLists,
                     values: NDArray[np.float64]) -> dict[str, NDArray[np.float64] | pd.Series] | None:
        return None if self.average == "macro" else {"sum": values}  # exact over any bucketing

    def system_value(self, parts: dict[str, float | pd.Series]) -> float:
        return float(parts["sum"])


class NumRet(_Count):
    r"""Number of listed items (trec_eval's ``num_ret``).

    .. math:: \mathrm{num\_ret}_u = N_u

    The system value is the sum over users, as trec_eval's summary line (a count of
    retrieved items), or with ``average="macro"`` the mean over users (``"num_ret-macro"``).

    Parameters
    ----------
    name : str, optional
        Overrides the name ``"num_ret"``.
    average : {"sum", "macro"}
        Sum (default) or mean over users.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "x", "a"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"], "score": [5, 4]})
    >>> print(NumRet().perform(Split(pred, truth)).system.loc["sys", "num_ret"])
    3.0
    >>> print(NumRet(average="macro").perform(Split(pred, truth)).system.loc["sys", "num_ret-macro"])
    1.5
    """

    stem = "num_ret"
    names = ("num_ret",)

    def __init__(self, *, name: str | None = None, average: str = "sum") -> None:
        super().__init__(None, name=name, average=average)

    def _count(self, lists: RankedLists) -> NDArray[np.float64]:
        return lists.n_listed.astype(np.float64)


class NumRel(_Count):
    r"""Number of the user's relevant truth items, listed or not (trec_eval's ``num_rel``).

    .. math:: \mathrm{num\_rel}_u = m_u

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"num_rel"``.
    average : {"sum", "macro"}
        Sum over users (default, trec_eval's summary line) or mean (``"num_rel-macro"``).

    Notes
    -----
    Always defined: a user without relevant items has 0. trec_eval's ``-c`` summary adds
    the relevant items of users without a list; under ``missing_users="zero"`` those
    users have 0 here (every metric is 0 for them).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(NumRel(relevant_threshold=4).perform(Split(pred, truth)).system.loc["sys", "num_rel"])
    2.0
    """

    stem = "num_rel"
    names = ("num_rel",)

    def _count(self, lists: RankedLists) -> NDArray[np.float64]:
        return lists.n_relevant.astype(np.float64)


class NumRelRet(_Count):
    r"""Number of relevant items in the list (trec_eval's ``num_rel_ret``).

    .. math:: \mathrm{num\_rel\_ret}_u = h_u

    Parameters
    ----------
    relevant_threshold : float, optional
        Fixed relevance threshold; None (default) uses each user's mean truth score.
    name : str, optional
        Overrides the name ``"num_rel_ret"``.
    average : {"sum", "macro"}
        Sum over users (default, trec_eval's summary line) or mean (``"num_rel_ret-macro"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "c"]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [5, 4, 1]})
    >>> print(NumRelRet(relevant_threshold=4).perform(Split(pred, truth)).system.loc["sys", "num_rel_ret"])
    1.0
    """

    stem = "num_rel_ret"
    names = ("num_rel_ret",)

    def _count(self, lists: RankedLists) -> NDArray[np.float64]:
        return lists.segment_sum(lists.relevant)
