"""What the Spark splitters share: their bookkeeping columns, the driver's checks, buckets of users, the ``Splits``.

Every Spark splitter tags each input row with the fold it is tested in (and, for the
bootstrap, how many times it was drawn) in one persisted frame, plus a bookkeeping row per
bucket; the train and test frames of every fold are filters of that frame.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..data.internal import functions_of, parallelism, quoted, reject_empty
from ._assemble import warn_cold_dropped
from ._input import InteractionColumns
from ._splits import Splits
from ._times import require_named

__all__ = ["spark_columns", "column_frame", "ROWS_PER_BUCKET", "FOLD", "DRAWN", "STATS", "drop_cold_items_spark",
           "check_frame", "bucket_count", "user_buckets", "assembled"]

#: rows per bucket the bucket count aims at (at least two buckets per core)
ROWS_PER_BUCKET = 1_000_000
FOLD = "_rankeval_fold"    # the fold a row is tested in (-1: in every train)
DRAWN = "_rankeval_drawn"  # how many times the bootstrap drew the row into train
STATS = "_rankeval_stats"  # a bucket's bookkeeping (JSON), null on the data rows


def spark_columns(params: dict[str, Any]) -> InteractionColumns:
    return InteractionColumns(params["user_col"], params["item_col"], params["score_col"], params["time_col"])


def column_frame(frame: Any) -> pd.DataFrame:
    """An empty pandas frame with a Spark frame's column names, for the checks that read only names."""
    return pd.DataFrame(columns=list(frame.columns))


def check_frame(frame: Any, columns: InteractionColumns, method: str, need_time: bool,
                own: tuple[str, ...] = (FOLD, DRAWN, STATS)) -> int:
    """Driver checks that read names only, then the row count (an empty frame refused)."""
    names = column_frame(frame)
    require_named(names, "frame", [columns.user, columns.item] + ([columns.time] if need_time else []))
    taken = [c for c in own if c in names.columns]
    if taken:
        raise ValueError(f"`frame` has column(s) {taken}, which {method} on Spark uses for its own bookkeeping; "
                         f"rename them first")
    n_rows = int(frame.count())
    if n_rows == 0:
        reject_empty(names, "frame")
    return n_rows


def bucket_count(frame: Any, n_rows: int) -> int:
    """Buckets for ``n_rows`` rows: about :data:`ROWS_PER_BUCKET` each, at least two per core."""
    return max(2 * parallelism(frame.sparkSession), math.ceil(n_rows / ROWS_PER_BUCKET))


def user_buckets(frame: Any, columns: InteractionColumns, n_rows: int) -> Any:
    """``frame`` repartitioned by a hash of the user id: each user's rows in one bucket."""
    return frame.repartition(bucket_count(frame, n_rows), frame[quoted(columns.user)])


def assembled(out: Any, names: list[str], params: dict[str, Any], stats: dict[str, Any]) -> Splits:
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
