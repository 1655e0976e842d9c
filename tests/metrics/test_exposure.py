"""ExposureGini and the rank weights: hand-worked, a plain loop, LensKit's formulas re-derived from
its source, exact merging of the parts, RBP unchanged, and the Spark engine."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from rankeval.metrics._parts import SystemParts, merge_parts


def _random(seed: int, n_users: int = 80):
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        listed = rng.choice(50, size=rng.integers(1, 15), replace=False, p=np.arange(50, 0, -1) / 1275)
        pred_rows += [(f"u{u:03d}", f"i{i:02d}", float(len(listed) - j)) for j, i in enumerate(listed)]
        truth_rows.append((f"u{u:03d}", f"i{listed[0]:02d}", 1.0))
    return (pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]))


def _loop_exposure_gini(pred, weight, k=None, catalog=None):
    """Exposure per item, list by list, then the Gini of the sorted totals, one term at a time."""
    exposure: dict[str, float] = {}
    for _, g in pred.groupby("user_id"):
        g = g.sort_values("score", ascending=False, kind="stable")
        for pos, item in enumerate(g["item_id"], start=1):
            if k is not None and pos > k:
                break
            if catalog is not None and item not in catalog:
                continue
            exposure[item] = exposure.get(item, 0.0) + float(weight(pos))
    values = sorted(exposure.values())
    if catalog is not None:
        values = [0.0] * (len(catalog) - len(values)) + values
    n = len(values)
    return sum((2 * i - n - 1) * x for i, x in enumerate(values, start=1)) / (n * sum(values))


def _lenskit_exposure_gini(pred, patience, k, vocabulary):
    """lenskit/metrics/ranking/_gini.py ExposureGini.measure_list: weights = GeometricRankWeight.weight
    (np.exp(np.log(patience) * (ranks - 1)), _weighting.py) of ranks 1..len(recs); GiniAccumulator:
    totals[items] += weights, then lenskit.stats.gini(totals / totals.sum()) (stats.py: sorted xs,
    ranks 2i - n - 1, sum(xs * ranks) / (n * sum(xs)))."""
    index = {item: j for j, item in enumerate(vocabulary)}
    totals = np.zeros(len(vocabulary))
    for _, g in pred.groupby("user_id"):
        items = g.sort_values("score", ascending=False, kind="stable")["item_id"].to_numpy()[:k]
        ids = np.array([index[i] for i in items])
        totals[ids] += np.exp(np.log(patience) * (np.arange(1, len(items) + 1) - 1))
    xs = np.sort(totals / totals.sum())
    n = len(xs)
    ranks = 2 * np.arange(1, n + 1, dtype=np.float64) - (n + 1)
    return float(np.sum(xs * ranks) / (n * np.sum(xs)))


def test_hand_worked_case():
    # weights 1, 1/2, 1/4; u1 lists a b c, u2 lists a c: exposures a = 2, b = 1/2, c = 1/4 + 1/2 = 3/4
    # sorted 1/2, 3/4, 2; (2i - n - 1) = -2, 0, 2: (-1 + 0 + 4) / (3 * 13/4) = 3 / 9.75
    pred = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("abcac"), "score": [3, 2, 1, 2, 1]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [1.0, 1.0]})
    split = rk.Split(pred, truth, catalog=list("abcde"))
    metric = rk.ExposureGini(weight=rk.GeometricWeight(0.5))
    res = metric.perform(split)
    assert res.system.iloc[0, 0] == pytest.approx(3 / 9.75, rel=1e-12)
    assert res.users["ExposureGini"].isna().all()
    # over the catalog, d and e have 0: sorted 0, 0, 1/2, 3/4, 2 with (2i - 6) = -4 .. 4: (0 + 1.5 + 8) / (5 * 3.25)
    catalog = rk.ExposureGini(weight=rk.GeometricWeight(0.5), items="catalog").perform(split)
    assert catalog.system.iloc[0, 0] == pytest.approx(9.5 / 16.25, rel=1e-12)
    # @1: a twice, alone: 0
    assert rk.ExposureGini(1).perform(split).system.iloc[0, 0] == 0.0


@pytest.mark.parametrize("weight", [rk.GeometricWeight(0.85), rk.GeometricWeight(0.5), rk.LogWeight(),
                                    rk.LogWeight(base=10, offset=1)], ids=repr)
@pytest.mark.parametrize("k", [None, 5])
def test_equals_a_plain_loop(weight, k):
    pred, truth = _random(1)
    got = rk.ExposureGini(k, weight=weight).perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == pytest.approx(_loop_exposure_gini(pred, lambda p: weight.weights([p])[0], k), rel=1e-12)
    catalog = [f"i{i:02d}" for i in range(0, 60, 2)]  # half the recommended items, and 10 never recommended
    got = rk.ExposureGini(k, weight=weight, items="catalog").perform(
        rk.Split(pred, truth, catalog=catalog)).system.iloc[0, 0]
    assert got == pytest.approx(_loop_exposure_gini(pred, lambda p: weight.weights([p])[0], k, set(catalog)),
                                rel=1e-12)


@pytest.mark.parametrize("k", [3, 10])
def test_equals_lenskits_formula(k):
    pred, truth = _random(2)
    vocabulary = [f"i{i:02d}" for i in range(50)]
    metric = rk.ExposureGini(k).with_convention("lenskit")
    got = metric.perform(rk.Split(pred, truth, catalog=vocabulary)).system.iloc[0, 0]
    assert got == pytest.approx(_lenskit_exposure_gini(pred, 0.85, k, vocabulary), rel=1e-12)


def test_weights_equal_lenskits():
    ranks = np.arange(1, 30)
    np.testing.assert_allclose(rk.GeometricWeight(0.85).weights(ranks), np.exp(np.log(0.85) * (ranks - 1)),
                               rtol=1e-12)
    np.testing.assert_allclose(rk.LogWeight().weights(ranks), np.log(2) / np.log(np.maximum(ranks, 2)), rtol=1e-12)
    np.testing.assert_allclose(rk.LogWeight(offset=1).weights(ranks), 1 / np.log2(ranks + 1), rtol=1e-12)
    assert rk.GeometricWeight(0.8).series_sum() == pytest.approx(5.0, rel=1e-12)


@pytest.mark.parametrize("bad, match", [
    (lambda: rk.GeometricWeight(1.0), r"`patience` must be in \(0, 1\), got 1\.0"),
    (lambda: rk.GeometricWeight("x"), r"`patience` must be a finite number, got 'x'"),
    (lambda: rk.LogWeight(base=1), r"`base` must be > 1, got 1"),
    (lambda: rk.LogWeight(offset=-1), r"`offset` must be an integer >= 0, got -1"),
    (lambda: rk.ExposureGini(weight=0.8), r"`weight` must be a rank weighting"),
    (lambda: rk.ExposureGini(items="all"), r"`items`"),
])
def test_bad_parameters(bad, match):
    with pytest.raises(ValueError, match=match):
        bad()


def test_parts_merge_exactly_over_any_cut_of_the_users():
    pred, truth = _random(3, n_users=120)
    metric = rk.ExposureGini(weight=rk.LogWeight())
    whole = metric.perform(rk.Split(pred, truth)).system.iloc[0, 0]
    users = sorted(pred.user_id.unique())
    for cut in (1, 17, 60):
        pieces = []
        for chunk in (users[:cut], users[cut:]):
            part_pred, part_truth = pred[pred.user_id.isin(chunk)], truth[truth.user_id.isin(chunk)]
            _, parts = metric.perform_with_parts(rk.Split(part_pred, part_truth))
            pieces.append(SystemParts.from_json(parts.to_json()))
        merged = merge_parts(pieces[::-1])
        assert metric.system_value(merged.values()) == whole  # bit for bit


def test_rbp_keeps_its_numbers():
    # the geometric weights now come from GeometricWeight: RBP's values are those of p ** (i - 1)
    pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x", "b", "y", "c"]})
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [1, 1, 1]})
    got = rk.RBP(0.8, relevant_threshold=1).perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert math.isclose(got, 0.2 * (1 + 0.64 + 0.4096), rel_tol=1e-15)


@pytest.mark.parametrize("text", ["ExposureGini", "ExposureGini@10", "ExposureGini@5,10"])
def test_names_round_trip(text):
    metric = rk.parse_metric(text)
    assert str(metric) == text and rk.parse_metric(text) == metric
    assert eval(repr(metric), vars(rk)) == metric
    assert not metric.higher_is_better


def test_spark_equals_pandas(spark):
    pred, truth = _random(4, n_users=150)
    catalog = [f"i{i:02d}" for i in range(55)]
    metrics = [rk.ExposureGini(), rk.ExposureGini([3, 10], weight=rk.LogWeight()),
               rk.ExposureGini(5, items="catalog", name="EG-catalog")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, _ = rk.EvalModel([pred], [truth], metrics, ties="item_id", catalog=catalog).fit()
        for b in (1, 4):
            sp_sys, _ = rk.EvalModel([spark.createDataFrame(pred)], [spark.createDataFrame(truth)], metrics,
                                     n_buckets=b, catalog=catalog).fit()
            pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
