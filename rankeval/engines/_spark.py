"""The Spark engine: hash users into buckets, run the pandas engine on each bucket.

``pred`` and ``truth`` are partitioned by a hash of the user id into buckets of many
users; ``groupBy(bucket).cogroup(...).applyInPandas(...)`` hands each bucket's rows to
the pandas engine (Split + RankedLists + metrics), so no metric is written twice and
every per-user value is the pandas engine's. Imported lazily: the core never needs pyspark.

Spark has no row order, so tied scores are broken by item id ascending (what
``Split(ties="item_id")`` does on pandas), with a warning that counts the tied lists.
Validation errors found on executors come back as rows and are raised on the driver as
the pandas engine's ValueError.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validation
from ..data import Split
from ..exceptions import MissingUsersWarning, TiedScoresWarning
from ..metrics import RankingMetric
from ..ranked import Columns
from ._pandas import evaluate_split

__all__ = ["evaluate_spark_split", "DEFAULT_ROWS_PER_BUCKET"]

#: listed rows per bucket the default bucket count aims at (about 0.2 GB in a Python worker)
DEFAULT_ROWS_PER_BUCKET = 500_000
#: at least this many buckets per core: Spark hashes the bucket numbers again into its shuffle
#: partitions, so a few buckets can land in one task while other cores idle
BUCKETS_PER_CORE = 4
_EXAMPLES = 10
_BUCKET = "_rankeval_bucket"


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


def _bucket_function(metrics: Sequence[RankingMetric], c: Columns, ties: str, missing_users: str,
                     metric_names: list[str]) -> Any:
    """The function each bucket runs: the pandas engine plus bookkeeping rows for the driver."""

    def stats_row(**values: Any) -> dict[str, Any]:
        row: dict[str, Any] = {"_kind": "stats", "_error": None, "_n_users": 0, "_n_missing": 0,
                               "_n_pred_only": 0, "_n_tied": 0, "_missing": "[]", "_pred_only": "[]"}
        row.update(values)
        return row

    def frame(rows: list[dict[str, Any]], users: pd.DataFrame | None) -> pd.DataFrame:
        out = pd.DataFrame(rows, columns=["_kind", "_error", "_n_users", "_n_missing", "_n_pred_only",
                                          "_n_tied", "_missing", "_pred_only"])
        if users is not None and len(users):
            part = users.reset_index()
            part.columns = [c.user, *metric_names]
            part.insert(0, "_kind", "user")
            out = pd.concat([part, out], ignore_index=True)
        for col in (c.user, *metric_names):
            if col not in out.columns:
                out[col] = None
        return out[["_kind", c.user, *metric_names, "_error", "_n_users", "_n_missing", "_n_pred_only",
                    "_n_tied", "_missing", "_pred_only"]]

    def examples(ids: Any) -> str:
        return json.dumps([x.item() if isinstance(x, np.generic) else x for x in list(ids)[:_EXAMPLES]])

    def run(pred: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
        pred = pred.drop(columns=_BUCKET)
        truth = truth.drop(columns=_BUCKET)
        # (through the module: a ContextVar cannot be pickled into the bucket function)
        token = _validation.LOCATE_BY_PAIRS.set((c.user, c.item))  # a bucket's row labels mean nothing to the caller
        try:
            pred_users = pd.unique(pred[c.user])
            truth_users = pd.unique(truth[c.user])
            common = pd.Index(pred_users).intersection(pd.Index(truth_users))
            missing = pd.Index(truth_users).difference(pd.Index(pred_users), sort=False)
            pred_only = pd.Index(pred_users).difference(pd.Index(truth_users), sort=False)
            counts = dict(_n_missing=len(missing), _n_pred_only=len(pred_only),
                          _missing=examples(missing), _pred_only=examples(pred_only))
            users = None
            if len(common):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MissingUsersWarning)  # counted for the driver
                    policy = "ignore" if missing_users == "error" else missing_users
                    split = Split(pred, truth, user_col=c.user, item_col=c.item, score_col=c.score,
                                  rank_col=c.rank, ties=ties, missing_users=policy)
                    users, _ = evaluate_split(split, metrics)
            elif missing_users == "zero" and len(missing):
                users = pd.DataFrame(0.0, index=pd.Index(missing, name=c.user), columns=metric_names)
            tied = 0
            if c.rank not in pred.columns and c.score in pred.columns and len(common):
                listed = pred[pred[c.user].isin(common)]
                tied = int(listed[listed.duplicated([c.user, c.score], keep=False)][c.user].nunique())
            n_users = 0 if users is None else len(users)
            return frame([stats_row(_n_users=n_users, _n_tied=tied, **counts)], users)
        except ValueError as exc:  # a validation error: the driver raises it
            return frame([stats_row(_kind="error", _error=str(exc))], None)
        finally:
            _validation.LOCATE_BY_PAIRS.reset(token)

    return run


def _parallelism(spark: Any) -> int:
    """The session's parallelism; Spark Connect sessions have no sparkContext."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect: fall back on the shuffle partitions setting
        return int(spark.conf.get("spark.sql.shuffle.partitions", "200"))


def _spark_session_of(*frames: Any) -> Any:
    for df in frames:
        session = getattr(df, "sparkSession", None)
        if session is not None:
            return session
    from pyspark.sql import SparkSession
    return SparkSession.builder.getOrCreate()


def to_spark(df: Any, spark: Any) -> Any:
    """A pandas frame as a Spark DataFrame (Spark frames pass through)."""
    from . import is_spark_frame
    return df if is_spark_frame(df) else spark.createDataFrame(df)


