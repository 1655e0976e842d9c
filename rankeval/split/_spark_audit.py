"""The audit on Spark DataFrames: every line from Spark aggregations and joins, nothing collected.

Each line of :func:`~rankeval.split.audit` is a count over rows, pairs, users or items,
which Spark computes with group-bys and joins on the id columns; only the counts (and
the histogram of test interactions per user, for the median) reach the driver. The lines
are built by the same constructors as on pandas (:mod:`._checks`), so the table is the
same, line for line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..data.internal import functions_of, is_spark_frame, quoted, reject_empty, spark_id_kind_error
from ._checks import Line, cheap_counts, cold_of, duplicates_of, future_of, leakage_of, overlap_of, seen_of, shape_of
from ._input import InteractionColumns
from ._profile import SESSION_GAP, TEMPORAL, gap_text, mde_lines
from ._spark_common import column_frame
from ._spark_global import bad_rows_error, bad_time, time_kind_spark
from ._spark_profile import spark_catalog, spark_repeat, spark_time_profile
from ._times import require_named

__all__ = ["spark_audit_lines", "spark_cheap_counts", "spark_frames"]

_TEMPORAL = TEMPORAL


def _numeric(frame: Any, column: str) -> bool:
    from pyspark.sql import types as T
    return isinstance(frame.schema[column].dataType, T.NumericType)


def _fractional(frame: Any, column: str) -> bool:
    from pyspark.sql import types as T
    return isinstance(frame.schema[column].dataType, T.FractionalType)


def spark_frames(train: Any, test: Any, pred: Any) -> bool:
    """Whether the audit runs on Spark (train and test Spark frames; a mix refused)."""
    frames = {"train": train, "test": test}
    if isinstance(pred, Mapping):
        frames.update({f"pred[{k!r}]": v for k, v in pred.items()})
    elif pred is not None:
        frames["pred"] = pred
    spark = [name for name, frame in frames.items() if is_spark_frame(frame)]
    if spark and len(spark) != len(frames):
        local = [name for name in frames if name not in spark]
        raise TypeError(f"{spark} are Spark DataFrames but {local} are not: give the audit Spark frames only "
                        f"(spark.createDataFrame(...)) or local frames only (.toPandas())")
    return bool(spark)


def _ids(frame: Any, name: str, c: InteractionColumns) -> int:
    """The frame's rows, its id columns checked: present, not empty, no missing id."""
    F = functions_of(frame)
    require_named(column_frame(frame), name, [c.user, c.item])
    u, i = frame[quoted(c.user)], frame[quoted(c.item)]
    row = frame.agg(F.count(F.lit(1)), F.count_if(u.isNull()), F.count_if(i.isNull())).collect()[0]
    if not row[0]:
        reject_empty(column_frame(frame), name)
    for column, n, cond in ((c.item, row[2], i.isNull()), (c.user, row[1], u.isNull())):
        if n:
            raise bad_rows_error(frame, cond, int(n), f"`{name}`['{column}'] has", c,
                                 "missing value(s)|every row needs an id")
    return int(row[0])


def _picked(frame: Any, c: InteractionColumns, time: str | None) -> Any:
    """The ids (and time) as columns ``u``, ``i`` (``t``)."""
    picked = [frame[quoted(c.user)].alias("u"), frame[quoted(c.item)].alias("i")]
    return frame.select(*picked, *([frame[quoted(time)].alias("t")] if time else []))


def _same_kinds(train: Any, test: Any, c: InteractionColumns) -> None:
    for column in (c.user, c.item):
        kinds = ["numbers" if _numeric(df, column) else "text" for df in (train, test)]
        if kinds[0] != kinds[1]:
            name, df = ("train", train) if kinds[0] == "numbers" else ("test", test)
            raise spark_id_kind_error(f"`train`['{column}'] holds {kinds[0]} but `test`['{column}'] holds {kinds[1]}",
                                      name, column, fractional=_fractional(df, column))


