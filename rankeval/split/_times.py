"""Time columns: checked once, then compared as numbers or as instants.

A time column is numeric (epoch seconds, a counter: any real numbers) or datetime
(``datetime64``, naive, or timezone-aware; an object column of ``datetime`` values is
converted). Aware times compare as instants, whatever their zones. Refused, with a
ValueError naming the frame, the column and rows: a missing column, NaN / NaT / infinite
times, text, booleans, and a column mixing timezone-aware and naive times (no order
between them exists).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import check_number, descending_float_key, require_columns, show, where

__all__ = ["require_named", "read_times", "order_key", "time_kind", "same_time_kind", "parse_cutoff", "time_value"]

_SIGN = np.uint64(1 << 63)


def require_named(df: pd.DataFrame, frame: str, columns: list[str]) -> None:
    """Raise unless ``df`` has each of ``columns`` (once), naming the column options that rename them."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"`{frame}` is missing column(s) {missing}; it has {list(df.columns)}. Rename the columns, "
                         f"or name yours with user_col=, item_col=, score_col=, time_col=")
    require_columns(df, frame, columns)


def _is_datetime(dtype: Any) -> bool:
    return isinstance(dtype, pd.DatetimeTZDtype) or (isinstance(dtype, np.dtype) and dtype.kind == "M")


def _from_objects(series: pd.Series, frame: str, column: str) -> pd.Series:
    """An object column of datetimes as datetime64; a ValueError when it mixes aware and naive."""
    values = series.to_numpy(dtype=object)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind not in ("datetime", "datetime64", "date"):
        example = next((v for v in values if not pd.isna(v)), values[0])
        raise ValueError(
            f"`{frame}`['{column}'] must hold numbers or datetimes, got {kind} values (e.g. {show(example)}); "
            f"convert it first, e.g. {frame}['{column}'] = pd.to_datetime({frame}['{column}'])")
    aware = np.fromiter((getattr(v, "tzinfo", None) is not None for v in values), dtype=bool, count=len(values))
    present = ~pd.isna(series).to_numpy()
    if aware.any() and (~aware & present).any():
        naive = ~aware & present
        raise ValueError(
            f"`{frame}`['{column}'] mixes {int(aware.sum())} timezone-aware and {int(naive.sum())} naive "
            f"times (aware {where(series.to_frame(), aware)}, naive {where(series.to_frame(), naive)}): they have no "
            f"order between them. Make them all aware (pd.to_datetime(..., utc=True) after localizing the naive "
            f"ones) or all naive")
    # aware times of several zones are instants: compared in UTC
    return pd.to_datetime(series, utc=bool(aware.any()))


def read_times(df: pd.DataFrame, frame: str, column: str) -> pd.Series:
    """The time column of ``df``, validated, as a numeric or datetime64 Series (same index).

    Raises
    ------
    ValueError
        The column is missing, holds text or booleans, mixes aware and naive times, or has
        NaN, NaT or infinite values (the message names the rows).
    """
    require_named(df, frame, [column])
    series = df[column]
    dtype = series.dtype
    if _is_datetime(dtype):
        pass
    elif isinstance(dtype, np.dtype) and dtype.kind == "O":
        series = _from_objects(series, frame, column)
    elif pd.api.types.is_bool_dtype(dtype) or not (pd.api.types.is_numeric_dtype(dtype) or _arrow_time(dtype)) \
            or pd.api.types.is_complex_dtype(dtype):
        raise ValueError(
            f"`{frame}`['{column}'] must hold numbers or datetimes, got dtype {dtype} "
            f"(e.g. {show(series.iloc[0]) if len(series) else 'no rows'}); convert it with pd.to_datetime or "
            f"pd.to_numeric")
    elif not isinstance(dtype, np.dtype):
        series = _from_extension(df, series, frame, column)
    if _is_datetime(series.dtype):
        bad = series.isna().to_numpy()
        what = "missing (NaT)"
    else:
        values = series.to_numpy()
        bad = ~np.isfinite(values) if values.dtype.kind == "f" else np.zeros(len(values), dtype=bool)
        what = "NaN or infinite"
    if bad.any():
        raise ValueError(f"`{frame}`['{column}'] has {int(bad.sum())} {what} time(s) {where(df, bad)}; "
                         f"drop or fill them first: a row without a time has no place before or after another")
    return series


