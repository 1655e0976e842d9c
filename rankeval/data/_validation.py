"""Parameter checkers and frame validators shared by every public entry point.

Kernels trust their inputs; everything the caller passes is checked here, once, and
every message has one shape: the frame or parameter in backticks, what is wrong, what
was received (users and row labels), and how to fix it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from ._columns import SCORE_ORDERS
from ._id_hints import IdColumn, id_kind_error

_SHOW = 5  # how many offending users / rows a message lists


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise a ValueError naming ``name``."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {list(choices)}, got {value!r}")
    return value


def check_number(name: str, value: Any, low: float | None = 0.0, high: float | None = 1.0, *,
                 closed_low: bool = False, closed_high: bool = False, why: str = "") -> float:
    """A finite real number (not a bool) in the interval from ``low`` to ``high`` (open ends
    unless ``closed_*``; ``None``: no bound on that side), else a ValueError naming ``name``,
    the interval (and ``why``, when given): "must be a number in (0, 1)", "must be a finite
    number > 0", "must be a finite number"."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))
    if ok:
        v = float(value)
        ok = ((low is None or (low <= v if closed_low else low < v))
              and (high is None or (v <= high if closed_high else v < high)))
    if not ok:
        if low is not None and high is not None:
            what = f"a number in {'[' if closed_low else '('}{low:g}, {high:g}{']' if closed_high else ')'}"
        elif low is not None:
            what = f"a finite number {'>=' if closed_low else '>'} {low:g}"
        elif high is not None:
            what = f"a finite number {'<=' if closed_high else '<'} {high:g}"
        else:
            what = "a finite number"
        raise ValueError(f"`{name}` must be {what}{why}, got {value!r}")
    return float(value)


