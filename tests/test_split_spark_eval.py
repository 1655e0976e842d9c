"""Splits made on Spark are the truth of an evaluation on Spark, with the numbers pandas gives.

The same interactions split on pandas and on Spark (same method, same seed) give the same
rows (tests/test_split_spark.py); here the Spark ``Splits`` is handed to ``EvalModel`` and
``compare`` with Spark lists, and the pandas ``Splits`` with the same lists as pandas frames:
every per-user value must be equal (exactly), as must the system values, the comparison's
table and units, and the protocol warnings (the cheap checks, run on Spark from the Splits'
train frames).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
import rankeval.split as rs
from rankeval import RankevalWarning

from ._require import require
from .test_split_spark import interactions

require("pyspark")

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]

METRICS = [rk.NDCGAtK(5), rk.RecallAtK(5), rk.MRR(), rk.MAP(relevant_threshold=4)]


def _data(seed: int, int_ids: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Interactions (one row per pair) and lists of 10 items for every user, some already in train."""
    frame = interactions(seed, int_ids=int_ids).drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    items = frame["item_id"].unique()
    pred = pd.DataFrame([(u, i, float(s)) for u in frame["user_id"].unique()
                         for s, i in enumerate(rng.choice(items, 10, replace=False))],
                        columns=["user_id", "item_id", "score"])
    return frame, pred


def _run(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught if issubclass(w.category, rk.ProtocolWarning)]


SPLITTERS = [
    pytest.param(lambda f: rs.kfold(f, 3, seed=1), id="kfold"),
    pytest.param(lambda f: rs.random_holdout(f, 0.3, by="record", seed=2), id="random-by-record"),
    pytest.param(lambda f: rs.temporal_holdout(f, n_last=2), id="temporal"),
]


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("split", SPLITTERS)
def test_eval_model_on_spark_splits_equals_pandas(spark, split, int_ids):
    frame, pred = _data(5, int_ids)
    # ties in time fall back on the row order on pandas, on (item, score) on Spark: the same order here
    frame = frame.sort_values(["item_id", "score"], kind="stable").reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        on_pandas, on_spark = split(frame), split(spark.createDataFrame(frame))
    n = len(on_pandas)
    (pd_sys, pd_users), pd_warned = _run(lambda: rk.EvalModel([pred] * n, on_pandas, METRICS).fit())
    (sp_sys, sp_users), sp_warned = _run(
        lambda: rk.EvalModel([spark.createDataFrame(pred)] * n, on_spark, METRICS).fit())
    got = sp_users.toPandas().set_index(["split", "user_id"]).sort_index()
    pd.testing.assert_frame_equal(got, pd_users.sort_index()[got.columns], check_exact=True)
    pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
    assert sp_warned == pd_warned and len(pd_warned) == 1 and "already has in `train`" in pd_warned[0]


def test_compare_on_spark_splits_equals_pandas(spark):
    frame, pred = _data(9, False)
    other = pred.assign(score=np.random.default_rng(1).random(len(pred)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        on_pandas, on_spark = rs.kfold(frame, 2, seed=4), rs.kfold(spark.createDataFrame(frame), 2, seed=4)
    local, pd_warned = _run(lambda: rk.compare({"a": [pred] * 2, "b": [other] * 2}, on_pandas, METRICS,
                                               n_resamples=200))
    sp_pred, sp_other = spark.createDataFrame(pred), spark.createDataFrame(other)
    remote, sp_warned = _run(lambda: rk.compare({"a": [sp_pred] * 2, "b": [sp_other] * 2}, on_spark, METRICS,
                                                n_resamples=200))
    pd.testing.assert_frame_equal(remote.table, local.table, rtol=1e-12, atol=0)
    pd.testing.assert_frame_equal(remote.units, local.units)
    assert sorted(sp_warned) == sorted(pd_warned) and len(pd_warned) == 2


def test_a_metric_needing_train_asks_for_local_side_data(spark):
    frame, pred = _data(3, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        on_spark = rs.kfold(spark.createDataFrame(frame), 2, seed=0)
    with pytest.raises(ValueError, match=r"Novelty.* needs side data \(split 'fold1'\): pass train="):
        rk.EvalModel([spark.createDataFrame(pred)] * 2, on_spark, [rk.Novelty(5)])
