"""One self-contained HTML page of an evaluation or a comparison: :func:`report`.

The page (docs/report.md) holds, in this order:

- the summary: the table of means with significance marks and the table of paired
  differences with their CIs, the same numbers as :meth:`ComparisonResult.to_markdown`
  (sortable by clicking a column header); for one system, the per-split table of
  :class:`~rankeval.EvalModel`;
- metric@k curves: every metric computed at several cutoffs (``NDCG@1``, ``NDCG@5``,
  ...: one panel per stem), one line per system with a percentile-bootstrap band of
  its mean;
- per-user distributions per system and the paired differences with their CIs
  (:meth:`ComparisonResult.plot`);
- with 3 or more systems, Friedman's test with the mean ranks and one
  critical-difference diagram per metric;
- beyond accuracy and groups: the system-level metrics of the comparison and any table
  passed as ``groups`` (e.g. :meth:`EvalModel.by_group`);
- the metric card: convention, relevance threshold, tie rule, tests, users per split,
  versions and the command or call that made the page.

Figures are drawn with matplotlib and embedded in the page (inline SVG, or PNG as a
``data:`` URI); styles and the sorting script are inline: the page needs no network and
no other file. Needs the ``report`` extra: ``pip install 'rankeval[report]'`` (Jinja2
and matplotlib).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import importlib.metadata
import io
import math
import numbers
import os
import platform
import re
import shlex
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._version import __version__
from ..data._frames import is_spark_frame
from ..data._validation import check_choice
from ..evaluation._result import ComparisonResult
from ..io._atomic import atomic_path
from ..views._mpl import literal_text
from ..views._tables import (
    describe_tests,
    difference_rows,
    friedman_rows,
    listed_metrics,
    listed_note,
    system_letters,
    wins_over,
)

if TYPE_CHECKING:
    from ..evaluation._eval_model import EvalModel
    from ..metrics import RankingMetric

__all__ = ["report", "Report", "bootstrap_mean_ci"]

ImageFormat = Literal["svg", "png"]
Kind = Literal["box", "violin"]

#: matplotlib's default colour cycle, the order :meth:`ComparisonResult.plot` gives the systems
_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
_CUTOFF = re.compile(r"^(?P<stem>.+)@(?P<k>\d+)$")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
#: metrics per figure of per-user distributions (wider figures become unreadable)
_PANELS = 4
#: bootstrap draws held in memory at once (resamples x units)
_BATCH_CELLS = 4_000_000


@dataclass(frozen=True)
class Report:
    """A rendered report: the HTML text and where it was written.

    Attributes
    ----------
    html : str
        The whole page: one self-contained HTML document.
    path : Path or None
        The file written, or None when :func:`report` was given no ``path``.
    sections : tuple of str
        The ``id`` of every section the page holds, in order (e.g. ``"summary"``,
        ``"curves"``, ``"distributions"``, ``"many"``, ``"beyond"``, ``"card"``).
    """

    html: str
    path: Path | None
    sections: tuple[str, ...]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8) and return it as a Path."""
        target = Path(path)
        with atomic_path(target) as temporary:
            Path(temporary).write_text(self.html, encoding="utf-8")
        return target

    def _repr_html_(self) -> str:  # shown inline by Jupyter
        return self.html


# ---------------------------------------------------------------------- bootstrap
#: the most bootstrap resamples of the report's bands
MAX_BOOTSTRAP = 100_000


