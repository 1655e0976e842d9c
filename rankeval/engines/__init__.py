"""Engines that run an evaluation plan's metrics over every split's users: in memory
(:class:`LocalEngine`, the pandas engine) or on a Spark cluster (:class:`SparkEngine`,
buckets of users each run by the pandas engine). Every engine follows :class:`Engine`;
:func:`engine_for` picks one from the kind of the frames."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..data.internal import is_spark_frame
from ._engine import Engine, EngineRun
from ._local import LocalEngine
from ._plan import EvalPlan
from ._spark_engine import SparkEngine

__all__ = ["is_spark_frame", "Engine", "EngineRun", "EvalPlan", "LocalEngine", "SparkEngine", "engine_for"]


def engine_for(plan: EvalPlan, preds: Sequence[Any] | None = None) -> Engine:
    """The engine of ``plan`` and its lists ``preds``: Spark when any list or truth frame is a
    Spark DataFrame, else the local engine (which validates and joins every split now)."""
    if preds is not None and any(is_spark_frame(df) for df in [*preds, *plan.truths]):
        return SparkEngine(plan, preds)
    return LocalEngine(plan, preds)