def evaluate_spark_split(pred: Any, truth: Any, metrics: Sequence[RankingMetric], *, split_name: str,
                         missing_users: str = "ignore", columns: Columns = Columns(), ties: str = "row_order",
                         n_buckets: int | None = None) -> tuple[Any, dict[str, float]]:
    """Evaluate one split on Spark.

    Returns the per-user Spark DataFrame (``split``, user column, one column per metric)
    and the per-metric system means (Spark aggregations that leave NaN users out).
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    spark = _spark_session_of(pred, truth)
    pred, truth = to_spark(pred, spark), to_spark(truth, spark)
    c = columns
    has_score, has_rank = _check_schema(pred, truth, c)
    for frame_name, df in (("pred", pred), ("truth", truth)):
        if df.isEmpty():
            raise ValueError(f"`{frame_name}` is empty: no user can be evaluated")
    if n_buckets is None:
        n_buckets = max(BUCKETS_PER_CORE * _parallelism(spark), math.ceil(pred.count() / DEFAULT_ROWS_PER_BUCKET))
    elif isinstance(n_buckets, bool) or not isinstance(n_buckets, int) or n_buckets < 1:
        raise ValueError(f"`n_buckets` must be an integer >= 1, got {n_buckets!r}")
    # the tie rule: Spark has no row order, so "row_order" becomes item id ascending
    spark_ties = "item_id" if ties == "row_order" else ties

    pred_cols = [c.user, c.item] + [col for col in (c.score, c.rank) if col in pred.columns]
    pred_b = pred.select(*pred_cols).withColumn(_BUCKET, F.pmod(F.hash(F.col(c.user)), F.lit(n_buckets)))
    truth_b = truth.select(c.user, c.item, c.score).withColumn(
        _BUCKET, F.pmod(F.hash(F.col(c.user)), F.lit(n_buckets)))
    names = [str(m) for m in metrics]
    user_type = pred.schema[c.user].dataType
    schema = T.StructType(
        [T.StructField("_kind", T.StringType()), T.StructField(c.user, user_type)]
        + [T.StructField(n, T.DoubleType()) for n in names]
        + [T.StructField("_error", T.StringType())]
        + [T.StructField(n, T.LongType()) for n in ("_n_users", "_n_missing", "_n_pred_only", "_n_tied")]
        + [T.StructField("_missing", T.StringType()), T.StructField("_pred_only", T.StringType())])
    run = _bucket_function(list(metrics), c, spark_ties, missing_users, names)
    out = pred_b.groupBy(_BUCKET).cogroup(truth_b.groupBy(_BUCKET)).applyInPandas(run, schema).persist()

    info = out.filter(F.col("_kind") != "user").select(
        "_kind", "_error", "_n_users", "_n_missing", "_n_pred_only", "_n_tied", "_missing", "_pred_only").toPandas()
    errors = sorted(info.loc[info["_kind"] == "error", "_error"].tolist())
    if errors:
        out.unpersist()
        raise ValueError(errors[0])
    where = f" in split {split_name!r}"
    n_missing = int(info["_n_missing"].sum())
    missing_examples = [x for s in info["_missing"] for x in json.loads(s)][:_EXAMPLES]
    if int(info["_n_users"].sum()) == 0 and not (missing_users == "zero" and n_missing):
        out.unpersist()
        pred_ex = [r[0] for r in pred.select(c.user).distinct().limit(3).collect()]
        truth_ex = [r[0] for r in truth.select(c.user).distinct().limit(3).collect()]
        n_pred_users = pred.select(c.user).distinct().count()
        raise ValueError(
            f"no user of `pred` appears in `truth` (pred has {n_pred_users} users, e.g. {pred_ex}; truth has "
            f"e.g. {truth_ex}); check that both `{c.user}` columns hold the same ids with the same dtype")
    if n_missing:
        if missing_users == "error":
            out.unpersist()
            raise ValueError(
                f"{n_missing} `truth` user(s){where} have no recommendations, e.g. {missing_examples}; "
                f"pass missing_users='ignore' to leave them out or 'zero' to score them 0")
        action = ("are left out" if missing_users == "ignore"
                  else "get 0 for every metric (missing_users='zero')")
        warnings.warn(MissingUsersWarning(
            f"{n_missing} `truth` user(s){where} have no recommendations and {action}, e.g. {missing_examples}"),
            stacklevel=3)
    n_pred_only = int(info["_n_pred_only"].sum())
    if n_pred_only:
        pred_only_examples = [x for s in info["_pred_only"] for x in json.loads(s)][:_EXAMPLES]
        warnings.warn(MissingUsersWarning(
            f"{n_pred_only} `pred` user(s){where} have no truth ratings and are left out, e.g. "
            f"{pred_only_examples}"), stacklevel=3)
    n_tied = int(info["_n_tied"].sum())
    if n_tied and ties == "row_order":
        warnings.warn(TiedScoresWarning(
            f"{n_tied} list(s){where} have tied scores; Spark has no row order, so ties are broken by "
            f"`{c.item}` ascending (the pandas engine does the same with Split(..., ties='item_id'))"),
            stacklevel=3)

    users = out.filter(F.col("_kind") == "user").select(
        F.lit(split_name).alias("split"), F.col(c.user), *[F.col(f"`{n}`") for n in names])
    means = users.agg(*[F.avg(F.when(~F.isnan(F.col(f"`{n}`")), F.col(f"`{n}`"))).alias(n) for n in names]
                      ).collect()[0]
    system = {n: (np.nan if means[n] is None else float(means[n])) for n in names}
    return users, system
