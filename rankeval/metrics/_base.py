"""RankingMetric, the template every metric fills in, and MetricResult."""

from __future__ import annotations

import abc
import copy
import functools
import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._html import html_of
from ..conventions import apply_convention
from ..data.internal import check_choice, check_cutoff, check_cutoffs, check_threshold, exact_mean, same_id_dtype
from ._names import declared, register_class
from ._parts import SystemParts

if TYPE_CHECKING:
    from ..data import RankedLists, Split

__all__ = ["RankingMetric", "MetricResult", "NO_RELEVANT", "AVERAGES"]

NO_RELEVANT = ("nan", "zero")
#: how a system value is formed: the mean of the users' values, or pooled sums (micro)
AVERAGES = ("macro", "micro")


class MetricResult(NamedTuple):
    """Per-user values and system mean of one metric on one split.

    ``users`` is indexed by user id with one float column named ``str(metric)``;
    ``system`` has the single index ``"sys"`` and the same column: the mean over users
    with NaN users left out.
    """

    users: pd.DataFrame
    system: pd.DataFrame

    def _repr_html_(self) -> str | None:  # a notebook shows the system value and a summary of the users
        return html_of(self)


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

    Which base to subclass:

    | the metric | subclass | write |
    |---|---|---|
    | a value per user, system value = their mean | ``RankingMetric`` | ``per_user`` |
    | per-user counts, macro or micro average | :class:`~rankeval.PooledMetric` | ``counts``, ``from_counts`` |
    | a value per user from side data | :class:`~rankeval.SideMetric` | ``per_user``, ``needs_side`` |
    | a system value only (coverage, Gini) | :class:`~rankeval.SystemLevelMetric` | ``system_parts``, ``system_value`` |

    Everything an engine, ``EvalModel``, ``compare`` or the command line asks a metric is
    declared here, with its default: :attr:`names` (and :attr:`name_patterns`,
    :attr:`aliases`, :meth:`from_name`) for :func:`~rankeval.parse_metric`,
    :attr:`higher_is_better`, :attr:`system_level`, :attr:`needs_side`, :attr:`baseline`,
    :attr:`averages`, :attr:`system_is_user_mean`, :meth:`users_behind` and
    :attr:`explicit_params`. A class that declares ``names`` is registered under them when
    it is defined: a new metric is its module plus its name in its family's ``__init__``.

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
    #: the ``average`` a metric with that parameter has by default (not shown in ``str()``)
    default_average: ClassVar[str] = "macro"
    #: whether :meth:`system_value` depends only on ratios of the parts (so the parts may be
    #: scaled by a common power of two to keep their totals in the float range)
    system_parts_scale_free: ClassVar[bool] = False
    #: the metric is undefined (NaN, or 0 with ``no_relevant="zero"``) for users
    #: without a relevant truth item (an instance may set it: Novelty's EPC needs relevance)
    needs_relevant: bool = False
    #: the names :func:`~rankeval.parse_metric` builds this class from (``("NDCG",)``),
    #: registered when the class is defined; () (the default): no name (a metric needing
    #: an argument a name cannot give). Only names declared on the class itself count.
    names: ClassVar[tuple[str, ...]] = ()
    #: stems with a parameter in them: the form :func:`~rankeval.metric_names` shows -> a
    #: regular expression of the stems (``{"RBP": r"RBP(\.[0-9]+)?"}``); :meth:`from_name`
    #: reads the parameter from the stem
    name_patterns: ClassVar[Mapping[str, str]] = {}
    #: whether the names take ``@k``: "optional", "required", "forbidden", or None (the
    #: default): read from the constructor (no ``k``: forbidden; ``k`` without a default:
    #: required; else optional)
    name_cutoff: ClassVar[str | None] = None
    #: other tools' names of this metric (lower case), offered by "did you mean" for its
    #: first name, never accepted in its place
    aliases: ClassVar[tuple[str, ...]] = ()
    #: no per-user value: the system value comes from :meth:`system_parts` only, and the
    #: metric is left out of per-user results and of paired tests
    system_level: ClassVar[bool] = False
    #: side data the metric reads: any of "train", "catalog", "item_features",
    #: "item_groups" (an instance may narrow it: GiniIndex needs the catalog only with
    #: ``items="catalog"``); evaluating it without them is a ValueError naming the argument
    needs_side: tuple[str, ...] = ()
    #: the baseline system whose lists the metric reads (a frame, or inside
    #: :func:`~rankeval.compare` the name of another system); None: it reads none
    baseline: Any = None
    #: the ``average`` values the metric takes (``()``: none, its system value is fixed)
    averages: ClassVar[tuple[str, ...]] = ()
    #: how the system value is formed, one of :attr:`averages` (None without a choice)
    average: str | None = None
    # set on instances only, so that ``self.__dict__.get(...)`` tells whether they are there:
    #: the parameters the caller passed explicitly (set by the ``__init__`` wrapper)
    _explicit: frozenset[str]
    #: ``k=[1, 5, 10]``: the cutoffs of one metric computing them in one pass (None on its clones)
    cutoffs: tuple[int, ...] | None
    #: identifies a metric with ``cutoffs``' shared pass in a split's cache
    _token: object
    #: on each cutoff's clone (:meth:`_at`): the metric with ``cutoffs`` whose pass it reads
    _group: RankingMetric

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            # the type: ignore below: every subclass's __init__ records which arguments were passed explicitly
            cls.__init__ = _recording_explicit(cls.__dict__["__init__"])  # type: ignore[method-assign]
        if declared(cls):
            register_class(cls)

    @classmethod
    def from_name(cls, name: str, k: int | list[int] | None) -> RankingMetric:
        """The metric :func:`~rankeval.parse_metric` builds for one of :attr:`names`.

        The default is ``cls()`` without a cutoff and ``cls(k=k)`` with one; override it
        when a name sets another parameter (``EPC`` is ``Novelty(definition="epc")``).

        Parameters
        ----------
        name : str
            The stem as registered (one of :attr:`names`), or as typed for
            :attr:`name_patterns` (``"RBP.95"``).
        k : int or list of int, optional
            The cutoff after ``@`` (a list for ``@1,5,10``); None without one.
        """
        return cls() if k is None else cls(k=k)  # type: ignore[arg-type]  # a list: the cutoffs of one pass (the __init__ wrapper)

    @property
    def explicit_params(self) -> frozenset[str]:
        """The constructor parameters the caller passed explicitly (a convention or the
        command line's ``--threshold`` never overrides them)."""
        return self.__dict__.get("_explicit", frozenset())

    def users_behind(self, lists: RankedLists) -> int:
        """How many users' lists enter a :attr:`system_level` metric's value on ``lists``
        (every evaluated user by default); per-user metrics count their users with a value
        instead, so engines read it for system-level metrics only.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth.
        """
        return int(lists.n_users)

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
        cutoffs = self.__dict__.get("cutoffs")
        if cutoffs is not None:  # NDCG@1,5,10: one metric computing several cutoffs in one pass
            text = f"{self._stem_text()}@{','.join(str(k) for k in cutoffs)}"
        else:
            text = self._stem_text() if self.k is None else f"{self._stem_text()}@{self.k}"
        average = self.average
        if average is not None and average != self.default_average:
            text += f"-{average}"  # e.g. "P@10-micro": shown only when not the default
        return text

    def _stem_text(self) -> str:
        """The stem as written in ``str()`` (metrics with a parameter in their name override it)."""
        return self.stem

    def _params(self) -> dict[str, Any]:
        """Constructor parameters and their current values, in signature order."""
        signature = inspect.signature(type(self).__init__)
        params = {p.name: getattr(self, p.name, p.default) for p in signature.parameters.values()
                  if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        cutoffs = self.__dict__.get("cutoffs")
        if cutoffs is not None:
            params["k"] = list(cutoffs)
        return params

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={_param_repr(v)}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def with_convention(self, convention: str) -> RankingMetric:
        """A new metric following a peer's definitions (see :mod:`rankeval.conventions`).

        Parameters passed explicitly to this metric's constructor win over the preset; a
        metric the peer lacks raises ValueError naming the convention.

        Parameters
        ----------
        convention : str
            The peer's convention (one of :func:`rankeval.conventions.names`).
        """
        group = self.__dict__.get("_group")
        if group is not None:  # one cutoff of NDCG@1,5,10: convert the group once, keep the shared pass
            converted = group.__dict__.setdefault("_converted", {})
            if convention not in converted:
                converted[convention] = apply_convention(group, convention)
            return converted[convention]._at(self.k)
        return apply_convention(self, convention)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    # ------------------------------------------------------------------ template
    # ------------------------------------------------------------------ many cutoffs
    @property
    def columns(self) -> list[str]:
        """The result columns: ``[str(self)]``, or one per cutoff for ``k=[1, 5, 10]``."""
        return [str(m) for m in self.expand()]

    def expand(self) -> list[RankingMetric]:
        """One metric per cutoff for ``k=[...]`` (they share one pass over each split);
        ``[self]`` otherwise. EvalModel, compare and the CLI evaluate the expanded list."""
        cutoffs = self.__dict__.get("cutoffs")
        if cutoffs is None:
            return [self]
        return [self._at(k) for k in cutoffs]

    def _at(self, k: int) -> Self:
        """This metric at cutoff ``k``: a copy that, for a group, reads the group's shared pass."""
        clones = self.__dict__.setdefault("_clones", {})
        if k not in clones:
            clone = copy.copy(self)
            clone.__dict__.pop("_clones", None)
            clone.__dict__.pop("_converted", None)
            clone.k = k
            if self.__dict__.get("cutoffs") is not None:
                clone.cutoffs = None
                clone._group = self
                clone._explicit = self._explicit
            clones[k] = clone
        return clones[k]

    def per_user_at(self, lists: RankedLists, cutoffs: tuple[int, ...]) -> NDArray[np.float64]:
        """Values at several cutoffs, shape ``(n_users, len(cutoffs))``, before the
        ``no_relevant`` policy. The default calls :meth:`per_user` once per cutoff on the
        longest cutoff's rows; built-in metrics override it to share the work (the gains,
        discounts and ideal lists of every cutoff come from one pass).

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        cutoffs : tuple of int
            The cutoffs, one column each.
        """
        out = np.empty((lists.n_users, len(cutoffs)))
        for j, k in enumerate(cutoffs):
            out[:, j] = self._at(k).per_user(lists)
        return out

    def _values_at_cutoffs(self, lists: RankedLists) -> NDArray[np.float64]:
        """The group's values at every cutoff on ``lists`` (policies applied)."""
        cutoffs = self.cutoffs
        assert cutoffs is not None, "only a metric with several cutoffs computes them in one pass"
        view = lists.head(max(cutoffs)) if self._head_is_enough() else lists
        values = np.asarray(self.per_user_at(view, cutoffs), dtype=np.float64)
        if values.shape != (lists.n_users, len(cutoffs)):
            raise TypeError(f"{type(self).__name__}.per_user_at returned shape {values.shape}, expected "
                            f"({lists.n_users}, {len(cutoffs)}): one value per user and cutoff")
        if self.needs_relevant:
            values = np.where((lists.n_relevant > 0)[:, None], values, self._undefined())
        return values

    def baseline_systems(self, baseline: str | None) -> dict[Any, str]:
        """The systems of :func:`~rankeval.compare` whose lists the metric compares with: the key
        it finds each under in the split's side data -> that system's name.

        Parameters
        ----------
        baseline : str or None
            ``compare``'s baseline system.

        Returns
        -------
        dict
            ``{name: name}`` when :attr:`baseline` names a system, else empty.
        """
        return {self.baseline: self.baseline} if isinstance(self.baseline, str) else {}

    def order_baseline(self, frame: pd.DataFrame, what: str, **columns: Any) -> Any:
        """A system's lists as this metric reads them when its :attr:`baseline` names that system.

        Parameters
        ----------
        frame : DataFrame
            The baseline system's lists of one split.
        what : str
            How errors name the frame (e.g. ``systems['pop']``).
        **columns
            The lists' column options (``user_col``, ``item_col``, ``score_col``,
            ``rank_col``, ``score_order``).

        Returns
        -------
        object
            The frame itself, unless the metric compares lists.
        """
        return frame

    def perform(self, split: Split) -> MetricResult:
        """Evaluate every user of ``split``: per-user values and the system value (by default
        the NaN-excluding mean of the users' values; see :meth:`system_parts`). A metric
        with several cutoffs gives one column per cutoff.

        Parameters
        ----------
        split : Split
            The split to evaluate.
        """
        if self.__dict__.get("cutoffs") is not None:
            results = [m.perform(split) for m in self.expand()]
            return MetricResult(pd.concat([r.users for r in results], axis=1),
                                pd.concat([r.system for r in results], axis=1))
        return self.perform_with_parts(split)[0]

    def perform_with_parts(self, split: Split) -> tuple[MetricResult, SystemParts | None]:
        """:meth:`perform`, and the exact sums of :meth:`system_parts` (None for a mean of users).

        Engines that cut the users into buckets (Spark) merge the buckets' parts with ``+``,
        exactly, and call :meth:`system_value` once on the merge.

        Parameters
        ----------
        split : Split
            The split to evaluate.
        """
        lists = split.ranked_lists().for_threshold(self.relevant_threshold)
        values = self.compute(lists)
        raw = self.system_parts(lists, values)
        parts = None if raw is None else SystemParts.of(raw, type(self).__name__)
        col = str(self)
        index = lists.user_index(split.columns.user)
        if split.missing_users == "zero" and len(lists.missing_user_ids):
            # trec_eval -c: a user with ratings but no list scores 0 on every metric
            listed, missing = same_id_dtype([index, pd.Index(lists.missing_user_ids, name=split.columns.user)])
            index = listed.append(missing)
            values = np.concatenate([values, np.zeros(len(lists.missing_user_ids))])
        users = pd.DataFrame({col: values}, index=index)
        system = _nanmean(values) if parts is None else self.system_value_of(parts)
        return MetricResult(users, pd.DataFrame({col: [float(system)]}, index=pd.Index(["sys"]))), parts

    # ------------------------------------------------------------------ system value hook
    def system_parts(self, lists: RankedLists,
                     values: NDArray[np.float64]) -> dict[str, NDArray[np.float64] | pd.Series] | None:
        """Additive parts of the system value, or None (the default): the system value is
        then the exact NaN-excluding mean of the users' values.

        Override it (with :meth:`system_value`) for a system value that is not a mean of
        users: a micro average (pooled counts), a sum, a coverage over items. Return a
        dict of parts computed from ``lists`` and the users' ``values`` (policies
        applied, aligned with ``lists.user_ids``):

        - a 1-D float array is summed exactly into one number (NaN entries left out);
        - a ``pd.Series`` indexed by a key (e.g. item id -> number of lists holding it)
          holds integer counts, summed per key;
        - a ``KeyedSums`` (a key per float value; the built-in metrics' own, not public)
          is summed exactly per key.

        Parts add over any partition of the users: each Spark bucket computes its own and
        the driver merges them exactly before calling :meth:`system_value`, so the value
        never depends on the bucketing. Users the split scores 0 because they have no list
        (``missing_users="zero"``) add nothing to the parts.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        values : ndarray of float64
            The users' values, as :meth:`compute` returned them.
        """
        return None

    def system_value_of(self, parts: SystemParts) -> float:
        """:meth:`system_value` of merged ``parts`` (scaled into the float range when the
        metric says its value depends only on their ratios, :attr:`system_parts_scale_free`).

        Parameters
        ----------
        parts : SystemParts
            The merged exact sums of :meth:`system_parts` (of one split, or of its buckets).
        """
        return self.system_value(parts.values(scale_free=self.system_parts_scale_free))

    def system_value(self, parts: dict[str, float | pd.Series]) -> float:
        """The system value from the merged parts of :meth:`system_parts`: each array part
        as its exact total rounded once to a float, each keyed part as per-key totals.

        Parameters
        ----------
        parts : dict of str to float or Series
            The parts of :meth:`system_parts`, each summed over every user of the split.
        """
        raise NotImplementedError(f"{type(self).__name__} returns system_parts, so it must implement system_value")

    @property
    def system_is_user_mean(self) -> bool:
        """Whether the system value is the mean of the users' values (what :func:`~rankeval.compare`
        can pair per user); False for a micro average, a sum or a value over items."""
        return type(self).system_parts is RankingMetric.system_parts

    def compute(self, lists: RankedLists) -> NDArray[np.float64]:
        """Per-user values on ``lists`` (one per user, in ``lists.user_ids`` order), policies applied.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        """
        group = self.__dict__.get("_group")
        if group is not None:  # one cutoff of a group: every cutoff comes from one shared pass
            cache = lists.rows_cache
            key = ("cutoffs", group._token, lists.relevant_threshold)
            if key not in cache:
                cache[key] = group._values_at_cutoffs(lists)
            return cache[key][:, group.cutoffs.index(self.k)]
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

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
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
        cutoffs = None
        if "_explicit" not in self.__dict__:
            bound = signature.bind(self, *args, **kwargs)
            self._explicit = frozenset(k for k in bound.arguments if k != "self")
            k = bound.arguments.get("k")
            if isinstance(k, (list, tuple, range, np.ndarray)):  # NDCGAtK(k=[1, 5, 10])
                cutoffs = check_cutoffs(k)
                bound.arguments["k"] = max(cutoffs)
                args, kwargs = bound.args[1:], bound.kwargs
        init(self, *args, **kwargs)
        if cutoffs is not None:
            if self.name is not None:
                raise ValueError(f"`name` cannot name the {len(cutoffs)} columns of k={list(cutoffs)}: "
                                 f"drop name= or give one metric per cutoff")
            self.cutoffs = cutoffs
            self._token = object()  # identifies this group's shared pass in a split's cache

    return wrapped


# the type: ignore below: the base __init__ records which arguments were passed explicitly
RankingMetric.__init__ = _recording_explicit(RankingMetric.__init__)  # type: ignore[method-assign]


def _nanmean(values: NDArray[np.float64]) -> float:
    """Mean of the non-NaN values, rounded once from the exact mean (:mod:`rankeval._exact`):
    the users' order (that of their first rows in ``pred``) cannot move the last bit."""
    return exact_mean(values)
