"""The pandas engine: every metric on one split, sharing its join. The only engine with math;
the Spark engine runs this on each bucket of users."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..data import Split
from ..metrics import RankingMetric

__all__ = ["evaluate_split"]


def evaluate_split(split: Split, metrics: Sequence[RankingMetric], progress_bar=None) -> tuple[pd.DataFrame, dict]:
    """Per-user values (index: user id, one column per metric) and the per-metric system means."""
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
