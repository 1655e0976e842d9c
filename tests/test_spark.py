"""The Spark engine in local mode: identical per-user values, same system rows, same errors.

These tests always run in `make test`, which installs the `spark` extra and sets
RANKEVAL_REQUIRE_SPARK (a missing pyspark then fails them); elsewhere they are skipped
only when pyspark is not installed at all.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import MissingUsersWarning, RankevalWarning, TiedScoresWarning

from ._require import require

pyspark = require("pyspark")  # make test: a missing pyspark is a failure, not a skip

# pyspark's own warnings about pandas 3 (its FutureWarning "does not yet fully support pandas >= 3.0.0"
# and the deprecations its conversions trigger); rankeval's are never filtered
pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]


# the `spark` fixture (local[2], one session for the whole run) is in conftest.py


METRICS = [rk.NDCGAtK(5), rk.NDCG(ideal="ranked", judged_only=True), rk.MAPAtK(5), rk.MRR(), rk.PrecisionAtK(3),
           rk.RecallAtK(5), rk.HitRateAtK(2), rk.DCGAtK(3, gains="exponential"), rk.Correlation("kendall"),
           rk.MAP(relevant_threshold=4)]


def random_split(seed: int, *, int_ids: bool, n_users: int = 150, ties: bool = False):
    """pred and truth with truth-only and pred-only users, unjudged items, short and long lists."""
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        uid = u if int_ids else f"u{u:04d}"
        listed = rng.choice(60, size=rng.integers(1, 15), replace=False)
        scores = rng.integers(0, 4, len(listed)).astype(float) if ties else rng.permutation(len(listed)) + rng.random()
        if u % 17 != 3:  # some truth-only users
            pred_rows += [(uid, i if int_ids else f"i{i:03d}", s) for i, s in zip(listed, scores)]
        if u % 19 != 5:  # some pred-only users
            rated = rng.choice(60, size=rng.integers(1, 12), replace=False)
            truth_rows += [(uid, i if int_ids else f"i{i:03d}", float(rng.integers(1, 6))) for i in rated]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]).sample(frac=1.0, random_state=seed)
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]).sample(frac=1.0, random_state=seed + 1)
    return pred.reset_index(drop=True), truth.reset_index(drop=True)


def _spark_users(users) -> pd.DataFrame:
    return users.toPandas().set_index(["split", "user_id"]).sort_index()


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("missing_users", ["ignore", "zero"])
def test_per_user_values_equal_the_pandas_engine(spark, int_ids, missing_users):
    splits = [random_split(s, int_ids=int_ids) for s in (1, 2, 3)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(preds, truths, METRICS, missing_users=missing_users).fit()
        sp_sys, sp_users = rk.EvalModel([spark.createDataFrame(p) for p in preds],
                                        [spark.createDataFrame(t) for t in truths], METRICS,
                                        missing_users=missing_users, n_buckets=3).fit()
    assert sp_users.columns == ["split", "user_id", *[str(m) for m in METRICS]]
    assert dict(sp_users.dtypes)["user_id"] == ("bigint" if int_ids else "string")
    got = _spark_users(sp_users)
    expected = pd_users.sort_index()
    assert got.index.equals(expected.index)
    # identical, bit for bit, NaN where the pandas engine has NaN
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    pd.testing.assert_frame_equal(sp_sys, pd_sys, rtol=1e-12, atol=0)


def test_missing_user_warnings_count_like_pandas(spark):
    pred, truth = random_split(4, int_ids=False)
    with pytest.warns(MissingUsersWarning) as pd_record:
        rk.EvalModel(pred, truth, METRICS[:2]).fit()
    with pytest.warns(MissingUsersWarning) as sp_record:
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:2]).fit()
    def counts(record):
        return sorted(re.match(r"(\d+) `(\w+)`", str(w.message)).groups() for w in record
                      if issubclass(w.category, MissingUsersWarning))

    assert counts(sp_record) == counts(pd_record)
    assert len(counts(pd_record)) == 2  # truth-only and pred-only users


def test_ties_follow_item_id_with_a_warning(spark):
    pred, truth = random_split(5, int_ids=False, ties=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.warns(TiedScoresWarning, match=r"\d+ list\(s\) in split 'fold1' have tied scores; .* "
                                                   r"broken by `item_id` ascending"):
            _, sp_users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS).fit()
        _, as_item_id = rk.EvalModel(pred, truth, METRICS, ties="item_id").fit()
    np.testing.assert_array_equal(_spark_users(sp_users).to_numpy(), as_item_id.sort_index().to_numpy())


def test_rank_column_and_mixed_engines_per_split(spark):
    pred, truth = random_split(6, int_ids=True)
    pred = pred.assign(rank=pred.groupby("user_id")["score"].rank(ascending=False, method="first").astype(int))
    pred = pred.drop(columns="score")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel([pred, pred], [truth, truth], METRICS).fit()
        # split 1: Spark pred, pandas truth; split 2: pandas pred, Spark truth
        sp_sys, sp_users = rk.EvalModel([spark.createDataFrame(pred), pred], [truth, spark.createDataFrame(truth)],
                                        METRICS).fit()
    np.testing.assert_array_equal(_spark_users(sp_users).to_numpy(), pd_users.sort_index().to_numpy())
    pd.testing.assert_frame_equal(sp_sys, pd_sys, rtol=1e-12, atol=0)


def test_user_id_list_on_spark(spark):
    pred, truth = random_split(7, int_ids=False)
    wanted = ["u0001", "u0002", "u0010", "nobody"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(pred, truth, METRICS).fit(user_id_list=wanted)
    with pytest.warns(MissingUsersWarning, match=r"1 id\(s\) of `user_id_list` appear in no split"):
        sp_sys, sp_users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS
                                        ).fit(user_id_list=wanted)
    np.testing.assert_array_equal(_spark_users(sp_users).to_numpy(), pd_users.sort_index().to_numpy())
    pd.testing.assert_frame_equal(sp_sys, pd_sys, rtol=1e-12, atol=0)


def test_compare_table_equals_the_pandas_engine(spark):
    pred, truth = random_split(8, int_ids=False)
    other = pred.assign(score=np.random.default_rng(0).random(len(pred)))
    metrics = [rk.NDCGAtK(5), rk.MRR()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        on_pandas = rk.compare({"a": pred, "b": other}, truth, metrics, test="randomization", n_resamples=500)
        on_spark = rk.compare({"a": spark.createDataFrame(pred), "b": spark.createDataFrame(other)},
                              spark.createDataFrame(truth), metrics, test="randomization", n_resamples=500)
    pd.testing.assert_frame_equal(on_spark.table, on_pandas.table, rtol=1e-12, atol=0)
    pd.testing.assert_frame_equal(on_spark.units, on_pandas.units)


@pytest.mark.parametrize("edit, match", [
    pytest.param(lambda p, t: (pd.concat([p, p.head(1)], ignore_index=True), t),
                 r"`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \('u\d+', 'i\d+'\) "
                 r"(at rows \d+ and \d+|in 2 rows); drop", id="dup-pair"),
    pytest.param(lambda p, t: (p, t.assign(score=np.where(np.arange(len(t)) == 0, np.nan, t["score"]))),
                 r"`truth`\['score'\] has 1 NaN or infinite value\(s\)", id="nan-truth"),
    pytest.param(lambda p, t: (p.drop(columns="item_id"), t), r"`pred` is missing column\(s\) \['item_id'\]",
                 id="missing-column"),
    pytest.param(lambda p, t: (p, t.iloc[:0]), r"`truth` is empty", id="empty-truth"),
    pytest.param(lambda p, t: (p.assign(user_id="x" + p["user_id"]), t), r"no user of `pred` appears in `truth`",
                 id="no-common-user"),
])
def test_bad_input_raises_the_pandas_engines_error(spark, edit, match):
    pred, truth = edit(*random_split(9, int_ids=False, n_users=20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.raises(ValueError, match=match):
            rk.EvalModel(pred, truth, METRICS[:2]).fit()
        spark_truth = spark.createDataFrame(truth, schema="user_id string, item_id string, score double") \
            if len(truth) == 0 else spark.createDataFrame(truth)
        with pytest.raises(ValueError, match=match):
            rk.EvalModel(spark.createDataFrame(pred), spark_truth, METRICS[:2]).fit()


def test_spark_specific_errors(spark):
    pred, truth = random_split(10, int_ids=False, n_users=20)
    with pytest.raises(ValueError, match=r"a Spark `pred` needs a `score` or `rank` column: Spark has no row order"):
        rk.EvalModel(spark.createDataFrame(pred.drop(columns="score")), spark.createDataFrame(truth),
                     METRICS[:1]).fit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.raises(ValueError, match=r"`truth` user\(s\) in split 'fold1' have no recommendations"):
            rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:1],
                         missing_users="error").fit()


@pytest.mark.parametrize("pred_col, truth_col, match", [
    ("item_id", None, r"`pred`\['item_id'\] holds numbers \(Spark type bigint\) but `truth`\['item_id'\] holds text "
     r"\(Spark type string\): no id could ever match. Convert `pred`'s ids to text: pred = pred.withColumn\('item_id', "
     r"pred\['item_id'\]\.cast\('string'\)\)$"),
    (None, "user_id", r"Convert `truth`'s ids to text: truth = truth.withColumn\('user_id', "
     r"truth\['user_id'\]\.cast\('long'\)\.cast\('string'\)\)$"),
])
def test_ids_of_numbers_against_text_name_the_spark_cast_of_the_frame_holding_numbers(spark, pred_col, truth_col,
                                                                                       match):
    pred = pd.DataFrame({"user_id": ["1", "1", "2"], "item_id": ["10", "11", "10"], "score": [0.9, 0.8, 0.7]})
    truth = pd.DataFrame({"user_id": ["1", "2"], "item_id": ["10", "10"], "score": [5.0, 4.0]})
    if pred_col:
        pred = pred.assign(**{pred_col: pred[pred_col].astype("int64")})
    if truth_col:
        truth = truth.assign(**{truth_col: truth[truth_col].astype("float64")})
    with pytest.raises(ValueError, match=match):
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:1]).fit()


def test_executor_errors_name_pairs_not_bucket_row_labels(spark):
    pred, truth = random_split(11, int_ids=False, n_users=20)
    pred = pd.concat([pred, pred.head(1)], ignore_index=True)
    user, item = pred.iloc[0]["user_id"], pred.iloc[0]["item_id"]
    with pytest.raises(ValueError) as info:
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:1]).fit()
    message = str(info.value)
    assert "at rows" not in message
    assert f"repeats 1 (user_id, item_id) pair in 2 rows: ('{user}', '{item}') in 2 rows; drop" in message


def test_n_buckets_is_checked(spark):
    pred, truth = random_split(12, int_ids=False, n_users=10)
    with pytest.raises(ValueError, match=r"`n_buckets` must be an integer >= 1, got 0"):
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:1], n_buckets=0).fit()


def _text_dtypes():
    """pandas' text dtypes on this pandas: object, the default ``str`` of pandas 3 (pandas 2.2: the same
    Arrow-backed, NaN-missing dtype by its older name), ``string[pyarrow]`` and ``pd.ArrowDtype`` strings."""
    import pyarrow as pa
    default_str = pd.StringDtype("pyarrow", na_value=np.nan) if pd.__version__ >= "3" else \
        pd.StringDtype("pyarrow_numpy")
    return {"object": object, "str": default_str, "string[pyarrow]": pd.StringDtype("pyarrow"),
            "arrow-string": pd.ArrowDtype(pa.string()), "arrow-large-string": pd.ArrowDtype(pa.large_string())}


@pytest.mark.parametrize("dtype", list(_text_dtypes()))
def test_text_id_dtypes_give_the_pandas_engines_values(spark, dtype):
    """Ids held as pandas 3 `str`, string[pyarrow] or ArrowDtype: the pandas engine on them, and Spark on
    the same frames (rankeval ships them to Spark; pyspark 4.0's own createDataFrame loses rows of
    Arrow-backed text columns), give identical per-user values."""
    pred, truth = random_split(13, int_ids=False)
    typed = _text_dtypes()[dtype]
    pred = pred.astype({"user_id": typed, "item_id": typed})
    truth = truth.astype({"user_id": typed, "item_id": typed})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(pred, truth, METRICS, ties="item_id").fit()
        # split 1: pandas pred (converted by rankeval) with Spark truth; split 2: both on Spark
        sp_sys, sp_users = rk.EvalModel(
            [pred, spark.createDataFrame(pred.astype({"user_id": object, "item_id": object}))],
            [spark.createDataFrame(truth.astype({"user_id": object, "item_id": object})), truth],
            METRICS, ties="item_id").fit()
    got = _spark_users(sp_users)
    for split in ("fold1", "fold2"):
        part = got.xs(split, level="split")
        expected = pd_users.xs("fold1", level="split").sort_index()
        assert part.index.tolist() == expected.index.tolist()
        np.testing.assert_array_equal(part.to_numpy(), expected.to_numpy())
    assert dict(sp_users.dtypes)["user_id"] == "string"
    assert len(got) == 2 * len(pd_users)


def test_system_values_do_not_depend_on_the_bucket_count(spark):
    """Each bucket returns the exact sum of its users' values: the system row is the correctly rounded
    mean whatever the bucketing, to the last bit, and within 1e-15 of the pandas engine's numpy mean."""
    pred, truth = random_split(14, int_ids=True, n_users=300)
    sp_pred, sp_truth = spark.createDataFrame(pred), spark.createDataFrame(truth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        runs = [rk.EvalModel(sp_pred, sp_truth, METRICS, n_buckets=b, ties="item_id").fit()[0] for b in (1, 2, 7, 16)]
        pd_sys, pd_users = rk.EvalModel(pred, truth, METRICS, ties="item_id").fit()
    for other in runs[1:]:
        pd.testing.assert_frame_equal(other, runs[0], check_exact=True)
    from fractions import Fraction
    users = pd_users.xs("fold1", level="split")
    for name in users.columns:
        values = users[name].dropna().to_numpy()
        exact = float(sum(Fraction(float(v)) for v in values) / len(values))
        assert runs[0].loc["fold1", name] == exact
        assert abs(pd_sys.loc["fold1", name] - exact) <= 1e-15


def test_clean_input_warns_nothing(spark):
    """Users in both frames and distinct scores: the Spark engine emits no warning of its own (pyspark's
    notes about pandas 3 aside)."""
    pred, truth = random_split(15, int_ids=False, n_users=60)
    both = set(pred["user_id"]) & set(truth["user_id"])
    pred, truth = pred[pred["user_id"].isin(both)], truth[truth["user_id"].isin(both)]
    sp_pred, sp_truth = spark.createDataFrame(pred), spark.createDataFrame(truth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", module="pyspark")
        warnings.filterwarnings("ignore", category=ResourceWarning)  # py4j's sockets, closed by the collector
        sys_result, users = rk.EvalModel(sp_pred, sp_truth, METRICS).fit()
        assert users.count() == len(both)
    assert sys_result.notna().all().all()


@pytest.mark.parametrize("before", [None, {"spark.sql.execution.arrow.maxBytesPerBatch": "1048576",
                                             "spark.sql.execution.arrow.maxRecordsPerBatch": "500"}])
def test_arrow_batch_settings_hold_during_the_job_and_are_restored_after(spark, monkeypatch, before):
    """The bucket job runs with the engine's Arrow batches (100,000 rows, no per-row byte
    measuring); the session's settings come back as they were, set or not."""
    from rankeval.engines import _spark as engine
    keys = ["spark.sql.execution.arrow.maxBytesPerBatch", "spark.sql.execution.arrow.maxRecordsPerBatch"]
    seen = {}
    settings = engine._engine_arrow_batches

    @contextlib.contextmanager
    def spy(session):
        with settings(session):  # the bucket job runs here
            seen.update({key: session.conf.get(key) for key in keys})
            yield

    monkeypatch.setattr(engine, "_engine_arrow_batches", spy)
    pred, truth = random_split(16, int_ids=True, n_users=20)
    sp_pred, sp_truth = spark.createDataFrame(pred), spark.createDataFrame(truth)
    for key in keys:
        spark.conf.unset(key)
        if before is not None:
            spark.conf.set(key, before[key])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingUsersWarning)
            rk.EvalModel(sp_pred, sp_truth, METRICS[:2]).fit()
        assert seen == {keys[0]: str(2**31 - 1), keys[1]: "100000"}
        assert engine.ARROW_BATCH_ROWS == 100_000
        for key in keys:
            assert spark.conf.get(key, None) == (None if before is None else before[key])
    finally:
        for key in keys:
            spark.conf.unset(key)


@pytest.mark.parametrize("edit, match", [
    pytest.param(lambda p, t: (p, pd.concat([t, pd.DataFrame({"user_id": ["only-truth"], "item_id": ["i001"],
                                                              "score": [np.nan]})], ignore_index=True)),
                 r"`truth`\['score'\] has 1 NaN or infinite value\(s\) at \(user_id, item_id\) pairs "
                 r"\[\('only-truth', 'i001'\)\]", id="nan-score-of-a-truth-only-user"),
    pytest.param(lambda p, t: (pd.concat([p, pd.DataFrame({"user_id": ["only-pred"] * 2, "item_id": ["i001"] * 2,
                                                           "score": [0.5, 0.4]})], ignore_index=True), t),
                 r"`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \('only-pred', 'i001'\) in 2 rows; drop "
                 r"or aggregate the duplicates first",
                 id="duplicate-pair-of-a-pred-only-user"),
])
def test_rows_of_users_in_one_frame_only_are_validated_too(spark, edit, match):
    """A bad row of a user who is in only one frame is an error, as on pandas, whichever bucket it lands
    in (buckets with users of one frame only are checked on their own)."""
    pred, truth = edit(*random_split(17, int_ids=False, n_users=12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.raises(ValueError, match=r"`(truth|pred)`"):
            rk.EvalModel(pred, truth, METRICS[:1]).fit()
        for n_buckets in (1, 40):  # with the other users / alone in its bucket
            with pytest.raises(ValueError, match=match):
                rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), METRICS[:1],
                             n_buckets=n_buckets).fit()


def test_default_bucket_count_follows_cores_and_rows():
    from rankeval.engines._spark import BUCKETS_PER_CORE, DEFAULT_ROWS_PER_BUCKET, default_buckets, parallelism
    assert default_buckets(100, 2) == 2 * BUCKETS_PER_CORE
    assert default_buckets(100 * DEFAULT_ROWS_PER_BUCKET + 1, 2) == 101

    class Conf(dict):
        def get(self, key, default=None):
            return super().get(key, default)

    class ConnectLike:  # no sparkContext, as a Spark Connect session
        def __init__(self, **conf):
            self.conf = Conf(conf)

        @property
        def sparkContext(self):
            raise RuntimeError("not on Spark Connect")

    assert parallelism(ConnectLike(**{"spark.master": "local[3]"})) == 3
    assert parallelism(ConnectLike(**{"spark.master": "local[*]"})) == (os.cpu_count() or 1)
    assert parallelism(ConnectLike(**{"spark.master": "local"})) == 1
    assert parallelism(ConnectLike(**{"spark.master": "local[3]", "spark.default.parallelism": "12"})) == 12
    assert parallelism(ConnectLike(**{"spark.master": "yarn", "spark.sql.shuffle.partitions": "64"})) == 64


POOLED = [rk.PrecisionAtK(3, average="micro"), rk.RecallAtK(5, average="micro"), rk.Precision(average="micro"),
          rk.FMeasure(average="micro"), rk.NumRet(), rk.NumRel(), rk.NumRelRet(), rk.MAE(average="micro"),
          rk.RMSE(average="micro"), rk.MAE(), rk.NDCGAtK([1, 3, 10]), rk.PrecisionAtK([1, 5])]


@pytest.mark.parametrize("missing_users", ["ignore", "zero"])
def test_pooled_system_values_and_user_counts_equal_the_pandas_engine_for_any_bucketing(spark, missing_users):
    """Micro averages and counts merge their buckets' exact parts (not a mean of user values): the
    pandas engine's system values, bit for bit, whatever the bucket count; the same users behind
    each value (sys.attrs["n_users"]); several cutoffs in one metric, pickled into the buckets."""
    splits = [random_split(s, int_ids=False) for s in (21, 22)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(preds, truths, POOLED, missing_users=missing_users, ties="item_id").fit()
        runs = [rk.EvalModel([spark.createDataFrame(p) for p in preds], [spark.createDataFrame(t) for t in truths],
                             POOLED, missing_users=missing_users, n_buckets=b).fit() for b in (1, 3, 7)]
    names = [name for m in POOLED for name in m.columns]
    assert list(pd_sys.columns) == names and "NDCG@3" in names and "P@3-micro" in names
    # a micro average is not the mean of the users' values: the test would pass without parts otherwise
    assert pd_sys.loc["fold1", "P@3-micro"] != pd_users.loc["fold1", "P@3-micro"].mean()
    for sp_sys, sp_users in runs:
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
        assert sp_sys.attrs["n_users"] == pd_sys.attrs["n_users"]
        got = _spark_users(sp_users)
        np.testing.assert_array_equal(got.to_numpy(), pd_users.sort_index().to_numpy())


def _side_data(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training interactions over the items of random_split (str ids) and 4-dim item vectors."""
    rng = np.random.default_rng(seed)
    users = [f"u{u:04d}" for u in range(150)]
    train = pd.DataFrame({"user_id": rng.choice(users, 2000), "item_id": [f"i{i:03d}" for i in
                                                                         rng.zipf(1.6, 2000) % 60]})
    features = pd.DataFrame(rng.normal(size=(60, 4)), index=[f"i{i:03d}" for i in range(60)],
                            columns=list("abcd"))
    return train, features


BEYOND = [rk.CatalogCoverage(), rk.CatalogCoverage(5), rk.GiniIndex(), rk.GiniIndex(items="catalog", name="Gini-catalog"),
          rk.ShannonEntropy(5), rk.AveragePopularity(5), rk.TailShare(5), rk.Novelty(5),
          rk.IntraListDiversity(5), rk.DeltaGap({"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}), rk.NDCGAtK(5)]


@pytest.mark.parametrize("restricted", [False, True])
def test_beyond_accuracy_metrics_equal_the_pandas_engine_for_any_bucketing(spark, restricted):
    """Side data travels to every bucket (the default catalog made explicit from the whole split
    first); system-level metrics merge their buckets' per-item parts exactly."""
    splits = [random_split(s, int_ids=False) for s in (31, 32)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    train, features = _side_data(5)
    wanted = [f"u{u:04d}" for u in range(0, 150, 3)] if restricted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, pd_users = rk.EvalModel(preds, truths, BEYOND, ties="item_id", train=train,
                                        item_features=features).fit(wanted)
        runs = [rk.EvalModel([spark.createDataFrame(p) for p in preds], [spark.createDataFrame(t) for t in truths],
                             BEYOND, n_buckets=b, train=train, item_features=features).fit(wanted) for b in (1, 4)]
    assert "Coverage" in pd_sys.columns and "Coverage" not in pd_users.columns
    for sp_sys, sp_users in runs:
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
        assert sp_sys.attrs["n_users"] == pd_sys.attrs["n_users"]
        got = _spark_users(sp_users)
        assert list(got.columns) == list(pd_users.columns)
        np.testing.assert_array_equal(got.to_numpy(), pd_users.sort_index().to_numpy())


def test_side_data_must_be_local_frames_on_spark(spark):
    pred, truth = random_split(33, int_ids=False)
    train, _ = _side_data(6)
    with pytest.raises(ValueError, match=r"side data \(train=, catalog=, item_features=\) must be local frames"):
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), [rk.Novelty(5)],
                     train=spark.createDataFrame(train))
    with pytest.raises(ValueError, match=r"Novelty@5 needs side data \(split 'fold1'\): pass train="):
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), [rk.Novelty(5)])