def check_integer(name: str, value: Any, low: int, high: int | None = None, *, why: str = "") -> int:
    """An integer ``>= low`` (and ``<= high`` when given), not a bool, else a ValueError
    naming ``name``, the bounds (and ``why``, when given)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)) or int(value) < low:
        raise ValueError(f"`{name}` must be an integer >= {low}{why}, got {value!r}")
    if high is not None and int(value) > high:
        raise ValueError(f"`{name}` must be at most {high:,}{why}, got {value!r}")
    return int(value)


#: the largest cutoff: positions are int32, and no list is longer than that
MAX_CUTOFF = 2**31 - 1


@overload
def check_cutoff(k: Any, *, required: Literal[True], name: str = "k") -> int: ...
@overload
def check_cutoff(k: Any, *, required: bool = False, name: str = "k") -> int | None: ...
def check_cutoff(k: Any, *, required: bool = False, name: str = "k") -> int | None:
    """Validate a cutoff: ``None`` (no cutoff, unless ``required``) or an integer >= 1."""
    if k is None:
        if required:
            raise ValueError(f"`{name}` is required: pass an integer >= 1")
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"`{name}` must be an integer >= 1, got {k!r} of type {type(k).__name__}")
    if k < 1:
        raise ValueError(f"`{name}` must be an integer >= 1, got {k}")
    if k > MAX_CUTOFF:
        raise ValueError(f"`{name}` = {k} is larger than any list can be (at most {MAX_CUTOFF}); for the "
                         f"whole list use the metric without a cutoff (e.g. NDCG instead of NDCGAtK) or "
                         f"{name}=None where allowed")
    return int(k)


def check_cutoffs(ks: Any, name: str = "k") -> tuple[int, ...]:
    """Validate several cutoffs (``k=[1, 5, 10]``): a non-empty list of distinct integers >= 1,
    returned in ascending order."""
    values = list(ks)
    if not values:
        raise ValueError(f"`{name}` is an empty list: give at least one cutoff, e.g. {name}=[5, 10]")
    cutoffs = [check_cutoff(k, required=True, name=name) for k in values]
    repeated = sorted({k for k in cutoffs if cutoffs.count(k) > 1})
    if repeated:
        raise ValueError(f"`{name}` repeats the cutoff(s) {repeated}: give each cutoff once")
    return tuple(sorted(cutoffs))


def check_threshold(threshold: Any, name: str = "relevant_threshold") -> float | None:
    """Validate a relevance threshold: ``None`` (each user's mean truth score) or a real number."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)):
        raise ValueError(f"`{name}` must be None or a number, got {threshold!r}")
    value = float(threshold)
    if np.isnan(value):
        raise ValueError(f"`{name}` must not be NaN; pass None to use each user's mean truth score")
    return value


def show(value: Any) -> str:
    """repr of an id or value as the caller wrote it (numpy scalars as plain Python)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _rows(index: pd.Index, mask: np.ndarray) -> list[Any]:
    return index[mask][:_SHOW].tolist()


#: set to (user_col, item_col) where row labels mean nothing to the caller (the Spark
#: engine's buckets): messages then name (user, item) pairs instead of rows
LOCATE_BY_PAIRS: ContextVar[tuple[str, str] | None] = ContextVar("LOCATE_BY_PAIRS", default=None)


def where(df: pd.DataFrame, mask: np.ndarray) -> str:
    """``at rows [...]``, or ``at (user, item) pairs [...]`` under LOCATE_BY_PAIRS."""
    cols = LOCATE_BY_PAIRS.get()
    if cols is None or not all(c in df.columns for c in cols):
        return f"at rows {_rows(df.index, mask)}"
    picked = df.loc[mask, list(cols)].head(_SHOW)
    pairs = [tuple(v.item() if isinstance(v, np.generic) else v for v in row)
             for row in picked.itertuples(index=False)]
    return f"at ({cols[0]}, {cols[1]}) pairs {pairs}"


def require_dataframe(df: Any, frame: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"`{frame}` must be a pandas DataFrame, got {type(df).__name__}")
    return df


#: what a score column is often called instead, by the tools our users come from
SCORE_ALIASES = ("rating", "prediction", "relevance")
#: what other tools call the user and item id columns, for a hint when ``user_id``/``item_id`` are absent
ID_ALIASES = {
    "user": ("user_id", "userId", "userID", "UserId", "user", "uid", "customer_id"),
    "item": ("item_id", "itemId", "itemID", "ItemId", "item", "iid", "movieId", "movie_id", "product_id"),
}


def require_columns(df: pd.DataFrame, frame: str, columns: Sequence[str], *, score: tuple[str, str] | None = None,
                    ids: tuple[str, str, str] | None = None) -> None:
    """The columns are there.

    ``score``: the score column and the option that names it; ``ids``: the user and item
    columns and the prefix of the options that name them (``""`` for ``user_col``,
    ``"truth_"`` for ``truth_user_col``). Both only shape the hint of the error.
    """
    missing = [c for c in columns if c not in df.columns]
    if missing:
        hints = []
        aliases = [a for a in SCORE_ALIASES if a in df.columns]
        if score is not None and score[0] in missing and len(aliases) == 1:
            hints.append(f"Its scores are in {aliases[0]!r}? Pass {score[1]}={aliases[0]!r}")
        user, item, prefix = ids if ids is not None else ("", "", "")
        for role, name in (("user", user), ("item", item)):
            found = [a for a in ID_ALIASES[role] if a in df.columns and a != name]
            if name in missing and len(found) == 1:
                hints.append(f"Its {role} ids are in {found[0]!r}? Pass {prefix}{role}_col={found[0]!r}")
        hint = ". ".join(hints) or "Rename the columns or pass user_col=/item_col=/score_col= to Split"
        raise ValueError(f"`{frame}` is missing column(s) {missing}; it has {list(df.columns)}. {hint}")
    repeated = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
    if repeated:
        raise ValueError(f"`{frame}` has more than one column named {repeated}: column names must be unique; "
                         f"rename or drop the repeated columns")


def check_column_names(c: Any) -> None:
    """Each frame's column names are distinct and ``score_order`` is one of its choices (``c``: a Columns)."""
    check_choice("score_order", c.score_order, SCORE_ORDERS)
    pred_names = (c.user, c.item, c.score, c.rank)
    truth_names = (c.truth_user, c.truth_item, c.truth_score)
    if len(set(pred_names)) < 4 or len(set(truth_names)) < 3:
        given = ", ".join(f"{k}={v!r}" for k, v in (
            ("user_col", c.user), ("item_col", c.item), ("score_col", c.score), ("rank_col", c.rank),
            ("truth_user_col", c.truth_user_col), ("truth_item_col", c.truth_item_col),
            ("truth_score_col", c.truth_score_col)) if v is not None)
        raise ValueError(f"column names must be distinct within each frame, got {given}")


#: infer_dtype's names, grouped into the kinds of value that can equal each other
_ID_KINDS = {"integer": "numbers", "floating": "numbers", "mixed-integer-float": "numbers", "decimal": "numbers",
             "string": "text", "bytes": "bytes", "boolean": "booleans", "datetime64": "datetimes",
             "datetime": "datetimes", "date": "dates", "timedelta64": "timedeltas", "timedelta": "timedeltas"}


def id_kind(uniques: np.ndarray) -> str | None:
    """What a column's distinct ids are (``"numbers"``, ``"text"``, ...); None when empty or mixed."""
    if len(uniques) == 0:
        return None
    return _ID_KINDS.get(pd.api.types.infer_dtype(uniques, skipna=True))


def _value_kind(value: Any) -> str:
    """The kind of one id, as :data:`_ID_KINDS` names them (``"other"`` for the rest)."""
    if isinstance(value, (bool, np.bool_)):
        return "booleans"
    if isinstance(value, numbers.Number):
        return "numbers"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bytes):
        return "bytes"
    return "other"


