"""The Spark engine on Spark Connect DataFrames: the same bits as on classic Spark, the same errors.

The `spark_connect` fixture (conftest.py) serves Spark Connect from the classic session's
own JVM, so both kinds of frame see the same local cluster; every test builds the same
data on both and compares them value for value, bit for bit.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import MissingUsersWarning, TiedScoresWarning

from ._require import require  # noqa: E402

require("pyspark")  # make test: a missing pyspark or grpc is a failure, not a skip
require("grpc")

from .test_spark import METRICS, POOLED, random_split  # noqa: E402  (the same data and metrics as the classic tests)

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]


def _users(users) -> pd.DataFrame:
    return users.toPandas().set_index(["split", "user_id"]).sort_index()


def _both(spark, spark_connect, frames):
    """The same pandas frames as classic and as Connect DataFrames."""
    return [spark.createDataFrame(f) for f in frames], [spark_connect.createDataFrame(f) for f in frames]


def test_connect_frames_are_connect_dataframes(spark_connect):
    df = spark_connect.createDataFrame(pd.DataFrame({"user_id": ["u1"], "item_id": ["a"], "score": [1.0]}))
    assert type(df).__module__ == "pyspark.sql.connect.dataframe"
    assert rk.engines.is_spark_frame(df)


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("missing_users", ["ignore", "zero"])
def test_connect_run_equals_the_classic_run_bit_for_bit(spark, spark_connect, int_ids, missing_users):
    splits = [random_split(s, int_ids=int_ids) for s in (21, 22)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    classic_preds, connect_preds = _both(spark, spark_connect, preds)
    classic_truths, connect_truths = _both(spark, spark_connect, truths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        classic_sys, classic_users = rk.EvalModel(classic_preds, classic_truths, METRICS,
                                                  missing_users=missing_users, ties="item_id").fit()
        # a different bucket count on purpose: neither per-user nor system values depend on it
        connect_sys, connect_users = rk.EvalModel(connect_preds, connect_truths, METRICS, n_buckets=5,
                                                  missing_users=missing_users, ties="item_id").fit()
        pandas_sys, pandas_users = rk.EvalModel(preds, truths, METRICS, missing_users=missing_users,
                                                ties="item_id").fit()
    assert type(connect_users).__module__ == "pyspark.sql.connect.dataframe"
    assert connect_users.columns == classic_users.columns == ["split", "user_id", *[str(m) for m in METRICS]]
    assert dict(connect_users.dtypes)["user_id"] == ("bigint" if int_ids else "string")
    got, expected = _users(connect_users), _users(classic_users)
    assert got.index.equals(expected.index)
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())  # NaN where NaN
    pd.testing.assert_frame_equal(connect_sys, classic_sys, check_exact=True)
    # and both are the pandas engine's per-user values
    np.testing.assert_array_equal(got.to_numpy(), pandas_users.sort_index().to_numpy())
    pd.testing.assert_frame_equal(connect_sys, pandas_sys, check_exact=True)  # exact sums: same bits


@pytest.mark.parametrize("missing_users", ["ignore", "zero"])
def test_connect_pooled_system_values_equal_the_pandas_engine_for_any_bucketing(spark_connect, missing_users):
    """Micro averages and counts (their buckets' parts merged exactly), several cutoffs in one
    metric (clones sharing a cache, pickled through Spark Connect) and sys.attrs["n_users"]:
    the pandas engine's, bit for bit, with 1, 3 and 7 buckets."""
    splits = [random_split(s, int_ids=False) for s in (21, 22)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(preds, truths, POOLED, missing_users=missing_users, ties="item_id").fit()
        runs = [rk.EvalModel([spark_connect.createDataFrame(p) for p in preds],
                             [spark_connect.createDataFrame(t) for t in truths], POOLED,
                             missing_users=missing_users, n_buckets=b).fit() for b in (1, 3, 7)]
    assert "P@3-micro" in pd_sys.columns and "NDCG@10" in pd_sys.columns
    for sp_sys, sp_users in runs:
        assert type(sp_users).__module__ == "pyspark.sql.connect.dataframe"
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
        assert sp_sys.attrs["n_users"] == pd_sys.attrs["n_users"]
        np.testing.assert_array_equal(_users(sp_users).to_numpy(), pd_users.sort_index().to_numpy())


def test_connect_warnings_count_like_classic(spark, spark_connect):
    pred, truth = random_split(23, int_ids=False, ties=True)
    (classic_pred, classic_truth), (connect_pred, connect_truth) = _both(spark, spark_connect, [pred, truth])

    def messages(p, t):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            rk.EvalModel(p, t, METRICS[:2]).fit()
        return sorted(str(w.message) for w in record
                      if issubclass(w.category, (MissingUsersWarning, TiedScoresWarning)))

    classic, connect = messages(classic_pred, classic_truth), messages(connect_pred, connect_truth)
    assert len(classic) == 3  # truth-only users, pred-only users, tied lists
    counts = [re.match(r"\d+", m).group() for m in classic]
    assert [re.match(r"\d+", m).group() for m in connect] == counts
    assert any(re.search(r"\d+ list\(s\) in split 'fold1' have tied scores", m) for m in connect)


def test_connect_user_id_list_and_rank_column(spark, spark_connect):
    pred, truth = random_split(24, int_ids=True)
    pred = pred.assign(rank=pred.groupby("user_id")["score"].rank(ascending=False, method="first").astype(int))
    pred = pred.drop(columns="score")
    wanted = [1, 2, 3, 40, 41, 10_000]
    (classic_pred, classic_truth), (connect_pred, connect_truth) = _both(spark, spark_connect, [pred, truth])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        classic_sys, classic_users = rk.EvalModel(classic_pred, classic_truth, METRICS).fit(user_id_list=wanted)
        connect_sys, connect_users = rk.EvalModel(connect_pred, connect_truth, METRICS).fit(user_id_list=wanted)
    np.testing.assert_array_equal(_users(connect_users).to_numpy(), _users(classic_users).to_numpy())
    assert _users(connect_users).index.get_level_values("user_id").tolist() == [1, 2, 40, 41]  # 3: truth only
    pd.testing.assert_frame_equal(connect_sys, classic_sys, check_exact=True)


def test_connect_compare_equals_classic(spark, spark_connect):
    pred, truth = random_split(25, int_ids=False)
    other = pred.assign(score=np.random.default_rng(1).random(len(pred)))
    metrics = [rk.NDCGAtK(5), rk.MRR()]
    classic_frames, connect_frames = _both(spark, spark_connect, [pred, other, truth])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        on_classic = rk.compare({"a": classic_frames[0], "b": classic_frames[1]}, classic_frames[2], metrics,
                                test="randomization", n_resamples=500)
        on_connect = rk.compare({"a": connect_frames[0], "b": connect_frames[1]}, connect_frames[2], metrics,
                                test="randomization", n_resamples=500)
    pd.testing.assert_frame_equal(on_connect.table, on_classic.table, check_exact=True)
    pd.testing.assert_frame_equal(on_connect.units, on_classic.units, check_exact=True)


@pytest.mark.parametrize("edit, match", [
    pytest.param(lambda p, t: (pd.concat([p, p.head(1)], ignore_index=True), t),
                 r"`pred` repeats 1 \(user_id, item_id\) pair in 2 rows", id="dup-pair"),
    pytest.param(lambda p, t: (p, t.assign(score=np.where(np.arange(len(t)) == 0, np.nan, t["score"]))),
                 r"`truth`\['score'\] has 1 NaN or infinite value\(s\)", id="nan-truth"),
    pytest.param(lambda p, t: (p.assign(user_id="x" + p["user_id"]), t), r"no user of `pred` appears in `truth`",
                 id="no-common-user"),
    pytest.param(lambda p, t: (p.drop(columns="item_id"), t), r"`pred` is missing column\(s\) \['item_id'\]",
                 id="missing-column"),
])
def test_connect_errors_are_the_classic_errors(spark, spark_connect, edit, match):
    """The same ValueError, word for word, naming (user, item) pairs, not a bucket's row labels."""
    pred, truth = edit(*random_split(26, int_ids=False, n_users=20))
    (classic_pred, classic_truth), (connect_pred, connect_truth) = _both(spark, spark_connect, [pred, truth])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.raises(ValueError, match=match) as on_classic:
            rk.EvalModel(classic_pred, classic_truth, METRICS[:2]).fit()
        with pytest.raises(ValueError, match=match) as on_connect:
            rk.EvalModel(connect_pred, connect_truth, METRICS[:2]).fit()
    assert str(on_connect.value) == str(on_classic.value)
    assert "at rows" not in str(on_connect.value)


def test_connect_duplicate_pair_is_named_by_user_and_item(spark_connect):
    pred, truth = random_split(27, int_ids=True, n_users=20)
    pred = pd.concat([pred, pred.head(1)], ignore_index=True)
    user, item = int(pred.iloc[0]["user_id"]), int(pred.iloc[0]["item_id"])
    with pytest.raises(ValueError) as info:
        rk.EvalModel(spark_connect.createDataFrame(pred), spark_connect.createDataFrame(truth), METRICS[:1]).fit()
    assert f"repeats 1 (user_id, item_id) pair in 2 rows: ({user}, {item}) in 2 rows; drop" in str(info.value)


def test_a_split_mixing_connect_and_classic_frames_is_refused(spark, spark_connect):
    pred, truth = random_split(28, int_ids=True, n_users=10)
    with pytest.raises(ValueError, match=r"`pred` and `truth` of a split must be DataFrames of the same Spark "
                                         r"session: one is a Spark Connect DataFrame, the other a classic one"):
        rk.EvalModel(spark.createDataFrame(pred), spark_connect.createDataFrame(truth), METRICS[:1]).fit()
