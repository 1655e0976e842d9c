"""The Spark engine of a plan: each split's lists and truth stay on the cluster, cut into
buckets of users that the pandas engine evaluates (:mod:`rankeval.engines._spark`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ..data import COLUMN_OPTIONS, Split
from ..data.internal import SCORE_ORDERS, TIES, check_choice, is_spark_frame
from ..exceptions import MissingUsersWarning
from ._checks import spark_findings, warn_protocol
from ._engine import EngineRun
from ._plan import EvalPlan

__all__ = ["SparkEngine"]


class SparkEngine:
    """Runs a plan on Spark frames: validated and joined bucket by bucket on the cluster,
    when :meth:`run` is called.

    Parameters
    ----------
    plan : EvalPlan
        What to compute; its truth frames (Spark, or local frames sent to Spark).
    preds : list of DataFrame
        One frame of lists per split of the plan.
    """

    def __init__(self, plan: EvalPlan, preds: Sequence[Any]) -> None:
        unknown = set(plan.split_options) - {*COLUMN_OPTIONS, "ties"}
        if unknown:
            raise TypeError(f"EvalModel got unexpected keyword argument(s) {sorted(unknown)}")
        check_choice("ties", plan.split_options.get("ties", "row_order"), TIES)
        check_choice("score_order", plan.columns.score_order, SCORE_ORDERS)
        self._frames = list(zip(preds, plan.truths))

    def splits(self) -> list[Split]:
        """None in memory: the splits are joined on the cluster."""
        return []

    def group_splits(self) -> list[Split]:
        raise ValueError("by_group is not yet supported on the Spark engine")

    def check_protocol(self, plan: EvalPlan, checks: Sequence[str], stacklevel: int) -> None:
        """The cheap checks of a Splits made on Spark: its trains against every split's frames."""
        if plan.spark_trains is not None:
            warn_protocol(spark_findings(plan.spark_trains, self._frames, plan.split_names, checks, plan.columns),
                          stacklevel=stacklevel + 1)

    def run(self, plan: EvalPlan, user_id_list: Iterable[Any] | None = None, stacklevel: int = 1,
            stacked: bool = True) -> EngineRun:
        """Every metric on every split, one Spark job per split (only ``user_id_list``'s users, when
        given); ``stacked=False``: the per-user values collected, one pandas frame per split."""
        from ._spark import evaluate_spark_split, resolve_side

        columns = plan.columns
        self.check_protocol(plan, plan.protocol_checks, stacklevel + 1)
        # the default catalog comes from the whole truth of a split, also when users are restricted
        sides = [resolve_side(plan.side(i), truth, columns.truth_item) for i, (_, truth) in enumerate(self._frames)]
        frames = self._frames if user_id_list is None else self._restricted(columns, user_id_list, stacklevel + 1)
        bar = None
        if plan.progress:
            from .._progress import progress_bar
            bar = progress_bar(total=len(frames), desc="rankeval (spark)", unit="split")
        users_frames, rows, counts = [], [], {}
        try:
            for i, ((pred, truth), split_name) in enumerate(zip(frames, plan.split_names)):
                users, system, counts[split_name] = evaluate_spark_split(
                    pred, truth, plan.metrics, split_name=split_name, missing_users=plan.missing_users,
                    columns=columns, ties=plan.split_options.get("ties", "row_order"), n_buckets=plan.n_buckets,
                    side=sides[i])
                users_frames.append(users)
                rows.append(system)
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()
        users_result = users_frames[0]
        for more in users_frames[1:]:
            users_result = users_result.unionByName(more)
        if not stacked:
            return EngineRun(rows=rows, counts=counts, users=_per_split(users_result, plan))
        return EngineRun(rows=rows, counts=counts, users=users_result)

    def _restricted(self, columns: Any, user_id_list: Iterable[Any], stacklevel: int) -> list[tuple[Any, Any]]:
        wanted = pd.unique(pd.Series(list(user_id_list), dtype=object)).tolist()
        frames = [(_keep_users(p, columns.user, wanted), _keep_users(t, columns.truth_user, wanted))
                  for p, t in self._frames]
        found: set[Any] = set()
        for pred, truth in frames:
            found.update(_distinct_users(pred, columns.user))
            found.update(_distinct_users(truth, columns.truth_user))
        unknown = [u for u in wanted if u not in found]
        if unknown:
            warnings.warn(MissingUsersWarning(
                f"{len(unknown)} id(s) of `user_id_list` appear in no split and are ignored, e.g. "
                f"{unknown[:10]}"), stacklevel=stacklevel + 1)
        return frames


def _per_split(users: Any, plan: EvalPlan) -> list[pd.DataFrame | None]:
    """The Spark per-user frame collected: one frame per split indexed by user (None: no user)."""
    from ._spark import collect

    local = collect(users).set_index(["split", plan.columns.user])
    labels = local.index.get_level_values("split")
    return [local.xs(name, level="split") if name in labels else None for name in plan.split_names]


def _keep_users(df: Any, user_col: str, wanted: list[Any]) -> Any:
    if is_spark_frame(df):
        return df.filter(df[user_col].isin(wanted))
    return df[df[user_col].isin(wanted)]


def _distinct_users(df: Any, user_col: str) -> list[Any]:
    if is_spark_frame(df):
        return [row[0] for row in df.select(user_col).distinct().collect()]
    return df[user_col].unique().tolist()
