"""The one place an evaluation's arguments become an :class:`~rankeval.engines.EvalPlan`.

:class:`~rankeval.EvalModel`, :meth:`~rankeval.EvalModel.from_splits` and
:func:`~rankeval.compare` (and so the report and the CLI, which call them) read the
caller's metrics, convention, sampled-candidate design, split names, columns, side data,
train frames and baselines here, once.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..conventions import get_convention
from ..data import Columns, SideData, Split
from ..data.internal import (
    FRAME_KINDS,
    MISSING_USERS,
    TRUTH_ITEMS,
    MissingUsers,
    check_choice,
    check_metrics_side,
    is_frame,
    is_spark_frame,
    select_truth,
    sides_per_split,
    to_pandas,
)
from ..engines import EvalPlan
from ..metrics import RankingMetric
from ..metrics.sampled import DEFAULT_GAMMA, SampledCandidates, check_sampled_options, sampled_columns
from ._protocol import spark_trains, splits_as_truth

__all__ = ["build_plan", "plan_of_splits", "frames_per_split", "check_metrics", "check_split_names",
           "with_sampled"]

#: the column options a baseline system's lists are ordered with
_LIST_OPTIONS = ("user_col", "item_col", "score_col", "rank_col", "score_order", "ties")


def frames_per_split(frames: Any, what: str) -> list[Any]:
    """One frame per split; local kinds (polars, Arrow) become pandas once, Spark frames stay."""
    if is_frame(frames):
        frames = [frames]
    elif isinstance(frames, (str, bytes)) or not isinstance(frames, Iterable):
        raise TypeError(f"`{what}` must be a DataFrame or a list of DataFrames ({FRAME_KINDS}), "
                        f"got {type(frames).__name__}")
    frames = list(frames)
    for i, df in enumerate(frames):
        if not is_frame(df):
            raise TypeError(f"`{what}`[{i}] must be {FRAME_KINDS}, got {type(df).__name__}")
    return [df if is_spark_frame(df) else to_pandas(df, what) for df in frames]


def check_split_names(names: Sequence[str] | None, n: int) -> list[str]:
    """The names of ``n`` splits as strings (default ``fold1``, ...): distinct, and not ``"mean"``."""
    if names is None:
        return [f"fold{i + 1}" for i in range(n)]
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"`split_names` must be a list of names, one per split, got {type(names).__name__}")
    names = [str(x) for x in names]
    if len(names) != n:
        raise ValueError(f"`split_names` has {len(names)} names for {n} splits")
    if len(set(names)) != n or "mean" in names:
        raise ValueError(f"`split_names` must be distinct and not 'mean', got {names}")
    return names


def check_metrics(metric_list: Any, argument: str = "metric_list") -> list[RankingMetric]:
    """A non-empty list of metrics with unique names, metrics with several cutoffs expanded (one per cutoff)."""
    if isinstance(metric_list, RankingMetric):
        metric_list = [metric_list]
    if isinstance(metric_list, (str, bytes)) or not isinstance(metric_list, Iterable):
        hint = " (parse text with rankeval.parse_metric)" if isinstance(metric_list, str) else ""
        raise TypeError(f"`{argument}` must be a list of RankingMetric, got {type(metric_list).__name__}{hint}")
    metrics = list(metric_list)
    if not metrics:
        raise ValueError(f"`{argument}` is empty: pass at least one metric")
    for i, m in enumerate(metrics):
        if not isinstance(m, RankingMetric):
            raise TypeError(f"`{argument}`[{i}] must be a RankingMetric, got {type(m).__name__}")
    # NDCGAtK(k=[1, 5, 10]) is one column per cutoff, computed in one pass per split
    metrics = [one for m in metrics for one in m.expand()]
    names = [str(m) for m in metrics]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"`{argument}` has repeated metric names {repeated}; every metric needs its own "
                         f"column: pass name= to tell them apart, e.g. NDCGAtK(10, gains='exponential', "
                         f"name='NDCG@10-exp')")
    return metrics


def with_sampled(metrics: list[RankingMetric], sampled: SampledCandidates | None, estimator: str,
                 gamma: float | None = None) -> list[RankingMetric]:
    """Sampled-candidate lists: each metric as its corrected estimate and its naive value (``-naive``).

    ``gamma`` None is :data:`~rankeval.sampled.DEFAULT_GAMMA`; given, it needs ``sampled`` and
    the bias-variance estimator (the only one it weighs), else a ValueError.
    """
    estimator, checked = check_sampled_options(estimator, DEFAULT_GAMMA if gamma is None else gamma)
    if sampled is None:
        for given, option in ((estimator != "bias_variance", f"`estimator`={estimator!r}"),
                              (gamma is not None, f"`gamma`={gamma!r}")):
            if given:
                raise ValueError(f"{option} needs `sampled=`: pass the sampling design, "
                                 f"rankeval.sampled.SampledCandidates(n_items, n_negatives)")
        return metrics
    if gamma is not None and estimator != "bias_variance":
        raise ValueError(f"`gamma`={gamma!r} weighs the variance of the bias-variance estimator only; "
                         f"`estimator`={estimator!r} has no use for it: drop gamma or pass "
                         f"estimator='bias_variance'")
    return check_metrics(sampled_columns(metrics, sampled, estimator, checked))


def _convention_metrics(metric_list: Any, argument: str, convention: str | None, sampled: SampledCandidates | None,
                        estimator: str, gamma: float | None) -> tuple[list[RankingMetric], str]:
    """The metrics under the convention and the sampled design, and the convention's name."""
    metrics = check_metrics(metric_list, argument)
    if convention is not None:
        metrics = check_metrics([m.with_convention(convention) for m in metrics])
    name = "rankeval" if convention is None else get_convention(convention).name
    return with_sampled(metrics, sampled, estimator, gamma), name


