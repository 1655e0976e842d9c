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
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..data import _validation
from ..data._exact import ExactSum
from ..data._frames import is_spark_frame, to_pandas
from ..data._ranked import Columns
from ..data._split import Split
from ..exceptions import MissingUsersWarning, RankevalWarning, TiedScoresWarning
from ..metrics import RankingMetric
from ..metrics._parts import SystemParts, merge_parts
from ..metrics.beyond import system_level_counts
from ._pandas import evaluate_split_with_parts

__all__ = ["evaluate_spark_split", "resolve_side", "default_buckets", "DEFAULT_ROWS_PER_BUCKET", "BUCKETS_PER_CORE",
           "ARROW_BATCH_ROWS"]

#: listed rows per bucket the default bucket count aims at (see docs/scaling.md, "Buckets")
DEFAULT_ROWS_PER_BUCKET = 1_000_000
#: at least this many buckets per core, so that cores do not idle behind one large bucket
BUCKETS_PER_CORE = 2
_EXAMPLES = 10
_TRUTH = "_rankeval_truth"        # True on truth rows of the combined frame
_TRUTH_ITEM = "_rankeval_truth_item"  # truth's item ids, when their type differs from pred's
_KIND = "_rankeval_kind"          # output rows: 0 a user, 1 a bucket's bookkeeping, 2 a bucket's error
USER, STATS, ERROR = 0, 1, 2
_NO_COMMON = "no user of `pred` appears in `truth`"
#: the bookkeeping columns of the output (Spark type of each)
_STATS = [("_error", "string"), ("_n_pred", "bigint"), ("_n_truth", "bigint"), ("_n_users", "bigint"),
          ("_n_missing", "bigint"), ("_n_pred_only", "bigint"), ("_n_tied", "bigint"), ("_n_rows", "bigint"),
          ("_n_judged", "bigint"), ("_missing", "string"), ("_pred_only", "string"), ("_sums", "string"),
          ("_parts", "string"), ("_behind", "string")]


def _numeric(dtype: Any) -> bool:
    from pyspark.sql import types as T
    return isinstance(dtype, T.NumericType)


def _check_schema(pred: Any, truth: Any, c: Columns) -> tuple[bool, bool]:
    """Driver-side checks that need no data: columns, types, a list order (messages as on pandas)."""
    for frame, df, needed in (("pred", pred, [c.user, c.item]), ("truth", truth, [c.user, c.item, c.score])):
        missing = [col for col in needed if col not in df.columns]
        if missing:
            raise ValueError(f"`{frame}` is missing column(s) {missing}; it has {list(df.columns)}. "
                             f"Rename the columns or pass user_col=/item_col=/score_col= to Split")
    types = {f.name: f.dataType for f in truth.schema.fields}
    if not _numeric(types[c.score]):
        raise ValueError(f"`truth`['{c.score}'] must be numeric, got Spark type {types[c.score].simpleString()}")
    ptypes = {f.name: f.dataType for f in pred.schema.fields}
    has_score, has_rank = c.score in ptypes, c.rank in ptypes
    for col, present in ((c.score, has_score), (c.rank, has_rank)):
        if present and not _numeric(ptypes[col]):
            raise ValueError(f"`pred`['{col}'] must be numeric, got Spark type {ptypes[col].simpleString()}")
    if not (has_score or has_rank):
        raise ValueError(f"a Spark `pred` needs a `{c.score}` or `{c.rank}` column: Spark has no row order, "
                         f"so a list cannot be ordered by its rows")
    if ptypes[c.user] != types[c.user]:
        raise ValueError(f"`pred`['{c.user}'] is {ptypes[c.user].simpleString()} but `truth`['{c.user}'] is "
                         f"{types[c.user].simpleString()}: cast both to the same type")
    return has_score, has_rank