def test_compare_with_side_data_on_spark_equals_pandas(spark):
    pred, truth = random_split(34, int_ids=False)
    other = pred.assign(score=-pred["score"])
    train, features = _side_data(7)
    metrics = [rk.Novelty(5), rk.IntraListDiversity(5), rk.GiniIndex(5), rk.MRR()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        local = rk.compare({"a": pred, "b": other}, truth, metrics, n_resamples=100, ties="item_id", train=train,
                           item_features=features)
        on_spark = rk.compare({"a": spark.createDataFrame(pred), "b": spark.createDataFrame(other)},
                              spark.createDataFrame(truth), metrics, n_resamples=100, train=train,
                              item_features=features)
    pd.testing.assert_frame_equal(on_spark.table, local.table, check_exact=True)
    pd.testing.assert_frame_equal(on_spark.system_values, local.system_values, check_exact=True)
    assert list(local.system_values.columns) == ["Gini@5"]


@pytest.mark.parametrize("missing_users", ["ignore", "zero"])
def test_buckets_without_common_users_merge_with_the_others(spark, missing_users):
    """A bucket whose users are all truth-only (scored 0 under missing_users='zero', adding
    nothing to the pooled parts) or all pred-only has no parts to merge: the system values
    and user counts are still the pandas engine's."""
    from pyspark.sql import functions as F
    n_buckets = 6
    pred, truth = random_split(41, int_ids=False, n_users=40)
    users = pd.DataFrame({"user_id": sorted(set(pred["user_id"]) | set(truth["user_id"]))})
    # the bucket of each user, as the engine's repartition computes it (Murmur3, seed 42)
    bucket = (spark.createDataFrame(users).select("user_id", F.pmod(F.hash("user_id"), F.lit(n_buckets)).alias("b"))
              .toPandas().set_index("user_id")["b"])
    truth_only, pred_only = bucket.index[bucket == 0], bucket.index[bucket == 1]
    assert len(truth_only) and len(pred_only)
    pred, truth = pred[~pred["user_id"].isin(truth_only)], truth[~truth["user_id"].isin(pred_only)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(pred, truth, POOLED, missing_users=missing_users, ties="item_id").fit()
        sp_sys, sp_users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), POOLED,
                                        missing_users=missing_users, n_buckets=n_buckets).fit()
    pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
    assert sp_sys.attrs["n_users"] == pd_sys.attrs["n_users"]
    np.testing.assert_array_equal(_spark_users(sp_users).to_numpy(), pd_users.sort_index().to_numpy())
    if missing_users == "zero":  # the truth-only users count (value 0) but pool nothing
        assert pd_sys.attrs["n_users"]["fold1"]["num_ret"] == len(set(pred["user_id"]) & set(truth["user_id"])) + \
            len(set(truth["user_id"]) - set(pred["user_id"]))


