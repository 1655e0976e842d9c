"""``by="record"`` splits on Spark: every interaction ranked against all the others, nothing collected.

On pandas, :func:`~rankeval.split.random_holdout` and :func:`~rankeval.split.kfold` with
``by="record"`` rank the rows of eligible users (at least ``min_interactions`` of them) by
the seeded 64-bit key of their ``(user, item)`` pair, ties (a repeated pair) by time, score
and input row; the first ``⌊test_size · n⌋`` rows are the test (a holdout), or the row at
rank ``r`` goes to fold ``r mod k``; then users left with an empty train go back whole.
Spark gives the same rows in three steps:

1. **keys**, per bucket of users (a hash of the user id, ``mapInArrow``): the pandas code
   checks the rows and computes each row's key, whether its user is eligible, and its rank
   ``tie`` among the user's rows of the same key (the pandas order: time, score, row). The
   triple ``(key, user hash, tie)`` orders the rows as pandas does and is unique: distinct
   pairs share a key with a chance of about ``n² / 2⁶⁵``, and then only their order differs.
2. **the rank**, without a global sort: one aggregation counts the eligible rows in each of
   ``2¹⁶`` ranges of the key (its top 16 bits; keys are uniform, so every range holds about
   ``n / 2¹⁶`` rows). A holdout needs one cut: the range it falls in is collected (a few
   rows per 65,536) and sorted on the driver, which gives the exact last test row. K folds
   need every rank: the rows are repartitioned by range and each range sorted in its
   bucket; a row's rank is the count of rows in lower ranges plus its place in its own.
   This is exact (counts, never quantile sketches) and moves the rows once, where an
   ``orderBy`` would sample them first and a window over the whole frame would send them
   all to one task.
3. **the users**, per bucket of users again: the pandas rules move back whole the users
   whose every row is in test (a holdout) or in one fold (k folds), and count them.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..data import internal as data_internal
from ..data.internal import functions_of, quoted, to_pandas
from ..exceptions import RankevalWarning
from ._assemble import require_tests, warn_kept_whole
from ._input import InteractionColumns, count_duplicates, prepare, warn_duplicates
from ._order import order_rows
from ._rules import eligible_rows, floor_share, move_back_whole_users
from ._spark_common import DRAWN, FOLD, STATS, assembled, bucket_count, check_frame, spark_columns, user_buckets
from ._splits import Splits

__all__ = ["record_split_on_spark"]

KEY = "_rankeval_key"      # the row's seeded key, its sign bit flipped: signed order is unsigned order
UHASH = "_rankeval_uhash"  # the user's 64-bit hash, likewise
TIE = "_rankeval_tie"      # rank among the user's rows of the same key
ELIGIBLE = "_rankeval_eligible"
RANK = "_rankeval_rank"
#: key bits that name a range (2**16 ranges: a histogram the driver reads in one collect)
RANGE_BITS = 16
_SIGN = np.uint64(1 << 63)
_OWN = (KEY, UHASH, TIE, ELIGIBLE, RANK, FOLD, DRAWN, STATS)


def _signed(words: np.ndarray) -> np.ndarray:
    return (words ^ _SIGN).view(np.int64)


def _stats_batch(schema: Any, stats: dict[str, Any]) -> Any:
    """A row of nulls but for the bookkeeping column (the last field of the Arrow ``schema``)."""
    import pyarrow as pa
    arrays = [pa.nulls(1, field.type) for field in list(schema)[:-1]]
    return pa.RecordBatch.from_arrays([*arrays, pa.array([json.dumps(stats)], type=pa.string())],
                                      schema=schema)


def _with_own(table: Any, own: list[tuple[str, Any]]) -> Any:
    """The Arrow schema of ``table`` with the columns ``own`` (name, Arrow type) appended."""
    import pyarrow as pa
    return pa.schema([*table.schema, *(pa.field(name, kind) for name, kind in own)])


def _table(batches: Iterator[Any]) -> Any:
    import pyarrow as pa
    collected = [b for b in batches if b.num_rows]
    return pa.Table.from_batches(collected) if collected else None


def _prepared(table: Any, columns: InteractionColumns) -> Any:
    """The bucket's rows checked and coded by the pandas reader (bucket row labels mean nothing)."""
    token = data_internal.LOCATE_BY_PAIRS.set((columns.user, columns.item))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankevalWarning)  # counted for the driver, which warns
            return prepare(to_pandas(table, "frame"), columns, need_time=False)
    finally:
        data_internal.LOCATE_BY_PAIRS.reset(token)


