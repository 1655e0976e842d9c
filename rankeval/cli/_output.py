"""The tables a command prints: as text, CSV, JSON, LaTeX or Markdown (``--format``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ..evaluation import ComparisonResult
from ..io.internal import json_text
from ..views.internal import tex_escape

__all__ = ["render", "render_comparison", "render_posthoc", "OUTPUT_FORMATS", "DATA_FORMATS", "POSTHOC",
           "MAX_DIGITS"]

#: --format of evaluate and compare
OUTPUT_FORMATS = ("table", "csv", "json", "latex", "markdown")
#: the formats that hold one table at full precision (no titled sections after it)
DATA_FORMATS = ("csv", "json")
#: --posthoc: the many-system analyses, printed in this order
POSTHOC = ("friedman", "nemenyi", "tukey")
#: the most decimals --digits may ask for (a float64 holds 17 significant digits)
MAX_DIGITS = 17


def _fmt(digits: int | None) -> Any:
    return None if digits is None else (lambda x: f"{x:.{digits}f}")


def _text_table(df: pd.DataFrame, digits: int | None) -> str:
    return str(df.to_string(float_format=_fmt(digits))) + "\n"


def _csv(df: pd.DataFrame) -> str:
    return str(df.reset_index().to_csv(index=False))


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:.{digits}f}"
    return str(value)


def _markdown_frame(df: pd.DataFrame, digits: int) -> str:
    flat = df.reset_index()
    head = [str(c) for c in flat.columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(":---" if not pd.api.types.is_float_dtype(flat[c]) else "---:" for c in flat.columns)
             + "|"]
    for row in flat.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _latex_frame(df: pd.DataFrame, digits: int) -> str:
    flat = df.reset_index()
    cols = "".join("r" if pd.api.types.is_float_dtype(flat[c]) else "l" for c in flat.columns)
    out = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(tex_escape(str(c)) for c in flat.columns) + r" \\",
           r"\midrule"]
    for row in flat.itertuples(index=False):
        if row[0] == "mean" and df.index.name == "split":
            out.append(r"\midrule")
        out.append(" & ".join(tex_escape(_cell(v, digits)) for v in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def render(df: pd.DataFrame, fmt: str, digits: int | None) -> str:
    """``df`` in the output format ``fmt``; ``digits`` decimals (None: full precision, or 4 in
    latex and markdown) in the formats shown to people (csv and json keep every digit)."""
    if fmt == "csv":
        return _csv(df)
    if fmt == "json":
        return json_text(df)
    if fmt == "latex":
        return _latex_frame(df, 4 if digits is None else digits)
    if fmt == "markdown":
        return _markdown_frame(df, 4 if digits is None else digits)
    return _text_table(df, digits)


def render_posthoc(res: ComparisonResult, kinds: Sequence[str], fmt: str, digits: int | None) -> str:
    """The many-system tables asked for with --posthoc, each under a title."""
    sections: dict[str, list[tuple[str, Callable[[], pd.DataFrame]]]] = {
        "friedman": [("Friedman's test per metric (complete units)", res.friedman),
                     ("mean rank per system (1 = best)", res.mean_ranks)],
        "nemenyi": [("Nemenyi's all-pairs test on the mean ranks", res.nemenyi)],
        "tukey": [("Tukey's HSD (independent groups: ignores the pairing)", res.tukey_hsd)]}
    out = []
    for kind in POSTHOC:
        if kind not in kinds:
            continue
        for title, table in sections[kind]:
            heading = {"markdown": f"**{title}**\n\n", "latex": f"% {title}\n"}.get(fmt, f"{title}:\n")
            out.append("\n" + heading + render(table(), fmt, digits))
    return "".join(out)


def render_comparison(res: ComparisonResult, fmt: str, digits: int | None) -> str:
    """The comparison's table in ``fmt`` (markdown and latex: the publication tables), then, as
    text, the metrics compared without a test."""
    if fmt == "markdown":
        return res.to_markdown() if digits is None else res.to_markdown(digits)
    if fmt == "latex":
        return res.to_latex() if digits is None else res.to_latex(digits)
    if fmt == "table" and len(res.system_values.columns):  # listed per system, without a test
        tested = render(res.table, fmt, digits) + "\n" if len(res.table) else ""
        return tested + "no test (no per-user value; mean over splits):\n" + render(res.system_values, fmt, digits)
    return render(res.table, fmt, digits)