def _time_column(train: Any, test: Any, c: InteractionColumns, skipped: dict[str, str]) -> str | None:
    """The time column when both frames have it (kinds checked, no bad time), else None with why."""
    missing = [name for name, df in (("train", train), ("test", test)) if c.time not in df.columns]
    if missing:
        for name in _TEMPORAL:
            skipped[name] = f"no '{c.time}' column in {' and '.join(missing)}"
        return None
    kinds = [time_kind_spark(df, name, c.time) for name, df in (("train", train), ("test", test))]
    if kinds[0] != kinds[1]:
        raise ValueError(f"`train`['{c.time}'] holds {kinds[0]}s but `test`['{c.time}'] holds {kinds[1]}s: they "
                         f"cannot be compared; give both the same kind of time")
    for name, df in (("train", train), ("test", test)):
        bad = bad_time(df, c.time)
        n_bad = df.filter(bad).count()
        if n_bad:
            raise bad_rows_error(df, bad, n_bad, f"`{name}`['{c.time}'] has", c,
                                 "missing, NaN or infinite time(s)|drop or fill them first: a row without a time has "
                                 "no place before or after another")
    return c.time


def _leakage(T: Any, per_user: Any, n_train: int) -> list[Line]:
    F = functions_of(T)
    start = per_user.agg(F.min("e")).collect()[0][0]
    joined = T.join(per_user.select("u", "e"), "u", "left")
    own, late = joined["t"] > joined["e"], joined["t"] > F.lit(start)
    # per user first, then over users: the users affected are counted without a distinct count
    # (two distinct counts in one aggregation make Spark copy every row once per count)
    users = joined.groupBy("u").agg(F.count_if(own).alias("o"), F.count_if(late).alias("l"))
    row = users.agg(F.sum("o"), F.count_if(users["o"] > 0), F.sum("l"), F.count_if(users["l"] > 0)).collect()[0]
    return leakage_of((int(row[0] or 0), int(row[1] or 0)), (int(row[2] or 0), int(row[3] or 0)), n_train)


def _flagged(T: Any, S: Any, keys: list[str]) -> Any:
    """Per distinct ``keys``: its train rows ``a`` and test rows ``b`` (one shuffle of both frames)."""
    F = functions_of(T)
    both = T.select(*keys, F.lit(1).alias("a"), F.lit(0).alias("b")).unionByName(
        S.select(*keys, F.lit(0).alias("a"), F.lit(1).alias("b")))
    return both.groupBy(*keys).agg(F.sum("a").alias("a"), F.sum("b").alias("b"))


def _pairs(T: Any, S: Any, n_train: int, n_test: int) -> tuple[list[Line], Any]:
    """Overlap and duplicates (one aggregation by pair, then by user); and the train pairs (for the seen items)."""
    F = functions_of(T)
    pairs = _flagged(T, S, ["u", "i"])
    a, b = pairs["a"], pairs["b"]
    users = pairs.groupBy("u").agg(
        F.count_if((b > 0) & (a > 0)).alias("ov"), F.count_if(b > 0).alias("tp"),
        F.sum(F.when(a > 0, a - 1)).alias("dt"), F.count_if(a > 1).alias("dtu"),
        F.sum(F.when(b > 0, b - 1)).alias("ds"), F.count_if(b > 1).alias("dsu"))
    row = [int(v or 0) for v in users.agg(
        F.sum("ov"), F.sum("tp"), F.count_if(users["ov"] > 0), F.sum("dt"), F.count_if(users["dtu"] > 0),
        F.sum("ds"), F.count_if(users["dsu"] > 0)).collect()[0]]
    lines = [overlap_of(row[0], row[1], row[2]), duplicates_of("train", row[3], n_train, row[4]),
             duplicates_of("test", row[5], n_test, row[6])]
    return lines, pairs.filter(a > 0).select("u", "i")


