"""The local engine: every split of a plan validated and joined once in memory (a
:class:`~rankeval.Split`), then every metric run on it by the pandas engine."""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import Split
from ..data.internal import TruthCodes, is_spark_frame, same_id_dtype
from ..exceptions import MissingUsersWarning
from ..metrics.sampled import table_progress
from ..split.internal import catalog_findings
from ._checks import protocol_findings, warn_protocol
from ._engine import EngineRun
from ._pandas import evaluate_split, users_behind
from ._plan import EvalPlan

__all__ = ["LocalEngine", "shows_progress", "progress_bar", "PROGRESS_MIN_ROWS", "sharing_truth"]

#: inputs larger than this (pred rows over all splits) get a progress bar on a terminal
PROGRESS_MIN_ROWS = 2_000_000


def shows_progress(progress: bool | None, rows: int) -> bool:
    """Progress is shown when asked for (``progress=True``), or by default for inputs of
    more than ``rows`` rows on a terminal."""
    if progress is not None:
        return bool(progress)
    return rows > PROGRESS_MIN_ROWS and sys.stderr.isatty()


def progress_bar(progress: bool | None, rows: int, **options: Any) -> Any:
    """A tqdm bar when asked for (``progress=True``), or by default for large inputs on a terminal."""
    if not shows_progress(progress, rows):
        return None
    from .._progress import progress_bar as bar
    return bar(**options)


def sharing_truth(plan: EvalPlan, preds: Iterable[Sequence[Any]]) -> EvalPlan:
    """``plan`` with each split's truth ids hashed once for the lists of several systems
    (``preds``: each system's frames, one per split), when all of them run on the local engine;
    otherwise ``plan`` itself. Every system's splits are those of the truth frames, to the bit."""
    if plan.splits is not None or any(is_spark_frame(df) for frames in (plan.truths, *preds) for df in frames):
        return plan
    return dataclasses.replace(plan, truths=tuple(TruthCodes(truth, plan.columns) for truth in plan.truths))


