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
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..data import internal as data_internal
from ..data.internal import to_pandas
from ..exceptions import RankevalWarning
from ._assemble import Plan, require_tests, warn_kept_whole
from ._input import InteractionColumns, Interactions, prepare, warn_duplicates
from ._spark_common import DRAWN, FOLD, STATS, assembled, check_frame, spark_columns, user_buckets
from ._splits import Splits

__all__ = ["split_on_spark", "bucket_splitter"]


Planner = Callable[[Interactions], Plan]


def _tie_order(df: pd.DataFrame, columns: InteractionColumns) -> np.ndarray:
    """Row positions ordered (stably) by item id, then score when numeric."""
    by = [columns.item]
    score = df.get(columns.score)
    if score is not None and pd.api.types.is_numeric_dtype(score.dtype) \
            and not pd.api.types.is_bool_dtype(score.dtype):
        by.append(columns.score)
    return df.reset_index(drop=True).sort_values(by, kind="stable").index.to_numpy()


def _split_bucket(table: Any, columns: InteractionColumns, planner: Planner, need_time: bool, order_ties: bool
                  ) -> Iterator[Any]:
    """One bucket's rows with their fold and draws, then its bookkeeping row."""
    import pyarrow as pa

    token = data_internal.LOCATE_BY_PAIRS.set((columns.user, columns.item))  # bucket row labels mean nothing
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
        data_internal.LOCATE_BY_PAIRS.reset(token)
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


def bucket_splitter(columns: InteractionColumns, planner: Planner, need_time: bool, order_ties: bool) -> Any:
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


def split_on_spark(frame: Any, params: dict[str, Any], planner: Planner, *, need_time: bool) -> Splits:
    """A per-user splitter on a Spark DataFrame: Spark frames in the ``Splits``, nothing collected.

    Raises
    ------
    ValueError
        ``temporal_holdout(by="record")`` (ties in time across users need a row order), and
        every error the pandas splitter raises (from the buckets: the first, in sorted order).
        ``by="record"`` random holdouts and k folds run in :mod:`._spark_record`.
    """
    from pyspark.sql import types as T

    method = str(params["method"])
    if params.get("by") == "record":
        if method in ("random_holdout", "kfold"):
            from ._spark_record import record_split_on_spark
            return record_split_on_spark(frame, params)
        raise ValueError(f"{method}: by='record' ranks every interaction by time against all the others, which a "
                         f"Spark DataFrame is not split by here; use by='user' (each user's interactions on their "
                         f"own), global_temporal (one time cut), or collect the frame first (frame.toPandas())")
    columns = spark_columns(params)
    n_rows = check_frame(frame, columns, method, need_time)
    run = bucket_splitter(columns, planner, need_time, order_ties=method == "temporal_holdout")
    schema = T.StructType([*frame.schema.fields, T.StructField(FOLD, T.ShortType()),
                           T.StructField(DRAWN, T.IntegerType()), T.StructField(STATS, T.StringType())])
    out = user_buckets(frame, columns, n_rows).mapInArrow(run, schema).persist()
    try:
        stats = _merged(out.filter(out[STATS].isNotNull()).select(STATS).collect())
        warn_duplicates(columns, method, stats["duplicates"])
        warn_kept_whole(method, stats["users"], stats["reasons"], where=stats["where"])
        require_tests(method, stats["tests"], stats["users"])
    except BaseException:
        out.unpersist()
        raise
    return assembled(out, list(frame.columns), params, stats)
