"""What a matplotlib figure drew, read from its artists, and the box statistics by hand.

Shared by the tests that check a figure against its data (tests/test_figures_drawn.py,
tests/test_beyond_plots.py): a figure is judged by what it draws, never by the numbers its
code meant to draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["box_at", "box_stats", "violins", "band_edges"]


def box_at(ax: Any, p: float, width: float, *, mean: bool = True) -> dict[str, Any]:
    """The box ``Axes.boxplot`` drew at x = ``p`` (``width`` wide, ``patch_artist=True``): its median line,
    box edges (q1, q3), the whiskers' ends and where they start, its mean marker (``mean=True``: a ``"D"``
    marker of its own) and its fliers. Fails unless exactly one of each is found."""
    half = width / 2
    here = [line for line in ax.lines if len(line.get_xdata()) and np.allclose(np.mean(line.get_xdata()), p)]
    two = [line for line in here if len(line.get_xdata()) == 2 and line.get_linestyle() != "None"]
    median = [line for line in two if np.allclose(line.get_xdata(), [p - half, p + half])]
    whiskers = [line for line in two if np.allclose(line.get_xdata(), p)]
    means = [line for line in here if line.get_marker() == "D"]
    fliers = [line for line in here if line.get_linestyle() == "None" and line.get_marker() == "o"
              and np.allclose(line.get_xdata(), p)]
    box = [patch for patch in ax.patches if hasattr(patch, "get_path")
           and np.isclose(np.ptp(patch.get_path().vertices[:, 0]), width)
           and np.isclose(np.mean(np.unique(patch.get_path().vertices[:, 0])), p)]
    assert len(median) == 1 and len(whiskers) == 2 and len(box) == 1, (p, here)
    assert len(means) == (1 if mean else 0), (p, means)
    assert np.ptp(median[0].get_ydata()) == 0  # a horizontal line
    low, high = sorted(whiskers, key=lambda line: min(line.get_ydata()))
    edges = box[0].get_path().vertices[:, 1]
    return {"median": median[0].get_ydata()[0], "q1": edges.min(), "q3": edges.max(),
            "whisker_from": (low.get_ydata()[0], high.get_ydata()[0]),
            "whislo": low.get_ydata()[1], "whishi": high.get_ydata()[1],
            "mean": means[0].get_ydata()[0] if mean else None,
            "fliers": np.sort(np.concatenate([f.get_ydata() for f in fliers])) if fliers else np.zeros(0)}


def box_stats(values: NDArray[np.float64]) -> dict[str, Any]:
    """Tukey's box of the values, NaN left out, written out here: linear quartiles (numpy's default), whiskers
    at the furthest values within 1.5 IQR of the box (matplotlib's default rule), the values beyond them."""
    x = np.sort(values[~np.isnan(values)])
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    iqr = q3 - q1
    inside = x[(x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)]
    return {"median": median, "q1": q1, "q3": q3, "whislo": inside.min(), "whishi": inside.max(),
            "mean": x.mean(), "min": x.min(), "max": x.max(),
            "fliers": np.sort(x[(x < inside.min()) | (x > inside.max())])}


def violins(ax: Any) -> dict[str, NDArray[np.float64]]:
    """The violins' means, maxima and minima (the line collections ``violinplot(showmeans=True)`` adds, in
    that order), and their x."""
    from matplotlib.collections import LineCollection

    collections = [c for c in ax.collections if type(c) is LineCollection]
    out = {}
    for name, collection in zip(("mean", "max", "min"), collections):
        segments = collection.get_segments()
        assert all(s[0][1] == s[1][1] for s in segments)  # horizontal
        out[name] = np.array([s[0][1] for s in segments])
        out["x"] = np.array([(s[0][0] + s[1][0]) / 2 for s in segments])
    return out


def band_edges(collection: Any, xs: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A ``fill_between`` band's lower and upper edge at each x (the y extent of its outline there); fails
    unless its outline stands on exactly those x."""
    vertices = collection.get_paths()[0].vertices
    assert set(np.round(vertices[:, 0], 9)) == set(np.round(xs, 9)), vertices
    low = np.array([vertices[vertices[:, 0] == x, 1].min() for x in xs])
    high = np.array([vertices[vertices[:, 0] == x, 1].max() for x in xs])
    return low, high
