"""IPS/SNIPS metrics on Spark: the same bits as the pandas engine with 1 and 4 buckets of users."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import RankevalWarning
from rankeval.unbiased import Propensity, Unbiased

from ._require import require
from .test_spark import _spark_users, random_split

pyspark = require("pyspark")

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]


def _metrics(items):
    rng = np.random.default_rng(7)
    given = Propensity.given(pd.Series(rng.uniform(0.05, 1.0, len(items)), index=items), floor=0.1)
    popularity = Propensity.popularity(0.5)
    out = []
    for plain in (rk.RecallAtK(5, relevant_threshold=3), rk.NDCGAtK(5, relevant_threshold=3),
                  rk.MAPAtK(5, relevant_threshold=3), rk.MRR(relevant_threshold=3)):
        out += [Unbiased(plain, given, "ips", name=f"{plain}-IPS-given"), Unbiased(plain, popularity, "snips")]
    return out


def test_weighted_metrics_equal_the_pandas_engine(spark):
    splits = [random_split(s, int_ids=False) for s in (41, 42)]
    preds, truths = [p for p, _ in splits], [t for _, t in splits]
    items = [f"i{i:03d}" for i in range(60)]
    rng = np.random.default_rng(3)
    train = pd.DataFrame({"user_id": [f"u{u:04d}" for u in rng.integers(0, 150, 3000)],
                          "item_id": [items[i] for i in (rng.pareto(1.0, 3000) * 4).astype(int) % 60]})
    metrics = _metrics(items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, pd_users = rk.EvalModel(preds, truths, metrics, ties="item_id", train=train).fit()
        runs = [rk.EvalModel([spark.createDataFrame(p) for p in preds], [spark.createDataFrame(t) for t in truths],
                             metrics, n_buckets=b, train=train).fit() for b in (1, 4)]
    assert pd_users[[str(m) for m in metrics]].notna().any().all()
    for sp_sys, sp_users in runs:
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
        got = _spark_users(sp_users)
        assert list(got.columns) == list(pd_users.columns)
        np.testing.assert_array_equal(got.to_numpy(), pd_users.sort_index().to_numpy())