def bootstrap_mean_ci(values: NDArray[np.float64], groups: NDArray[np.int64] | None = None, *,
                      n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
                      statistic: Literal["pooled", "group_mean"] = "pooled"
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile-bootstrap interval of the mean of every column, NaN values left out.

    Units (rows) are drawn with replacement within each group (split), as many as the
    group holds, ``n_resamples`` times; every column is resampled with the same draws. The
    draws are made as whole arrays (one matrix product per batch of resamples), never
    with a loop over units.

    Parameters
    ----------
    values : ndarray of shape (n_units, n_columns)
        Per-unit values; NaN = undefined (left out of the mean, as ``np.nanmean``).
    groups : ndarray of int of shape (n_units,), optional
        The group (split) of every unit, ``0 .. n_groups - 1``; default one group.
    n_resamples : int
        Bootstrap resamples (at least 10).
    confidence : float
        Confidence of the interval, in (0, 1).
    seed : int
        Seed of the draws: the same inputs and seed give the same interval.
    statistic : {"pooled", "group_mean"}
        The mean over every unit (:meth:`ComparisonResult.system_means`), or the mean
        of the groups' means (the ``mean`` row of :class:`~rankeval.EvalModel`).

    Returns
    -------
    low, high : ndarray of shape (n_columns,)
        The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the
        resampled means; NaN for a column without any value.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = bootstrap_mean_ci(np.arange(100.0)[:, None], seed=0)
    >>> bool(low[0] < 49.5 < high[0])
    True
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"`values` must be 2-dimensional (units x columns), got shape {x.shape}")
    n = x.shape[0]
    codes = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    if codes.shape != (n,):
        raise ValueError(f"`groups` must hold one group per unit ({n}), got shape {codes.shape}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 10:
        raise ValueError(f"`n_resamples` must be an integer >= 10, got {n_resamples!r}")
    _check_confidence(confidence)
    check_choice("statistic", statistic, ["pooled", "group_mean"])
    n_cols = x.shape[1]
    if n == 0 or n_cols == 0:
        return np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    order = np.argsort(codes, kind="stable")
    x, codes = x[order], codes[order]
    present = ~np.isnan(x)
    filled = np.where(present, x, 0.0)
    _, starts, sizes = np.unique(codes, return_index=True, return_counts=True)
    rng = np.random.default_rng(seed)
    batch = int(max(1, min(n_resamples, _BATCH_CELLS // max(n, 1))))
    means = np.empty((n_resamples, n_cols))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        sums = np.zeros((len(sizes), b, n_cols))
        counts = np.zeros((len(sizes), b, n_cols))
        for g, (start, size) in enumerate(zip(starts, sizes)):  # a loop over splits, not users
            draws = rng.integers(0, size, size=(b, size))
            weights = np.bincount((draws + size * np.arange(b)[:, None]).ravel(),
                                  minlength=b * size).reshape(b, size).astype(np.float64)
            sums[g] = weights @ filled[start:start + size]
            counts[g] = weights @ present[start:start + size]
        with np.errstate(invalid="ignore", divide="ignore"):
            if statistic == "pooled":
                means[done:done + b] = sums.sum(axis=0) / counts.sum(axis=0)
            else:
                per_group = sums / counts
                defined = ~np.isnan(per_group)
                means[done:done + b] = (np.where(defined, per_group, 0.0).sum(axis=0)
                                        / defined.sum(axis=0))
        done += b
    tail = (1 - confidence) / 2
    low = np.full(n_cols, np.nan)
    high = np.full(n_cols, np.nan)
    ok = ~np.isnan(means).all(axis=0)
    if ok.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # columns whose mean is sometimes undefined
            q = np.nanquantile(means[:, ok], [tail, 1 - tail], axis=0)
        low[ok], high[ok] = q[0], q[1]
    return low, high


# ---------------------------------------------------------------------- what the page shows
@dataclass
class _View:
    """Everything the page needs, from a comparison or from one system's evaluation."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]          # metrics with per-user values
    units: pd.DataFrame               # split, user_id, then (metric, system)
    split_names: list[str]
    higher: dict[str, bool]
    convention: str
    comparison: ComparisonResult | None = None
    sys_result: pd.DataFrame | None = None
    metric_objects: list[RankingMetric] | None = None
    ties: str | None = None
    missing_users: str | None = None
    user_counts: dict[tuple[str, str], tuple[int, int]] | None = None  # (split, system) -> (truth, missing)
    call_settings: dict[str, Any] = dataclasses.field(default_factory=dict)

    def values(self, metric: str, system: str) -> NDArray[np.float64]:
        return np.asarray(self.units[(metric, system)].to_numpy(), dtype=np.float64)

    def center(self) -> pd.DataFrame:
        """The value each curve shows: the table's number (pooled mean, or mean of split means)."""
        if self.comparison is not None:
            return self.comparison.system_means()
        assert self.sys_result is not None
        mean = self.sys_result.loc["mean"]
        return pd.DataFrame({m: [float(mean[m])] for m in self.metrics}, index=pd.Index(self.systems, name="system"))


def _from_comparison(res: ComparisonResult) -> _View:
    splits = [str(s) for s in pd.unique(res.units[("split", "")])] if len(res.units) else []
    return _View(systems=tuple(res.systems), metrics=tuple(res.metrics), units=res.units, split_names=splits,
                 higher={m: bool(res.higher_is_better.get(m, True)) for m in res.metrics},
                 convention=res.convention, comparison=res)


def _from_evaluation(sys_result: pd.DataFrame, users_result: pd.DataFrame, name: str,
                     model: EvalModel | None) -> _View:
    if not isinstance(users_result, pd.DataFrame) or not isinstance(sys_result, pd.DataFrame):
        raise TypeError("an evaluation must be an EvalModel or its fit() result (sys_result, users_result), "
                        f"got ({type(sys_result).__name__}, {type(users_result).__name__})")
    if users_result.index.nlevels != 2 or "mean" not in sys_result.index:
        raise ValueError("`result` must be EvalModel.fit()'s (sys_result, users_result): a per-split system "
                         "table with a 'mean' row and per-user values indexed by (split, user_id)")
    metrics = [str(c) for c in users_result.columns]
    units = pd.DataFrame({("split", ""): users_result.index.get_level_values(0).astype(object),
                          ("user_id", ""): users_result.index.get_level_values(1)})
    for m in metrics:
        units[(m, name)] = users_result[m].to_numpy(dtype=np.float64)
    units.columns = pd.MultiIndex.from_tuples(units.columns)
    objects = list(model.metrics) if model is not None else None
    higher = {str(m): bool(m.higher_is_better) for m in objects} if objects else {}
    view = _View(systems=(name,), metrics=tuple(metrics), units=units,
                 split_names=[str(s) for s in sys_result.index if s != "mean"],
                 higher={m: higher.get(m, True) for m in metrics},
                 convention=str(sys_result.attrs.get("convention", "rankeval")), sys_result=sys_result,
                 metric_objects=objects)
    if model is not None:
        splits = model.splits()
        view.ties = splits[0].ties if splits else None
        view.missing_users = splits[0].missing_users if splits else None
        view.user_counts = {}
        for label, split in zip(model.split_names, splits):
            lists = split.ranked_lists()
            missing = len(lists.missing_user_ids)
            view.user_counts[(str(label), name)] = (int(lists.n_users) + missing, missing)
    return view


def _user_counts(systems: Mapping[str, Any], truth: Any, names: list[str],
                 user_col: str) -> dict[tuple[str, str], tuple[int, int]] | None:
    """Truth users and truth users without a list, per (split, system); None for Spark inputs."""
    from ..data._frames import to_pandas

    truths = truth if isinstance(truth, (list, tuple)) else [truth]
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for s, (label, t) in enumerate(zip(names, truths)):
        if is_spark_frame(t):
            return None
        truth_users = pd.Index(to_pandas(t, "truth")[user_col]).unique()
        for system, frames in systems.items():
            frame = frames if not isinstance(frames, (list, tuple)) else frames[s]
            if is_spark_frame(frame):
                return None
            listed = truth_users.isin(pd.Index(to_pandas(frame, "pred")[user_col]).unique())
            out[(label, str(system))] = (len(truth_users), int((~listed).sum()))
    return out


# ---------------------------------------------------------------------- figures
def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError("the report draws its figures with matplotlib, which is not installed: "
                          "pip install 'rankeval[report]'") from exc
    return matplotlib, Figure


def _embed(fig: Any, fmt: ImageFormat, alt: str) -> Any:
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


def _cutoff_groups(metrics: Sequence[str]) -> dict[str, list[tuple[int, str]]]:
    """Metrics computed at several cutoffs, by stem: ``{"NDCG": [(1, "NDCG@1"), (5, "NDCG@5")]}``."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for name in metrics:
        match = _CUTOFF.match(name)
        if match:
            groups.setdefault(match["stem"], []).append((int(match["k"]), name))
    return {stem: sorted(cols) for stem, cols in groups.items() if len(cols) >= 2}


def _curves_figure(view: _View, groups: dict[str, list[tuple[int, str]]], n_bootstrap: int, confidence: float,
                   seed: int) -> tuple[Any, pd.DataFrame]:
    """One panel per stem: the mean at every cutoff, one line per system, with its bootstrap band."""
    _, Figure = _matplotlib()
    columns = [(name, system) for cols in groups.values() for _, name in cols for system in view.systems]
    matrix = np.column_stack([view.values(m, s) for m, s in columns])
    split_codes = pd.factorize(view.units[("split", "")])[0] if len(view.units) else np.zeros(0, dtype=np.int64)
    statistic: Literal["pooled", "group_mean"] = "pooled" if view.comparison is not None else "group_mean"
    low, high = bootstrap_mean_ci(matrix, split_codes, n_resamples=n_bootstrap, confidence=confidence, seed=seed,
                                  statistic=statistic)
    center = view.center()
    bands = pd.DataFrame({"metric": [m for m, _ in columns], "system": [s for _, s in columns],
                          "value": [float(center.loc[s, m]) for m, s in columns], "ci_low": low, "ci_high": high})
    n = len(groups)
    ncols = min(n, 3)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.4 * ncols + 0.4, 3.3 * nrows + 0.5), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    for ax, (stem, cols) in zip(axes.ravel(), groups.items()):
        ks = np.array([k for k, _ in cols], dtype=float)
        for i, system in enumerate(view.systems):
            part = bands[(bands["system"] == system) & bands["metric"].isin([name for _, name in cols])]
            part = part.set_index("metric").loc[[name for _, name in cols]]
            color = _COLORS[i % len(_COLORS)]
            ax.fill_between(ks, part["ci_low"].to_numpy(), part["ci_high"].to_numpy(), color=color, alpha=0.18,
                            linewidth=0)
            ax.plot(ks, part["value"].to_numpy(), marker="o", markersize=4, color=color, label=system)
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
    return fig, bands


def _evaluation_distribution(view: _View, kind: Kind) -> Any:
    """One system: the per-user values of every metric side by side."""
    _, Figure = _matplotlib()
    metrics = list(view.metrics)
    data = [v[~np.isnan(v)] for v in (view.values(m, view.systems[0]) for m in metrics)]
    fig = Figure(figsize=(max(4.5, 0.9 * len(metrics) + 1.5), 3.6), layout="constrained")
    ax = fig.subplots()
    positions = np.arange(1, len(metrics) + 1)
    if kind == "violin":
        parts = ax.violinplot([d if len(d) else [np.nan] for d in data], positions, showmeans=True)
        for body in parts["bodies"]:
            body.set_facecolor(_COLORS[0])
    else:
        box = ax.boxplot(data, positions=positions, patch_artist=True, showmeans=True, widths=0.6,
                         flierprops={"markersize": 2, "alpha": 0.3},
                         meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
        for patch in box["boxes"]:
            patch.set_facecolor(_COLORS[0])
            patch.set_alpha(0.6)
    ax.set_xticks(positions, metrics, rotation=30, ha="right")
    ax.set_ylabel("per-user value")
    ax.set_title(view.systems[0])
    ax.grid(axis="y", alpha=0.3)
    return fig


def _comparison_distributions(res: ComparisonResult, kind: Kind) -> list[Any]:
    """:meth:`ComparisonResult.plot`, at most four metrics a figure."""
    figures = []
    metrics = list(res.metrics)
    level = res.table.index.get_level_values("metric")
    for start in range(0, len(metrics), _PANELS):
        chunk = tuple(metrics[start:start + _PANELS])
        part = dataclasses.replace(res, metrics=chunk, table=res.table[level.isin(chunk)])
        figures.append(part.plot(kind=kind))
    return figures


# ---------------------------------------------------------------------- tables
def _num_cell(value: Any, digits: int, **extra: Any) -> dict[str, Any]:
    v = float(value)
    if math.isnan(v):
        return {"text": "–", "sort": "", "num": True, **extra}
    return {"text": f"{v:.{digits}f}", "sort": repr(v), "num": True, **extra}


def _text_cell(text: Any, sort: Any = None) -> dict[str, Any]:
    return {"text": str(text), "sort": None if sort is None else str(sort), "num": False}


def _table(table_id: str, columns: Sequence[str], rows: list[list[dict[str, Any]]], *,
           numeric: Sequence[bool] | None = None) -> dict[str, Any]:
    numeric = numeric if numeric is not None else [bool(rows) and rows[0][i].get("num", False)
                                                   for i in range(len(columns))]
    return {"id": table_id, "columns": [{"label": c, "num": n} for c, n in zip(columns, numeric)], "rows": rows}


def _summary_tables(res: ComparisonResult, digits: int) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """The two tables of :meth:`ComparisonResult.to_markdown`, as cells for the template."""

    means = res.system_means()
    letters = dict(zip(res.systems, system_letters(len(res.systems))))
    beats = wins_over(res)
    listed = listed_metrics(res)
    rows = []
    for system in res.systems:
        row = [_text_cell(f"{system} ({letters[system]})", sort=system)]
        for metric in res.metrics:
            value = float(means.loc[system, metric])
            column = means[metric]
            best = not math.isnan(value) and value == (column.max() if res.higher_is_better.get(metric, True)
                                                       else column.min())
            marks = "".join(sorted(letters[s] for s in beats.get((metric, system), [])))
            row.append(_num_cell(value, digits, best=best, sup=marks))
        for metric in listed:
            row.append(_num_cell(res.system_values.loc[system, metric], digits))
        rows.append(row)
    head = ["system", *res.metrics, *(f"{m}†" for m in listed)]
    means_table = _table("means", head, rows, numeric=[False] + [True] * (len(head) - 1))
    diffs = None
    if res.metrics:
        diff_rows = []
        for ((metric, _a, _b), test), text in zip(res.table.iterrows(), difference_rows(res, digits, "")):
            sig = bool(test["significant"])
            diff_rows.append([
                _text_cell(metric, sort=list(res.metrics).index(metric)),
                _text_cell(text[1]),
                {"text": text[2], "sort": "" if math.isnan(test["diff"]) else repr(float(test["diff"])), "num": True,
                 "sig": sig},
                {"text": text[3], "sort": "" if math.isnan(test["ci_low"]) else repr(float(test["ci_low"])),
                 "num": True},
                {"text": text[4], "sort": "" if math.isnan(test["p_adjusted"]) else repr(float(test["p_adjusted"])),
                 "num": True},
                {"text": text[5], "sort": text[5], "num": True},
                {"text": f"{int(test['wins'])} / {int(test['ties'])} / {int(test['losses'])}",
                 "sort": str(int(test["wins"])), "num": True},
                _num_cell(test["effect_size"], 2),
            ])
        diffs = _table("differences", ["metric", "difference", "mean", "CI", "p (adjusted)", "n",
                                       "wins / ties / losses", "Cohen's d_z"], diff_rows,
                       numeric=[False, False, True, True, True, True, True, True])
    note = (f"Best value per metric in bold; a superscript lists the systems this system is significantly better "
            f"than ({describe_tests(res)}).{listed_note(res, '†')}")
    return means_table, diffs, note


def _evaluation_table(sys_result: pd.DataFrame, digits: int) -> dict[str, Any]:
    rows = []
    for position, (split, values) in enumerate(sys_result.iterrows()):
        rows.append([_text_cell(split, sort=position)] + [_num_cell(v, digits) for v in values])
    return _table("means", ["split", *map(str, sys_result.columns)], rows,
                  numeric=[False] + [True] * len(sys_result.columns))


def _friedman_table(res: ComparisonResult, digits: int) -> dict[str, Any]:

    head, rows = friedman_rows(res, digits)
    cells = []
    for position, row in enumerate(rows):
        out = [_text_cell(row[0], sort=position)]
        for text in row[1:]:
            sort = "" if text == "–" else ("0" if text.startswith("<") else text)
            out.append({"text": text, "sort": sort, "num": True})
        cells.append(out)
    return _table("friedman", head, cells, numeric=[False] + [True] * (len(head) - 1))


def _frame_table(table_id: str, frame: pd.DataFrame, digits: int) -> dict[str, Any]:
    """Any DataFrame (e.g. EvalModel.by_group) as a sortable table; the index becomes columns."""
    flat = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame
    rows = []
    for record in flat.itertuples(index=False):
        row = []
        for value in record:
            if isinstance(value, (bool, np.bool_)):
                row.append(_text_cell("yes" if value else "no"))
            elif isinstance(value, numbers.Integral):
                row.append({"text": str(value), "sort": str(value), "num": True})
            elif isinstance(value, numbers.Real):
                row.append(_num_cell(value, digits))
            else:
                row.append(_text_cell("–" if value is None or (isinstance(value, float) and math.isnan(value))
                                      else value))
        rows.append(row)
    numeric = [pd.api.types.is_numeric_dtype(flat[c]) and not pd.api.types.is_bool_dtype(flat[c])
               for c in flat.columns]
    return _table(table_id, [str(c) for c in flat.columns], rows, numeric=numeric)


def _counts_table(view: _View) -> dict[str, Any]:
    """Per (split, system): truth users, users without a list, units, users with a value, NaN values."""
    split_col = view.units[("split", "")].astype(str).to_numpy() if len(view.units) else np.array([], dtype=str)
    rows = []
    for position, split in enumerate(view.split_names):
        in_split = split_col == split
        for system in view.systems:
            block = np.column_stack([view.values(m, system)[in_split] for m in view.metrics]) if view.metrics \
                else np.zeros((int(in_split.sum()), 0))
            nan = np.isnan(block)
            with_value = int((~nan).any(axis=1).sum()) if block.shape[1] else 0
            nan_text = ", ".join(f"{m}: {int(c)}" for m, c in zip(view.metrics, nan.sum(axis=0)) if c) or "none"
            known = view.user_counts.get((split, system)) if view.user_counts is not None else None
            row = [_text_cell(split, sort=position), _text_cell(system)]
            row += [{"text": str(known[0]), "sort": str(known[0]), "num": True} if known else
                    {"text": "–", "sort": "", "num": True},
                    {"text": str(known[1]), "sort": str(known[1]), "num": True} if known else
                    {"text": "–", "sort": "", "num": True},
                    {"text": str(int(in_split.sum())), "sort": str(int(in_split.sum())), "num": True},
                    {"text": str(with_value), "sort": str(with_value), "num": True},
                    {"text": nan_text, "sort": str(int(nan.sum())), "num": False}]
            rows.append(row)
    return _table("users", ["split", "system", "truth users", "without a list", "units", "with a value",
                            "NaN values (per metric)"], rows,
                  numeric=[False, False, True, True, True, True, False])


# ---------------------------------------------------------------------- metric card
def _versions() -> list[tuple[str, str]]:

    out = [("rankeval", __version__), ("python", platform.python_version())]
    for package in ("numpy", "pandas", "scipy", "matplotlib", "jinja2"):
        try:
            out.append((package, importlib.metadata.version(package)))
        except importlib.metadata.PackageNotFoundError:
            out.append((package, "not installed"))
    out.append(("platform", platform.platform()))
    return out


def _relevance(objects: list[RankingMetric] | None) -> str:
    if not objects:
        return "not recorded in a ComparisonResult: pass metrics= to report() to show it"
    thresholds: dict[str, list[str]] = {}
    for m in objects:
        if "relevant_threshold" in m.__dict__:
            thresholds.setdefault(repr(m.__dict__["relevant_threshold"]), []).append(str(m))
    if not thresholds:
        return "no metric uses a relevance threshold (graded metrics use the truth score as gain)"
    parts = []
    for value, names in thresholds.items():
        what = ("each user's mean truth score (relevant = score ≥ it)" if value == "None"
                else f"truth score ≥ {value}")
        parts.append(f"{what}: {', '.join(names)}")
    return "; ".join(parts)


def _card(view: _View, command: str) -> dict[str, Any]:
    from .. import conventions

    preset = conventions.get_convention(view.convention) if view.convention in conventions.names() else None
    ties = view.ties or (f"{preset.ties} (the convention's default; an explicit ties= is not recorded in a "
                         f"ComparisonResult)" if preset is not None else "row_order")
    missing = view.missing_users or (preset.missing_users if preset is not None else "ignore")
    peer = f" ({preset.peer})" if preset is not None and preset.peer != view.convention else ""
    items = [("convention", view.convention + peer),
             ("relevance", _relevance(view.metric_objects)),
             ("ties", ties),
             ("missing users", missing)]
    res = view.comparison
    if res is not None:
        items.append(("tests", describe_tests(res)))
    items += [(k, v) for k, v in view.call_settings.items()]
    metrics = [repr(m) for m in view.metric_objects] if view.metric_objects else list(view.metrics)
    return {"items": items, "metrics": metrics, "versions": _versions(), "command": command}


def _default_command(kind: str, path: Path | None, options: Mapping[str, Any]) -> str:
    """The call, the line that made it and the process's command line."""
    shown = ", ".join([kind, *(f"{k}={v!r}" for k, v in options.items())])
    if path is not None:
        shown = f"{kind}, path={str(path)!r}, " + ", ".join(f"{k}={v!r}" for k, v in options.items())
    caller = sys._getframe(2)
    where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
    argv = shlex.join([Path(sys.executable).name, *sys.argv]) if sys.argv and sys.argv[0] else sys.executable
    return f"rankeval.report({shown.rstrip(', ')})\n# called from {where}\n# process: {argv}"


# ---------------------------------------------------------------------- the API
def _check_confidence(confidence: Any) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < float(confidence) < 1:
        raise ValueError(f"`confidence` must be a number in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"`{name}` must be an integer >= {low}, got {value!r}")
    return int(value)


def _progress(show: bool | None, total: int) -> Any:
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if show is None else bool(show)
    return tqdm(total=total, desc="rankeval report", unit="section", leave=False, disable=not enabled,
                bar_format="{desc}: {n_fmt}/{total_fmt} sections [{elapsed}] {postfix}")


def _groups_tables(groups: Any, digits: int) -> list[tuple[str, dict[str, Any]]]:
    if groups is None:
        return []
    if isinstance(groups, pd.DataFrame):
        groups = {"per group": groups}
    if not isinstance(groups, Mapping) or not all(isinstance(v, pd.DataFrame) for v in groups.values()):
        raise TypeError(f"`groups` must be a DataFrame (e.g. EvalModel.by_group()) or a mapping of title -> "
                        f"DataFrame, got {type(groups).__name__}")
    return [(str(title), _frame_table(f"extra-{i + 1}", frame, digits)) for i, (title, frame) in
            enumerate(groups.items())]


@literal_text
def report(result: ComparisonResult | EvalModel | tuple[pd.DataFrame, pd.DataFrame] | None = None,
           path: str | os.PathLike[str] | None = None, *,
           systems: Mapping[str, Any] | None = None, truth: Any = None,
           metrics: Sequence[RankingMetric] | None = None, system_name: str = "system",
           groups: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None, title: str = "rankeval report",
           digits: int = 4, n_bootstrap: int = 1000, confidence: float = 0.95, seed: int = 0,
           kind: Kind = "box", image_format: ImageFormat = "svg", command: str | None = None,
           progress: bool | None = None, **compare_options: Any) -> Report:
    """Write one self-contained HTML page of an evaluation or a comparison.

    Give either a finished ``result`` or ``systems``, ``truth`` and ``metrics`` (then
    :func:`~rankeval.compare` runs here, with ``compare_options``; a mapping of one
    system runs :class:`~rankeval.EvalModel` instead). See docs/report.md for the page.

    Parameters
    ----------
    result : ComparisonResult, EvalModel or (sys_result, users_result), optional
        A comparison (:func:`~rankeval.compare`), or one system's evaluation: an
        :class:`~rankeval.EvalModel` (fitted here if it was not) or the frames its
        ``fit()`` returned.
    path : str or PathLike, optional
        Where to write the page (UTF-8). Its folder must exist.
    systems : mapping of name -> DataFrame or list of DataFrame, optional
        Recommendation lists per system (one frame per split), as :func:`compare` takes them.
    truth : DataFrame or list of DataFrame, optional
        Held-out ratings, one frame per split.
    metrics : list of RankingMetric, optional
        The metrics to compute (with ``systems``); with a ``result``, the metrics that
        made it, shown in the metric card (relevance threshold, parameters).
    system_name : str
        The system's name in the page of a single evaluation.
    groups : DataFrame or mapping of str -> DataFrame, optional
        Beyond-accuracy or per-group results to show as tables, e.g.
        :meth:`EvalModel.by_group`'s frame; a mapping gives each table a title.
    title : str
        The page's title.
    digits : int
        Decimals of the tables (as :meth:`ComparisonResult.to_markdown`).
    n_bootstrap : int
        Resamples of the bands of the metric@k curves (at least 10).
    confidence : float
        Confidence of those bands, in (0, 1).
    seed : int
        Seed of the bands' resampling (and of ``compare`` when it runs here, unless
        ``compare_options`` holds a ``seed`` of its own).
    kind : {"box", "violin"}
        Plots of the per-user distributions.
    image_format : {"svg", "png"}
        Figures as inline SVG (sharp at any zoom) or as PNG data URIs (smaller with
        very many users).
    command : str, optional
        What made the page, shown in the metric card (the CLI passes its command line);
        default this call, the file and line that made it and the process's command line.
    progress : bool, optional
        A progress bar over the sections on standard error (default: on a terminal).
    **compare_options
        Passed to :func:`~rankeval.compare` (``test``, ``correction``, ``alpha``,
        ``n_resamples``, ``ci_method``, ``baseline``, ``convention``, ``missing_users``,
        ``split_names``, side data, column names, ``ties``...) or, for one system, to
        :class:`~rankeval.EvalModel`. Only with ``systems``.

    Returns
    -------
    Report
        The HTML text, the file written (if any) and the sections of the page.

    Raises
    ------
    ValueError
        Neither or both of ``result`` and ``systems``; ``systems`` without ``truth`` or
        ``metrics``; a bad option value; ``path`` in a folder that does not exist.
    TypeError
        ``result`` or ``groups`` of a wrong type.
    ImportError
        Jinja2 or matplotlib missing (``pip install 'rankeval[report]'``).

    Notes
    -----
    The bands of the curves are percentile-bootstrap intervals of each system's mean,
    users drawn with replacement within each split (:func:`bootstrap_mean_ci`): they
    describe each system on its own; whether two systems differ is what the paired tests
    of the summary say. Warnings raised while the page is made (e.g. units the Friedman
    test leaves out) are listed in the metric card and passed on to the caller.
    """
    from ..evaluation._eval_model import EvalModel

    digits = _check_int("digits", digits, 0)
    n_bootstrap = _check_int("n_bootstrap", n_bootstrap, 10)
    if n_bootstrap > MAX_BOOTSTRAP:
        # every resampled mean is kept for the quantiles: memory grows with the count
        raise ValueError(f"`n_bootstrap` must be at most {MAX_BOOTSTRAP:,} (the bands' Monte Carlo error is then "
                         f"far below their width), got {n_bootstrap:,}")
    seed = _check_int("seed", seed, 0)
    confidence = _check_confidence(confidence)
    kind = check_choice("kind", kind, ["box", "violin"])  # type: ignore[assignment]
    image_format = check_choice("image_format", image_format, ["svg", "png"])  # type: ignore[assignment]
    if not isinstance(title, str):
        raise TypeError(f"`title` must be a str, got {type(title).__name__}")
    if command is not None and not isinstance(command, str):
        raise TypeError(f"`command` must be a str, got {type(command).__name__}")
    target = None if path is None else Path(path)
    if target is not None:
        if target.is_dir():
            raise ValueError(f"`path` {str(target)!r} is a folder, not a file")
        if not target.resolve().parent.is_dir():
            raise ValueError(f"`path` {str(target)!r}: the folder '{target.resolve().parent}' does not exist")
    if result is not None and systems is not None:
        raise ValueError("pass either `result` (a ComparisonResult or an evaluation) or `systems`, `truth` and "
                         "`metrics`, not both")
    if result is None and systems is None:
        raise ValueError("nothing to report: pass `result` (a ComparisonResult, an EvalModel or its fit() "
                         "frames) or `systems`, `truth` and `metrics`")
    if result is not None and compare_options:
        raise ValueError(f"{sorted(compare_options)} only apply when report() runs compare itself (with "
                         f"`systems`, `truth` and `metrics`); the result given was already computed")
    jinja2 = _jinja2()
    _matplotlib()
    tables_extra = _groups_tables(groups, digits)

    caught: list[warnings.WarningMessage] = []
    settings = {"n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed, "kind": kind,
                "image_format": image_format}
    steps = 6 + (systems is not None)
    bar = _progress(progress, steps)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if systems is not None:
                bar.set_postfix_str("computing the metrics", refresh=True)
                view = _run(systems, truth, metrics, system_name, seed, progress, compare_options)
                bar.update()
                kind_text = f"systems={{{', '.join(repr(str(s)) for s in systems)}}}, truth=..., metrics=[...]"
                call_options = {**compare_options, **settings}
            else:
                view = _view_of(result, metrics, system_name, EvalModel)
                kind_text = {True: "<ComparisonResult>", False: "<evaluation>"}[view.comparison is not None]
                call_options = settings
            view.call_settings = {"curve bands": f"{100 * confidence:g}% percentile bootstrap of each system's "
                                                 f"mean, {n_bootstrap} resamples within splits, seed {seed}"}
            if command is None:
                command = _default_command(kind_text, target, call_options)
            page = _build(view, bar, title=title, digits=digits, n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, kind=kind, image_format=image_format, tables_extra=tables_extra,
                          command=command, caught=caught)
    finally:
        bar.close()
    seen: set[str] = set()
    for w in caught:  # passed on once each, after the page is made
        text = str(w.message)
        if text not in seen:
            seen.add(text)
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    html = jinja2.render(page)
    out = Report(html=html, path=target, sections=tuple(s["id"] for s in page["sections"]))
    if target is not None:
        out.save(target)
    return out


def _jinja2() -> Any:
    try:
        import jinja2
    except ImportError as exc:
        raise ImportError("the report is written with Jinja2, which is not installed: "
                          "pip install 'rankeval[report]'") from exc
    env = jinja2.Environment(loader=jinja2.PackageLoader("rankeval.page", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    return env.get_template("report.html.j2")


def _view_of(result: Any, metrics: Sequence[RankingMetric] | None, system_name: str,
             eval_model: type[EvalModel]) -> _View:
    if isinstance(result, ComparisonResult):
        view = _from_comparison(result)
        if metrics is not None:
            objects = [e for m in metrics for e in m.expand()]
            missing = [m for m in view.metrics if m not in {str(o) for o in objects}]
            if missing:
                raise ValueError(f"`metrics` must be the metrics of the comparison: {missing} are in the result but "
                                 f"not in `metrics`")
            if view.convention != "rankeval":
                objects = [m.with_convention(view.convention) for m in objects]
            view.metric_objects = objects
        if not view.metrics:
            raise ValueError(f"nothing to report per user: every metric of this comparison is listed per system "
                             f"without a test ({list(result.system_values.columns)})")
        return view
    if isinstance(result, eval_model):
        fitted = result._fitted if result._fitted is not None else result.fit()
        if not isinstance(fitted[1], pd.DataFrame):
            raise ValueError("report() needs local per-user values: EvalModel on Spark inputs is not supported; "
                             "collect the frames with toPandas() first")
        return _from_evaluation(fitted[0], fitted[1], str(system_name), result)
    if isinstance(result, tuple) and len(result) == 2:
        return _from_evaluation(result[0], result[1], str(system_name), None)
    raise TypeError(f"`result` must be a ComparisonResult, an EvalModel or EvalModel.fit()'s (sys_result, "
                    f"users_result), got {type(result).__name__}")


def _run(systems: Mapping[str, Any], truth: Any, metrics: Sequence[RankingMetric] | None, system_name: str,
         seed: int, progress: bool | None, options: dict[str, Any]) -> _View:
    from ..evaluation._compare import compare
    from ..evaluation._eval_model import EvalModel

    if not isinstance(systems, Mapping) or not systems:
        raise ValueError(f"`systems` must be a non-empty mapping of name -> DataFrame(s), got {systems!r:.80}")
    if truth is None or metrics is None:
        raise ValueError("`systems` needs `truth` and `metrics` too: report() runs compare(systems, truth, metrics)")
    names = [str(s) for s in systems]
    n_splits = len(truth) if isinstance(truth, (list, tuple)) else 1
    split_names = [str(s) for s in options.get("split_names") or [f"fold{i + 1}" for i in range(n_splits)]]
    user_col = options.get("user_col", "user_id")
    if len(names) == 1:
        frames = next(iter(systems.values()))
        compare_only = {"test", "correction", "baseline", "alpha", "n_resamples", "seed", "ci_method"}
        extra = {k: v for k, v in options.items() if k not in compare_only}
        model = EvalModel(frames, truth, metrics, progress=None if progress else False, **extra)
        view = _from_evaluation(*model.fit(), names[0], model)
    else:
        res = compare(systems, truth, metrics, **{"seed": seed, "progress": None if progress else False, **options})
        view = _from_comparison(res)
        objects = [e for m in metrics for e in m.expand()]
        if res.convention != "rankeval":
            objects = [m.with_convention(res.convention) for m in objects]
        view.metric_objects = objects
        from .. import conventions
        preset = conventions.get_convention(res.convention) if res.convention in conventions.names() else None
        view.ties = options.get("ties") or (preset.ties if preset is not None else "row_order")
        view.missing_users = options.get("missing_users") or (preset.missing_users if preset is not None
                                                              else "ignore")
        try:
            view.user_counts = _user_counts(systems, truth, split_names, user_col)
        except (KeyError, TypeError, ValueError):  # an input kind the counts cannot read: shown as unknown
            view.user_counts = None
    return view


def _build(view: _View, bar: Any, *, title: str, digits: int, n_bootstrap: int, confidence: float, seed: int,
           kind: Kind, image_format: ImageFormat, tables_extra: list[tuple[str, dict[str, Any]]], command: str,
           caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    """The template's context, section by section (one progress step each)."""
    res = view.comparison
    sections: list[dict[str, Any]] = []

    def step(text: str) -> None:
        bar.set_postfix_str(text, refresh=True)

    # (a) summary
    step("summary tables")
    if res is not None:
        means, diffs, note = _summary_tables(res, digits)
        sections.append({"id": "summary", "title": "Summary", "means": means, "differences": diffs, "note": note})
    else:
        assert view.sys_result is not None
        sections.append({"id": "summary", "title": "Summary", "means": _evaluation_table(view.sys_result, digits),
                         "differences": None,
                         "note": f"{view.systems[0]}: the mean over each split's users (NaN values left out), "
                                 f"and the unweighted mean of the splits."})
    bar.update()

    # (b) metric@k curves
    step("metric@k curves")
    groups = _cutoff_groups(view.metrics)
    if groups:
        fig, _ = _curves_figure(view, groups, n_bootstrap, confidence, seed)
        stems = ", ".join(groups)
        sections.append({"id": "curves", "title": "Metrics at every cutoff", "figures": [
            _embed(fig, image_format, f"metric at k curves of {stems}")],
            "note": f"Each line: a system's mean at every cutoff; the band: its {100 * confidence:g}% percentile "
                    f"bootstrap interval ({n_bootstrap} resamples of the users within each split, seed {seed})."})
    else:
        sections.append({"id": "curves", "title": "Metrics at every cutoff", "figures": [],
                         "note": "No metric was computed at several cutoffs: ask for e.g. NDCG@1,5,10,20 to see "
                                 "how the metrics move with the cutoff."})
    bar.update()

    # (c) per-user distributions and paired differences
    step("per-user distributions")
    if res is not None:
        figures = [_embed(f, image_format, f"per-user distributions and paired differences, figure {i + 1}")
                   for i, f in enumerate(_comparison_distributions(res, kind))]
        note = ("Top: each system's per-user values (the diamond is the mean). Bottom: every tested difference "
                "b − a with its CI; filled markers are significant after the correction.")
    else:
        figures = [_embed(_evaluation_distribution(view, kind), image_format, "per-user distributions")]
        note = "The per-user values of every metric (the diamond is the mean), NaN values left out."
    sections.append({"id": "distributions", "title": "Per-user distributions", "figures": figures, "note": note})
    bar.update()

    # (d) many systems
    step("Friedman test and critical differences")
    if res is not None and len(res.systems) >= 3:
        diagrams = []
        for metric in res.metrics:
            try:
                ax = res.plot_critical_difference(metric)
            except ValueError as exc:  # too few complete units for this metric
                diagrams.append({"metric": metric, "figure": None, "note": str(exc)})
                continue
            ax.set_title(metric, fontsize=10)
            diagrams.append({"metric": metric, "figure": _embed(ax.figure, image_format,
                                                                f"critical-difference diagram of {metric}"),
                             "note": ""})
        sections.append({"id": "many", "title": "Many systems: Friedman test and critical differences",
                         "friedman": _friedman_table(res, digits), "diagrams": diagrams,
                         "note": "Friedman's test over the units where every system has a value (chi-square with "
                                 "tie correction; Iman-Davenport F), and each system's mean rank (1 = best). "
                                 "Critical-difference diagrams: systems joined by a thick bar are not "
                                 f"significantly different (Nemenyi test, alpha = {res.alpha:g})."})
    bar.update()

    # (e) beyond accuracy and groups
    step("beyond accuracy and groups")
    extra = list(tables_extra)
    if res is not None and len(res.system_values.columns):
        extra.insert(0, ("system-level metrics (mean over splits, not tested)",
                         _frame_table("system-values", res.system_values, digits)))
    if extra:
        sections.append({"id": "beyond", "title": "Beyond accuracy and groups", "tables": extra})
    bar.update()

    # (f) metric card
    step("metric card")
    card = _card(view, command)
    notes = []
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in notes:
            notes.append(text)
    sections.append({"id": "card", "title": "Metric card", "card": card, "users": _counts_table(view),
                     "warnings": notes})
    bar.update()
    generated = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    subtitle = (f"{len(view.systems)} system{'s' if len(view.systems) > 1 else ''} · {len(view.metrics)} metrics · "
                f"{len(view.split_names)} split{'s' if len(view.split_names) != 1 else ''} · "
                f"{len(view.units)} (split, user) units")
    return {"title": title, "subtitle": subtitle, "generated": generated, "sections": sections,
            "systems": [(s, _COLORS[i % len(_COLORS)]) for i, s in enumerate(view.systems)]}
