"""The figure of a comparison: per-user values per system and the paired differences (needs matplotlib)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..io.internal import save_figure
from ._comparison import Comparison
from ._mpl import literal_text, pyplot

__all__ = ["comparison_figure", "DIFFERENCE_TICKS", "compact_tick"]

#: at most this many intervals between the ticks of a difference axis (so at most 5 labels): a panel
#: is about 2.5 inches wide, room for five short numbers side by side
DIFFERENCE_TICKS = 4


def compact_tick(value: float, _position: int | None = None) -> str:
    """A tick label with no trailing zeros and a true minus sign: ``-0.15`` -> ``−0.15``, ``0.0`` -> ``0``."""
    text = np.format_float_positional(round(float(value), 10), trim="-")
    return "0" if text in ("0", "-0") else text.replace("-", "\u2212")


def _difference_axis(ax: Any) -> None:
    """Few tick labels, each as short as it can be: the panels are narrow and a default locator
    crowds them with labels such as ``-0.150-0.125`` that run into each other."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=DIFFERENCE_TICKS, steps=[1, 2, 2.5, 5, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(compact_tick))


@literal_text
def comparison_figure(res: Comparison, path: str | Path | None = None, *, kind: str = "box") -> Any:
    """Top row: per-user values of each system, one panel per metric (box or violin).
    Bottom row: each tested difference b - a with its bootstrap CI; filled markers are
    significant after the correction.

    Parameters
    ----------
    res : ComparisonResult
        What :func:`rankeval.compare` returned, with at least one tested metric.
    path : str or Path, optional
        Save the figure there.
    kind : {"box", "violin"}
        How each system's per-user values are drawn.
    """
    if kind not in ("box", "violin"):
        raise ValueError(f"`kind` must be 'box' or 'violin', got {kind!r}")
    plt = pyplot()
    n_metrics = len(res.metrics)
    n_pairs = len(res.table) // max(n_metrics, 1)
    # the pairs' labels sit left of the first panel: room for them, so that they do not squeeze the panels
    label_in = 0.075 * max((len(f"{b} − {a}") for _, a, b in res.table.index), default=0)
    fig, axes = plt.subplots(2, n_metrics, figsize=(2.8 * n_metrics + 0.8 + max(1.4, label_in),
                                                    3.0 + 0.32 * n_pairs + 2.6),
                             squeeze=False, gridspec_kw={"height_ratios": [3.0, 0.8 + 0.32 * n_pairs]})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for j, metric in enumerate(res.metrics):
        ax = axes[0, j]
        data = [res.units[(metric, s)].dropna().to_numpy() for s in res.systems]
        positions = np.arange(1, len(res.systems) + 1)
        if kind == "violin":
            parts = ax.violinplot([d if len(d) else [np.nan] for d in data], positions, showmeans=True)
            for body, color in zip(parts["bodies"], colors):
                body.set_facecolor(color)
        else:
            box = ax.boxplot(data, positions=positions, patch_artist=True, showmeans=True, widths=0.6,
                             flierprops={"markersize": 2, "alpha": 0.3},
                             meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
            for patch, color in zip(box["boxes"], colors * 10):
                patch.set_facecolor(color)
                patch.set_alpha(0.6)
        ax.set_xticks(positions, res.systems, rotation=30, ha="right")
        ax.set_title(metric)
        ax.grid(axis="y", alpha=0.3)
        if j == 0:
            ax.set_ylabel("per-user value")

        ax = axes[1, j]
        rows = res.table.xs(metric, level="metric")
        y = np.arange(len(rows))[::-1]
        for yi, (_pair, row) in zip(y, rows.iterrows()):
            sig = bool(row["significant"])
            ax.errorbar(row["diff"], yi, xerr=[[row["diff"] - row["ci_low"]], [row["ci_high"] - row["diff"]]],
                        fmt="o", color="C3" if sig else "0.35", mfc="C3" if sig else "white", capsize=3)
        ax.axvline(0.0, color="0.5", lw=0.8, ls="--")
        # the pairs are the same in every panel: label them once, on the left
        ax.set_yticks(y, [f"{b} − {a}" for a, b in rows.index] if j == 0 else [])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel("mean difference (b − a)")
        _difference_axis(ax)
        ax.grid(axis="x", alpha=0.3)
    correction = res.correction or "no"
    fig.suptitle(f"{res.test} test, {correction} correction, alpha {res.alpha:g}; "
                 f"{100 * (1 - res.alpha):g}% bootstrap CIs (filled: significant)", fontsize=10)
    fig.tight_layout()
    if path is not None:
        save_figure(fig, path, dpi=130)
    return fig