def _cold(T: Any, S: Any) -> tuple[list[Line], int, tuple[int, int]]:
    """The cold users and items; the test's distinct items; all distinct users and items (for the shape)."""
    F = functions_of(T)
    counts = []
    for key in ("u", "i"):
        per = _flagged(T, S, [key])
        cold = (per["a"] == 0) & (per["b"] > 0)
        counts.append([int(v or 0) for v in per.agg(F.count_if(cold), F.sum(F.when(cold, per["b"])),
                                                     F.count_if(per["b"] > 0), F.count(F.lit(1))).collect()[0]])
        if key == "i":
            cold_items = per.filter(cold).select("i")
    (users, user_rows, n_test_users, all_users), (items, item_rows, n_test_items, all_items) = counts
    affected = S.join(cold_items, "i", "left_semi").agg(F.count_distinct("u")).collect()[0][0] if items else 0
    return cold_of((users, n_test_users, user_rows), (items, n_test_items, int(affected), item_rows)), \
        n_test_items, (all_users, all_items)


def _median(histogram: list[tuple[int, int]]) -> float:
    """``np.median`` of the values a sorted (value, how many) histogram holds."""
    total = sum(n for _, n in histogram)
    wanted = [(total - 1) // 2, total // 2]
    found, seen = [], 0
    for value, n in histogram:
        while wanted and wanted[0] < seen + n:
            found.append(value)
            wanted.pop(0)
        seen += n
    return (found[0] + found[1]) / 2.0


def _shape(T: Any, per_user: Any, n_test: int, n_test_items: int, totals: tuple[int, int], scores: Any,
           threshold: float | None) -> list[Line]:
    F = functions_of(T)
    histogram = sorted((int(r[0]), int(r[1])) for r in per_user.groupBy("n").count().collect())
    n_users = sum(n for _, n in histogram)
    all_users, all_items = totals
    relevant = None
    if scores is not None:
        relevant = n_users if threshold is None else int(
            scores.filter(scores["s"] >= threshold).agg(F.count_distinct("u")).collect()[0][0])
    return shape_of((n_users, int(all_users)), (n_test_items, int(all_items)),
                    (n_test, histogram[0][0], _median(histogram), histogram[-1][0]), relevant, threshold)


def _systems(pred: Any, c: InteractionColumns) -> list[tuple[str, str, Any]]:
    if pred is None:
        return []
    if isinstance(pred, Mapping):
        if not pred:
            raise ValueError("`pred` is an empty mapping: give at least one system's lists, or pred=None")
        return [(f" ({name})", f"pred[{name!r}]", frame) for name, frame in pred.items()]
    return [("", "pred", pred)]


def _system_lines(systems: list[tuple[str, str, Any]], train: Any, c: InteractionColumns, train_pairs: Any,
                  per_user: Any, item_first: Any, picked: list[Any] | None = None) -> tuple[list[Line], list[Line]]:
    """The seen and future lines of every system; ``picked`` collects ``(suffix, name, frame, ids, rows)``."""
    seen, future = [], []
    for suffix, name, frame in systems:
        F = functions_of(frame)
        n_rows = _ids(frame, name, c)
        P = _picked(frame, c, None)
        if picked is not None:
            picked.append((suffix, name, frame, P, n_rows))
        comparable = all(_numeric(frame, col) == _numeric(train, col) for col in (c.user, c.item))
        if comparable:  # ids of another kind (text against numbers) never match, as on pandas
            hit = P.join(train_pairs, ["u", "i"], "left_semi").agg(F.count(F.lit(1)), F.count_distinct("u"))
            row = hit.collect()[0]
        else:
            row = (0, 0)
        seen.append(seen_of(suffix, int(row[0]), n_rows, int(row[1])))
        if item_first is not None:
            late = P.join(per_user.select("u", "e"), "u").join(item_first, "i")
            row = late.filter(late["f"] > late["e"]).agg(F.count(F.lit(1)), F.count_distinct("u")).collect()[0] \
                if comparable else (0, 0)
            future.append(future_of(suffix, int(row[0]), n_rows, int(row[1])))
    return seen, future


def _catalog(picked: list[Any], catalog: Any, c: InteractionColumns, skipped: dict[str, str]) -> list[Line]:
    """The listed rows outside the catalog, per system (as on pandas: nothing without a catalog)."""
    if catalog is None:
        return []
    if not picked:
        skipped["items not in the catalog"] = "no `pred` given"
        return []
    return spark_catalog(picked, catalog, c.item, _numeric)


def spark_audit_lines(train: Any, test: Any, pred: Any, c: InteractionColumns, time_col: str | None,
                      threshold: float | None, catalog: Any = None,
                      gap: float = SESSION_GAP) -> tuple[list[Line], dict[str, str]]:
    """The audit's lines and skipped checks, computed by Spark."""
    F = functions_of(train)
    skipped: dict[str, str] = {}
    systems = _systems(pred, c)
    n_train, n_test = _ids(train, "train", c), _ids(test, "test", c)
    _same_kinds(train, test, c)
    if time_col is None:
        for name in _TEMPORAL:
            skipped[name] = "time_col=None"
        time = None
    else:
        time = _time_column(train, test, InteractionColumns(c.user, c.item, c.score, time_col), skipped)
    T, S = _picked(train, c, time).persist(), _picked(test, c, time).persist()
    try:
        aggs = [F.count(F.lit(1)).alias("n")] + ([F.min("t").alias("e")] if time else [])
        per_user = S.groupBy("u").agg(*aggs).persist()
        lines: list[Line] = []
        item_first = None
        if time:
            lines += _leakage(T, per_user, n_train)
            lines += spark_time_profile(T, S, gap, time_kind_spark(train, "train", time), gap_text(gap))
            item_first = T.select("i", "t").union(S.select("i", "t")).groupBy("i").agg(F.min("t").alias("f"))
        pair_lines, train_pairs = _pairs(T, S, n_train, n_test)
        picked: list[Any] = []
        seen, future = _system_lines(systems, train, c, train_pairs, per_user, item_first, picked)
        if not systems:
            skipped["seen items recommended"] = "no `pred` given"
            if time:
                skipped["future items recommended"] = "no `pred` given"
        future += _catalog(picked, catalog, c, skipped)
        cold, n_test_items, totals = _cold(T, S)
        lines += seen + future + pair_lines + [spark_repeat(S, train_pairs, n_test)] + cold
        scores = None
        if c.score in test.columns:
            if not _numeric(test, c.score):
                raise ValueError(f"`test`['{c.score}'] must be numeric, got Spark type "
                                 f"{test.schema[c.score].dataType.simpleString()}; cast it to a number")
            scores = test.select(test[quoted(c.user)].alias("u"), test[quoted(c.score)].alias("s"))
        else:
            skipped["test users with a relevant item"] = f"no '{c.score}' column in test"
        lines += _shape(T, per_user, n_test, n_test_items, totals, scores, threshold)
        lines += mde_lines(lines, len(systems), skipped)
        per_user.unpersist()
    finally:
        T.unpersist()
        S.unpersist()
    return lines, skipped


def spark_cheap_counts(train: Any, test: Any, pred: Any, c: InteractionColumns) -> dict[str, int | None]:
    """:func:`~rankeval.split.cheap_checks` on Spark frames."""
    _ids(train, "train", c)
    _ids(test, "test", c)
    _same_kinds(train, test, c)
    T, S = _picked(train, c, None), _picked(test, c, None)
    pairs, train_pairs = _pairs(T, S, 0, 0)
    seen: int | None = None
    pred_rows: int | None = None
    if pred is not None:
        lines, _ = _system_lines([("", "pred", pred)], train, c, train_pairs, None, None)
        seen, pred_rows = lines[0].count, lines[0].of
    cold = _cold(T, S)[0][0]
    return cheap_counts(seen=(seen, pred_rows), overlap=(pairs[0].count, int(pairs[0].of or 0)),
                        cold=(cold.count, int(cold.of or 0)))
