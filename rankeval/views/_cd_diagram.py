"""Demšar's critical-difference diagram of a comparison (needs matplotlib)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..io.internal import save_figure
from ..stats import cd_groups, check_alpha
from ._comparison import Comparison
from ._mpl import literal_text, pyplot
from ._posthoc_tables import complete_units, mean_ranks, nemenyi_frame

__all__ = ["critical_difference_diagram", "critical_difference_figure"]


@literal_text
def critical_difference_diagram(res: Comparison, metric: str, alpha: float | None = None, ax: Any = None,
                                *, stacklevel: int = 1) -> Any:
    """``res.plot_critical_difference()``: Demšar's critical-difference diagram of one metric.

    An axis of mean ranks from 1 (best, left) to k; each system a line from its mean rank
    to its label (the better half on the left, the others on the right, each labelled
    ``name (mean rank)``); thick bars join the maximal groups of systems that the Nemenyi
    test does not separate (:func:`cd_groups`); a bar of length CD above the axis.
    Artists carry a ``gid``: ``"cd-axis"``, ``"cd-scale"``, ``"cd-group"``, ``"cd-system"``
    (lines) and ``"cd-label"`` (texts).
    """
    if metric not in res.metrics:
        raise ValueError(f"`metric` {metric!r} is not among the compared metrics {list(res.metrics)}")
    level = check_alpha(alpha, res.alpha)
    plt = pyplot() if ax is None else None
    x = complete_units(res, [metric], "plot_critical_difference()", stacklevel + 1)[metric]
    n, k = x.shape
    if n < 2 or k < 3:
        raise ValueError(f"the critical-difference diagram of {metric!r} needs at least 3 systems and 2 complete "
                         f"units (the Friedman and Nemenyi tests need them), got {k} systems and {n} unit(s)")
    table = nemenyi_frame(res, {metric: x}, level).loc[metric]
    ranks = mean_ranks(res, x, metric)
    cd = float(table["critical_difference"].iloc[0])
    significant = np.zeros((k, k), dtype=bool)
    position = {s: i for i, s in enumerate(res.systems)}
    for (a, b), sig in table["significant"].items():
        significant[position[a], position[b]] = significant[position[b], position[a]] = bool(sig)
    groups = cd_groups(ranks, significant)

    order = np.argsort(ranks, kind="stable")
    n_left = (k + 1) // 2
    labels = [f"{res.systems[i]} ({ranks[i]:.2f})" for i in order]
    group_y = [-0.25 - 0.18 * g for g in range(len(groups))]
    top_label = (group_y[-1] if groups else -0.1) - 0.35
    label_y = [top_label - 0.35 * i for i in range(n_left)] + [top_label - 0.35 * j for j in
                                                               reversed(range(k - n_left))]
    bottom = min(label_y) - 0.3
    if plt is not None:  # no axes given (pyplot was loaded up front, so a missing matplotlib fails first)
        chars_left = max(len(t) for t in labels[:n_left])
        chars_right = max(len(t) for t in labels[n_left:])
        left_in, right_in = 0.35 + 0.075 * chars_left, 0.35 + 0.075 * chars_right
        width = left_in + right_in + max(3.0, 0.7 * (k - 1))
        height = 0.55 * (1.35 - bottom) + 0.5
        fig, ax = plt.subplots(figsize=(width, height))
        fig.subplots_adjust(left=left_in / width, right=1 - right_in / width, top=1 - 0.35 / height, bottom=0.02)
    lo, hi = 1.0, float(k)
    ax.plot([lo, hi], [0, 0], color="black", lw=1.2, gid="cd-axis")
    for t in np.arange(2 * k - 1) / 2 + 1:  # ticks every half rank, numbers at whole ranks
        whole = float(t).is_integer()
        ax.plot([t, t], [0, 0.12 if whole else 0.06], color="black", lw=1.2, gid="cd-axis")
        if whole:
            ax.text(t, 0.17, f"{int(t)}", ha="center", va="bottom", fontsize=9)
    ax.plot([lo, lo + cd], [0.85, 0.85], color="black", lw=1.5, gid="cd-scale")
    for end in (lo, lo + cd):
        ax.plot([end, end], [0.79, 0.91], color="black", lw=1.5, gid="cd-scale")
    ax.text(lo + cd / 2, 0.95, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    for g, members in enumerate(groups):
        ax.plot([ranks[members[0]] - 0.04, ranks[members[-1]] + 0.04], [group_y[g], group_y[g]], color="black",
                lw=4, solid_capstyle="round", gid="cd-group")
    for place, (i, y) in enumerate(zip(order, label_y)):
        left = place < n_left
        end = lo - 0.2 if left else hi + 0.2
        ax.plot([ranks[i], ranks[i], end], [0, y, y], color="0.25", lw=1, gid="cd-system")
        ax.text(end - 0.05 if left else end + 0.05, y, labels[place], ha="right" if left else "left",
                va="center", fontsize=9, gid="cd-label")
    ax.set_xlim(lo - 0.25, hi + 0.25)
    ax.set_ylim(bottom, 1.35)
    ax.set_axis_off()
    ax.set_title(f"{metric}: mean ranks (1 = best), Nemenyi alpha = {level:g}, {n} units", fontsize=10)
    return ax


@literal_text
def critical_difference_figure(res: Comparison, metric: str | None = None, path: Any = None,
                               alpha: float | None = None, *, stacklevel: int = 1) -> Any:
    """``res.plot_cd()``: one critical-difference panel per metric (``metric=None``: every
    tested metric) stacked in one Figure, saved to ``path`` when given."""
    metrics = list(res.metrics) if metric is None else [metric]
    if not metrics:
        raise ValueError("no tested metric to draw: every metric of this comparison is listed without a test")
    for m in metrics:
        if m not in res.metrics:
            raise ValueError(f"`metric` {m!r} is not among the compared metrics {list(res.metrics)}")
    plt = pyplot()
    k = len(res.systems)
    chars = max(len(s) for s in res.systems) + 7  # "name (1.23)"
    side_in = 0.35 + 0.075 * chars
    width = 2 * side_in + max(3.0, 0.7 * (k - 1))
    # the tallest a panel gets: every system its own group, then the labels
    panel = 0.55 * (1.35 + 0.25 + 0.18 * k + 0.35 + 0.35 * ((k + 1) // 2) + 0.3) + 0.6
    fig, axes = plt.subplots(len(metrics), 1, figsize=(width, panel * len(metrics)), squeeze=False)
    fig.subplots_adjust(left=side_in / width, right=1 - side_in / width, top=1 - 0.35 / (panel * len(metrics)),
                        bottom=0.02, hspace=0.35)
    for m, ax in zip(metrics, axes[:, 0]):
        critical_difference_diagram(res, m, alpha, ax, stacklevel=stacklevel + 1)
    if path is not None:
        save_figure(fig, path, dpi=150, bbox_inches="tight")
    return fig
