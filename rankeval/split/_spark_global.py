"""``global_temporal`` on a Spark DataFrame: one time cut, compared by Spark, nothing collected.

The cut is a constant, so train and test are two filters of the frame. A cut given as a
share (``test_size``) is pandas' quantile of the times: the two order statistics it
interpolates between are found by Spark (a sort, two rows taken), and pandas
interpolates between them exactly as it would over the whole column. The checks, the
warnings and their counts are the pandas splitter's, from Spark aggregations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..data.internal import functions_of, quoted, reject_empty, show
from ._assemble import require_tests, share_of_users
from ._input import InteractionColumns, warn_duplicates
from ._spark_common import column_frame, drop_cold_items_spark
from ._splits import Splits
from ._times import parse_cutoff, require_named
from ._warn import warn

__all__ = ["global_temporal_on_spark", "time_kind_spark", "bad_rows_error", "bad_time"]

_N = "_rankeval_n"


def time_kind_spark(frame: Any, name: str, column: str) -> str:
    """``"number"``, ``"datetime"`` (Spark's timestamp: an instant) or ``"naive datetime"`` (timestamp_ntz)."""
    from pyspark.sql import types as T

    dtype = frame.schema[column].dataType
    if isinstance(dtype, T.NumericType):
        return "number"
    if isinstance(dtype, T.TimestampNTZType):
        return "naive datetime"
    if isinstance(dtype, (T.TimestampType, T.DateType)):
        return "datetime"
    raise ValueError(f"`{name}`['{column}'] must hold numbers or datetimes, got Spark type {dtype.simpleString()}; "
                     f"cast it to a number or a timestamp first")


def bad_time(frame: Any, column: str) -> Any:
    """Rows whose time is missing, NaN or infinite."""
    from pyspark.sql import types as T

    F = functions_of(frame)
    t = frame[quoted(column)]
    bad = t.isNull()
    if isinstance(frame.schema[column].dataType, (T.FloatType, T.DoubleType)):
        bad = bad | F.isnan(t) | t.isin(float("inf"), float("-inf"))
    return bad


def bad_rows_error(frame: Any, condition: Any, count: int, what: str, columns: InteractionColumns,
                   fix: str) -> ValueError:
    """The pandas checks' message, naming up to five (user, item) pairs of the rows at fault."""
    shown = frame.filter(condition).select(quoted(columns.user), quoted(columns.item)).limit(5).collect()
    pairs = [tuple(row) for row in shown]
    return ValueError(f"{what} {count} {fix.split('|')[0]} at ({columns.user}, {columns.item}) pairs {pairs}; "
                      f"{fix.split('|')[1]}")


def _checked(frame: Any, columns: InteractionColumns) -> tuple[str, int, Any, Any]:
    """Names, ids and times checked (one aggregation); the time kind, the row count, min and max time."""
    F = functions_of(frame)
    require_named(column_frame(frame), "frame", [columns.user, columns.item, columns.time])
    kind = time_kind_spark(frame, "frame", columns.time)
    u, i, t = (frame[quoted(c)] for c in (columns.user, columns.item, columns.time))
    bad = bad_time(frame, columns.time)
    row = frame.agg(F.count(F.lit(1)), F.count_if(u.isNull()), F.count_if(i.isNull()), F.count_if(bad),
                    F.min(t), F.max(t)).collect()[0]
    n_rows, no_user, no_item, n_bad = (int(row[k] or 0) for k in range(4))
    if n_rows == 0:
        reject_empty(column_frame(frame), "frame")
    for column, n, cond in ((columns.user, no_user, u.isNull()), (columns.item, no_item, i.isNull())):
        if n:
            raise bad_rows_error(frame, cond, n, f"`frame`['{column}'] has", columns,
                                 "missing value(s)|every row needs an id")
    if n_bad:
        raise bad_rows_error(frame, bad, n_bad, f"`frame`['{columns.time}'] has", columns,
                             "missing, NaN or infinite time(s)|drop or fill them first: a row without a time has no "
                             "place before or after another")
    return kind, n_rows, row[4], row[5]


def _parsed_cutoff(cutoff: Any, kind: str, column: str) -> Any:
    """The cutoff checked against an empty pandas column of the kind (Spark's timestamp, an
    instant, takes a naive cutoff as a time of the session's zone, or an aware one)."""
    if kind == "number":
        return parse_cutoff(cutoff, pd.Series([], dtype="float64"), column)
    try:
        return parse_cutoff(cutoff, pd.Series([], dtype="datetime64[ns]"), column)
    except ValueError:
        if kind == "naive datetime":
            raise
        return parse_cutoff(cutoff, pd.Series([], dtype="datetime64[ns, UTC]"), column)


def _quantile(frame: Any, column: str, kind: str, share: float, n_rows: int) -> Any:
    """pandas' ``Series.quantile(1 - share)`` of the times, from the two order statistics it interpolates."""
    F = functions_of(frame)
    t = frame[quoted(column)]
    value = t if kind == "number" else F.unix_micros(t.cast("timestamp"))
    position = (n_rows - 1) * (1.0 - share)
    lower = min(max(int(np.floor(position)) - 1, 0), n_rows - 1)
    got = [r[0] for r in frame.select(value.alias("t")).orderBy("t").offset(lower).limit(3).collect()]
    # pandas reads only the order statistics around (n - 1) * q: an array holding them at
    # their ranks (every other value repeated up to them) has the same quantile
    before = np.full(lower, got[0])
    after = np.full(n_rows - lower - len(got), got[-1])
    values = np.concatenate([before, np.asarray(got), after])
    if kind == "number":
        return pd.Series(values).quantile(1.0 - share)
    # microseconds since the epoch, read back as the session's wall time (what a naive cutoff means)
    instant = pd.Series((values.astype(np.int64) * 1000).astype("datetime64[ns]")).quantile(1.0 - share)
    zone = frame.sparkSession.conf.get("spark.sql.session.timeZone")
    return pd.Timestamp(instant).tz_localize("UTC").tz_convert(zone).tz_localize(None)


def _cut_literal(frame: Any, kind: str, cut: Any) -> Any:
    F = functions_of(frame)
    if kind == "number":
        return F.lit(cut)
    text = pd.Timestamp(cut).isoformat()
    return F.lit(text).cast("timestamp_ntz" if kind == "naive datetime" else "timestamp")


def global_temporal_on_spark(frame: Any, cutoff: Any, test_size: float | None, min_interactions: int,
                             params: dict[str, Any], columns: InteractionColumns) -> Splits:
    """:func:`~rankeval.split.global_temporal` of a Spark DataFrame (the same rows, warnings and errors)."""
    F = functions_of(frame)
    kind, n_rows, first, last = _checked(frame, columns)
    if test_size is not None:
        cut = _quantile(frame, columns.time, kind, test_size, n_rows)
    else:
        cut = _parsed_cutoff(cutoff, kind, columns.time)
    in_test = frame[quoted(columns.time)] >= _cut_literal(frame, kind, cut)
    users = frame.groupBy(frame[quoted(columns.user)]).agg(F.count(F.lit(1)).alias(_N))
    tagged = frame.join(users, on=columns.user)
    tested = tagged[quoted(columns.time)] >= _cut_literal(frame, kind, cut)
    below = tagged[_N] < min_interactions
    dropped = tested & below
    row = tagged.agg(F.count_if(tested), F.count_if(dropped),
                     F.count_distinct(F.when(dropped, tagged[quoted(columns.user)]))).collect()[0]
    n_test, n_dropped, users_dropped = int(row[0]), int(row[1]), int(row[2])
    if n_test in (0, n_rows):
        side = "test" if n_test == n_rows else "train"
        shown = (lambda v: pd.Timestamp(v).isoformat()) if kind != "number" else show
        raise ValueError(f"global_temporal: the cut at {shown(cut)} puts every interaction in {side}: the times of "
                         f"`frame`['{columns.time}'] run from {shown(first)} to {shown(last)}")
    n_users = int(users.count())
    if n_dropped:
        warn(f"global_temporal: {share_of_users(users_dropped, n_users)} with fewer than "
             f"min_interactions={min_interactions} interactions keep only their train rows: their "
             f"{n_dropped:,} interaction(s) after the cut are dropped")
    warn_duplicates(columns, "global_temporal", _duplicates(frame, columns))
    require_tests("global_temporal", [n_test - n_dropped], n_users)
    names = list(frame.columns)
    train = frame.filter(~in_test)
    test = tagged.filter(tested & ~below)
    pairs = [(train, test.select(*[quoted(c) for c in names]))]
    sizes = [(n_rows - n_test, n_test - n_dropped)]
    params = {"method": "global_temporal", "cutoff": cut, "test_size": test_size,
              **{k: v for k, v in params.items() if k != "method"}}
    if params["drop_cold_items"]:
        pairs, sizes = drop_cold_items_spark(pairs, sizes, "global_temporal", columns.item, names)
    return Splits.from_frames(pairs, sizes, params)


def _duplicates(frame: Any, columns: InteractionColumns) -> tuple[int, int]:
    """Rows repeating an earlier row's pair, and pairs repeated (one aggregation)."""
    F = functions_of(frame)
    pairs = frame.groupBy(frame[quoted(columns.user)], frame[quoted(columns.item)]).agg(F.count(F.lit(1)).alias(_N))
    row = pairs.agg(F.sum(pairs[_N] - 1), F.count_if(pairs[_N] > 1)).collect()[0]
    return int(row[0] or 0), int(row[1] or 0)
