"""The audit's profile lines on Spark: time ties, first sessions, repeat test rows, items outside a catalog.

The same counts as :mod:`._profile`, from Spark aggregations over the id and time columns
(``u``, ``i``, ``t``) the Spark audit picks; only the counts reach the driver. A user's
first session is found with one window over the user's rows in time order (the time
before each row, ``lag``): a row starts a new session when it comes more than the gap
after the one before it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..data.internal import functions_of, is_connect, quoted
from ._checks import Line
from ._profile import catalog_ids, catalog_of, repeat_of, sessions_of, ties_of

__all__ = ["spark_time_profile", "spark_repeat", "spark_catalog"]


def _window(frame: Any) -> Any:
    """``Window`` of the frame's kind (Spark Connect's for a Connect frame)."""
    if is_connect(frame):
        from pyspark.sql.connect.window import Window as ConnectWindow
        return ConnectWindow
    from pyspark.sql.window import Window
    return Window


def _seconds(F: Any, t: Any, kind: str) -> Any:
    """The time as a number of seconds (numbers as they are; datetimes from their microseconds)."""
    if kind == "number":
        return t.cast("double")
    return F.unix_micros(t.cast("timestamp")) / 1e6


def _ties(T: Any, S: Any) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(tied rows, rows, users) of train ∪ test and of the test rows."""
    F = functions_of(T)
    both = T.select("u", "t", F.lit(0).alias("b")).unionByName(S.select("u", "t", F.lit(1).alias("b")))
    times = both.groupBy("u", "t").agg(F.count(F.lit(1)).alias("n"), F.sum("b").alias("nb"))
    tied = times["n"] > 1
    users = times.groupBy("u").agg(F.sum(F.when(tied, times["n"]).otherwise(0)).alias("r"),
                                   F.sum(F.when(tied, times["nb"]).otherwise(0)).alias("s"),
                                   F.sum("n").alias("n"), F.sum("nb").alias("nb"))
    row = [int(v or 0) for v in users.agg(F.sum("r"), F.sum("n"), F.count_if(users["r"] > 0), F.sum("s"),
                                          F.sum("nb"), F.count_if(users["s"] > 0)).collect()[0]]
    return (row[0], row[1], row[2]), (row[3], row[4], row[5])


def _at_last(T: Any, S: Any) -> tuple[int, int]:
    """(test rows at their user's last training time, users)."""
    F = functions_of(T)
    last = T.groupBy("u").agg(F.max("t").alias("l"))
    joined = S.join(last, "u")
    users = joined.groupBy("u").agg(F.count_if(joined["t"] == joined["l"]).alias("k"))
    row = users.agg(F.sum("k"), F.count_if(users["k"] > 0)).collect()[0]
    return int(row[0] or 0), int(row[1] or 0)


def _sessions(T: Any, S: Any, gap: float, kind: str) -> tuple[int, int, int, int]:
    """(rows in their user's first session, rows, users over half, users)."""
    F = functions_of(T)
    both = T.select("u", "t").unionByName(S.select("u", "t"))
    ordered = _window(T).partitionBy("u").orderBy("t")
    seconds = _seconds(F, both["t"], kind)
    before = F.lag(seconds).over(ordered)
    gaps = both.select("u", F.when(before.isNotNull() & ((seconds - before) > F.lit(gap)), 1).otherwise(0)
                       .alias("g"), "t")
    # the default frame of an ordered window runs to the last row tied with the current one:
    # tied rows (no gap between them) share their running count of breaks
    counted = gaps.select("u", F.sum("g").over(ordered).alias("c"))
    users = counted.groupBy("u").agg(F.count(F.lit(1)).alias("n"), F.count_if(counted["c"] == 0).alias("f"))
    row = [int(v or 0) for v in users.agg(F.sum("f"), F.sum("n"), F.count_if(users["f"] * 2 > users["n"]),
                                          F.count(F.lit(1))).collect()[0]]
    return row[0], row[1], row[2], row[3]


def spark_time_profile(T: Any, S: Any, gap: float, kind: str, gap_text: str) -> list[Line]:
    """The tie and first-session lines of train ``T`` and test ``S`` (columns ``u``, ``t``)."""
    every, test = _ties(T, S)
    rows, n_rows, over_half, n_users = _sessions(T, S, gap, kind)
    return ties_of(every, test, _at_last(T, S)) + sessions_of(rows, n_rows, over_half, n_users, gap_text)


def spark_repeat(S: Any, train_pairs: Any, n_test: int) -> Line:
    """Test rows whose ``(u, i)`` pair is among the distinct train pairs."""
    F = functions_of(S)
    row = S.join(train_pairs, ["u", "i"], "left_semi").agg(F.count(F.lit(1)), F.count_distinct("u")).collect()[0]
    return repeat_of(int(row[0] or 0), n_test, int(row[1] or 0))


def _catalog_frame(catalog: Any, like: Any, item_col: str) -> Any:
    """The catalog's distinct items as a Spark frame with one column ``i``."""
    from ..data.internal import is_spark_frame

    if is_spark_frame(catalog):
        column = item_col if item_col in catalog.columns else (catalog.columns[0] if len(catalog.columns) == 1
                                                               else None)
        if column is None:
            raise ValueError(f"`catalog` is a frame without a '{item_col}' column and with {len(catalog.columns)} "
                             f"columns {list(catalog.columns)}: give the item ids as one column")
        return catalog.select(catalog[quoted(column)].alias("i")).distinct()
    ids = catalog_ids(catalog, item_col)
    return like.sparkSession.createDataFrame(pd.DataFrame({"i": ids.to_numpy()}))


def spark_catalog(systems: list[tuple[str, str, Any, Any, int]], catalog: Any, item_col: str,
                  numeric: Any) -> list[Line]:
    """Per system ``(suffix, name, frame, picked, rows)``: the listed rows (``picked``: columns ``u``,
    ``i``) whose item is not in the catalog; ``numeric(frame, column)`` tells numbers from text."""
    items = _catalog_frame(catalog, systems[0][3], item_col)
    lines = []
    for suffix, name, frame, P, n_rows in systems:
        if numeric(items, "i") != numeric(frame, item_col):
            kinds = ["numbers" if numeric(items, "i") else "text", "numbers" if numeric(frame, item_col) else "text"]
            raise ValueError(f"`{name}`['{item_col}'] holds {kinds[1]} but `catalog` holds {kinds[0]}: they never "
                             f"match; give the catalog the lists' kind of id")
        F = functions_of(P)
        out = P.join(items, "i", "left_anti")
        row = out.agg(F.count(F.lit(1)), F.count_distinct("u"), F.count_distinct("i")).collect()[0]
        lines.append(catalog_of(suffix, int(row[0] or 0), n_rows, int(row[1] or 0), int(row[2] or 0)))
    return lines
