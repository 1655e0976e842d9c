"""What every splitter does around its draw: its common options checked, the frame read, the plan run.

A splitter checks its own parameters, then hands them and its plan (a function from the
frame read as codes to a :class:`~._assemble.Plan`) to :func:`split_with`, which checks the
options every splitter takes, reads the frame (or hands it to Spark, which runs the plan
on every bucket of users), and announces and cuts the plan (:func:`~._assemble.finish`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..data.internal import is_spark_frame
from ._assemble import Plan, finish
from ._input import InteractionColumns, prepare
from ._rules import check_common
from ._splits import Splits

__all__ = ["Options", "split_with"]


@dataclass(frozen=True)
class Options:
    """The options every splitter takes, checked: ``min_interactions``, ``drop_cold_items``, the columns."""

    min_interactions: int
    drop_cold_items: bool
    columns: InteractionColumns

    @classmethod
    def check(cls, min_interactions: Any, drop_cold_items: Any, columns: InteractionColumns,
              by: str | None = None) -> Options:
        """The options checked (``by`` too, for a splitter that takes it)."""
        return cls(check_common(min_interactions, drop_cold_items, by), bool(drop_cold_items), columns)

    def params(self, method: str, **own: Any) -> dict[str, Any]:
        """``Splits.params``: the method, the splitter's own parameters (in order), then these options."""
        return {"method": method, **own, "min_interactions": self.min_interactions,
                "drop_cold_items": self.drop_cold_items, **self.columns.as_params()}


def split_with(frame: Any, method: str, plan: Callable[..., Plan], own: dict[str, Any], options: Options, *,
               need_time: bool) -> Splits:
    """A per-user splitter's run: ``plan(data, **own, min_interactions=...)`` on the frame read as codes
    (on Spark: on every bucket of users), announced and cut into ``Splits``.

    ``own``: the splitter's own parameters, checked, as ``plan`` takes them and in the order
    of ``Splits.params``.
    """
    params = options.params(method, **own)
    planner = partial(plan, **own, min_interactions=options.min_interactions)
    if is_spark_frame(frame):
        from ._spark_split import split_on_spark
        return split_on_spark(frame, params, planner, need_time=need_time)
    data = prepare(frame, options.columns, need_time=need_time)
    return finish(data, method, planner(data), params, drop_cold_items=options.drop_cold_items)
