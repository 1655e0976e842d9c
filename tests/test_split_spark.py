"""The splitters and the audit on Spark DataFrames: the same rows, warnings and table as on pandas.

Every splitter runs on the same random interactions as a pandas frame and as a Spark
DataFrame (string and integer ids, ties in time, repeated pairs, users below
min_interactions, an extra column); each fold's train and test must hold the same rows
(as multisets: Spark has no row order), the Spark frames keep the input's schema, and
the warnings must say the same counts. The pandas splitters are checked against
plain-loop references in tests/test_split_*.py; here Spark is checked against them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval.split as rs
from rankeval import RankevalWarning

from ._require import require

require("pyspark")  # make test: a missing pyspark is a failure, not a skip

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]

COLUMNS = ["user_id", "item_id", "score", "timestamp", "extra"]


def interactions(seed: int, *, int_ids: bool, n: int = 1500, n_users: int = 180, datetimes: bool = False
                 ) -> pd.DataFrame:
    """Users of 1 to ~20 interactions, few distinct times (ties), some repeated (user, item) pairs."""
    rng = np.random.default_rng(seed)
    users = rng.zipf(1.6, n) % n_users
    items = rng.integers(0, 250, n)
    frame = pd.DataFrame({
        "user_id": users if int_ids else [f"u{u:03d}" for u in users],
        "item_id": items if int_ids else [f"i{i:03d}" for i in items],
        "score": rng.integers(1, 6, n).astype(float),
        "timestamp": rng.integers(0, 40, n),
        "extra": rng.random(n)})
    if datetimes:
        frame["timestamp"] = pd.Timestamp("2021-03-01") + pd.to_timedelta(frame["timestamp"] * 3607, unit="s")
    return frame


def _rows(frame, columns=COLUMNS) -> list[tuple]:
    local = frame if isinstance(frame, pd.DataFrame) else frame.toPandas()
    return sorted(map(tuple, local[columns].astype(str).to_numpy().tolist()))


def _messages(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, RankevalWarning)]


def _run(call, frame):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(frame)
    return result, _messages(caught)


def assert_same_splits(call, frame: pd.DataFrame, sdf, *, sort_for_ties: bool = False, columns=COLUMNS) -> None:
    """``call`` on pandas and on Spark: the same rows per fold, params, sizes and warnings.

    (Rows equal in user, item, score and time are interchangeable; which of them a split
    takes depends on the input order on pandas, on nothing defined on Spark: give
    ``columns`` without ``extra`` where the Spark rows come in another order.)
    """
    local = frame.sort_values(["item_id", "score"], kind="stable") if sort_for_ties else frame
    expected, expected_warnings = _run(call, local)
    got, got_warnings = _run(call, sdf)
    assert got_warnings == expected_warnings
    assert got.params == expected.params
    assert repr(got) == repr(expected)
    assert got.names == expected.names
    for (train, test), (sp_train, sp_test) in zip(expected, got):
        assert sp_train.schema == sdf.schema and sp_test.schema == sdf.schema
        assert _rows(sp_train, columns) == _rows(train, columns)
        assert _rows(sp_test, columns) == _rows(test, columns)


SPLITTERS = [
    pytest.param(lambda f: rs.temporal_holdout(f), True, id="temporal-leave-one-out"),
    pytest.param(lambda f: rs.temporal_holdout(f, n_last=2, min_interactions=4, drop_cold_items=True), True,
                 id="temporal-n_last-min-cold"),
    pytest.param(lambda f: rs.temporal_holdout(f, test_size=0.3), True, id="temporal-share"),
    pytest.param(lambda f: rs.temporal_holdout(f, test_size=0.5, rounding="half_even"), True,
                 id="temporal-share-half-even"),
    pytest.param(lambda f: rs.temporal_holdout(f, test_size=0.25, rounding="train_half_even", min_interactions=2),
                 True, id="temporal-share-train-half-even"),
    pytest.param(lambda f: rs.random_holdout(f, 0.25, seed=3, min_interactions=3), False, id="random"),
    pytest.param(lambda f: rs.random_holdout(f, 0.5, seed=11, drop_cold_items=True), False, id="random-cold"),
    pytest.param(lambda f: rs.kfold(f, 3, seed=5, min_interactions=2), False, id="kfold"),
    pytest.param(lambda f: rs.kfold(f, 4, seed=0, drop_cold_items=True), False, id="kfold-cold"),
    pytest.param(lambda f: rs.bootstrap(f, seed=9, min_interactions=3), False, id="bootstrap"),
    pytest.param(lambda f: rs.bootstrap(f, seed=1, drop_cold_items=True), False, id="bootstrap-cold"),
    pytest.param(lambda f: rs.global_temporal(f, cutoff=30, min_interactions=3), False, id="global-cutoff"),
    pytest.param(lambda f: rs.global_temporal(f, test_size=0.27, drop_cold_items=True), False, id="global-share"),
]


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("call, sort_for_ties", SPLITTERS)
def test_every_splitter_gives_the_pandas_split(spark, call, sort_for_ties, int_ids):
    frame = interactions(7, int_ids=int_ids)
    assert_same_splits(call, frame, spark.createDataFrame(frame), sort_for_ties=sort_for_ties)


def test_the_spark_split_depends_on_neither_row_order_nor_partitions(spark):
    frame = interactions(3, int_ids=False)
    shuffled = spark.createDataFrame(frame.sample(frac=1.0, random_state=1)).repartition(7)
    keys = COLUMNS[:4]
    assert_same_splits(lambda f: rs.kfold(f, 3, seed=2), frame, shuffled, columns=keys)
    assert_same_splits(lambda f: rs.bootstrap(f, seed=2), frame, shuffled, columns=keys)
    assert_same_splits(lambda f: rs.temporal_holdout(f, n_last=2), frame, shuffled, sort_for_ties=True, columns=keys)


@pytest.mark.parametrize("call", [
    lambda f: rs.global_temporal(f, cutoff="2021-03-02T08:00", min_interactions=2),
    lambda f: rs.global_temporal(f, test_size=0.33),
    lambda f: rs.temporal_holdout(f, n_last=2),
], ids=["cutoff", "share", "temporal"])
def test_datetime_times(spark, call):
    frame = interactions(5, int_ids=True, datetimes=True)
    assert_same_splits(call, frame, spark.createDataFrame(frame), sort_for_ties=True)


@pytest.mark.parametrize("n, share", [(1, 0.5), (2, 0.2), (10, 0.29), (997, 0.2), (1500, 0.1), (1500, 0.9)])
def test_the_quantile_cut_is_pandas_to_the_bit(spark, n, share):
    rng = np.random.default_rng(n)
    frame = pd.DataFrame({"user_id": rng.integers(0, 30, n), "item_id": np.arange(n),
                          "timestamp": rng.random(n) * 1e6})
    expected = float(frame["timestamp"].quantile(1 - share))
    try:
        got = rs.global_temporal(spark.createDataFrame(frame), test_size=share).params["cutoff"]
    except ValueError as exc:  # one row: the cut leaves train empty, on pandas too
        with pytest.raises(ValueError, match=re_escape(str(exc))):
            rs.global_temporal(frame, test_size=share)
        return
    assert got == expected


def re_escape(text: str) -> str:
    import re
    return re.escape(text)


def test_a_temporal_split_by_record_is_refused_on_spark(spark):
    sdf = spark.createDataFrame(interactions(1, int_ids=True, n=50))
    with pytest.raises(ValueError, match=r"temporal_holdout: by='record' ranks every interaction by time against all "
                                         r"the others, which a Spark DataFrame is not split by here; use by='user'"):
        rs.temporal_holdout(sdf, by="record")


@pytest.mark.parametrize("edit, call, match", [
    (lambda f: f.drop(columns="timestamp"), lambda f: rs.temporal_holdout(f),
     r"`frame` is missing column\(s\) \['timestamp'\]"),
    (lambda f: f.drop(columns="timestamp"), lambda f: rs.global_temporal(f, cutoff=3),
     r"`frame` is missing column\(s\) \['timestamp'\]"),
    (lambda f: f.assign(timestamp=f["timestamp"].astype(float).where(f.index != 4)),
     lambda f: rs.temporal_holdout(f), r"`frame`\['timestamp'\] has 1 NaN or infinite time\(s\) at \(user_id, "
                                       r"item_id\) pairs \[\('u"),
    (lambda f: f.assign(timestamp=f["timestamp"].astype(float).where(f.index != 4)),
     lambda f: rs.global_temporal(f, cutoff=3), r"`frame`\['timestamp'\] has 1 missing, NaN or infinite time\(s\) at "
                                                r"\(user_id, item_id\) pairs \[\('u"),
    (lambda f: f.assign(user_id=f["user_id"].where(f.index != 2)), lambda f: rs.kfold(f),
     r"`frame`\['user_id'\] has 1 missing value\(s\) at \(user_id, item_id\) pairs"),
    (lambda f: f.head(0), lambda f: rs.bootstrap(f), r"`frame` is empty"),
    (lambda f: f, lambda f: rs.global_temporal(f, cutoff="2020-01-01"), r"`cutoff` must be a finite number"),
    (lambda f: f, lambda f: rs.global_temporal(f, cutoff=10_000),
     r"global_temporal: the cut at 10000 puts every interaction in train"),
    (lambda f: f, lambda f: rs.temporal_holdout(f, min_interactions=10_000),
     r"temporal_holdout: the test set is empty: none of the"),
])
def test_bad_input_is_refused_as_on_pandas(spark, edit, call, match):
    frame = edit(interactions(2, int_ids=False, n=60))
    schema = spark.createDataFrame(interactions(2, int_ids=False, n=60).drop(columns=[
        c for c in COLUMNS if c not in frame.columns])).schema
    sdf = spark.createDataFrame(frame, schema=schema) if len(frame) else spark.createDataFrame([], schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        with pytest.raises(ValueError, match=match):
            call(sdf)


def _audit_inputs(seed: int):
    frame = interactions(seed, int_ids=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)  # the repeated pairs: kept on purpose
        train, test = rs.temporal_holdout(frame, n_last=2)[0]
    # a cold user, cold items, a pair in both and a repeated test row
    test = pd.concat([test, frame.head(30).assign(user_id="new", item_id=lambda d: d["item_id"] + "x"),
                      train.head(3), test.head(2)])
    rng = np.random.default_rng(seed)
    pred = pd.DataFrame({"user_id": [f"u{u:03d}" for u in rng.integers(0, 190, 2000)],
                         "item_id": [f"i{i:03d}" for i in rng.integers(0, 260, 2000)]})
    return train, test, pred


@pytest.mark.parametrize("pred_kind, kwargs", [
    ("none", {}), ("one", {}), ("two", {"relevant_threshold": 4}), ("no-time", {"time_col": None}),
    ("two", {"catalog": [f"i{i:03d}" for i in range(0, 260, 3)], "session_gap": 2}),
    ("one", {"catalog": "spark", "session_gap": 0}), ("datetimes", {"session_gap": 3 * 3607}),
])
def test_the_audit_table_is_the_pandas_table(spark, pred_kind, kwargs):
    train, test, pred = _audit_inputs(4)
    if pred_kind == "datetimes":  # instants: the gap in seconds, the times in microseconds on Spark
        def stamped(frame):
            return frame.assign(timestamp=pd.Timestamp("2021-03-01") + pd.to_timedelta(frame["timestamp"] * 3607,
                                                                                       unit="s"))
        train, test, pred_kind = stamped(train), stamped(test), "two"
    spark_kwargs = dict(kwargs)
    if kwargs.get("catalog") == "spark":  # a Spark frame of the items, against a local list of the same
        kwargs = {**kwargs, "catalog": [f"i{i:03d}" for i in range(100)]}
        spark_kwargs["catalog"] = spark.createDataFrame(pd.DataFrame({"item_id": kwargs["catalog"]}))
    if pred_kind == "none":
        preds = None
    elif pred_kind == "one":
        preds = pred
    else:
        preds = {"a": pred, "b": pred.sample(frac=0.3, random_state=2)}
    def as_spark(p):
        return (None if p is None else spark.createDataFrame(p) if isinstance(p, pd.DataFrame)
                    else {k: spark.createDataFrame(v) for k, v in p.items()})
    expected = rs.audit(train, test, preds, **kwargs)
    got = rs.audit(spark.createDataFrame(train), spark.createDataFrame(test), as_spark(preds), **spark_kwargs)
    pd.testing.assert_frame_equal(got.table, expected.table)
    assert got.verdict == expected.verdict and got.skipped == expected.skipped
    assert expected.table["count"].sum() > 0 and expected.table.loc["cold users", "count"] == 1


def test_a_global_split_audits_to_zero_leakage_on_spark(spark):
    sdf = spark.createDataFrame(interactions(6, int_ids=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        train, test = rs.global_temporal(sdf, test_size=0.2)[0]
    table = rs.audit(train, test).table
    assert table.loc["temporal leakage, global", "count"] == 0
    assert table.loc["temporal leakage, per user", "count"] == 0


def test_cheap_checks_on_spark(spark):
    train, test, pred = _audit_inputs(8)
    expected = rs.cheap_checks(train, test, pred)
    got = rs.cheap_checks(spark.createDataFrame(train), spark.createDataFrame(test), spark.createDataFrame(pred))
    assert got == expected and expected["overlap"] >= 3


def test_the_audit_refuses_a_mix_of_spark_and_local_frames(spark):
    train, test, _ = _audit_inputs(1)
    with pytest.raises(TypeError, match=r"\['train'\] are Spark DataFrames but \['test'\] are not"):
        rs.audit(spark.createDataFrame(train), test)


def test_the_audit_refuses_ids_of_different_kinds(spark):
    train, test, _ = _audit_inputs(1)
    with pytest.raises(ValueError, match=r"`train`\['item_id'\] holds text but `test`\['item_id'\] holds numbers"
                                         r".*Convert `test`'s ids to text: test = test.withColumn\('item_id', "
                                         r"test\['item_id'\]\.cast\('string'\)\)$"):
        rs.audit(spark.createDataFrame(train), spark.createDataFrame(test.assign(item_id=1)))
    # fractional ids: through a whole number first, as "7.0" never matches "7"
    with pytest.raises(ValueError, match=r"Convert `train`'s ids to text: train = train.withColumn\('user_id', "
                                         r"train\['user_id'\]\.cast\('long'\)\.cast\('string'\)\)$"):
        rs.audit(spark.createDataFrame(train.assign(user_id=1.0)), spark.createDataFrame(test))


def test_spark_connect_frames(spark_connect):
    frame = interactions(12, int_ids=False, n=600)
    sdf = spark_connect.createDataFrame(frame)
    assert_same_splits(lambda f: rs.temporal_holdout(f, n_last=2, min_interactions=3), frame, sdf,
                       sort_for_ties=True)
    assert_same_splits(lambda f: rs.random_holdout(f, 0.3, seed=2), frame, sdf)
    assert_same_splits(lambda f: rs.global_temporal(f, test_size=0.25), frame, sdf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        train, test = rs.temporal_holdout(frame)[0]
    pd.testing.assert_frame_equal(
        rs.audit(spark_connect.createDataFrame(train), spark_connect.createDataFrame(test)).table,
        rs.audit(train, test).table)


@pytest.mark.parametrize("call", [
    lambda f: rs.random_holdout(f, 0.3, seed=4),
    lambda f: rs.kfold(f, 3, seed=8),
    lambda f: rs.bootstrap(f, seed=6),
], ids=["random", "kfold", "bootstrap"])
def test_float_ids_mixing_whole_and_fractional_values_split_as_on_pandas(spark, call):
    # Spark hands each bucket of users to the pandas code on its own: a bucket holding only
    # whole-valued float ids must hash them as the whole frame does, so an id's hash may
    # depend on its value alone, never on which other ids share its array.
    # One fractional user and item: most buckets then hold whole values only.
    frame = interactions(5, int_ids=True)
    frame["user_id"] = frame["user_id"] + np.where(frame["user_id"] == 1, 0.5, 0.0)
    frame["item_id"] = frame["item_id"] + np.where(frame["item_id"] == 3, 0.25, 0.0)
    assert (frame["user_id"] == 1.5).any() and (frame["item_id"] == 3.25).any()
    assert_same_splits(call, frame, spark.createDataFrame(frame))


@pytest.mark.filterwarnings("ignore:random_holdout. .* stay whole in train")
def test_a_whole_float_id_draws_as_its_integer_whatever_ids_share_its_frame():
    frame = interactions(5, int_ids=True).drop_duplicates(["user_id", "item_id"])
    alone = rs.random_holdout(frame.assign(user_id=frame["user_id"].astype(float)), 0.3, seed=4)
    mixed_frame = frame.assign(user_id=frame["user_id"] + np.where(frame["user_id"] == 1, 0.5, 0.0))
    mixed = rs.random_holdout(mixed_frame, 0.3, seed=4)
    (_, test_alone), = alone
    (_, test_mixed), = mixed
    whole = test_mixed[test_mixed["user_id"] % 1 == 0]
    assert len(whole) > 100
    assert (test_mixed["user_id"] == 1.5).any()
    assert _rows(whole) == _rows(test_alone[test_alone["user_id"] != 1.0])
    assert _rows(test_alone) == _rows(rs.random_holdout(frame, 0.3, seed=4)[0][1].astype({"user_id": float}))
