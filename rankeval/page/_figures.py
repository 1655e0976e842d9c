"""The figures of the page: metric@k curves with bootstrap bands, per-user distributions, and
the embedding of any figure in the HTML (inline SVG or a PNG ``data:`` URI). Each figure comes
with its values (``_figure_data``), which the page carries beside it."""

from __future__ import annotations

import base64
import dataclasses
import io
import math
import re
import sys
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..evaluation import ComparisonResult
from ..stats import bootstrap_mean_ci
from ._figure_data import curve_panel, difference_values, distribution_values
from ._view import View

__all__ = ["COLORS", "ImageFormat", "Kind", "require_matplotlib", "embed", "cutoff_groups", "curve_bands",
           "curves_figure", "evaluation_distribution", "comparison_distributions"]

ImageFormat = Literal["svg", "png"]
Kind = Literal["box", "violin"]

#: matplotlib's default colour cycle, the order :meth:`ComparisonResult.plot` gives the systems
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf"]
_CUTOFF = re.compile(r"^(?P<stem>.+)@(?P<k>\d+)$")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
#: metrics per figure of per-user distributions (wider figures become unreadable)
_PANELS = 4


def require_matplotlib() -> Any:
    """``(matplotlib, Figure)``, or an ImportError saying how to install them."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError("the report draws its figures with matplotlib, which is not installed: "
                          "pip install 'jinja2>=3.1' 'matplotlib>=3.8' (the report extra)") from exc
    return matplotlib, Figure


def embed(fig: Any, fmt: ImageFormat, alt: str) -> Any:
    """The figure as HTML: an inline ``<svg>`` or an ``<img>`` with a PNG data URI. Closes it."""
    import matplotlib
    from markupsafe import Markup, escape

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "rankeval-report", "svg.fonttype": "path"}):
        if fmt == "svg":
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        else:
            fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    _close(fig)
    if fmt == "png":
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        return Markup(f'<img class="figure" src="data:image/png;base64,{data}" alt="{escape(alt)}">')
    text = buffer.getvalue().decode("utf-8")
    text = text[text.index("<svg"):]  # no XML prolog or DOCTYPE inside HTML
    text = _METADATA.sub("", text, count=1)  # matplotlib's RDF block: namespace URLs, nothing to show
    return Markup(text.replace("<svg ", f'<svg class="figure" role="img" aria-label="{escape(alt)}" ', 1))


def _close(fig: Any) -> None:
    """Forget a figure pyplot may hold (those of rankeval.plot and rankeval.posthoc)."""
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(fig)


def cutoff_groups(metrics: Sequence[str]) -> dict[str, list[tuple[int, str]]]:
    """Metrics computed at several cutoffs, by stem: ``{"NDCG": [(1, "NDCG@1"), (5, "NDCG@5")]}``."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for name in metrics:
        match = _CUTOFF.match(name)
        if match:
            groups.setdefault(match["stem"], []).append((int(match["k"]), name))
    return {stem: sorted(cols) for stem, cols in groups.items() if len(cols) >= 2}


