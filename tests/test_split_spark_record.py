"""``by="record"`` splits on Spark: the rows pandas gives, for every seed, share and fold count.

The pandas splitters are checked against plain-loop references in tests/test_split_random.py;
here the Spark splits must hold the same rows per fold (as multisets), the same parameters,
sizes and warnings. The data has repeated ``(user, item)`` pairs (rows tied on their key,
ordered by time and score), users below ``min_interactions`` and users of one interaction
(moved back whole). The cut of a holdout and the rank of every row are found through a
histogram of the keys' top bits; with few bits many rows share a range, which exercises the
sort inside a range and a cut that falls among many rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval.split as rs
from rankeval import RankevalWarning
from rankeval.split import _spark_record

from ._require import require
from .test_split_spark import COLUMNS, assert_same_splits, interactions

require("pyspark")

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning:pyspark"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")]

KEYS = COLUMNS[:4]  # rows equal in these are interchangeable: which one a tie takes depends on row order


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("seed, test_size, min_interactions", [(0, 0.2, 1), (3, 0.25, 3), (11, 0.5, 1),
                                                             (29, 0.07, 2)])
def test_random_holdout_by_record(spark, int_ids, seed, test_size, min_interactions):
    frame = interactions(seed, int_ids=int_ids)
    assert_same_splits(lambda f: rs.random_holdout(f, test_size, by="record", seed=seed,
                                                   min_interactions=min_interactions),
                       frame, spark.createDataFrame(frame))


@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("seed, k, min_interactions", [(0, 2, 1), (5, 3, 2), (8, 5, 1), (13, 7, 4)])
def test_kfold_by_record(spark, int_ids, seed, k, min_interactions):
    frame = interactions(seed, int_ids=int_ids)
    assert_same_splits(lambda f: rs.kfold(f, k, by="record", seed=seed, min_interactions=min_interactions),
                       frame, spark.createDataFrame(frame))


@pytest.mark.parametrize("bits", [1, 3, 6])
def test_many_rows_per_key_range(spark, monkeypatch, bits):
    """2 to 64 ranges for 1,500 rows: the cut and the ranks found inside crowded ranges."""
    monkeypatch.setattr(_spark_record, "RANGE_BITS", bits)
    frame = interactions(bits, int_ids=False)
    sdf = spark.createDataFrame(frame)
    assert_same_splits(lambda f: rs.random_holdout(f, 0.3, by="record", seed=bits), frame, sdf)
    assert_same_splits(lambda f: rs.kfold(f, 4, by="record", seed=bits, min_interactions=2), frame, sdf)


def test_cold_items_dropped_and_row_order_free(spark):
    frame = interactions(17, int_ids=True)
    shuffled = spark.createDataFrame(frame.sample(frac=1.0, random_state=4)).repartition(5)
    assert_same_splits(lambda f: rs.random_holdout(f, 0.4, by="record", seed=1, drop_cold_items=True),
                       frame, shuffled, columns=KEYS)
    assert_same_splits(lambda f: rs.kfold(f, 3, by="record", seed=2, drop_cold_items=True), frame, shuffled,
                       columns=KEYS)


def test_a_repeated_pair_across_the_cut(spark):
    """Hand-worked: the pair (a, x) six times, the cut three rows into it: its three earliest rows are the test ones."""
    frame = pd.DataFrame({"user_id": ["a"] * 7 + [f"u{i // 2}" for i in range(20)],
                          "item_id": ["x"] * 6 + ["z"] + [f"i{i}" for i in range(20)],
                          "timestamp": [5, 1, 4, 2, 6, 3, 0] + [0] * 20})
    first = min(r for r, (u, i) in zip(_pandas_rank(frame, seed=0), frame[["user_id", "item_id"]].values.tolist())
                if (u, i) == ("a", "x"))
    share = (first + 3.5) / len(frame)  # ⌊share·27⌋ = first + 3: the cut falls after the pair's third row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        test = rs.random_holdout(spark.createDataFrame(frame), share, by="record")[0][1].toPandas()
    assert sorted(test.loc[test["user_id"] == "a", "timestamp"]) == [1, 2, 3]
    assert_same_splits(lambda f: rs.random_holdout(f, share, by="record"), frame, spark.createDataFrame(frame),
                       columns=["user_id", "item_id", "timestamp"])


def _pandas_rank(frame: pd.DataFrame, seed: int) -> list[int]:
    """Each row's place in the pandas order of a record split (every user eligible)."""
    from rankeval.split._input import InteractionColumns, prepare
    from rankeval.split._order import order_rows
    data = prepare(frame, InteractionColumns(), need_time=False)
    order = order_rows(data.keys(seed), None, random=True, tie_keys=data.tie_keys).order
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order))
    return where.tolist()


def test_errors_as_on_pandas(spark):
    frame = interactions(2, int_ids=False, n=60)
    sdf = spark.createDataFrame(frame)
    with pytest.raises(ValueError, match=r"kfold: `n_splits`=9 is more than the \d+ interaction\(s\) to spread"):
        rs.kfold(sdf, 9, by="record", min_interactions=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        with pytest.raises(ValueError, match=r"random_holdout: the test set is empty"):
            rs.random_holdout(sdf, 0.01, by="record")
    missing = spark.createDataFrame(frame.assign(user_id=frame["user_id"].where(frame.index != 3)))
    with pytest.raises(ValueError, match=r"`frame`\['user_id'\] has 1 missing value\(s\) at \(user_id, item_id\)"):
        rs.kfold(missing, 2, by="record")
    taken = spark.createDataFrame(frame.assign(_rankeval_key=1))
    with pytest.raises(ValueError, match=r"`frame` has column\(s\) \['_rankeval_key'\], which kfold on Spark uses"):
        rs.kfold(taken, 2, by="record")


def test_spark_connect_frames(spark_connect):
    frame = interactions(21, int_ids=False, n=600)
    sdf = spark_connect.createDataFrame(frame)
    assert_same_splits(lambda f: rs.random_holdout(f, 0.3, by="record", seed=4, min_interactions=2), frame, sdf)
    assert_same_splits(lambda f: rs.kfold(f, 3, by="record", seed=4), frame, sdf)
