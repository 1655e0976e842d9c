"""RecBole's atomic files (``.inter``, ``.item``, ``.user``), read by :func:`rankeval.io.read_frame`.

An atomic file is tab-separated text whose header names every field ``name:type``, the type
one of :data:`ATOMIC_TYPES` (``user_id:token item_id:token rating:float timestamp:float``).
RecBole reads ``float`` fields as float64 and every other field as text. Here the columns
lose their ``:type`` suffix; ``token``, ``token_seq`` and ``float_seq`` fields are text
exactly as written (a sequence stays one space-separated string); ``float`` fields are
numbers (int64 when every value is written as a whole number: the same values).

:func:`numeric_problem` says why a column read from text is not numbers; the command line
uses it on score columns too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ATOMIC_TYPES", "atomic_types", "atomic_options", "atomic_frame", "numeric_problem"]

#: the field types of RecBole's atomic files (``name:type`` in their header); only ``float`` is a number
ATOMIC_TYPES = ("token", "token_seq", "float", "float_seq")


def atomic_types(path: Path, header: pd.Index) -> dict[str, tuple[str, str]]:
    """Each header field of an atomic file (``name:type``) as ``{field: (name, type)}``, checked as RecBole does."""
    types = {}
    for field in header:
        name, colon, kind = str(field).rpartition(":")
        if not colon or not name or kind not in ATOMIC_TYPES:
            what = f"type {kind!r}" if colon and name else "no ':type' suffix"
            raise ValueError(f"'{path}': header field {str(field)!r} has {what}; a RecBole atomic file names every "
                             f"field name:type, the type one of {', '.join(ATOMIC_TYPES)} (its header: "
                             f"{[str(c) for c in header]})")
        types[str(field)] = (name, kind)
    names = [name for name, _ in types.values()]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"'{path}': the fields {repeated} appear more than once in its header (with different types)")
    return types


def atomic_options(types: dict[str, tuple[str, str]], id_columns: tuple[str, ...], options: dict[str, Any],
                   markers: Sequence[str]) -> dict[str, Any]:
    """read_csv's options for an atomic file: text fields as str, float fields as numbers (missing
    when one of ``markers``); the caller's ``dtype`` and ``usecols`` name the columns without their suffix."""
    field_of: dict[Any, Any] = {name: field for field, (name, _) in types.items()}  # other keys (positions) kept
    options = dict(options)
    given = options.get("dtype")
    dtype: dict[Any, Any] = {field: str for field, (_, kind) in types.items() if kind != "float"}
    if isinstance(given, dict):
        dtype.update({field_of.get(str(k), k): v for k, v in given.items()})
    elif given is not None:
        dtype = given
    options["dtype"] = dtype
    if isinstance(options.get("usecols"), (list, tuple)):
        options["usecols"] = [field_of.get(str(c), c) for c in options["usecols"]]
    if "na_values" not in options and "keep_default_na" not in options:
        # text fields (ids or not) as written: only an empty field is missing; numbers read the usual markers
        options["keep_default_na"] = False
        options["na_values"] = {field: ([""] if kind != "float" or name in id_columns else list(markers))
                                for field, (name, kind) in types.items()}
    return options


def atomic_frame(path: Path, frame: pd.DataFrame, types: dict[str, tuple[str, str]], dtype: Any) -> pd.DataFrame:
    """The frame under its field names; a float field that did not read as numbers (and was not given
    a type by the caller's ``dtype``) is a ValueError."""
    typed = dtype if isinstance(dtype, dict) else types  # dtype=str: every field as the caller asked
    for field, (_, kind) in types.items():
        if kind == "float" and field in frame.columns and field not in typed:
            problem = numeric_problem(frame[field])
            if problem is not None:
                raise ValueError(f"'{path}': field {field!r} {problem}; RecBole reads every ':float' field as a "
                                 f"number")
    return frame.rename(columns={field: name for field, (name, _) in types.items()})


def numeric_problem(series: pd.Series) -> str | None:
    """Why a column read from text is not numbers (None when it is): decimal commas, or other text.

    The reason ends with what to do when the values are numbers written with a decimal
    comma (``0,5``): read the file with ``decimal=','``.
    """
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return None
    text = series.dropna().astype(str)
    if text.empty:
        return None
    comma = text.str.fullmatch(r"\s*[+-]?(\d+,\d*|,\d+)\s*")
    if comma.any() and (comma | text.str.fullmatch(r"\s*[+-]?\d+\s*")).all():
        return (f"holds numbers with a decimal comma ({int(comma.sum()):,} value(s), e.g. "
                f"{text[comma].iloc[0]!r}): read the file with decimal=','")
    return f"holds text that is not a number (e.g. {text.iloc[0]!r})"