def test_score_order_and_ranks_as_scores_like_pandas(spark):
    pred, truth = random_split(8, int_ids=False)
    negated = pred.assign(score=-pred["score"])
    # each user's ranks (1 = the highest score) in the score column, as floats
    ranks = pred.assign(score=pred.groupby("user_id")["score"].rank(ascending=False, method="first"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        pd_sys, pd_users = rk.EvalModel(pred, truth, METRICS).fit()
        sp_sys, sp_users = rk.EvalModel(spark.createDataFrame(negated), spark.createDataFrame(truth), METRICS,
                                        score_order="ascending", n_buckets=3).fit()
        np.testing.assert_array_equal(_spark_users(sp_users).to_numpy(), pd_users.sort_index().to_numpy())
        pd.testing.assert_frame_equal(sp_sys, pd_sys, rtol=1e-12, atol=0)
        with pytest.warns(rk.RanksAsScoresWarning, match=rf"'score' column in split 'fold1' looks like ranks: each "
                                                         rf"of the {pred['user_id'].nunique()} users' scores"):
            rk.EvalModel(spark.createDataFrame(ranks), spark.createDataFrame(truth), METRICS[:1], n_buckets=3).fit()
        # read lower-is-better: no warning (it would be an error here), the rank column's numbers
        _, sp_ranks = rk.EvalModel(spark.createDataFrame(ranks), spark.createDataFrame(truth), METRICS,
                                   score_order="ascending", n_buckets=3).fit()
        _, pd_ranks = rk.EvalModel(ranks.rename(columns={"score": "rank"}), truth, METRICS).fit()
    np.testing.assert_array_equal(_spark_users(sp_ranks).to_numpy(), pd_ranks.sort_index().to_numpy())
