"""The per-user splitters on Spark DataFrames: each bucket of users split by the pandas code.

A per-user split decides each user's rows from that user's rows and ids alone (seeded
keys of the ``(user, item)`` pairs, the user's times and count), so the frame is
repartitioned by a hash of the user id into buckets, and ``mapInArrow`` runs the pandas
splitter's plan (:class:`~._assemble.Plan`) on every bucket: the same code, hence the same
rows in train and test as on pandas. Each output row is the input row, untouched (its
Arrow values pass through), with the fold it is tested in and, for the bootstrap, how many
times it was drawn. Each bucket adds one bookkeeping row: its users, the users it kept
whole by reason, its duplicate pairs, its test sizes, or its validation error. Those
counts add up over the buckets, so the driver announces the same warnings, with the same
counts, as the pandas splitter. Nothing is collected but those rows.

Spark has no row order: where the pandas splitters fall back on the input order (two of
a user's interactions at the same time, in :func:`~rankeval.split.temporal_holdout`),
each bucket first orders its rows by item id, then score; the pandas splitter gives the
same split on a frame sorted (stably) by those columns.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..data import _validation
from ..data._frames import to_pandas
from ..data._spark import functions_of, parallelism, quoted
from ..data._validation import reject_empty
from ..exceptions import RankevalWarning
from ._assemble import Plan, require_tests, warn_cold_dropped, warn_kept_whole
from ._input import Columns, Interactions, prepare, warn_duplicates
from ._splits import Splits
from ._times import require_named

__all__ = ["split_on_spark", "bucket_splitter", "spark_columns", "column_frame", "ROWS_PER_BUCKET", "FOLD", "DRAWN",
           "STATS", "drop_cold_items_spark"]

#: rows per bucket the bucket count aims at (at least two buckets per core)
ROWS_PER_BUCKET = 1_000_000
FOLD = "_rankeval_fold"    # the fold a row is tested in (-1: in every train)
DRAWN = "_rankeval_drawn"  # how many times the bootstrap drew the row into train
STATS = "_rankeval_stats"  # a bucket's bookkeeping (JSON), null on the data rows

Planner = Callable[[Interactions], Plan]


def spark_columns(params: dict[str, Any]) -> Columns:
    return Columns(params["user_col"], params["item_col"], params["score_col"], params["time_col"])


def column_frame(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with a Spark frame's column names, for the checks that read only names."""
    return pd.DataFrame(columns=list(frame.columns))


def _tie_order(df: pd.DataFrame, columns: Columns) -> np.ndarray:
    """Row positions ordered (stably) by item id, then score when numeric."""
    by = [columns.item]
    score = df.get(columns.score)
    if score is not None and pd.api.types.is_numeric_dtype(score.dtype) \
            and not pd.api.types.is_bool_dtype(score.dtype):
        by.append(columns.score)
    return df.reset_index(drop=True).sort_values(by, kind="stable").index.to_numpy()


def _split_bucket(table: Any, columns: Columns, planner: Planner, need_time: bool, order_ties: bool
                  ) -> Iterator[Any]:
    """One bucket's rows with their fold and draws, then its bookkeeping row."""
    import pyarrow as pa

    token = _validation.LOCATE_BY_PAIRS.set((columns.user, columns.item))  # bucket row labels mean nothing
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankevalWarning)  # counted for the driver, which warns
            df = to_pandas(table, "frame")
            if order_ties:
                order = _tie_order(df, columns)
                table, df = table.take(order), df.iloc[order].reset_index(drop=True)
            data = prepare(df, columns, need_time=need_time)
            plan = planner(data)
    except ValueError as exc:
        yield _stats_batch(table.schema, {"error": str(exc)})
        return
    finally:
        _validation.LOCATE_BY_PAIRS.reset(token)
    fold = np.full(data.n_rows, -1, dtype=np.int16)
    for f, in_test in enumerate(plan.tests):
        fold[in_test] = f
    drawn = np.ones(data.n_rows, dtype=np.int32) if plan.drawn is None else plan.drawn.astype(np.int32)
    out = table.append_column(FOLD, pa.array(fold, type=pa.int16()))
    out = out.append_column(DRAWN, pa.array(drawn, type=pa.int32()))
    out = out.append_column(STATS, pa.nulls(data.n_rows, pa.string()))
    yield from out.to_batches()
    yield _stats_batch(table.schema, {
        "users": data.n_users, "rows": data.n_rows, "reasons": [[n, why] for n, why in plan.reasons],
        "where": plan.where, "duplicates": list(plan.duplicates), "tests": [int(t.sum()) for t in plan.tests],
        "trains": None if plan.trains is None else [len(t) for t in plan.trains]})


def _stats_batch(schema: Any, stats: dict[str, Any]) -> Any:
    """A row of nulls but for the bookkeeping column."""
    import pyarrow as pa
    arrays = [pa.nulls(1, field.type) for field in schema]
    arrays += [pa.nulls(1, pa.int16()), pa.nulls(1, pa.int32()), pa.array([json.dumps(stats)], type=pa.string())]
    return pa.RecordBatch.from_arrays(arrays, names=[*schema.names, FOLD, DRAWN, STATS])


def bucket_splitter(columns: Columns, planner: Planner, need_time: bool, order_ties: bool) -> Any:
    """The function ``mapInArrow`` runs on every bucket (one partition)."""
    # a closure: cloudpickle ships it, with the values above, to every Python worker
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        collected = [b for b in batches if b.num_rows]
        if not collected:
            return  # an empty partition: no user hashed here
        yield from _split_bucket(pa.Table.from_batches(collected), columns, planner, need_time, order_ties)

    return run


