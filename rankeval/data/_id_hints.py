"""The fix named when two id columns hold kinds that never match (numbers in one, text in
the other): the conversion of the frame that needs it, written as the caller would write it.

A hint that casts the wrong frame is worse than none: it sends the user to a frame that is
already right. So the frame holding the numbers is converted to text (which always works),
unless the other frame is side data facing pred and truth that agree with each other: then
the side data is the odd one out, converted to numbers when every one of its text ids is a
number. The command line replaces the Python with its own words (``IdKindError.numeric``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["IdKindError", "IdColumn", "id_kind_error", "spark_id_kind_error"]

#: side data: how the ids of each are written in Python (the rest are columns of a frame)
_SIDE_IDS = {"catalog": ("catalog", "pd.Index(catalog)"),
             "item_features": ("item_features.index", "item_features.index"),
             "item_groups": ("item_groups.index", "item_groups.index")}
_DECODE = '.str.decode("utf-8")'



class IdKindError(ValueError):
    """Ids of kinds that never match. ``numeric``: the frames whose ids are numbers (pred, truth,
    train, ...), the ones to write as text from the command line; ``hint``: the Python fix
    at the end of the message."""

    def __init__(self, message: str, *, numeric: tuple[str, ...], hint: str) -> None:
        super().__init__(message)
        self.numeric = numeric
        self.hint = hint


class IdColumn(NamedTuple):
    """One side of the comparison: the frame's name, its column, the ids' kind and its distinct ids."""

    frame: str
    column: str
    kind: str | None
    ids: Any


def _assign(side: IdColumn, conv: str) -> str:
    """``frame['col'] = frame['col']<conv>`` (or the side data's own form); ``conv`` may hold
    ``{x}`` for the value converted, as in ``pd.to_numeric({x})``."""
    column = f"{side.frame}['{side.column}']"
    target, value = _SIDE_IDS.get(side.frame, (column, column))
    return f"{target} = " + (conv.format(x=value) if "{x}" in conv else value + conv)


def _to_text(ids: Any) -> str:
    """The conversion of numeric ids to text that gives "7" for 7 and for 7.0 (astype(str) alone gives "7.0")."""
    values = np.asarray(ids)
    if pd.api.types.infer_dtype(values, skipna=True) in ("floating", "mixed-integer-float"):
        floats = values.astype(np.float64)
        if np.all(np.isfinite(floats) & (floats == np.round(floats))):
            return '.astype("int64").astype(str)'
    return ".astype(str)"


def _all_numbers(ids: Any) -> bool:
    return bool(pd.to_numeric(pd.Series(np.asarray(ids, dtype=object)), errors="coerce").notna().all())


def _hint(first: IdColumn, second: IdColumn, side: bool) -> tuple[tuple[str, ...], str]:
    """The frames holding numbers and the fix (``second`` is side data facing pred and truth when ``side``)."""
    kinds = {first.kind, second.kind}
    if kinds == {"text", "bytes"}:
        raw = first if first.kind == "bytes" else second
        return (), f"Decode the bytes first: {_assign(raw, _DECODE)}"
    if kinds != {"numbers", "text"}:
        return (), "Cast one side to the other's type first"
    numbers, text = (first, second) if first.kind == "numbers" else (second, first)
    if not side or numbers is second:
        return (numbers.frame,), f"Convert `{numbers.frame}`'s ids to text: {_assign(numbers, _to_text(numbers.ids))}"
    # pred and truth agree on numbers; the side data holds text
    convert_pred = f"{_assign(first, _to_text(first.ids))} (and truth's alike)"
    if _all_numbers(second.ids):
        return ("pred", "truth"), (f"Convert `{second.frame}`'s ids to numbers: "
                                   f"{_assign(second, 'pd.to_numeric({x})')}, or pred's and truth's to text: "
                                   f"{convert_pred}")
    return ("pred", "truth"), f"Convert pred's and truth's ids to text: {convert_pred}"


def id_kind_error(problem: str, first: IdColumn, second: IdColumn, *, side: bool = False) -> IdKindError:
    """The error for ids of kinds that never match: ``problem`` (what each frame holds),
    then the fix. ``side``: ``second`` is side data (train, catalog, item features, item
    groups) and ``first`` is pred, whose kind truth shares."""
    numeric, hint = _hint(first, second, side)
    return IdKindError(f"{problem}: no id could ever match. {hint}", numeric=numeric, hint=hint)


def spark_id_kind_error(problem: str, frame: str, column: str, *, fractional: bool) -> IdKindError:
    """The error for Spark frames whose id columns are numbers in ``frame`` and text in the other:
    ``frame``'s column cast to text (through ``long`` when ``fractional``: ``7.0`` must become ``"7"``)."""
    cast = ".cast('long').cast('string')" if fractional else ".cast('string')"
    hint = f"Convert `{frame}`'s ids to text: {frame} = {frame}.withColumn('{column}', {frame}['{column}']{cast})"
    return IdKindError(f"{problem}: no id could ever match. {hint}", numeric=(frame,), hint=hint)