def _arrow_time(dtype: Any) -> bool:
    return isinstance(dtype, pd.ArrowDtype) and dtype.kind == "M"


def _from_extension(df: pd.DataFrame, series: pd.Series, frame: str, column: str) -> pd.Series:
    """Nullable and Arrow-backed numbers and times as numpy ones (a missing value is an error)."""
    missing = series.isna().to_numpy()
    if missing.any():
        raise ValueError(f"`{frame}`['{column}'] has {int(missing.sum())} missing time(s) {where(df, missing)}; "
                         f"drop or fill them first: a row without a time has no place before or after another")
    if _arrow_time(series.dtype):
        zone = series.dtype.pyarrow_dtype.tz
        unit = np.datetime_data(series.dtype.numpy_dtype)[0]
        return series.astype(f"datetime64[{unit}, {zone}]" if zone else f"datetime64[{unit}]")
    # integers stay integers: nanosecond counts do not fit a float exactly
    return pd.Series(series.to_numpy(dtype=series.dtype.numpy_dtype), index=series.index, name=series.name)


def time_kind(series: pd.Series) -> str:
    """``"number"``, ``"naive datetime"`` or ``"aware datetime"``."""
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        return "aware datetime"
    return "naive datetime" if _is_datetime(series.dtype) else "number"


def same_time_kind(first: pd.Series, second: pd.Series, names: tuple[str, str], column: str) -> None:
    """Raise unless two time columns can be compared (both numbers, both naive, or both aware)."""
    kinds = time_kind(first), time_kind(second)
    if kinds[0] != kinds[1]:
        raise ValueError(f"`{names[0]}`['{column}'] holds {kinds[0]}s but `{names[1]}`['{column}'] holds "
                         f"{kinds[1]}s: they cannot be compared; give both the same kind of time")


def _instants(series: pd.Series) -> NDArray[np.int64]:
    """Datetimes as int64 ticks of one unit (nanoseconds), UTC for aware ones."""
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    values = series.to_numpy()
    if values.dtype != np.dtype("datetime64[ns]"):
        values = values.astype("datetime64[ns]")
    return values.view(np.int64)


def time_value(series: pd.Series) -> NDArray[Any]:
    """The times as numbers that compare as the times do (int64 ticks, or the numbers themselves)."""
    if _is_datetime(series.dtype):
        return _instants(series)
    values = series.to_numpy()
    if values.dtype.kind in "iu":
        return values
    return np.asarray(values, dtype=np.float64)


def order_key(series: pd.Series) -> NDArray[np.uint64]:
    """Non-negative integers that sort as the times do (equal times, equal keys)."""
    values = time_value(series)
    if values.dtype.kind == "f":
        return descending_float_key(np.negative(values))  # ascending in the times
    if values.dtype == np.uint64:
        return values
    return values.astype(np.int64).view(np.uint64) ^ _SIGN  # order-preserving for negative ints too


def parse_cutoff(cutoff: Any, times: pd.Series, column: str) -> Any:
    """``cutoff`` as a value comparable with the time column (a number or a pd.Timestamp).

    Raises
    ------
    ValueError
        A datetime (or ISO text) cutoff for a numeric column or the reverse, a timezone-aware
        cutoff for a naive column or the reverse, NaN or an unparsable text.
    """
    kind = time_kind(times)
    if kind == "number":
        check_number("cutoff", cutoff, None, None, why=f" on the scale of `frame`['{column}'] (which holds numbers)")
        return cutoff.item() if isinstance(cutoff, np.generic) else cutoff
    if isinstance(cutoff, bool) or not isinstance(cutoff, (str, dt.datetime, dt.date, np.datetime64, pd.Timestamp)):
        raise ValueError(f"`cutoff` must be a datetime, pd.Timestamp or ISO text for `frame`['{column}'] (which "
                         f"holds {kind}s), got {cutoff!r}")
    try:
        stamp = pd.Timestamp(cutoff)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"`cutoff` {cutoff!r} is not a time: {exc}") from None
    if pd.isna(stamp):
        raise ValueError(f"`cutoff` must be a time, got {cutoff!r}")
    aware = stamp.tzinfo is not None
    if aware != (kind == "aware datetime"):
        raise ValueError(f"`cutoff` {cutoff!r} is {'timezone-aware' if aware else 'naive'} but `frame`['{column}'] "
                         f"holds {kind}s: give the cutoff {'a' if not aware else 'no'} timezone")
    return stamp