# ---------------------------------------------------------------------------- in the Python workers
def _arrow_to_pandas(table: Any) -> pd.DataFrame:
    """A bucket's Arrow table as pandas: text ids stay in Arrow memory (``pd.ArrowDtype``), the rest numpy.

    Text as Arrow strings is what the pandas engine factorizes fastest (Arrow's own hash
    kernel), and it never builds a Python object per row.
    """
    import pyarrow as pa

    def mapper(arrow_type: Any) -> Any:
        if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
            return pd.ArrowDtype(arrow_type)
        return None

    return table.to_pandas(types_mapper=mapper, split_blocks=True)


def _examples(ids: Sequence[Any]) -> str:
    """Up to ten ids, as JSON (non-JSON ids such as dates as their text)."""
    return json.dumps([_plain_id(x) for x in ids[:_EXAMPLES]], default=str)


def _plain_id(x: Any) -> Any:
    """A numpy scalar id as the Python scalar JSON can write."""
    return x.item() if isinstance(x, np.generic) else x


def _count_tied(split: Split, has_score: bool, has_rank: bool) -> int:
    """Evaluated lists with two equal scores (ordered by the tie rule, not by the scores)."""
    if has_rank or not has_score:
        return 0
    lists = split.ranked_lists()
    score, offsets = lists.pred_score, lists.offsets
    if len(score) < 2:
        return 0
    same = score[1:] == score[:-1]
    same[offsets[1:-1] - 1] = False  # the last row of a list and the first of the next
    if not same.any():
        return 0
    return int(np.unique(lists.user_of_row[1:][same]).size)


