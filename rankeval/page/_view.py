"""What the page shows: :class:`View`, read from a comparison or from one system's evaluation."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import is_spark_frame, to_pandas
from ..evaluation import ComparisonResult

if TYPE_CHECKING:
    from ..evaluation import EvalModel
    from ..metrics import RankingMetric

__all__ = ["View", "from_comparison", "from_evaluation", "truth_user_counts", "view_of"]


@dataclass
class View:
    """Everything the page needs, from a comparison or from one system's evaluation."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]          # metrics with per-user values
    units: pd.DataFrame               # split, user_id, then (metric, system)
    split_names: list[str]
    higher: dict[str, bool]
    convention: str
    comparison: ComparisonResult | None = None
    sys_result: pd.DataFrame | None = None
    metric_objects: list[RankingMetric] | None = None
    ties: str | None = None
    score_order: str | None = None
    missing_users: str | None = None
    user_counts: dict[tuple[str, str], tuple[int, int]] | None = None  # (split, system) -> (truth, missing)
    call_settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    audits: list[tuple[str, Any]] | None = None  # (split name, rankeval.split.Audit) when train is known

    def values(self, metric: str, system: str) -> NDArray[np.float64]:
        return np.asarray(self.units[(metric, system)].to_numpy(), dtype=np.float64)

    def center(self) -> pd.DataFrame:
        """The value each curve shows: the table's number (pooled mean, or mean of split means)."""
        if self.comparison is not None:
            return self.comparison.system_means()
        assert self.sys_result is not None
        mean = self.sys_result.loc["mean"]
        return pd.DataFrame({m: [float(mean[m])] for m in self.metrics}, index=pd.Index(self.systems, name="system"))


def from_comparison(res: ComparisonResult) -> View:
    """The view of a comparison; the metric objects, ties and user counts are filled in by the caller."""
    splits = [str(s) for s in pd.unique(res.units[("split", "")])] if len(res.units) else []
    return View(systems=tuple(res.systems), metrics=tuple(res.metrics), units=res.units, split_names=splits,
                higher={m: bool(res.higher_is_better.get(m, True)) for m in res.metrics},
                convention=res.convention, comparison=res)


def from_evaluation(sys_result: pd.DataFrame, users_result: pd.DataFrame, name: str,
                    model: EvalModel | None) -> View:
    """The view of one system's evaluation: ``EvalModel.fit()``'s frames, and the model when there is one
    (its metrics, tie rule, missing-user rule and users per split go to the metric card)."""
    if not isinstance(users_result, pd.DataFrame) or not isinstance(sys_result, pd.DataFrame):
        raise TypeError("an evaluation must be an EvalModel or its fit() result (sys_result, users_result), "
                        f"got ({type(sys_result).__name__}, {type(users_result).__name__})")
    if users_result.index.nlevels != 2 or "mean" not in sys_result.index:
        raise ValueError("`result` must be EvalModel.fit()'s (sys_result, users_result): a per-split system "
                         "table with a 'mean' row and per-user values indexed by (split, user_id)")
    metrics = [str(c) for c in users_result.columns]
    units = pd.DataFrame({("split", ""): users_result.index.get_level_values(0).astype(object),
                          ("user_id", ""): users_result.index.get_level_values(1)})
    for m in metrics:
        units[(m, name)] = users_result[m].to_numpy(dtype=np.float64)
    units.columns = pd.MultiIndex.from_tuples(units.columns)
    objects = list(model.metrics) if model is not None else None
    higher = {str(m): bool(m.higher_is_better) for m in objects} if objects else {}
    view = View(systems=(name,), metrics=tuple(metrics), units=units,
                split_names=[str(s) for s in sys_result.index if s != "mean"],
                higher={m: higher.get(m, True) for m in metrics},
                convention=str(sys_result.attrs.get("convention", "rankeval")), sys_result=sys_result,
                metric_objects=objects)
    if model is not None:
        splits = model.splits()
        view.ties = splits[0].ties if splits else None
        view.score_order = splits[0].columns.score_order if splits else None
        view.missing_users = splits[0].missing_users if splits else None
        view.user_counts = {}
        for label, split in zip(model.split_names, splits):
            lists = split.ranked_lists()
            missing = len(lists.missing_user_ids)
            view.user_counts[(str(label), name)] = (int(lists.n_users) + missing, missing)
    return view


def truth_user_counts(systems: Mapping[str, Any], truth: Any, names: list[str], user_col: str,
                      truth_user_col: str | None = None) -> dict[tuple[str, str], tuple[int, int]] | None:
    """Truth users and truth users without a list, per (split, system); None for Spark inputs.
    ``truth_user_col``: the truth's user column, when not ``user_col``."""
    truths = truth if isinstance(truth, (list, tuple)) else [truth]
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for s, (label, t) in enumerate(zip(names, truths)):
        if is_spark_frame(t):
            return None
        truth_users = pd.Index(to_pandas(t, "truth")[truth_user_col or user_col]).unique()
        for system, frames in systems.items():
            frame = frames if not isinstance(frames, (list, tuple)) else frames[s]
            if is_spark_frame(frame):
                return None
            listed = truth_users.isin(pd.Index(to_pandas(frame, "pred")[user_col]).unique())
            out[(label, str(system))] = (len(truth_users), int((~listed).sum()))
    return out


def view_of(result: Any, metrics: Sequence[RankingMetric] | None, system_name: str,
            eval_model: type[EvalModel]) -> View:
    """The view of a finished ``result``: a ComparisonResult, an EvalModel (fitted here if it was
    not) or ``EvalModel.fit()``'s frames; ``metrics``, when given, must be the comparison's."""
    if isinstance(result, ComparisonResult):
        view = from_comparison(result)
        if metrics is not None:
            objects = [e for m in metrics for e in m.expand()]
            missing = [m for m in view.metrics if m not in {str(o) for o in objects}]
            if missing:
                raise ValueError(f"`metrics` must be the metrics of the comparison: {missing} are in the result but "
                                 f"not in `metrics`")
            if view.convention != "rankeval":
                objects = [m.with_convention(view.convention) for m in objects]
            view.metric_objects = objects
        if not view.metrics:
            raise ValueError(f"nothing to report per user: every metric of this comparison is listed per system "
                             f"without a test ({list(result.system_values.columns)})")
        return view
    if isinstance(result, eval_model):
        fitted = result._fitted if result._fitted is not None else result.fit()
        if not isinstance(fitted[1], pd.DataFrame):
            raise ValueError("report() needs local per-user values: EvalModel on Spark inputs is not supported; "
                             "collect the frames with toPandas() first")
        return from_evaluation(fitted[0], fitted[1], str(system_name), result)
    if isinstance(result, tuple) and len(result) == 2:
        return from_evaluation(result[0], result[1], str(system_name), None)
    raise TypeError(f"`result` must be a ComparisonResult, an EvalModel or EvalModel.fit()'s (sys_result, "
                    f"users_result), got {type(result).__name__}")
