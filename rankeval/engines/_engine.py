"""The engine protocol: what :class:`~rankeval.EvalModel` and :func:`~rankeval.compare` ask
of an engine, whatever runs the metrics (in memory, or on a Spark cluster)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..data import Split
from ._plan import EvalPlan

__all__ = ["Engine", "EngineRun"]


@dataclass(frozen=True)
class EngineRun:
    """What an engine's :meth:`~Engine.run` found.

    Attributes
    ----------
    rows : list of dict
        Per split, in order: metric name -> its system value on the split.
    counts : dict
        Per split name: metric name -> the users behind its value.
    users : DataFrame or list of DataFrame
        The per-user values: a pandas frame indexed by (split, user), or the Spark
        engine's Spark frame with columns ``split``, the user column and one per metric;
        unstacked, one pandas frame per split indexed by user.
    """

    rows: list[dict[str, float]]
    counts: dict[str, dict[str, int]]
    users: Any


class Engine(Protocol):
    """An engine runs a plan's metrics over the users of every split of its lists.

    It is made from a plan and the lists (``Engine(plan, preds)``), which it validates then.
    ``stacklevel`` arguments say to which caller warnings point: 1 is the caller of the method.
    """

    def splits(self) -> list[Split]:
        """The splits held in memory (none for an engine that keeps them elsewhere)."""

    def group_splits(self) -> list[Split]:
        """The splits user groups are read from; a ValueError when the engine cannot compare groups."""

    def check_protocol(self, plan: EvalPlan, checks: Sequence[str], stacklevel: int) -> None:
        """Warn (:class:`~rankeval.ProtocolWarning`) with the counts of the cheap ``checks``."""

    def run(self, plan: EvalPlan, user_id_list: Iterable[Any] | None = None, stacklevel: int = 1,
            stacked: bool = True) -> EngineRun:
        """Every metric on every split (only ``user_id_list``'s users, when given), after
        the cheap checks ``plan.protocol_checks``. ``stacked=False``: :attr:`EngineRun.users`
        is a list with one pandas frame per split (indexed by user; None for a split without
        users), for :func:`~rankeval.compare`."""