class LocalEngine:
    """Runs a plan in memory: one :class:`~rankeval.Split` per split (validated and joined
    here, so bad input fails when the engine is made), every metric sharing its join.

    Parameters
    ----------
    plan : EvalPlan
        What to compute; its ``splits``, when there, are evaluated as they are.
    preds : list of DataFrame, optional
        One pandas frame of lists per split of the plan (not with ``plan.splits``).
    """

    def __init__(self, plan: EvalPlan, preds: Sequence[pd.DataFrame] | None = None) -> None:
        if plan.splits is not None:
            self._splits = list(plan.splits)
            return
        assert preds is not None
        self._splits = []
        bar = progress_bar(plan.progress, sum(len(p) for p in preds), total=len(preds),
                           desc="rankeval: validate + join", unit="split")
        try:
            for i, (pred, truth, name) in enumerate(zip(preds, plan.truths, plan.split_names)):
                try:
                    self._splits.append(Split(pred, truth, name=name, missing_users=plan.missing_users,
                                              side=plan.side(i), **plan.split_options))
                except ValueError as exc:
                    if len(preds) == 1:
                        raise
                    raise ValueError(f"split {name!r}: {exc}") from exc
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()

    def splits(self) -> list[Split]:
        """The validated splits, one join each."""
        return list(self._splits)

    def group_splits(self) -> list[Split]:
        """The splits :meth:`~rankeval.EvalModel.by_group` reads its groups from."""
        return self.splits()

    def check_protocol(self, plan: EvalPlan, checks: Sequence[str], stacklevel: int,
                       splits: Sequence[Split] | None = None) -> None:
        """Warn with the counts of the cheap ``checks`` on every split with ``train``."""
        warn_protocol(protocol_findings(self._splits if splits is None else splits, plan.split_names, checks),
                      stacklevel=stacklevel + 1)

    def run(self, plan: EvalPlan, user_id_list: Iterable[Any] | None = None, stacklevel: int = 1,
            stacked: bool = True) -> EngineRun:
        """Every metric of ``plan`` on every split (only ``user_id_list``'s users, when given);
        ``stacked=False``: the per-user values as one frame per split, indexed by user."""
        splits = self._restricted(user_id_list, stacklevel + 1) if user_id_list is not None else self.splits()
        self.check_protocol(plan, plan.protocol_checks, stacklevel + 1, splits)
        # listed items outside a catalog the caller gave: items that do not exist
        warn_protocol(catalog_findings(splits, plan.split_names), stacklevel=stacklevel + 1)
        bar = progress_bar(plan.progress, sum(len(s.pred) for s in splits), total=len(splits) * len(plan.metrics),
                           desc="rankeval: metrics", unit="metric")
        rows, frames, counts = [], [], {}
        try:
            for split, split_name in zip(splits, plan.split_names):
                # the sampled-candidate tables of a per-user n_items show their own bar, once they take a second
                with table_progress(plan.progress):
                    users, systems = evaluate_split(split, plan.metrics, bar)
                counts[split_name] = {n: int(c) for n, c in users.notna().sum().items()}
                counts[split_name].update(users_behind(plan.metrics, split.ranked_lists()))
                frames.append(users)
                rows.append(systems)
        finally:
            if bar is not None:
                bar.close()
        if not stacked:
            # ids of several splits made safe to concatenate (int64 beside uint64 ids never meet as float64);
            # system-level metrics (coverage, Gini, ...) have no per-user value
            indexes = same_id_dtype([f.index for f in frames])
            return EngineRun(rows=rows, counts=counts,
                             users=[frame[plan.per_user].set_axis(index) for frame, index in zip(frames, indexes)])
        return EngineRun(rows=rows, counts=counts, users=_stacked(frames, plan))

    def _restricted(self, user_id_list: Iterable[Any], stacklevel: int) -> list[Split]:
        wanted = pd.unique(pd.Series(list(user_id_list), dtype=object))
        restricted, found = [], set()
        for split in self.splits():
            c = split.columns
            keep_pred = _isin(split.pred[c.user], wanted)
            keep_truth = _isin(split.truth[c.truth_user], wanted)
            found.update(split.pred.loc[keep_pred, c.user].unique().tolist())
            found.update(split.truth.loc[keep_truth, c.truth_user].unique().tolist())
            pred, truth = split.pred[keep_pred], split.truth[keep_truth]
            if len(pred) == 0 or len(truth) == 0:
                raise ValueError(f"`user_id_list` leaves split {split.name!r} with no user to evaluate "
                                 f"({int(keep_pred.sum())} pred rows, {int(keep_truth.sum())} truth rows match)")
            restricted.append(Split(pred, truth, name=split.name, **c.as_options(), ties=split.ties,
                                    missing_users=split.missing_users, side=split.side))
        unknown = [u for u in wanted.tolist() if u not in found]
        if unknown:
            warnings.warn(MissingUsersWarning(
                f"{len(unknown)} id(s) of `user_id_list` appear in no split and are ignored, e.g. {unknown[:10]}"),
                stacklevel=stacklevel + 1)
        return restricted


def _stacked(frames: list[pd.DataFrame], plan: EvalPlan) -> pd.DataFrame:
    """The per-split frames of per-user values as one, indexed by (split, user)."""
    for frame, split_name in zip(frames, plan.split_names):
        frame.index = pd.MultiIndex.from_arrays([np.full(len(frame), split_name, dtype=object), frame.index],
                                                names=["split", frame.index.name])
    levels = same_id_dtype([f.index.levels[1] for f in frames])
    for frame, level in zip(frames, levels):
        frame.index = frame.index.set_levels(level, level=1, verify_integrity=False)
    # system-level metrics (coverage, Gini, ...) have no per-user value
    per_user = pd.concat(frames)[plan.per_user]
    per_user.attrs["convention"] = plan.convention
    return per_user


def _isin(column: pd.Series, wanted: Any) -> pd.Series:
    """``column.isin(wanted)``, also where ``wanted`` holds ids the column's dtype cannot
    hold (an int beyond int64, a str among Arrow integers): those simply match nothing."""
    try:
        return column.isin(wanted)
    except (OverflowError, TypeError, ValueError):  # pyarrow's ArrowInvalid/ArrowTypeError subclass these
        return column.astype(object).isin(wanted)