def key_step(columns: InteractionColumns, seed: int, min_interactions: int) -> Any:
    """Step 1, per bucket of users: each row's key, user hash, tie rank and eligibility, then the bucket's counts."""
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        table = _table(batches)
        if table is None:
            return
        schema = _with_own(table, [(KEY, pa.int64()), (UHASH, pa.int64()), (TIE, pa.int64()),
                                   (ELIGIBLE, pa.bool_()), (STATS, pa.string())])
        try:
            data = _prepared(table, columns)
        except ValueError as exc:
            yield _stats_batch(schema, {"error": str(exc)})
            return
        key = data.keys(seed)
        ranked = order_rows(key, data.user_codes, data.n_users, random=True, tie_keys=data.tie_keys)
        order = ranked.order
        same = np.zeros(data.n_rows, dtype=bool)
        same[1:] = (key[order][1:] == key[order][:-1]) & (data.user_codes[order][1:] == data.user_codes[order][:-1])
        position = np.arange(data.n_rows, dtype=np.int64)
        start = np.maximum.accumulate(np.where(same, 0, position))
        tie = np.empty(data.n_rows, dtype=np.int64)
        tie[order] = position - start
        eligible = eligible_rows(data, min_interactions)
        out = table
        for name, values, kind in ((KEY, _signed(key), pa.int64()),
                                   (UHASH, _signed(data.user_hashes()[data.user_codes]), pa.int64()),
                                   (TIE, tie, pa.int64()), (ELIGIBLE, eligible, pa.bool_())):
            out = out.append_column(name, pa.array(values, type=kind))
        out = out.append_column(STATS, pa.nulls(data.n_rows, pa.string()))
        yield from out.to_batches()
        yield _stats_batch(schema, {
            "users": data.n_users, "rows": data.n_rows, "eligible": int(eligible.sum()),
            "below": int((data.user_counts() < min_interactions).sum()),
            "duplicates": list(count_duplicates(data, ranked.tied_rows))})

    return run


def rank_step(offsets: np.ndarray, bits: int) -> Any:
    """Step 2 for k folds, per bucket of key ranges: each eligible row's global rank."""
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        table = _table(batches)
        if table is None:
            return
        key, uhash, tie = (table.column(c).to_numpy() for c in (KEY, UHASH, TIE))
        order = np.lexsort([tie, uhash, key])
        ranges = (key[order] >> (64 - bits)) + (1 << (bits - 1))
        position = np.arange(len(order), dtype=np.int64)
        first = np.maximum.accumulate(np.where(np.r_[True, ranges[1:] != ranges[:-1]], position, 0))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = offsets[ranges] + position - first
        yield from table.append_column(RANK, pa.array(rank, type=pa.int64())).to_batches()

    return run


def user_step(columns: InteractionColumns, names: list[str], *, k: int | None, cut: tuple[int, int, int] | None) -> Any:
    """Step 3, per bucket of users: test rows (below the cut, or by rank mod ``k``), users moved back, counts."""
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        table = _table(batches)
        if table is None:
            return
        own = table.select([*names])
        schema = _with_own(own, [(FOLD, pa.int16()), (DRAWN, pa.int32()), (STATS, pa.string())])
        data = _prepared(own, columns)
        eligible = table.column(ELIGIBLE).to_numpy(zero_copy_only=False)
        if k is None:
            fold = np.full(data.n_rows, -1, dtype=np.int16)
            if cut is not None:
                key, uhash, tie = (table.column(c).to_numpy() for c in (KEY, UHASH, TIE))
                below = (key < cut[0]) | ((key == cut[0]) & ((uhash < cut[1]) | ((uhash == cut[1]) & (tie <= cut[2]))))
                in_test = eligible & below
                moved = move_back_whole_users(data, in_test)
                fold[in_test] = 0
            else:
                moved = 0
            tests = [int((fold == 0).sum())]
        else:
            rank = table.column(RANK).to_numpy()
            fold = (rank % k).astype(np.int16)
            per_fold = np.bincount(data.user_codes.astype(np.int64) * k + fold,
                                   minlength=data.n_users * k).reshape(data.n_users, k)
            alone = per_fold.max(axis=1) == data.user_counts()
            fold[alone[data.user_codes]] = -1
            moved = int(alone.sum())
            tests = [int((fold == f).sum()) for f in range(k)]
        out = own.append_column(FOLD, pa.array(fold, type=pa.int16()))
        out = out.append_column(DRAWN, pa.array(np.ones(data.n_rows, dtype=np.int32), type=pa.int32()))
        out = out.append_column(STATS, pa.nulls(data.n_rows, pa.string()))
        yield from out.to_batches()
        yield _stats_batch(schema, {"moved": moved, "tests": tests})

    return run


def _bookkeeping(frame: Any) -> list[dict[str, Any]]:
    """The buckets' bookkeeping rows (a bucket's validation error raised: the first, in sorted order)."""
    stats = [json.loads(r[0]) for r in frame.filter(frame[STATS].isNotNull()).select(STATS).collect()]
    errors = sorted(s["error"] for s in stats if "error" in s)
    if errors:
        raise ValueError(errors[0])
    return stats


def _histogram(rows: Any) -> np.ndarray:
    """Eligible rows in each key range (index: the range's top key bits, offset to start at 0)."""
    F = functions_of(rows)
    shifted = F.shiftright(rows[KEY], 64 - RANGE_BITS).alias("r")
    counts = np.zeros(1 << RANGE_BITS, dtype=np.int64)
    for r, n in rows.filter(rows[ELIGIBLE]).groupBy(shifted).count().collect():
        counts[int(r) + (1 << (RANGE_BITS - 1))] = int(n)
    return counts