def _merged(rows: list[Any]) -> dict[str, Any]:
    """The buckets' bookkeeping added up (a bucket's validation error raised)."""
    stats = [json.loads(r[0]) for r in rows]
    errors = sorted(s["error"] for s in stats if "error" in s)
    if errors:
        raise ValueError(errors[0])
    first = stats[0]
    return {
        "users": sum(s["users"] for s in stats), "rows": sum(s["rows"] for s in stats), "where": first["where"],
        "reasons": [(sum(s["reasons"][i][0] for s in stats), why) for i, (_, why) in enumerate(first["reasons"])],
        "duplicates": tuple(sum(s["duplicates"][i] for s in stats) for i in range(2)),
        "tests": [sum(s["tests"][f] for s in stats) for f in range(len(first["tests"]))],
        "trains": None if first["trains"] is None else [sum(s["trains"][f] for s in stats)
                                                        for f in range(len(first["trains"]))]}


def _checked(frame: Any, columns: Columns, method: str, need_time: bool) -> int:
    """Driver checks that read names only, then the row count (an empty frame refused)."""
    names = column_frame(frame)
    require_named(names, "frame", [columns.user, columns.item] + ([columns.time] if need_time else []))
    taken = [c for c in (FOLD, DRAWN, STATS) if c in names.columns]
    if taken:
        raise ValueError(f"`frame` has column(s) {taken}, which {method} on Spark uses for its own bookkeeping; "
                         f"rename them first")
    n_rows = int(frame.count())
    if n_rows == 0:
        reject_empty(names, "frame")
    return n_rows


def split_on_spark(frame: Any, params: dict[str, Any], planner: Planner, *, need_time: bool) -> Splits:
    """A per-user splitter on a Spark DataFrame: Spark frames in the ``Splits``, nothing collected.

    Raises
    ------
    ValueError
        ``by="record"`` (every row ranked against all the others), and every error the
        pandas splitter raises (from the buckets: the first, in sorted order).
    """
    from pyspark.sql import types as T

    method = str(params["method"])
    if params.get("by") == "record":
        raise ValueError(f"{method}: by='record' ranks every interaction against all the others, which a Spark "
                         f"DataFrame is not split by here; use by='user' (each user's interactions on their own), "
                         f"or collect the frame first (frame.toPandas())")
    columns = spark_columns(params)
    n_rows = _checked(frame, columns, method, need_time)
    n_buckets = max(2 * parallelism(frame.sparkSession), math.ceil(n_rows / ROWS_PER_BUCKET))
    run = bucket_splitter(columns, planner, need_time, order_ties=method == "temporal_holdout")
    schema = T.StructType([*frame.schema.fields, T.StructField(FOLD, T.ShortType()),
                           T.StructField(DRAWN, T.IntegerType()), T.StructField(STATS, T.StringType())])
    out = frame.repartition(n_buckets, frame[quoted(columns.user)]).mapInArrow(run, schema).persist()
    try:
        stats = _merged(out.filter(out[STATS].isNotNull()).select(STATS).collect())
        warn_duplicates(columns, method, stats["duplicates"])
        warn_kept_whole(method, stats["users"], stats["reasons"], where=stats["where"])
        require_tests(method, stats["tests"], stats["users"])
    except BaseException:
        out.unpersist()
        raise
    return _assembled(out, list(frame.columns), params, stats)


def _assembled(out: Any, names: list[str], params: dict[str, Any], stats: dict[str, Any]) -> Splits:
    """The Spark train/test frames of every fold, cold test items dropped when asked."""
    F = functions_of(out)
    rows = out.filter(out[STATS].isNull())
    keep = [rows[quoted(c)] for c in names]
    pairs, sizes = [], []
    for f, n_test in enumerate(stats["tests"]):
        test = rows.filter(rows[FOLD] == f).select(*keep)
        if stats["trains"] is not None:  # a bootstrap sample: each row as many times as drawn
            train = rows.filter(rows[DRAWN] > 0).select(
                *keep, F.explode(F.array_repeat(F.lit(0), rows[DRAWN])).alias(DRAWN)).drop(DRAWN)
            n_train = stats["trains"][f]
        else:
            train = rows.filter(rows[FOLD] != f).select(*keep)
            n_train = stats["rows"] - n_test
        pairs.append((train, test))
        sizes.append((n_train, n_test))
    if params["drop_cold_items"]:
        pairs, sizes = drop_cold_items_spark(pairs, sizes, str(params["method"]), str(params["item_col"]), names)
    return Splits.from_frames(pairs, sizes, params)


def drop_cold_items_spark(pairs: list[tuple[Any, Any]], sizes: list[tuple[int, int]], method: str, item: str,
                     names: list[str]) -> tuple[list[tuple[Any, Any]], list[tuple[int, int]]]:
    """Test rows whose item has no row in the fold's train dropped (a semi join), and counted."""
    kept_pairs, kept_sizes, dropped, tested = [], [], [], []
    for (train, test), (n_train, n_test) in zip(pairs, sizes):
        seen = train.select(train[quoted(item)]).distinct()
        kept = test.join(seen, on=item, how="left_semi").select(*[quoted(c) for c in names])
        n_kept = int(kept.count())
        kept_pairs.append((train, kept))
        kept_sizes.append((n_train, n_kept))
        dropped.append(n_test - n_kept)
        tested.append(n_test)
    warn_cold_dropped(method, dropped, tested, [f"fold{i}" for i in range(1, len(pairs) + 1)])
    return kept_pairs, kept_sizes
