"""The Spark engine: hash users into buckets, run the pandas engine on each bucket.

Works on classic and Spark Connect DataFrames alike (it uses only the DataFrame API that
both share). ``pred`` and ``truth`` rows go into one frame (a flag tells them apart),
which is repartitioned by the user id into ``n_buckets`` partitions: partition
``pmod(hash(user_id), n_buckets)`` is a bucket, holding every row of its users from both
frames. ``mapInArrow`` hands each bucket's Arrow batches to a Python worker, which runs
the pandas engine on them (Split + RankedLists + metrics), so no metric is written twice
and every per-user value is the pandas engine's. One Spark job does everything: no sort
(a ``cogroup`` would sort every row by bucket), no second pass for the system means.

Each bucket also returns one bookkeeping row: its row and user counts, examples of users
in only one frame, the number of lists with tied scores, any validation error, and for
every metric the exact sum of its values (:class:`rankeval._exact.ExactSum`) and, for a
metric whose system value is not a mean of users (a micro average, a count), its system
parts (:meth:`~rankeval.RankingMetric.system_parts`). The driver turns those into the
pandas engine's warnings and errors and into the system values (merging the parts exactly
before one ``system_value`` call), which are therefore the same to the last bit whatever
the bucket count or the session.

Spark has no row order, so tied scores are broken by item id ascending (what
``Split(ties="item_id")`` does on pandas), with a warning that counts the tied lists.
Imported lazily: the core never needs pyspark.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..data import Columns
from ..data import internal as data_internal
from ..data.internal import (
    MIN_LONG_LISTS,
    ExactSum,
    collect,
    is_spark_frame,
    low_overlap_message,
    parallelism,
    rank_like_message,
    spark_id_kind_error,
    to_pandas,
)
from ..data.internal import functions_of as _functions
from ..data.internal import is_connect as _is_connect
from ..data.internal import quoted as _quoted
from ..exceptions import LowOverlapWarning, MissingUsersWarning, RanksAsScoresWarning, TiedScoresWarning
from ..metrics import RankingMetric
from ..metrics.internal import SystemParts, merge_parts
from ._spark_buckets import (
    ERROR,
    EXAMPLES,
    KIND_COLUMN,
    NO_COMMON_USERS,
    STATS,
    STATS_COLUMNS,
    TRUTH_FLAG,
    USER,
    bucket_function,
)

__all__ = ["evaluate_spark_split", "resolve_side", "default_buckets", "DEFAULT_ROWS_PER_BUCKET", "BUCKETS_PER_CORE",
           "ARROW_BATCH_ROWS"]

#: listed rows per bucket the default bucket count aims at (see docs/scaling.md, "Buckets")
DEFAULT_ROWS_PER_BUCKET = 1_000_000
#: at least this many buckets per core, so that cores do not idle behind one large bucket
BUCKETS_PER_CORE = 2
_TRUTH_ITEM = "_rankeval_truth_item"  # truth's item ids, when their type differs from pred's


def _numeric(dtype: Any) -> bool:
    from pyspark.sql import types as T
    return isinstance(dtype, T.NumericType)


def _check_schema(pred: Any, truth: Any, c: Columns) -> tuple[bool, bool]:
    """Driver-side checks that need no data: columns, types, a list order (messages as on pandas)."""
    for frame, df, needed in (("pred", pred, [c.user, c.item]),
                              ("truth", truth, [c.truth_user, c.truth_item, c.truth_score])):
        missing = [col for col in needed if col not in df.columns]
        if missing:
            raise ValueError(f"`{frame}` is missing column(s) {missing}; it has {list(df.columns)}. "
                             f"Rename the columns or pass user_col=/item_col=/score_col= to Split")
    types = {f.name: f.dataType for f in truth.schema.fields}
    if not _numeric(types[c.truth_score]):
        raise ValueError(f"`truth`['{c.truth_score}'] must be numeric, got Spark type "
                         f"{types[c.truth_score].simpleString()}")
    ptypes = {f.name: f.dataType for f in pred.schema.fields}
    has_score, has_rank = c.score in ptypes, c.rank in ptypes
    for col, present in ((c.score, has_score), (c.rank, has_rank)):
        if present and not _numeric(ptypes[col]):
            raise ValueError(f"`pred`['{col}'] must be numeric, got Spark type {ptypes[col].simpleString()}")
    if not (has_score or has_rank):
        raise ValueError(f"a Spark `pred` needs a `{c.score}` or `{c.rank}` column: Spark has no row order, "
                         f"so a list cannot be ordered by its rows")
    _check_id_kinds(ptypes, types, c)
    if ptypes[c.user] != types[c.truth_user]:
        raise ValueError(f"`pred`['{c.user}'] is {ptypes[c.user].simpleString()} but `truth`['{c.truth_user}'] is "
                         f"{types[c.truth_user].simpleString()}: cast both to the same type")
    return has_score, has_rank


def _warn_rank_like(stats: list[Any], c: Columns, where: str) -> None:
    """RanksAsScoresWarning when every bucket's pred users have scores exactly 1..n_u and
    ``MIN_LONG_LISTS`` lists hold 2+ items."""
    counts = [int(r["_n_rank_like"] or 0) for r in stats]
    if any(n < 0 for n in counts) or sum(int(r["_n_long"] or 0) for r in stats) < MIN_LONG_LISTS:
        return
    message = rank_like_message(sum(counts), c, where)
    if message is not None:
        warnings.warn(RanksAsScoresWarning(message), stacklevel=5)


def _check_id_kinds(ptypes: dict[str, Any], types: dict[str, Any], c: Columns) -> None:
    """Numbers in one frame's id column and text in the other's: the Spark fix, on the frame holding numbers."""
    from pyspark.sql import types as T
    for mine, theirs in ((c.user, c.truth_user), (c.item, c.truth_item)):
        pair = ptypes[mine], types[theirs]
        text = [isinstance(t, T.StringType) for t in pair]
        numeric = [_numeric(t) for t in pair]
        if (numeric[0] and text[1]) or (text[0] and numeric[1]):
            frame, column, dtype = ("pred", mine, pair[0]) if numeric[0] else ("truth", theirs, pair[1])
            kinds = ["numbers" if n else "text" for n in numeric]
            raise spark_id_kind_error(
                f"`pred`['{mine}'] holds {kinds[0]} (Spark type {pair[0].simpleString()}) but `truth`['{theirs}'] "
                f"holds {kinds[1]} (Spark type {pair[1].simpleString()})", frame, column,
                fractional=isinstance(dtype, T.FractionalType))


def _truth_names(message: str, c: Columns) -> str:
    """An executor's message with the truth's columns under the caller's names: buckets see
    truth's user, item and score columns under pred's names."""
    for bucket_name, caller_name in ((c.user, c.truth_user), (c.item, c.truth_item), (c.score, c.truth_score)):
        message = message.replace(f"`truth`['{bucket_name}']", f"`truth`['{caller_name}']")
    if message.startswith("`truth` repeats "):  # a repeated pair names both columns
        message = message.replace(f"({c.user}, {c.item})", f"({c.truth_user}, {c.truth_item})", 1)
    return message


# ---------------------------------------------------------------------------- on the driver
def default_buckets(pred_rows: int, cores: int) -> int:
    """``max(BUCKETS_PER_CORE x cores, ceil(pred_rows / DEFAULT_ROWS_PER_BUCKET))``."""
    return max(BUCKETS_PER_CORE * max(cores, 1), math.ceil(pred_rows / DEFAULT_ROWS_PER_BUCKET))


def _spark_session_of(*frames: Any) -> Any:
    for df in frames:
        session = getattr(df, "sparkSession", None)
        if session is not None:
            return session
    from pyspark.sql import SparkSession
    return SparkSession.builder.getOrCreate()


def to_spark(df: Any, spark: Any) -> Any:
    """A pandas frame as a Spark DataFrame of the same session (Spark frames pass through).

    Text columns go as Python strings: pyspark 4.0 loses rows when it is given pandas'
    Arrow-backed string columns (``str`` in pandas 3, ``string[pyarrow]``, ``ArrowDtype``).
    """
    if is_spark_frame(df):
        return df
    text = [col for col, dtype in df.dtypes.items()
            if not isinstance(dtype, np.dtype) and (pd.api.types.is_string_dtype(dtype)
                                                    or str(dtype).startswith(("string", "large_string")))]
    if text:
        df = df.astype({col: object for col in text})
        for col in text:  # missing values as None (pandas' NaN / NA would not be a Spark null string)
            df[col] = df[col].where(df[col].notna(), None)
    return spark.createDataFrame(df)


def _combined(pred: Any, truth: Any, c: Columns, has_score: bool, has_rank: bool) -> tuple[Any, str]:
    """pred and truth rows in one frame (``TRUTH_FLAG`` tells them apart); scores and ranks as double.

    Item ids share a column when both frames hold the same Spark type; else truth's get
    their own column, so that the bucket sees each frame's ids as they are.
    """
    F = _functions(pred)
    p, t = (lambda name: pred[_quoted(name)]), (lambda name: truth[_quoted(name)])
    pred_item, truth_item_type = pred.schema[c.item].dataType, truth.schema[c.truth_item].dataType
    same_items = pred_item == truth_item_type
    truth_item = c.item if same_items else _TRUTH_ITEM
    pred_sel = [p(c.user), p(c.item)]
    if not same_items:
        pred_sel.append(F.lit(None).cast(truth_item_type).alias(_TRUTH_ITEM))
    pred_sel.append(p(c.score).cast("double").alias(c.score) if has_score
                    else F.lit(None).cast("double").alias(c.score))
    if has_rank:
        pred_sel.append(p(c.rank).cast("double").alias(c.rank))
    pred_sel.append(F.lit(False).alias(TRUTH_FLAG))
    # truth's ids under pred's names: the buckets see one user and one item column
    truth_sel = [t(c.truth_user).alias(c.user)]
    if same_items:
        truth_sel.append(t(c.truth_item).alias(c.item))
    else:
        truth_sel += [F.lit(None).cast(pred_item).alias(c.item), t(c.truth_item).alias(_TRUTH_ITEM)]
    # the truth's scores under pred's score name: the buckets see one score column
    truth_sel.append(t(c.truth_score).cast("double").alias(c.score))
    if has_rank:
        truth_sel.append(F.lit(None).cast("double").alias(c.rank))
    truth_sel.append(F.lit(True).alias(TRUTH_FLAG))
    return pred.select(*pred_sel).unionByName(truth.select(*truth_sel)), truth_item


def _output_schema(user_type: Any, c: Columns, names: list[str]) -> Any:
    from pyspark.sql import types as T
    return T.StructType(
        [T.StructField(KIND_COLUMN, T.ByteType()), T.StructField(c.user, user_type)]
        + [T.StructField(n, T.DoubleType()) for n in names]
        + [T.StructField(n, T.StringType() if t == "string" else T.LongType()) for n, t in STATS_COLUMNS])


def resolve_side(side: Any, truth: Any, item_col: str) -> Any:
    """``side`` with its default catalog made explicit from the whole split: every item of
    ``train`` and of the Spark ``truth`` (one distinct-items query). Buckets see part of the
    truth only, so they must not resolve it themselves."""
    if side is None or side.catalog is not None or side.train is None:
        return side
    if not is_spark_frame(truth):  # a local truth frame beside a Spark pred
        return side.resolved(to_pandas(truth, "truth"), item_col)
    items = collect(truth.select(truth[_quoted(item_col)]).distinct())
    return side.resolved(items, item_col)


def evaluate_spark_split(pred: Any, truth: Any, metrics: Sequence[RankingMetric], *, split_name: str,
                         missing_users: str = "ignore", columns: Columns | None = None, ties: str = "row_order",
                         n_buckets: int | None = None, side: Any = None
                         ) -> tuple[Any, dict[str, float], dict[str, int]]:
    """Evaluate one split on Spark (classic or Connect).

    Returns the per-user Spark DataFrame (``split``, user column, one column per metric;
    cached), the per-metric system values (the exact mean over users, NaN users left out,
    or the metric's ``system_value`` of its merged parts) and the number of users with a
    value per metric.
    """
    if n_buckets is not None:
        n_buckets = data_internal.check_integer("n_buckets", n_buckets, 1)
    spark = _spark_session_of(pred, truth)
    pred, truth = to_spark(pred, spark), to_spark(truth, spark)
    if _is_connect(pred) != _is_connect(truth):
        raise ValueError("`pred` and `truth` of a split must be DataFrames of the same Spark session: one is a "
                         "Spark Connect DataFrame, the other a classic one")
    c = columns if columns is not None else Columns()
    has_score, has_rank = _check_schema(pred, truth, c)
    if n_buckets is None:
        pred_rows = pred.count()  # on Parquet, from the file footers
        if pred_rows == 0:
            raise ValueError("`pred` is empty: no user can be evaluated")
        n_buckets = default_buckets(pred_rows, parallelism(spark))
    # the tie rule: Spark has no row order, so "row_order" becomes item id ascending
    spark_ties = "item_id" if ties == "row_order" else ties

    names = [str(m) for m in metrics]
    rows, truth_item = _combined(pred, truth, c, has_score, has_rank)
    run = bucket_function(list(metrics), c, spark_ties, missing_users, has_score, has_rank, truth_item, side)
    schema = _output_schema(pred.schema[c.user].dataType, c, names)
    out = rows.repartition(n_buckets, rows[_quoted(c.user)]).mapInArrow(run, schema).persist()
    try:
        with _engine_arrow_batches(spark):
            info = out.filter(out[KIND_COLUMN] != USER).select(KIND_COLUMN, *[n for n, _ in STATS_COLUMNS]).collect()
        system, counts = _split_summary(info, list(metrics), c, split_name, missing_users, ties)
    except BaseException:
        out.unpersist()
        raise
    # system-level metrics (coverage, Gini, ...) have no per-user value: no column, as with pandas
    per_user = [str(m) for m in metrics if not m.system_level]
    users = out.filter(out[KIND_COLUMN] == USER).select(
        _functions(out).lit(split_name).alias("split"), out[_quoted(c.user)], *[out[_quoted(n)] for n in per_user])
    return users, system, counts


#: rows per Arrow batch sent to the bucket function (spark.sql.execution.arrow.maxRecordsPerBatch
#: during the bucket job). A bucket is collected whole anyway, so larger batches cost no
#: memory; Spark's default (10,000) spends more per row on each batch (docs/performance.md).
ARROW_BATCH_ROWS = 100_000
#: Spark's "no byte limit" value of spark.sql.execution.arrow.maxBytesPerBatch
_NO_BYTE_LIMIT = str(2**31 - 1)
_BATCH_SETTINGS = {"spark.sql.execution.arrow.maxBytesPerBatch": _NO_BYTE_LIMIT,
                   "spark.sql.execution.arrow.maxRecordsPerBatch": str(ARROW_BATCH_ROWS)}


@contextmanager
def _engine_arrow_batches(spark: Any) -> Iterator[None]:
    """Run the bucket job with the engine's Arrow batches (the session's settings restored after).

    - ``maxRecordsPerBatch`` = :data:`ARROW_BATCH_ROWS` rows a batch.
    - No byte limit (``maxBytesPerBatch``): with one (64 MiB in Spark 4.1+, 256 MiB in 4.0),
      Spark measures the batch after every row it writes, walking every column's buffers: a
      third of the JVM's time in converting rows to Arrow (profiled with JFR,
      docs/performance.md).

    Session settings are shared: another job of the same session running at the same time
    sees them too.
    """
    changed: dict[str, str | None] = {}
    try:
        for key, value in _BATCH_SETTINGS.items():
            try:
                before = spark.conf.get(key, None)
            except Exception:  # a session that does not know the setting: leave it
                continue
            if before != value:
                spark.conf.set(key, value)
                changed[key] = before
        yield
    finally:
        for key, before in changed.items():
            if before is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, before)


def _split_summary(info: list[Any], metrics: list[RankingMetric], c: Columns, split_name: str, missing_users: str,
                   ties: str) -> tuple[dict[str, float], dict[str, int]]:
    """The pandas engine's errors and warnings from the buckets' bookkeeping rows; the system
    values (exact means, or ``system_value`` of the buckets' merged parts) and the number of
    users behind each (non-NaN values)."""
    names = [str(m) for m in metrics]
    def total(field: str) -> int:
        return sum(int(r[field] or 0) for r in info)

    def examples(field: str, n: int = EXAMPLES) -> list[Any]:
        return [x for r in info for x in json.loads(r[field] or "[]")][:n]

    for frame, field in (("pred", "_n_pred"), ("truth", "_n_truth")):
        if total(field) == 0:
            raise ValueError(f"`{frame}` is empty: no user can be evaluated")
    errors = sorted(r["_error"] for r in info if r[KIND_COLUMN] == ERROR)
    if errors:
        raise ValueError(_truth_names(errors[0], c))
    where = f" in split {split_name!r}"
    n_missing = total("_n_missing")
    if total("_n_users") == 0 and not (missing_users == "zero" and n_missing):
        raise ValueError(
            f"{NO_COMMON_USERS} (pred has {total('_n_pred_only')} users, e.g. {examples('_pred_only', 3)}; truth has "
            f"e.g. {examples('_missing', 3)}); check that `pred`['{c.user}'] and `truth`['{c.truth_user}'] hold "
            f"the same ids with the same dtype")
    if n_missing:
        if missing_users == "error":
            raise ValueError(
                f"{n_missing} `truth` user(s){where} have no recommendations, e.g. {examples('_missing')}; "
                f"pass missing_users='ignore' to leave them out or 'zero' to score them 0")
        action = ("are left out" if missing_users == "ignore"
                  else "get 0 for every metric (missing_users='zero')")
        warnings.warn(MissingUsersWarning(
            f"{n_missing} `truth` user(s){where} have no recommendations and {action}, e.g. "
            f"{examples('_missing')}"), stacklevel=4)
    n_pred_only = total("_n_pred_only")
    if n_pred_only:
        warnings.warn(MissingUsersWarning(
            f"{n_pred_only} `pred` user(s){where} have no truth ratings and are left out, e.g. "
            f"{examples('_pred_only')}"), stacklevel=4)
    _warn_low_overlap(total("_n_rows"), total("_n_judged"), total("_n_possible"), c, where)
    _warn_rank_like([r for r in info if r[KIND_COLUMN] == STATS], c, where)
    n_tied = total("_n_tied")
    if n_tied and ties == "row_order":
        warnings.warn(TiedScoresWarning(
            f"{n_tied} list(s){where} have tied scores; Spark has no row order, so ties are broken by "
            f"`{c.item}` ascending (the pandas engine does the same with Split(..., ties='item_id'))"),
            stacklevel=4)
    stats = [r for r in info if r[KIND_COLUMN] == STATS]
    sums = [json.loads(r["_sums"]) for r in stats]
    parts = [json.loads(r["_parts"]) for r in stats]
    system, counts = {}, {}
    behind = [json.loads(r["_behind"] or "{}") for r in stats]
    for i, (name, metric) in enumerate(zip(names, metrics)):
        exact_total = sum((ExactSum.from_json(s[i]) for s in sums), ExactSum())
        counts[name] = (sum(b.get(name, 0) for b in behind) if metric.system_level
                        else exact_total.count)
        if metric.system_is_user_mean:
            system[name] = exact_total.mean()
            continue
        # a micro average or a count: the buckets' parts add up exactly, then one system_value
        merged = merge_parts(SystemParts.from_json(p[i]) for p in parts if p[i] is not None)
        system[name] = float("nan") if merged is None else float(metric.system_value_of(merged))
    return system, counts


def _warn_low_overlap(n_rows: int, n_judged: int, n_possible: int, c: Columns, where: str) -> None:
    """The pandas engine's LowOverlapWarning, over all buckets."""
    message = low_overlap_message(n_rows, n_judged, n_possible, c, where)
    if message is not None:
        warnings.warn(LowOverlapWarning(message), stacklevel=5)
