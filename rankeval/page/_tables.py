"""The tables of the page, as the cells the template renders: each cell a dict of its text, its
sort key (the column headers sort the rows) and whether it is a number."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import ComparisonResult
from ..views.internal import (
    describe_tests,
    difference_rows,
    effect_rows,
    format_p,
    friedman_rows,
    is_p_column,
    listed_metrics,
    listed_note,
    system_letters,
    wins_over,
)
from ._view import View

__all__ = ["summary_tables", "evaluation_table", "friedman_table", "frame_table", "counts_table", "groups_tables"]


def _num_cell(value: Any, digits: int, **extra: Any) -> dict[str, Any]:
    v = float(value)
    if math.isnan(v):
        return {"text": "–", "sort": "", "num": True, **extra}
    return {"text": f"{v:.{digits}f}", "sort": repr(v), "num": True, **extra}


def _p_cell(value: Any) -> dict[str, Any]:
    """A p-value: written by :func:`format_p` (as in every table of the page), sorted by its value."""
    v = float(value)
    return {"text": format_p(v), "sort": "" if math.isnan(v) else repr(v), "num": True}


def _text_cell(text: Any, sort: Any = None, *, wrap: bool = False) -> dict[str, Any]:
    """A text cell; ``wrap``: long text that wraps (a note) instead of widening the table."""
    return {"text": str(text), "sort": None if sort is None else str(sort), "num": False, "wrap": wrap}


def _table(table_id: str, columns: Sequence[str], rows: list[list[dict[str, Any]]], *,
           numeric: Sequence[bool] | None = None) -> dict[str, Any]:
    numeric = numeric if numeric is not None else [bool(rows) and rows[0][i].get("num", False)
                                                   for i in range(len(columns))]
    return {"id": table_id, "columns": [{"label": c, "num": n} for c, n in zip(columns, numeric)], "rows": rows}


def summary_tables(res: ComparisonResult, digits: int) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
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
    diffs = _differences_table(res, digits) if res.metrics else None
    note = (f"Best value per metric in bold; a superscript lists the systems this system is significantly better "
            f"than ({describe_tests(res)}).{listed_note(res, '†')}")
    return means_table, diffs, note


def _differences_table(res: ComparisonResult, digits: int) -> dict[str, Any]:
    """Every tested difference b − a: its mean, CI, adjusted p-value, units, wins / ties / losses, effect."""
    rows = []
    effects = dict(zip(res.table.index, effect_rows(res, digits)))
    for ((metric, _a, _b), test), text in zip(res.table.iterrows(), difference_rows(res, digits, "")):
        sig = bool(test["significant"])
        rows.append([
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
            *_effect_cells(test, effects.get((metric, _a, _b))),
        ])
    head = ["metric", "difference", "mean", "CI", "p (adjusted)", "n", "wins / ties / losses", "Cohen's d_z"]
    extra = ["d_z CI", "relative", "relative CI"] if effects else []
    return _table("differences", head + extra, rows, numeric=[False, False] + [True] * (len(head) + len(extra) - 2))


def _effect_cells(test: pd.Series, texts: list[str] | None) -> list[dict[str, Any]]:
    """d_z's interval, the relative difference and its interval (none for a table without them)."""
    if texts is None:
        return []
    return [{"text": texts[5], "sort": "" if math.isnan(test["dz_ci_low"]) else repr(float(test["dz_ci_low"])),
             "num": True},
            {"text": texts[2], "sort": "" if math.isnan(test["rel_diff"]) else repr(float(test["rel_diff"])),
             "num": True},
            {"text": texts[3], "sort": "" if math.isnan(test["rel_ci_low"]) else repr(float(test["rel_ci_low"])),
             "num": True}]


def evaluation_table(sys_result: pd.DataFrame, digits: int) -> dict[str, Any]:
    """One system's per-split table of :class:`~rankeval.EvalModel`, its ``mean`` row included."""
    rows = []
    for position, (split, values) in enumerate(sys_result.iterrows()):
        rows.append([_text_cell(split, sort=position)] + [_num_cell(v, digits) for v in values])
    return _table("means", ["split", *map(str, sys_result.columns)], rows,
                  numeric=[False] + [True] * len(sys_result.columns))


def friedman_table(res: ComparisonResult, digits: int) -> dict[str, Any]:
    """Friedman's test and the mean ranks per metric, as the markdown report lists them."""
    head, rows = friedman_rows(res, digits)
    cells = []
    for position, row in enumerate(rows):
        out = [_text_cell(row[0], sort=position)]
        for text in row[1:]:
            sort = "" if text == "–" else ("0" if text.startswith("<") else text)
            out.append({"text": text, "sort": sort, "num": True})
        cells.append(out)
    return _table("friedman", head, cells, numeric=[False] + [True] * (len(head) - 1))


def frame_table(table_id: str, frame: pd.DataFrame, digits: int, *,
                wrap: Sequence[str] = ()) -> dict[str, Any]:
    """Any DataFrame (e.g. EvalModel.by_group) as a sortable table; the index becomes columns.
    Columns of p-values (:func:`is_p_column`) are written by :func:`format_p`; the text of the
    columns named in ``wrap`` wraps."""
    flat = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame
    p_columns = [is_p_column(c) for c in flat.columns]
    wrapped = [c in wrap for c in flat.columns]
    rows = []
    for record in flat.itertuples(index=False):
        row = []
        for value, p_value, wraps in zip(record, p_columns, wrapped):
            if isinstance(value, (bool, np.bool_)):
                row.append(_text_cell("yes" if value else "no"))
            elif isinstance(value, numbers.Integral):
                row.append({"text": str(value), "sort": str(value), "num": True})
            elif isinstance(value, numbers.Real):
                row.append(_p_cell(value) if p_value else _num_cell(value, digits))
            else:
                row.append(_text_cell("–" if value is None or (isinstance(value, float) and math.isnan(value))
                                      else value, wrap=wraps))
        rows.append(row)
    numeric = [pd.api.types.is_numeric_dtype(flat[c]) and not pd.api.types.is_bool_dtype(flat[c])
               for c in flat.columns]
    return _table(table_id, [str(c) for c in flat.columns], rows, numeric=numeric)


def counts_table(view: View) -> dict[str, Any]:
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


def groups_tables(groups: Any, digits: int) -> list[tuple[str, dict[str, Any]]]:
    """report()'s ``groups`` (one DataFrame, or a mapping of title -> DataFrame) as (title, table) pairs."""
    if groups is None:
        return []
    if isinstance(groups, pd.DataFrame):
        groups = {"per group": groups}
    if not isinstance(groups, Mapping) or not all(isinstance(v, pd.DataFrame) for v in groups.values()):
        raise TypeError(f"`groups` must be a DataFrame (e.g. EvalModel.by_group()) or a mapping of title -> "
                        f"DataFrame, got {type(groups).__name__}")
    return [(str(title), frame_table(f"extra-{i + 1}", frame, digits)) for i, (title, frame) in
            enumerate(groups.items())]