def build_plan(truth: Any, metric_list: Any, *, systems: Mapping[str, Sequence[Any]] | None = None,
               metric_argument: str = "metric_list",
               truth_argument: str = "truth_list", split_names: Sequence[str] | None = None,
               missing_users: MissingUsers | None = None, convention: str | None = None, train: Any = None,
               catalog: Any = None, item_features: Any = None, side: Any = None, item_groups: Any = None,
               sampled: SampledCandidates | None = None, estimator: str = "bias_variance",
               gamma: float | None = None, progress: bool | None = None, n_buckets: int | None = None,
               split_options: Mapping[str, Any] | None = None, baseline: str | None = None) -> EvalPlan:
    """The plan of an evaluation from the caller's arguments (those of :class:`~rankeval.EvalModel`).

    ``truth`` may be a :class:`~rankeval.split.Splits` (its tests, trains and names are
    used); ``systems`` (compare's lists by system name) resolves the metrics whose
    ``baseline`` names a system (each must have one frame per truth frame; ``baseline``: compare's, the
    system a metric with no reference of its own compares with). A convention's tie rule and
    ``missing_users`` apply unless passed explicitly.
    """
    truth, train, split_names, options = splits_as_truth(truth, train, split_names, split_options or {})
    train, trains = spark_trains(train)
    truths = frames_per_split(truth, truth_argument)
    for name, frames in (systems or {}).items():
        if len(frames) != len(truths):
            raise ValueError(f"`systems['{name}']` has {len(frames)} split(s) but `{truth_argument}` has "
                             f"{len(truths)}: give every system one pred frame per truth frame")
    metrics, convention_name = _convention_metrics(metric_list, metric_argument, convention, sampled,
                                                   estimator, gamma)
    if convention is not None:
        # a peer's definitions: the split options follow the preset, except what the caller passed
        preset = get_convention(convention)
        options = {"ties": preset.ties, **options}
        if missing_users is None:
            missing_users = preset.missing_users  # type: ignore[assignment]
    names = check_split_names(split_names, len(truths))
    rule: MissingUsers = check_choice(  # type: ignore[assignment]
        "missing_users", "ignore" if missing_users is None else missing_users, MISSING_USERS)
    if any(is_spark_frame(x) for x in (train, catalog, item_features, item_groups)):
        raise ValueError("side data (train=, catalog=, item_features=) must be local frames (pandas, polars, "
                         "Arrow), also with Spark pred and truth: it is validated once on the driver and "
                         "shipped to every bucket; collect a Spark frame with .toPandas() first")
    named = Columns.from_options(options)  # train= comes with the truth's names
    sides: list[SideData | None] = sides_per_split(
        len(truths), train, catalog, item_features, side, user_col=named.truth_user, item_col=named.truth_item,
        score_col=named.truth_score, item_groups=item_groups)
    # a metric without its side data: one error naming the argument, before any list is read
    check_metrics_side(metrics, sides, names)
    if systems is not None:
        sides = _with_baselines(sides, metrics, systems, len(truths), options, baseline)
    return EvalPlan(metrics=tuple(metrics), split_names=tuple(names), missing_users=rule,
                    convention=convention_name, split_options=options, truths=tuple(truths),
                    sides=tuple(sides) if any(s is not None for s in sides) else None,
                    spark_trains=None if trains is None else tuple(trains), progress=progress,
                    n_buckets=n_buckets)