def curve_bands(view: View, groups: dict[str, list[tuple[int, str]]], n_bootstrap: int, confidence: float,
                seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every curve's point and band: the table's number (:meth:`View.center`) and the percentile
    bootstrap interval of it, with the settings that made the bands."""
    columns = [(name, system) for cols in groups.values() for _, name in cols for system in view.systems]
    matrix = np.column_stack([view.values(m, s) for m, s in columns])
    split_codes = pd.factorize(view.units[("split", "")])[0] if len(view.units) else np.zeros(0, dtype=np.int64)
    statistic: Literal["pooled", "group_mean"] = "pooled" if view.comparison is not None else "group_mean"
    low, high = bootstrap_mean_ci(matrix, split_codes, n_resamples=n_bootstrap, confidence=confidence, seed=seed,
                                  statistic=statistic)
    center = view.center()
    bands = pd.DataFrame({"metric": [m for m, _ in columns], "system": [s for _, s in columns],
                          "value": [float(center.loc[s, m]) for m, s in columns], "ci_low": low, "ci_high": high})
    settings = {"method": "percentile", "confidence": confidence, "n_resamples": n_bootstrap, "seed": seed,
                "statistic": statistic, "splits": [str(s) for s in pd.unique(view.units[("split", "")])]
                if len(view.units) else []}
    return bands, settings


def curves_figure(view: View, groups: dict[str, list[tuple[int, str]]], n_bootstrap: int, confidence: float,
                  seed: int) -> tuple[Any, dict[str, Any]]:
    """One panel per stem: the mean at every cutoff, one line per system, with its bootstrap band;
    and the figure's values (:func:`curve_panel`), the very arrays it plots."""
    _, Figure = require_matplotlib()
    bands, settings = curve_bands(view, groups, n_bootstrap, confidence, seed)
    n = len(groups)
    ncols = min(n, 3)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.4 * ncols + 0.4, 3.3 * nrows + 0.5), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    panels = []
    for ax, (stem, cols) in zip(axes.ravel(), groups.items()):
        ks = np.array([k for k, _ in cols], dtype=float)
        lines = []
        for i, system in enumerate(view.systems):
            part = bands[(bands["system"] == system) & bands["metric"].isin([name for _, name in cols])]
            part = part.set_index("metric").loc[[name for _, name in cols]]
            color = COLORS[i % len(COLORS)]
            low, high, value = (part[c].to_numpy() for c in ("ci_low", "ci_high", "value"))
            ax.fill_between(ks, low, high, color=color, alpha=0.18, linewidth=0)
            ax.plot(ks, value, marker="o", markersize=4, color=color, label=system)
            lines.append((system, value, low, high))
        panels.append(curve_panel(stem, cols, lines))
        if ks.max() / ks.min() > 20:
            ax.set_xscale("log")
        ax.set_xticks(ks, [str(int(k)) for k in ks])
        ax.minorticks_off()
        ax.set_title(stem, fontsize=11)
        ax.set_xlabel("cutoff k")
        ax.grid(alpha=0.3)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[0, 0].set_ylabel("mean over users")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(len(labels), 6), frameon=False)
    return fig, {"figure": "curves", "bootstrap": settings, "panels": panels}


def evaluation_distribution(view: View, kind: Kind) -> tuple[Any, dict[str, Any]]:
    """One system: the per-user values of every metric side by side; and the figure's values."""
    _, Figure = require_matplotlib()
    metrics = list(view.metrics)
    data = [v[~np.isnan(v)] for v in (view.values(m, view.systems[0]) for m in metrics)]
    fig = Figure(figsize=(max(4.5, 0.9 * len(metrics) + 1.5), 3.6), layout="constrained")
    ax = fig.subplots()
    positions = np.arange(1, len(metrics) + 1)
    if kind == "violin":
        parts = ax.violinplot([d if len(d) else [np.nan] for d in data], positions, showmeans=True)
        for body in parts["bodies"]:
            body.set_facecolor(COLORS[0])
    else:
        box = ax.boxplot(data, positions=positions, patch_artist=True, showmeans=True, widths=0.6,
                         flierprops={"markersize": 2, "alpha": 0.3},
                         meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
        for patch in box["boxes"]:
            patch.set_facecolor(COLORS[0])
            patch.set_alpha(0.6)
    ax.set_xticks(positions, metrics, rotation=30, ha="right")
    ax.set_ylabel("per-user value")
    ax.set_title(view.systems[0])
    ax.grid(axis="y", alpha=0.3)
    return fig, distribution_values(view.units, metrics, view.systems, kind)


def comparison_distributions(res: ComparisonResult, kind: Kind) -> list[tuple[Any, dict[str, Any]]]:
    """:meth:`ComparisonResult.plot`, at most four metrics a figure; each with its values."""
    figures = []
    metrics = list(res.metrics)
    level = res.table.index.get_level_values("metric")
    for start in range(0, len(metrics), _PANELS):
        chunk = tuple(metrics[start:start + _PANELS])
        part = dataclasses.replace(res, metrics=chunk, table=res.table[level.isin(chunk)])
        values = distribution_values(res.units, chunk, res.systems, kind)
        values["differences"] = difference_values(res, chunk)
        figures.append((part.plot(kind=kind), values))
    return figures