def _cut(rows: Any, counts: np.ndarray, n_test: int) -> tuple[int, int, int] | None:
    """The ``(key, user hash, tie)`` of the ``n_test``-th eligible row in order (None: no test row)."""
    if n_test <= 0:
        return None
    F = functions_of(rows)
    cumulative = np.cumsum(counts)
    at = int(np.searchsorted(cumulative, n_test))  # the first range whose cumulative count reaches n_test
    before = int(cumulative[at] - counts[at])
    in_range = rows.filter(rows[ELIGIBLE] & (F.shiftright(rows[KEY], 64 - RANGE_BITS)
                                             == F.lit(at - (1 << (RANGE_BITS - 1))))).select(KEY, UHASH, TIE)
    local = sorted(tuple(int(v) for v in row) for row in in_range.collect())
    return local[n_test - before - 1]  # type: ignore[return-value]


def record_split_on_spark(frame: Any, params: dict[str, Any]) -> Splits:
    """``random_holdout`` or ``kfold`` with ``by="record"`` on a Spark DataFrame (the pandas rows, warnings, errors)."""
    from pyspark.sql import types as T

    method = str(params["method"])
    columns = spark_columns(params)
    names = list(frame.columns)
    n_rows = check_frame(frame, columns, method, need_time=False, own=_OWN)
    k = int(params["n_splits"]) if method == "kfold" else None
    min_interactions = int(params["min_interactions"])
    keyed_schema = T.StructType([*frame.schema.fields, T.StructField(KEY, T.LongType()),
                                 T.StructField(UHASH, T.LongType()), T.StructField(TIE, T.LongType()),
                                 T.StructField(ELIGIBLE, T.BooleanType()), T.StructField(STATS, T.StringType())])
    run = key_step(columns, int(params["seed"]), min_interactions)
    keyed = user_buckets(frame, columns, n_rows).mapInArrow(run, keyed_schema).persist()
    try:
        first = _bookkeeping(keyed)
        n_eligible = sum(s["eligible"] for s in first)
        n_users = sum(s["users"] for s in first)
        rows = keyed.filter(keyed[STATS].isNull()).drop(STATS)
        out = _user_rows(frame, rows, columns, names, n_rows, n_eligible, k, params)
        third = _bookkeeping(out)
    except BaseException:
        keyed.unpersist()
        raise
    keyed.unpersist()  # `out` holds every row now
    below = sum(s["below"] for s in first)
    moved = sum(s["moved"] for s in third)
    tests = [sum(s["tests"][f] for s in third) for f in range(len(third[0]["tests"]))] if third else [0]
    try:
        warn_duplicates(columns, method, (sum(s["duplicates"][0] for s in first),
                                          sum(s["duplicates"][1] for s in first)))
        what = "one fold (its train would be empty)" if k else "test (train would be empty)"
        warn_kept_whole(method, n_users, [(below, f"have fewer than min_interactions={min_interactions} interactions"),
                                          (moved, f"had every interaction drawn into {what}")],
                        where="whole in train in every fold" if k else "whole in train")
        require_tests(method, tests, n_users)
    except BaseException:
        out.unpersist()
        raise
    return assembled(out, names, params, {"rows": n_rows, "tests": tests, "trains": None})


def _user_rows(frame: Any, rows: Any, columns: InteractionColumns, names: list[str], n_rows: int, n_eligible: int,
               k: int | None, params: dict[str, Any]) -> Any:
    """Steps 2 and 3: every input row with the fold it is tested in (persisted), and the buckets' counts."""
    from pyspark.sql import types as T

    F = functions_of(frame)
    schema = T.StructType([*frame.schema.fields, T.StructField(FOLD, T.ShortType()),
                           T.StructField(DRAWN, T.IntegerType()), T.StructField(STATS, T.StringType())])
    counts = _histogram(rows)
    if k is None:
        n_test = min(int(floor_share(float(params["test_size"]), np.array([n_eligible]))[0]), n_eligible)
        cut = _cut(rows, counts, n_test)
        return rows.mapInArrow(user_step(columns, names, k=None, cut=cut), schema).persist()
    if n_eligible < k:
        raise ValueError(f"kfold: `n_splits`={k} is more than the {n_eligible} interaction(s) to spread over the "
                         f"folds; lower n_splits or min_interactions")
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    eligible = rows.filter(rows[ELIGIBLE])
    ranges = F.shiftright(eligible[KEY], 64 - RANGE_BITS)
    ranked_schema = T.StructType([*rows.schema.fields, T.StructField(RANK, T.LongType())])
    ranked = eligible.repartition(bucket_count(rows, n_rows), ranges).mapInArrow(rank_step(offsets, RANGE_BITS),
                                                                                       ranked_schema)
    folded = user_buckets(ranked, columns, n_rows).mapInArrow(user_step(columns, names, k=k, cut=None),
                                                              schema)
    kept = rows.filter(~rows[ELIGIBLE]).select(*[rows[quoted(c)] for c in names], F.lit(-1).cast("short").alias(FOLD),
                                               F.lit(1).alias(DRAWN), F.lit(None).cast("string").alias(STATS))
    return folded.unionByName(kept).persist()