def plan_of_splits(splits: Split | Sequence[Split], metric_list: Any, *, progress: bool | None = None,
                   convention: str | None = None) -> EvalPlan:
    """The plan of already-built splits (:meth:`~rankeval.EvalModel.from_splits`): their names,
    columns, tie rule and ``missing_users`` are kept; ``convention`` converts the metrics."""
    splits = [splits] if isinstance(splits, Split) else list(splits)
    if not splits:
        raise ValueError("`splits` is empty: pass at least one Split")
    for i, s in enumerate(splits):
        if not isinstance(s, Split):
            raise TypeError(f"`splits`[{i}] must be a Split, got {type(s).__name__}")
    metrics, convention_name = _convention_metrics(metric_list, "metric_list", convention, None,
                                                   "bias_variance", None)
    names = check_split_names([s.name if s.name is not None else f"fold{i + 1}" for i, s in enumerate(splits)],
                              len(splits))
    check_metrics_side(metrics, [s.side for s in splits], names)
    return EvalPlan(metrics=tuple(metrics), split_names=tuple(names), missing_users=splits[0].missing_users,
                    convention=convention_name, split_options={}, progress=progress, splits=tuple(splits))


def _with_baselines(sides: list[SideData | None], metrics: list[RankingMetric],
                    systems: Mapping[str, Sequence[Any]], n_splits: int,
                    options: Mapping[str, Any], baseline: str | None) -> list[SideData | None]:
    """Each split's side data carrying the lists of the systems that metrics compare with
    (:meth:`~rankeval.RankingMetric.baseline_systems`: ``Unexpectedness(baseline="pop")`` reads
    system "pop"'s lists of the same split, ``RBO()`` the ``baseline`` system's), ordered by the
    metric (:meth:`~rankeval.RankingMetric.order_baseline`) with the systems' tie rule."""
    wanted: dict[Any, tuple[str, RankingMetric]] = {}
    for m in metrics:
        for key, system in m.baseline_systems(baseline).items():
            wanted.setdefault(key, (system, m))
    if not wanted:
        return sides
    unknown = [name for name, _ in wanted.values() if name not in systems]
    if unknown:
        raise ValueError(f"`baseline` {unknown[0]!r} of a metric is not among the systems {list(systems)}")
    columns = {k: options[k] for k in _LIST_OPTIONS if k in options}
    out: list[SideData | None] = []
    for i in range(n_splits):
        base = sides[i]
        side = copy.copy(base if base is not None else SideData())
        lists = {}
        for key, (name, metric) in wanted.items():
            frame, ties = systems[name][i], columns.get("ties", "row_order")
            if is_spark_frame(frame):  # no row order: score ties by item id, as the Spark engine breaks them
                frame, ties = frame.toPandas(), "item_id" if ties == "row_order" else ties
            lists[key] = metric.order_baseline(frame, what=f"systems['{name}']", **{**columns, "ties": ties})
        side.baselines = lists
        out.append(side)
    return out


def with_truth_items(plan: EvalPlan, preds: Any, truth_items: str) -> tuple[EvalPlan, Any]:
    """``truth_items`` applied to a plan and its lists: the truth (and the lists of users left
    without a truth row of the kind) restricted to the repeat or the new items of each split's
    train; with repeat items only, listing train items and test pairs in train are the point, so
    those checks are off.

    Parameters
    ----------
    plan : EvalPlan
        The plan built from the caller's arguments.
    preds : list of DataFrame or mapping of str to list of DataFrame
        One system's lists per split, or each system's.
    truth_items : {"all", "repeat", "explore"}
        The truth rows every metric is computed on.
    """
    if check_choice("truth_items", truth_items, TRUTH_ITEMS) == "all":
        return plan, preds
    trains = None if plan.spark_trains is None else list(plan.spark_trains)
    sides = None if plan.sides is None else list(plan.sides)
    truths, preds = select_truth(truth_items, list(plan.truths), preds, trains, sides, plan.columns)
    checks = ("cold",) if truth_items == "repeat" else plan.protocol_checks
    return dataclasses.replace(plan, truths=tuple(truths), protocol_checks=checks), preds