def _bucket_function(metrics: Sequence[RankingMetric], c: Columns, ties: str, missing_users: str,
                     has_score: bool, has_rank: bool, truth_item: str, side: Any = None) -> Any:
    """The function each bucket (one partition) runs: the pandas engine plus one bookkeeping row.

    ``side`` (a :class:`~rankeval.SideData` with its catalog already made explicit from the
    whole split, :func:`resolve_side`) travels with the function to every bucket."""
    names = [str(m) for m in metrics]
    pred_cols = [c.user, c.item] + ([c.score] if has_score else []) + ([c.rank] if has_rank else [])
    truth_cols = [c.user, truth_item, c.score]

    def out_schema(user_type: Any) -> Any:
        import pyarrow as pa
        return pa.schema([(_KIND, pa.int8()), (c.user, user_type)] + [(n, pa.float64()) for n in names]
                         + [(n, pa.string() if t == "string" else pa.int64()) for n, t in _STATS])

    def batch(schema: Any, kind: int, users: Any, values: dict[str, Any], stats: dict[str, Any]) -> Any:
        import pyarrow as pa
        n = len(users)
        arrays = [pa.array(np.full(n, kind, dtype=np.int8)), users]
        arrays += [pa.array(values[m], type=pa.float64()) if m in values else pa.nulls(n, pa.float64())
                   for m in names]
        arrays += [pa.nulls(n, schema.field(f).type) if stats.get(f) is None
                   else pa.array([stats[f]] * n, type=schema.field(f).type) for f, _ in _STATS]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        collected = list(batches)
        if not collected or not any(b.num_rows for b in collected):
            return  # an empty partition: no user hashed here
        table = pa.Table.from_batches(collected)
        del collected
        user_type = table.schema.field(c.user).type
        schema = out_schema(user_type)
        is_truth = table.column(_TRUTH)
        pred_t = table.filter(pc.invert(is_truth)).select(pred_cols)
        truth_t = table.filter(is_truth).select(truth_cols).rename_columns([c.user, c.item, c.score])
        del table, is_truth
        stats: dict[str, Any] = dict(_n_pred=pred_t.num_rows, _n_truth=truth_t.num_rows, _n_users=0,
                                     _n_missing=0, _n_pred_only=0, _n_tied=0, _n_rows=0, _n_judged=0)
        users_out = pa.array([], type=user_type)
        values: dict[str, Any] = {}
        parts: dict[str, SystemParts | None] = {}
        # (through the module: a ContextVar cannot be pickled into the bucket function)
        token = _validation.LOCATE_BY_PAIRS.set((c.user, c.item))  # a bucket's row labels mean nothing
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RankevalWarning)  # counted for the driver, which warns
                policy = "ignore" if missing_users == "error" else missing_users
                pred, truth = _arrow_to_pandas(pred_t), _arrow_to_pandas(truth_t)
                split = None
                if len(pred) and len(truth):
                    try:
                        split = Split(pred, truth, user_col=c.user, item_col=c.item, score_col=c.score,
                                      rank_col=c.rank, ties=ties, missing_users=policy,  # type: ignore[arg-type]
                                      side=side)
                    except ValueError as exc:  # rows valid, but no user here is in both frames
                        if not str(exc).startswith(_NO_COMMON):
                            raise
                if split is not None:
                    # the split's own join found the users of one frame only: no second hashing pass
                    lists = split.ranked_lists()
                    missing, pred_only = lists.missing_user_ids, lists.pred_only_user_ids
                    users, _, parts = evaluate_split_with_parts(split, metrics)
                    stats["_behind"] = json.dumps(system_level_counts(metrics, split))
                    stats.update(_n_users=len(users), _n_tied=_count_tied(split, has_score, has_rank),
                                 _n_rows=lists.n_rows, _n_judged=len(lists.judged_rows))
                    users_out = pa.array(users.index.to_numpy(), type=user_type)
                    values = {m: users[m].to_numpy() for m in names}
                else:
                    _validate_alone(pred, truth, c, ties)
                    # every user here is in one frame only
                    missing = pc.unique(truth_t.column(c.user)).to_pylist()
                    pred_only = pc.unique(pred_t.column(c.user)).to_pylist()
                    if missing_users == "zero" and len(missing):
                        users_out = pa.array(missing, type=user_type)
                        values = {m: np.zeros(len(missing)) for m in names}
                        stats["_n_users"] = len(missing)
                stats.update(_n_missing=len(missing), _n_pred_only=len(pred_only),
                             _missing=_examples(missing), _pred_only=_examples(pred_only))
        except ValueError as exc:  # a validation error: the driver raises it
            yield batch(schema, ERROR, pa.nulls(1, user_type), {}, dict(stats, _error=str(exc)))
            return
        finally:
            _validation.LOCATE_BY_PAIRS.reset(token)
        stats["_sums"] = json.dumps([ExactSum.of(values[m] if values else np.empty(0)).to_json() for m in names])
        stats["_parts"] = json.dumps([None if parts.get(m) is None else parts[m].to_json() for m in names])
        if len(users_out):
            yield batch(schema, USER, users_out, values, {})
        yield batch(schema, STATS, pa.nulls(1, user_type), {}, stats)

    return run


