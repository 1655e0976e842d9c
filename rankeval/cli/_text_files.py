"""Delimited text for the command line: each file's own separator, ``--decimal``, ids as text, and
errors that name those options.

Every command reads its CSV, TSV and atomic files through :func:`read_table`:

- the separator is ``--sep`` when given (for every file), else each file's own, read from
  its header line (:func:`rankeval.io._files.header_separator`): a ``;``-separated
  ``--pred`` and a ``,``-separated ``--truth`` are read in one run;
- ``--decimal ,`` reads numbers written with a decimal comma, in every file whose
  separator is not the comma itself (a comma-separated file cannot hold them unquoted);
- the id columns are read as text, so ``0042`` keeps its zero and the ids of every file
  compare equal.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..io import read_frame
from ..io.internal import SEPARATORS, DelimitedTextError, header_separator, numeric_problem

__all__ = ["TABLE_FORMATS", "add_text_arguments", "text_options", "read_table", "check_numbers"]

#: the formats of a file with a header line of column names
TABLE_FORMATS = ("csv", "tsv", "atomic", "parquet")
#: the separator a format has when its header line names none of SEPARATORS
_DEFAULT_SEP = {"csv": ",", "tsv": "\t", "atomic": "\t"}
_SHOWN = {"\t": "tab"}


def add_text_arguments(group: argparse._ArgumentGroup) -> None:
    """``--sep`` and ``--decimal``, in a command's group of column and file options."""
    candidates = ", ".join(repr(_SHOWN.get(s, s)) for s in SEPARATORS)
    group.add_argument("--sep", default=None, metavar="SEP",
                       help=f"field separator of every delimited file, e.g. ';' or '|' (default: each file's own, "
                            f"read from its header line: {candidates}; else ',' for .csv, tab for .tsv and RecBole "
                            f"atomic files)")
    group.add_argument("--decimal", default=None, metavar="CHAR",
                       help="decimal mark of the numbers in delimited files, e.g. ',' for 0,75 (default '.'); "
                            "not applied to comma-separated files")


def text_options(args: argparse.Namespace, path: str, fmt: str, id_columns: Sequence[str]) -> dict[str, Any]:
    """read_frame's options for one file: ids as text, its separator, the decimal mark (none for Parquet, TREC)."""
    if fmt not in _DEFAULT_SEP:
        return {}
    sep = args.sep if args.sep is not None else header_separator(path, _DEFAULT_SEP[fmt])
    options: dict[str, Any] = {"dtype": {c: str for c in id_columns}, "sep": sep}
    decimal = getattr(args, "decimal", None)
    if decimal is not None and decimal != sep:
        options["decimal"] = decimal
    return options


def _separator_hint(args: argparse.Namespace, sep: str | None) -> str:
    shown = repr(_SHOWN.get(sep or "", sep))
    if args.sep is not None:
        return (f"it was read with --sep {shown}: pass --sep with the file's own separator, or leave --sep out to "
                f"read each file's from its header line")
    advice = f"it was read with the separator {shown} found in its header line: pass --sep with the file's own"
    if sep == ",":  # 0,75 in a comma-separated row is two fields
        advice += " (numbers with a decimal comma need another separator, or quotes, and --decimal ,)"
    return advice


def read_table(args: argparse.Namespace, path: str, fmt: str, id_columns: Sequence[str],
               **extra: Any) -> pd.DataFrame:
    """``path`` read as ``fmt`` with the command's separator, decimal mark and id columns;
    rows that do not split into the header's columns are an error naming ``--sep``. ``extra``: more
    read_frame options (a ``dtype`` mapping adds to the ids')."""
    options = text_options(args, path, fmt, id_columns)
    for key, value in extra.items():
        both = isinstance(value, dict) and isinstance(options.get(key), dict)
        options[key] = {**options[key], **value} if both else value
    try:
        return read_frame(path, format=fmt, id_columns=tuple(id_columns), **options)
    except DelimitedTextError as exc:
        raise DelimitedTextError(f"{exc}; {_separator_hint(args, options.get('sep'))}") from exc


def check_numbers(frame: pd.DataFrame, what: str, columns: dict[str, str]) -> None:
    """A ValueError naming the file (``what``) and the option when a column that must hold numbers holds text.

    ``columns``: the column names checked (when present) and, for each, the option that names it.
    """
    for column, option in columns.items():
        if column not in frame.columns:
            continue
        problem = numeric_problem(frame[column])
        if problem is not None:
            if "decimal=" not in problem:
                problem += f": write numbers in it, or name the right column with {option}"
            raise ValueError(f"{what}: column {column!r} {problem}")
