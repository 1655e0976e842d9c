"""RankingMetric, the template every metric fills in, and MetricResult."""

from __future__ import annotations

import abc
import functools
import inspect
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import _keys
from .._exact import exact_mean
from .._validation import check_choice, check_cutoff, check_threshold

if TYPE_CHECKING:
    from ..data import Split
    from ..ranked import RankedLists

__all__ = ["RankingMetric", "MetricResult", "NO_RELEVANT"]

NO_RELEVANT = ("nan", "zero")


class MetricResult(NamedTuple):
    """Per-user values and system mean of one metric on one split.

    ``users`` is indexed by user id with one float column named ``str(metric)``;
    ``system`` has the single index ``"sys"`` and the same column: the mean over users
    with NaN users left out.
    """

    users: pd.DataFrame
    system: pd.DataFrame


def _param_repr(value: Any) -> str:
    if callable(value):
        module = getattr(value, "__module__", None) or ""
        name = getattr(value, "__name__", None) or repr(value)
        return f"np.{name}" if module.startswith("numpy") or isinstance(value, np.ufunc) else name
    return repr(value)


class RankingMetric(abc.ABC):
    """Base of every ranking metric: a subclass writes only its per-user math.

    The base owns everything else: the cutoff ``k`` and the relevance threshold
    (validated here), the view of the split's shared :class:`~rankeval.RankedLists`
    for that threshold, the policy for users without a relevant truth item, the result
    frames and the NaN-excluding system mean.

    Subclasses set the class attribute ``stem`` (``str(metric)`` is the stem, plus
    ``@k`` when the metric has a cutoff) and implement :meth:`per_user`.

    Parameters
    ----------
    k : int, optional
        Cutoff: only the first ``k`` positions of each list count. None: whole list.
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None uses each user's mean truth score.
    name : str, optional
        Overrides ``str(metric)``, the column name in every result.
    no_relevant : {"nan", "zero"}
        Value of a user who has no relevant truth item, for metrics that are undefined
        then (``needs_relevant``): NaN (left out of the mean) or 0.

    Examples
    --------
    A custom metric, the share of the first k listed items that have a truth score:

    >>> import numpy as np, pandas as pd
    >>> import rankeval
    >>> class JudgedAtK(rankeval.RankingMetric):
    ...     stem = "Judged"
    ...     def per_user(self, lists):
    ...         top = lists.position <= self.k
    ...         judged = ~np.isnan(lists.truth_score)
    ...         return lists.segment_sum(top & judged) / self.k
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": ["a", "b", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "c"], "score": [5, 3]})
    >>> metric = JudgedAtK(k=2)
    >>> str(metric)
    'Judged@2'
    >>> print(metric.perform(rankeval.Split(pred, truth)).system)
         Judged@2
    sys       0.5
    """

    stem: ClassVar[str]
    higher_is_better: ClassVar[bool] = True
    #: the metric is undefined (NaN, or 0 with ``no_relevant="zero"``) for users
    #: without a relevant truth item
    needs_relevant: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _recording_explicit(cls.__dict__["__init__"])  # type: ignore[method-assign]

    def __init__(self, k: int | None = None, relevant_threshold: float | None = None,
                 name: str | None = None, *, no_relevant: str = "nan") -> None:
        self.k = check_cutoff(k)
        self.relevant_threshold = check_threshold(relevant_threshold)
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string, got {name!r}")
        self.name = name
        self.no_relevant = check_choice("no_relevant", no_relevant, NO_RELEVANT)

    # ------------------------------------------------------------------ identity
    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return self.stem if self.k is None else f"{self.stem}@{self.k}"

    def _params(self) -> dict[str, Any]:
        """Constructor parameters and their current values, in signature order."""
        signature = inspect.signature(type(self).__init__)
        return {p.name: getattr(self, p.name, p.default) for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={_param_repr(v)}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def with_convention(self, convention: str) -> RankingMetric:
        """A new metric following a peer's definitions (see :mod:`rankeval.conventions`).

        Parameters passed explicitly to this metric's constructor win over the preset; a
        metric the peer lacks raises ValueError naming the convention.
        """
        from ..conventions import apply_convention
        return apply_convention(self, convention)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params() == other._params()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    # ------------------------------------------------------------------ template
    def perform(self, split: Split) -> MetricResult:
        """Evaluate every user of ``split``: per-user values and their NaN-excluding mean."""
        lists = split.ranked_lists().for_threshold(self.relevant_threshold)
        values = self.compute(lists)
        col = str(self)
        index = pd.Index(lists.user_ids, name=split.columns.user)
        if split.missing_users == "zero" and len(lists.missing_user_ids):
            # trec_eval -c: a user with ratings but no list scores 0 on every metric
            listed, missing = _keys.same_id_dtype([index, pd.Index(lists.missing_user_ids, name=split.columns.user)])
            index = listed.append(missing)
            values = np.concatenate([values, np.zeros(len(lists.missing_user_ids))])
        users = pd.DataFrame({col: values}, index=index)
        return MetricResult(users, pd.DataFrame({col: [_nanmean(values)]}, index=pd.Index(["sys"])))

    def compute(self, lists: RankedLists) -> NDArray[np.float64]:
        """Per-user values on ``lists`` (one per user, in ``lists.user_ids`` order), policies applied."""
        if self.k is not None and self._head_is_enough():
            lists = lists.head(self.k)  # same values, computed on the first k rows only
        values = np.asarray(self.per_user(lists), dtype=np.float64)
        if values.shape != (lists.n_users,):
            raise TypeError(f"{type(self).__name__}.per_user returned shape {values.shape}, expected "
                            f"({lists.n_users},): one value per user")
        if self.needs_relevant:
            values = np.where(lists.n_relevant > 0, values, self._undefined())
        return values

    def _head_is_enough(self) -> bool:
        """Whether ``per_user`` reads nothing beyond position ``k`` (built-in metrics opt in)."""
        return False

    def _undefined(self) -> float:
        return np.nan if self.no_relevant == "nan" else 0.0

    @abc.abstractmethod
    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        """One float per user (NaN when undefined), aligned with ``lists.user_ids``.

        Write it with whole-array numpy over all users at once (``lists.segment_sum``,
        ``lists.segment_cumsum``, ``lists.segment_first``); ``lists`` is never cut at
        ``k``, apply ``lists.position <= self.k`` yourself.
        """

    # ------------------------------------------------------------------ helpers for subclasses
    def _in_cutoff(self, lists: RankedLists) -> NDArray[np.bool_] | None:
        """Rows within the first ``k`` positions, or None when there is no cutoff."""
        return None if self.k is None else lists.position <= self.k


def _recording_explicit(init: Any) -> Any:
    """Wrap ``__init__`` to remember which parameters the caller passed (outermost call only),
    so that a convention never overrides a choice the caller made."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def wrapped(self: RankingMetric, *args: Any, **kwargs: Any) -> None:
        if "_explicit" not in self.__dict__:
            bound = signature.bind(self, *args, **kwargs)
            self._explicit = frozenset(k for k in bound.arguments if k != "self")
        init(self, *args, **kwargs)

    return wrapped


RankingMetric.__init__ = _recording_explicit(RankingMetric.__init__)  # type: ignore[method-assign]


def _nanmean(values: NDArray[np.float64]) -> float:
    """Mean of the non-NaN values, rounded once from the exact mean (:mod:`rankeval._exact`):
    the users' order (that of their first rows in ``pred``) cannot move the last bit."""
    return exact_mean(values)