def reject_mixed_ids(df: pd.DataFrame, frame: str, column: str, ids: np.ndarray) -> None:
    """Raise if one id column holds ids of kinds that never compare equal (1 and "2" side by side).

    Such a column is a mistake made upstream (a file read with some ids quoted, two sources
    appended): the ids of one kind would never match the other frame's, silently.
    """
    if len(ids) == 0 or pd.api.types.infer_dtype(ids, skipna=True) not in ("mixed", "mixed-integer"):
        return
    examples: dict[str, Any] = {}
    for value in ids:
        if not pd.isna(value):
            examples.setdefault(_value_kind(value), value)
    if len(examples) < 2:
        return
    shown = " and ".join(f"{kind} (e.g. {show(value)})" for kind, value in examples.items())
    values = df[column].to_numpy(dtype=object)
    first_kind = next(iter(examples))
    odd = np.fromiter((not pd.isna(v) and _value_kind(v) != first_kind for v in values), dtype=bool, count=len(values))
    raise ValueError(
        f"`{frame}`['{column}'] holds ids of more than one kind: {shown}, {int(odd.sum())} row(s) of another "
        f"kind than the first {where(df, odd)}. Ids of different kinds never match each other, so some lists "
        f"would silently score 0. Make the column one type first, e.g. {frame}['{column}'] = "
        f"{frame}['{column}'].astype(str)")


def check_id_kinds(pred: pd.DataFrame, truth: pd.DataFrame, column: str, pred_ids: np.ndarray,
                   truth_ids: np.ndarray, *, other: str = "truth", other_column: str | None = None) -> None:
    """Raise if ``pred`` and ``truth`` hold ids of kinds that never compare equal (e.g. 7 and "7"),
    or if either column mixes such kinds itself.

    ``other_column`` is the column's name in ``truth`` when it differs from pred's ``column``;
    ``other`` names the second frame: ``"truth"``, or side data (``"train"``, ``"catalog"``, ...)
    checked once pred and truth agree. The message converts the frame that needs it
    (:mod:`._id_hints`). Integer and float ids holding whole numbers compare as numbers and pass.
    """
    theirs = column if other_column is None else other_column
    reject_mixed_ids(pred, "pred", column, pred_ids)
    reject_mixed_ids(truth, other, theirs, truth_ids)
    kinds = id_kind(pred_ids), id_kind(truth_ids)
    if None in kinds or kinds[0] == kinds[1]:
        return
    problem = (f"`pred`['{column}'] holds {kinds[0]} (dtype {pred[column].dtype}, e.g. {show(pred_ids[0])}) but "
               f"`{other}`['{theirs}'] holds {kinds[1]} (dtype {truth[theirs].dtype}, e.g. {show(truth_ids[0])})")
    raise id_kind_error(problem, IdColumn("pred", column, kinds[0], pred_ids),
                        IdColumn(other, theirs, kinds[1], truth_ids), side=other != "truth")


def reject_empty(df: pd.DataFrame, frame: str) -> None:
    if len(df) == 0:
        raise ValueError(f"`{frame}` is empty: no user can be evaluated")


def reject_missing_ids(df: pd.DataFrame, frame: str, column: str, bad: np.ndarray | None = None) -> None:
    """Raise if an id is missing; ``bad`` may be a precomputed mask (e.g. factorize's -1 codes)."""
    if bad is None:
        bad = df[column].isna().to_numpy()
    if bad.any():
        raise ValueError(
            f"`{frame}`['{column}'] has {int(bad.sum())} missing value(s) {where(df, bad)}; every row needs an id")


