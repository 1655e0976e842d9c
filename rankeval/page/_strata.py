"""The page's unbiased-evaluation parts: the metric card's line on the propensity model, and the
popularity strata section (a table of every system's values per stratum, and a figure of each
metric from the tail stratum to the head)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..metrics import RankingMetric
from ..metrics.unbiased import STRATA_ALL, STRATA_COMBINED, Unbiased
from ._figure_data import figure_json
from ._figures import COLORS, ImageFormat, embed, require_matplotlib
from ._tables import frame_table

__all__ = ["propensity_setting", "strata_frames", "strata_section"]


def propensity_setting(metrics: Sequence[RankingMetric] | None) -> dict[str, str]:
    """The metric card's line on the propensity models of the weighted metrics ({} without one)."""
    found = [m for m in metrics or [] if isinstance(m, Unbiased)]
    if not found:
        return {}
    models = list(dict.fromkeys(m.propensity.describe() for m in found))
    names = ", ".join(str(m) for m in found)
    return {"propensities": f"{'; '.join(models)}: {names} weigh each relevant held-out item by 1/propensity "
                            f"(IPS; SNIPS divided by the user's summed weights over n_u) (docs/unbiased.md)"}


def strata_frames(strata: Any) -> dict[str, pd.DataFrame]:
    """report()'s ``strata``: one frame of :func:`rankeval.unbiased.stratified` (one system), or a
    mapping system -> frame; a TypeError otherwise."""
    if strata is None:
        return {}
    if isinstance(strata, pd.DataFrame):
        strata = {"system": strata}
    if not isinstance(strata, Mapping) or not all(isinstance(v, pd.DataFrame) for v in strata.values()):
        raise TypeError(f"`strata` must be a DataFrame of rankeval.unbiased.stratified() or a mapping of system -> "
                        f"such frames, got {type(strata).__name__}")
    for name, frame in strata.items():
        if STRATA_ALL not in frame.index or STRATA_COMBINED not in frame.index or "size" not in frame.columns:
            raise ValueError(f"`strata`[{name!r}] is not a frame of rankeval.unbiased.stratified(): it needs the "
                             f"rows {STRATA_ALL!r} and {STRATA_COMBINED!r} and a 'size' column")
    return dict(strata)


def strata_section(strata: Mapping[str, pd.DataFrame], digits: int, image_format: ImageFormat) -> dict[str, Any]:
    """The section: one table (system, row) x metrics, and one panel per metric with a line per system."""
    table = pd.concat({system: frame for system, frame in strata.items()}, names=["system", "stratum"])
    metrics = [c for c in table.columns if c != "size"]
    _, Figure = require_matplotlib()
    fig = Figure(figsize=(4.0 * len(metrics) + 0.4, 3.2), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    values: dict[str, Any] = {"panels": []}
    for ax, metric in zip(axes, metrics):
        panel = {"metric": metric, "lines": []}
        for i, (system, frame) in enumerate(strata.items()):
            rows = [r for r in frame.index if r not in (STRATA_ALL, STRATA_COMBINED)]
            y = frame.loc[rows, metric].to_numpy(dtype=np.float64)
            ax.plot(range(len(rows)), y, marker="o", color=COLORS[i % len(COLORS)], label=str(system))
            ax.axhline(float(frame.loc[STRATA_COMBINED, metric]), color=COLORS[i % len(COLORS)], lw=0.8, ls="--")
            ax.set_xticks(range(len(rows)), rows)
            panel["lines"].append({"system": str(system), "strata": rows, "value": y,
                                   "combined": float(frame.loc[STRATA_COMBINED, metric])})
        ax.set_title(metric)
        ax.set_xlabel("stratum (Q1: least popular items)")
        values["panels"].append(panel)
    axes[0].legend(fontsize="small")
    figure = {"figure": embed(fig, image_format, "each metric per popularity stratum, per system"),
              "values": figure_json(values)}
    return {"id": "strata", "title": "Popularity strata", "tables": [("per stratum", frame_table(
        "strata", table, digits))], "figures": [figure],
        "note": "rankeval.unbiased.stratified(): the truth rows put into equal-width propensity strata (Q1 the "
                "least popular items), every metric on each stratum's rows alone; 'strata' is the sum of the "
                "strata values weighted by their share of the truth rows (dashed lines), 'all' the plain value "
                "(docs/unbiased.md)."}
