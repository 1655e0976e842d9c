"""The numbers behind the page's figures: each ``<figure>`` carries them as a ``data-values``
attribute holding JSON, so that a reader (or a test) can check a figure against the API
without reading its pixels.

The attribute is text, escaped by the template like every other value: it runs nothing and
changes nothing that is drawn. Floats are written with ``repr`` (they read back to the same
double); NaN is ``null``. The layouts (docs/report.md lists them):

- curves: the bands' bootstrap settings and, per panel (stem), the cutoffs and per system
  the value, ``ci_low`` and ``ci_high`` at every cutoff, the arrays the figure plots;
- distributions: per metric and system the statistics matplotlib draws from the per-user
  values (count, mean, quartiles, whiskers, extremes), and for a comparison every tested
  difference with its CI;
- critical difference: read from the drawn diagram itself: each system's mean rank, the
  length of the CD bar and the groups the thick bars join.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..evaluation import ComparisonResult

__all__ = ["figure_json", "curve_panel", "distribution_values", "difference_values", "critical_difference_values"]


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python numbers and lists, NaN and infinities as None."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    return value


def figure_json(values: Mapping[str, Any]) -> str:
    """The ``data-values`` text of a figure: compact JSON, every float exact, NaN as ``null``."""
    return json.dumps(_plain(values), allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def curve_panel(stem: str, cols: Sequence[tuple[int, str]], lines: Iterable[tuple[str, NDArray[np.float64],
                                                                                   NDArray[np.float64],
                                                                                   NDArray[np.float64]]]
                ) -> dict[str, Any]:
    """One panel of the curves: its cutoffs and metrics, and per system the plotted (value, low, high)."""
    return {"stem": stem, "k": [k for k, _ in cols], "metrics": [name for _, name in cols],
            "lines": [{"system": system, "value": value, "ci_low": low, "ci_high": high}
                      for system, value, low, high in lines]}


def _summary(values: NDArray[np.float64], kind: str) -> dict[str, Any]:
    """The statistics of the values a box or a violin is drawn from, NaN values left out: count, mean,
    quartiles and extremes; for a box, its whiskers and outliers, matplotlib's own numbers."""
    from matplotlib import cbook

    data = values[~np.isnan(values)]
    out: dict[str, Any] = {"n": len(data)}
    if not len(data):
        return {**out, **dict.fromkeys(["mean", "median", "q1", "q3", "min", "max"])}
    stats = cbook.boxplot_stats(data)[0]  # the numbers Axes.boxplot draws (whiskers at 1.5 IQR)
    out.update(mean=stats["mean"], median=stats["med"], q1=stats["q1"], q3=stats["q3"], min=data.min(),
               max=data.max())
    if kind == "box":
        out.update(whislo=stats["whislo"], whishi=stats["whishi"], fliers=len(stats["fliers"]))
    return out


def distribution_values(units: pd.DataFrame, metrics: Sequence[str], systems: Sequence[str],
                        kind: str) -> dict[str, Any]:
    """The per-user distributions of ``metrics`` (one panel each), per system, as the figure draws them."""
    panels = [{"metric": metric, "systems": [
        {"system": system, **_summary(np.asarray(units[(metric, system)].to_numpy(), dtype=np.float64), kind)}
        for system in systems]} for metric in metrics]
    return {"figure": "distributions", "kind": kind, "panels": panels}


def difference_values(res: ComparisonResult, metrics: Sequence[str]) -> list[dict[str, Any]]:
    """Every tested difference b − a of ``metrics`` with its CI, as the figure's lower panels draw them."""
    level = res.table.index.get_level_values("metric")
    return [{"metric": metric, "a": a, "b": b, "diff": row["diff"], "ci_low": row["ci_low"],
             "ci_high": row["ci_high"], "significant": bool(row["significant"])}
            for (metric, a, b), row in res.table[level.isin(list(metrics))].iterrows()]


def critical_difference_values(ax: Any, metric: str, alpha: float) -> dict[str, Any]:
    """The numbers of a drawn critical-difference diagram, read from its artists (their ``gid``).

    A system's line starts at its mean rank and its label (``name (rank)``) is drawn in the
    same order; the scale bar runs from rank 1 to 1 + CD; a group's bar spans its members'
    ranks (0.04 beyond each end).
    """
    lines = {gid: [line for line in ax.lines if line.get_gid() == gid] for gid in ("cd-scale", "cd-system",
                                                                                    "cd-group")}
    labels = [text.get_text().rsplit(" (", 1)[0] for text in ax.texts if text.get_gid() == "cd-label"]
    ranks = {name: float(line.get_xdata()[0]) for name, line in zip(labels, lines["cd-system"])}
    scale = lines["cd-scale"][0].get_xdata()
    groups = []
    for bar in lines["cd-group"]:
        low, high = bar.get_xdata()
        groups.append([name for name, rank in ranks.items() if low <= rank <= high])
    return {"figure": "critical difference", "metric": metric, "alpha": alpha,
            "critical_difference": float(scale[1] - scale[0]), "mean_ranks": ranks, "groups": groups}
