"""The evaluation plan: everything an evaluation needs except the recommendation lists.

One plan is built from the caller's arguments (:func:`rankeval.evaluation.build_plan`) and
read by every engine; :func:`~rankeval.compare` runs one plan for all its systems, so the
truth, the side data and the baselines are checked once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..data import Columns, SideData, Split
from ..data.internal import MissingUsers
from ..metrics import RankingMetric

__all__ = ["EvalPlan", "FULL_CHECKS", "SPLIT_CHECKS", "LIST_CHECKS"]

#: every cheap protocol check: lists against train, then test against train
FULL_CHECKS = ("seen", "overlap", "cold")
#: the checks of a split's truth against its train (the same for every system's lists)
SPLIT_CHECKS = ("overlap", "cold")
#: the check of a system's lists against train
LIST_CHECKS = ("seen",)


@dataclass(frozen=True, eq=False)
class EvalPlan:
    """What to compute and on which truth, ready for an engine.

    Attributes
    ----------
    metrics : tuple of RankingMetric
        The metrics after the convention and the sampled-candidate design, one per column
        (cutoff lists expanded), names unique.
    split_names : tuple of str
        One name per split.
    missing_users : {"ignore", "zero", "error"}
        The rule for truth users without recommendations.
    convention : str
        The name of the convention in force (``"rankeval"`` without one).
    split_options : Mapping
        Options of every :class:`~rankeval.Split` (columns, ``score_order``, ``ties``).
    truths : tuple
        One truth frame per split: pandas (or its ids hashed once for several systems' lists,
        ``rankeval.data.internal.TruthCodes``, see ``sharing_truth``), or Spark frames for
        the Spark engine; empty when the plan was made from built splits (``splits``).
    sides : tuple of SideData or None, optional
        The validated side data of every split (None: no side data at all).
    spark_trains : tuple, optional
        The train frames of a Splits object made on Spark (the cheap checks read them there).
    protocol_checks : tuple of str
        The cheap checks an engine runs on the lists it evaluates (keys ``seen``,
        ``overlap``, ``cold``).
    progress : bool, optional
        Progress bars: True, False, or None (on a terminal, for large inputs).
    n_buckets : int, optional
        The Spark engine's buckets of users per split.
    splits : tuple of Split, optional
        Splits the caller built (:meth:`~rankeval.EvalModel.from_splits`), evaluated as they are.
    """

    metrics: tuple[RankingMetric, ...]
    split_names: tuple[str, ...]
    missing_users: MissingUsers
    convention: str
    split_options: Mapping[str, Any]
    truths: tuple[Any, ...] = ()
    sides: tuple[SideData | None, ...] | None = None
    spark_trains: tuple[Any, ...] | None = None
    protocol_checks: tuple[str, ...] = FULL_CHECKS
    progress: bool | None = None
    n_buckets: int | None = None
    splits: tuple[Split, ...] | None = None

    @property
    def columns(self) -> Columns:
        """The column names of the split options."""
        return Columns.from_options(self.split_options)

    @property
    def names(self) -> list[str]:
        """The metrics' column names, in order."""
        return [str(m) for m in self.metrics]

    @property
    def per_user(self) -> list[str]:
        """The metrics with a per-user value (system-level ones, such as coverage, have none)."""
        return [str(m) for m in self.metrics if not m.system_level]

    def side(self, i: int) -> SideData | None:
        """The side data of split ``i`` (None: none)."""
        return None if self.sides is None else self.sides[i]