def require_numeric(df: pd.DataFrame, frame: str, column: str, *, finite: bool) -> np.ndarray:
    """Return the column as float64, raising if it is not numeric or has NaN (or inf if ``finite``)."""
    series = df[column]
    if (pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series)
            or pd.api.types.is_complex_dtype(series)):
        raise ValueError(
            f"`{frame}`['{column}'] must be numeric, got dtype {series.dtype} "
            f"(e.g. {show(series.iloc[0])} at row {show(series.index[0])}); convert it with pd.to_numeric")
    if isinstance(series.dtype, np.dtype):
        values = series.to_numpy(dtype=np.float64)  # no copy for float64; na_value= would copy
    else:  # nullable extension dtypes: pd.NA becomes NaN
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values) if finite else np.isnan(values)
    if bad.any():
        what = "NaN or infinite" if finite else "NaN"
        raise ValueError(
            f"`{frame}`['{column}'] has {int(bad.sum())} {what} value(s) {where(df, bad)}; drop or fill them first")
    return values


def _in_words(labels: Sequence[Any]) -> str:
    """``0 and 3``, ``0, 3 and 7``, ``0, 3, 7, 9, 11 and 4 more``: at most :data:`_SHOW` labels."""
    shown = [show(v) for v in labels[:_SHOW]]
    more = len(labels) - len(shown)
    if more:
        return f"{', '.join(shown)} and {more} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def repeated_keys(keys: pd.DataFrame, noun: str, *, place: str | None = "rows") -> tuple[int, str]:
    """How many keys repeat, and the first :data:`_SHOW` of them each with its rows.

    ``keys``: the key columns of the rows that share their key with another row, labelled by
    row (or position). Gives ``(5, "('u1', 'a') at rows 0 and 3; ('u2', 'b') at rows 1 and 4;
    ...; and 12 more pairs")``; with ``place=None`` (row labels that mean nothing to the
    caller: a Spark bucket's) each key with its number of rows, ``('u1', 'a') in 2 rows``.
    """
    groups = keys.groupby(list(keys.columns), sort=False, dropna=False, observed=True).ngroup().to_numpy()
    n_keys = int(groups.max()) + 1 if len(groups) else 0
    labels = keys.index
    parts = []
    for g in range(min(n_keys, _SHOW)):  # a message of at most _SHOW keys: no loop over the data
        at = np.flatnonzero(groups == g)
        values = [show(keys[c].iloc[at[0]]) for c in keys.columns]  # column by column: no dtype upcast
        key = values[0] if len(values) == 1 else f"({', '.join(values)})"
        parts.append(f"{key} in {len(at)} rows" if place is None else f"{key} at {place} {_in_words(labels[at])}")
    if n_keys > _SHOW:
        parts.append(f"and {n_keys - _SHOW} more {noun}")
    return n_keys, "; ".join(parts)


def reject_duplicate_pairs(df: pd.DataFrame, frame: str, user_col: str, item_col: str,
                           dup: np.ndarray | None = None) -> None:
    """Raise if a (user, item) pair occurs twice, naming each repeated pair with its rows.
    ``dup`` may be a precomputed keep=False mask."""
    if dup is None:
        dup = df.duplicated([user_col, item_col], keep=False).to_numpy()
    if dup.any():
        by_pairs = LOCATE_BY_PAIRS.get() is not None
        n_pairs, listing = repeated_keys(df.loc[dup, [user_col, item_col]], "pairs",
                                         place=None if by_pairs else "rows")
        raise ValueError(
            f"`{frame}` repeats {n_pairs} ({user_col}, {item_col}) pair{'s' if n_pairs > 1 else ''} "
            f"in {int(dup.sum())} rows: {listing}; drop or aggregate the duplicates first")


def check_share(value: Any, name: str, *, closed_low: bool = False) -> float:
    """A share in (0, 1] (or [0, 1] with ``closed_low``), else a ValueError naming ``name``."""
    return check_number(name, value, 0.0, 1.0, closed_low=closed_low, closed_high=True)


def check_group_shares(groups: Any, name: str = "user_groups") -> dict[str, float]:
    """A mapping of group name -> share in (0, 1], shares adding up to 1 (within 1e-9)."""
    if not isinstance(groups, Mapping) or not groups:
        raise ValueError(f"`{name}` must be a non-empty mapping of group name -> share of users, got {groups!r}")
    out = {}
    for key, share in groups.items():
        out[str(key)] = check_share(share, f"{name}[{key!r}]")
    total = math.fsum(out.values())
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"the shares of `{name}` add up to {total:g}, not 1: every user must fall in a group; "
                         f"add a group or redistribute the shares")
    return out