def _validate_alone(pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, ties: str) -> None:
    """Validate the rows of a bucket where no user is in both frames, as the pandas engine would.

    With both frames present, the pandas engine checks every row before it finds that no
    user is common (that last error is the driver's to raise, over all buckets). A frame
    alone is checked against a one-row stand-in for the other, made from one of its own
    rows with an id (the first frame Split checks is ``pred``).
    """
    kwargs = dict(user_col=c.user, item_col=c.item, score_col=c.score, rank_col=c.rank, ties=ties)
    if len(pred) and len(truth):
        try:
            Split(pred, truth, **kwargs)  # type: ignore[arg-type]
        except ValueError as exc:
            if not str(exc).startswith(_NO_COMMON):
                raise
        return
    if len(pred):
        stand_in = pred[[c.user, c.item]].head(1).assign(**{c.score: 1.0})
        Split(pred, stand_in, **kwargs)  # type: ignore[arg-type]
        return
    with_ids = truth[c.user].notna().to_numpy() & truth[c.item].notna().to_numpy()
    if not with_ids.any():  # every row lacks an id: the pandas engine checks item ids first
        _validation.reject_missing_ids(truth, "truth", c.item)
        _validation.reject_missing_ids(truth, "truth", c.user)
    stand_in = truth.loc[with_ids, [c.user, c.item]].head(1).assign(**{c.score: 1.0})
    Split(stand_in, truth, **kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- on the driver
def parallelism(spark: Any) -> int:
    """The cores the session can use: defaultParallelism on classic sessions; on Spark Connect
    (no sparkContext) spark.default.parallelism, else the cores of a ``local[N]`` master, else
    spark.sql.shuffle.partitions."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect sessions have no sparkContext
        pass
    conf = spark.conf
    value = conf.get("spark.default.parallelism", None)
    if value:
        return int(value)
    master = conf.get("spark.master", None) or ""
    local = re.fullmatch(r"local(?:-cluster)?\[(\d+|\*)(?:,\s*\d+)*\]", master.strip())
    if local:
        return (os.cpu_count() or 1) if local.group(1) == "*" else int(local.group(1))
    if master.strip() == "local":
        return 1
    return int(conf.get("spark.sql.shuffle.partitions", "200"))


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
    """pred and truth rows in one frame (``_TRUTH`` tells them apart); scores and ranks as double.

    Item ids share a column when both frames hold the same Spark type; else truth's get
    their own column, so that the bucket sees each frame's ids as they are.
    """
    F = _functions(pred)
    p, t = (lambda name: pred[_quoted(name)]), (lambda name: truth[_quoted(name)])
    pred_item, truth_item_type = pred.schema[c.item].dataType, truth.schema[c.item].dataType
    same_items = pred_item == truth_item_type
    truth_item = c.item if same_items else _TRUTH_ITEM
    pred_sel = [p(c.user), p(c.item)]
    if not same_items:
        pred_sel.append(F.lit(None).cast(truth_item_type).alias(_TRUTH_ITEM))
    pred_sel.append(p(c.score).cast("double").alias(c.score) if has_score
                    else F.lit(None).cast("double").alias(c.score))
    if has_rank:
        pred_sel.append(p(c.rank).cast("double").alias(c.rank))
    pred_sel.append(F.lit(False).alias(_TRUTH))
    truth_sel = [t(c.user)]
    if same_items:
        truth_sel.append(t(c.item))
    else:
        truth_sel += [F.lit(None).cast(pred_item).alias(c.item), t(c.item).alias(_TRUTH_ITEM)]
    truth_sel.append(t(c.score).cast("double").alias(c.score))
    if has_rank:
        truth_sel.append(F.lit(None).cast("double").alias(c.rank))
    truth_sel.append(F.lit(True).alias(_TRUTH))
    return pred.select(*pred_sel).unionByName(truth.select(*truth_sel)), truth_item


def _functions(frame: Any) -> Any:
    """``pyspark.sql.functions`` of the frame's kind: Spark Connect's for a Connect frame.

    (``pyspark.sql.functions`` picks Connect or classic by an environment variable that a
    process holding both kinds of session, like a local Connect server, may not set.)
    """
    if _is_connect(frame):
        from pyspark.sql.connect import functions as connect_functions
        return connect_functions
    from pyspark.sql import functions as classic_functions
    return classic_functions


def _is_connect(frame: Any) -> bool:
    return type(frame).__module__.startswith("pyspark.sql.connect")


def _quoted(name: str) -> str:
    """A column name that Spark takes as it is, whatever characters it holds (dots, spaces)."""
    return "`" + name.replace("`", "``") + "`"


def _output_schema(user_type: Any, c: Columns, names: list[str]) -> Any:
    from pyspark.sql import types as T
    return T.StructType(
        [T.StructField(_KIND, T.ByteType()), T.StructField(c.user, user_type)]
        + [T.StructField(n, T.DoubleType()) for n in names]
        + [T.StructField(n, T.StringType() if t == "string" else T.LongType()) for n, t in _STATS])


def collect(frame: Any) -> pd.DataFrame:
    """``frame.toPandas()``, without the deprecation notice pyspark raises under pandas 3
    (its own ``astype(copy=False)``: nothing a caller of rankeval can act on)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The copy keyword is deprecated", module="pyspark")
        return frame.toPandas()


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
        n_buckets = _validation.check_integer("n_buckets", n_buckets, 1)
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
    run = _bucket_function(list(metrics), c, spark_ties, missing_users, has_score, has_rank, truth_item, side)
    schema = _output_schema(pred.schema[c.user].dataType, c, names)
    out = rows.repartition(n_buckets, rows[_quoted(c.user)]).mapInArrow(run, schema).persist()
    try:
        with _engine_arrow_batches(spark):
            info = out.filter(out[_KIND] != USER).select(_KIND, *[n for n, _ in _STATS]).collect()
        system, counts = _split_summary(info, list(metrics), c, split_name, missing_users, ties)
    except BaseException:
        out.unpersist()
        raise
    # system-level metrics (coverage, Gini, ...) have no per-user value: no column, as with pandas
    per_user = [str(m) for m in metrics if not getattr(m, "system_level", False)]
    users = out.filter(out[_KIND] == USER).select(
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

    def examples(field: str, n: int = _EXAMPLES) -> list[Any]:
        return [x for r in info for x in json.loads(r[field] or "[]")][:n]

    for frame, field in (("pred", "_n_pred"), ("truth", "_n_truth")):
        if total(field) == 0:
            raise ValueError(f"`{frame}` is empty: no user can be evaluated")
    errors = sorted(r["_error"] for r in info if r[_KIND] == ERROR)
    if errors:
        raise ValueError(errors[0])
    where = f" in split {split_name!r}"
    n_missing = total("_n_missing")
    if total("_n_users") == 0 and not (missing_users == "zero" and n_missing):
        raise ValueError(
            f"{_NO_COMMON} (pred has {total('_n_pred_only')} users, e.g. {examples('_pred_only', 3)}; truth has "
            f"e.g. {examples('_missing', 3)}); check that both `{c.user}` columns hold the same ids with the "
            f"same dtype")
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
    _warn_low_overlap(total("_n_rows"), total("_n_judged"), c, where)
    n_tied = total("_n_tied")
    if n_tied and ties == "row_order":
        warnings.warn(TiedScoresWarning(
            f"{n_tied} list(s){where} have tied scores; Spark has no row order, so ties are broken by "
            f"`{c.item}` ascending (the pandas engine does the same with Split(..., ties='item_id'))"),
            stacklevel=4)
    stats = [r for r in info if r[_KIND] == STATS]
    sums = [json.loads(r["_sums"]) for r in stats]
    parts = [json.loads(r["_parts"]) for r in stats]
    system, counts = {}, {}
    behind = [json.loads(r["_behind"] or "{}") for r in stats]
    for i, (name, metric) in enumerate(zip(names, metrics)):
        total = sum((ExactSum.from_json(s[i]) for s in sums), ExactSum())
        counts[name] = (sum(b.get(name, 0) for b in behind) if getattr(metric, "system_level", False)
                        else total.count)
        if metric.system_is_user_mean:
            system[name] = total.mean()
            continue
        # a micro average or a count: the buckets' parts add up exactly, then one system_value
        merged = merge_parts(SystemParts.from_json(p[i]) for p in parts if p[i] is not None)
        system[name] = float("nan") if merged is None else float(metric.system_value(merged.values()))
    return system, counts


def _warn_low_overlap(n_rows: int, n_judged: int, c: Columns, where: str) -> None:
    """The pandas engine's LowOverlapWarning, over all buckets (when this rankeval has it)."""
    try:
        from ..data._split import LOW_OVERLAP
        from ..exceptions import LowOverlapWarning
    except ImportError:
        return
    if n_rows == 0 or n_judged >= LOW_OVERLAP * n_rows:
        return
    warnings.warn(LowOverlapWarning(
        f"only {n_judged} of {n_rows} listed (user, item) rows{where} have a truth score "
        f"({100 * n_judged / n_rows:.2g}%): every metric will be near zero. Check that "
        f"`pred`['{c.item}'] and `truth`['{c.item}'] hold the same ids (same spelling, same type)"),
        stacklevel=5)
