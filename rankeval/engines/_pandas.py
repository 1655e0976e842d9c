"""The pandas engine: every metric on one split, sharing its join. The only engine with math;
the Spark engine runs this on each bucket of users."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..data import RankedLists, Split
from ..metrics import RankingMetric
from ..metrics.internal import SystemParts

__all__ = ["evaluate_split", "evaluate_split_with_parts", "users_behind"]


def evaluate_split(split: Split, metrics: Sequence[RankingMetric], progress_bar=None) -> tuple[pd.DataFrame, dict]:
    """Per-user values (index: user id, one column per metric) and the per-metric system values."""
    columns, systems = {}, {}
    for metric in metrics:
        if progress_bar is not None:
            progress_bar.set_postfix_str(f"{split.name} {metric}", refresh=False)
        result = metric.perform(split)
        columns[str(metric)] = result.users[str(metric)]
        systems[str(metric)] = result.system.iloc[0, 0]
        if progress_bar is not None:
            progress_bar.update()
    return pd.DataFrame(columns), systems


def evaluate_split_with_parts(split: Split, metrics: Sequence[RankingMetric]
                              ) -> tuple[pd.DataFrame, dict, dict[str, SystemParts | None]]:
    """:func:`evaluate_split` (single metrics: one column each), and each metric's system
    parts (:meth:`~rankeval.RankingMetric.system_parts`; None for a mean of users).

    An engine that evaluates the users of a split in buckets merges the buckets' parts
    (``+``, exact, :func:`~rankeval.metrics._parts.merge_parts`) and calls
    ``metric.system_value(merged.values())`` once on the driver.
    """
    columns, systems, parts = {}, {}, {}
    for metric in metrics:
        result, metric_parts = metric.perform_with_parts(split)
        columns[str(metric)] = result.users[str(metric)]
        systems[str(metric)] = result.system.iloc[0, 0]
        parts[str(metric)] = metric_parts
    return pd.DataFrame(columns), systems, parts


def users_behind(metrics: Sequence[RankingMetric], lists: RankedLists) -> dict[str, int]:
    """Per system-level metric, the users whose lists enter its value on ``lists``."""
    return {str(m): int(m.users_behind(lists)) for m in metrics if m.system_level}
