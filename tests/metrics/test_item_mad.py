"""ItemMAD: a hand-worked case, Elliot's ItemMADranking and ItemMADrating transcribed as plain
loops (Elliot cannot be installed here: see tests/metrics/test_fairness.py) and compared under
hypothesis, the exact per-key parts it merges, and the Spark engine against the pandas engine."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval import RankevalWarning
from rankeval.metrics._parts import KeyedSums, SystemParts

from .test_fairness import HAND_GROUPS, HAND_PRED, HAND_TRAIN, HAND_TRUTH, _relevant

# ---------------------------------------------------------------------- Elliot, as a plain loop


def elliot_item_mad(pred: pd.DataFrame, truth: pd.DataFrame, k: int | None, clustering: dict,
                    threshold: float | None, gain: str) -> float:
    """sisinflab/elliot elliot/evaluation/metrics/fairness/MAD/ItemMADranking.py lines 79-106
    (``gain="elliot_ranking"``: relevance.py lines 80-82, 2 ** (score - threshold + 1) - 1 for a
    relevant item) and ItemMADrating.py lines 79-106 (``gain="elliot_rating"``: the listed
    item's predicted score r when relevant, line 81). ``"binary"``, ``"linear"`` and
    ``"exponential"`` swap in rankeval's other gains in the same loop. ``clustering``: item ->
    group label (Elliot's clustering file; its clusters are the distinct labels)."""
    relevant = _relevant(truth, threshold)
    grades = {(u, i): s for u, i, s in zip(truth["user_id"], truth["item_id"], truth["score"])}
    labels = sorted(set(clustering.values()))
    item_count: dict = {}
    item_gain: dict = {}
    for u, rows in pred.groupby("user_id", sort=False):
        if u not in relevant or not relevant[u]:                  # line 90: users with a relevant item
            continue
        listed = rows.sort_values("score", ascending=False, kind="stable")
        for i, r in zip(listed["item_id"].iloc[:k], listed["score"].iloc[:k]):   # line 79: the first `cutoff`
            hit = i in relevant[u]
            grade = grades.get((u, i), 0.0)
            g = {"elliot_ranking": 2 ** (grade - (threshold or 0) + 1) - 1,
                 "elliot_rating": r, "binary": 1.0, "linear": grade, "exponential": 2 ** grade - 1}[gain]
            item_count[i] = item_count.get(i, 0) + 1                  # line 80
            item_gain[i] = item_gain.get(i, 0) + (g if hit else 0)   # line 81
    total, n_items = np.zeros(len(labels)), np.zeros(len(labels))
    for item, g in item_gain.items():                               # lines 93-99
        v = g / item_count[item]
        if item in clustering:
            j = labels.index(clustering[item])
            total[j] += v
            n_items[j] += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = total / n_items                                       # line 101
    differences = [abs(avg[i] - avg[j]) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    return float(np.average(differences)) if differences else float("nan")  # lines 102-106


def _same(got: float, expected: float) -> None:
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _value(metric, split) -> float:
    return float(metric.perform(split).system.iloc[0, 0])


# ---------------------------------------------------------------------- a hand-worked case
# lists (rank order):  u1: c e d     u2: b d f     u3: e f a
# truth (threshold 3): u1: c 5, d 1, e 4 -> {c, e}   u2: b 4, f 5, a 3 -> {b, f, a}   u3: f 2, b 5 -> {b}
# item groups: x = {a, b, e}, y = {c, d, f}


def _hand_split(pred=HAND_PRED, groups=HAND_GROUPS):
    return rk.Split(pred, HAND_TRUTH, train=HAND_TRAIN, item_groups=groups)


def test_hand_worked():
    split = _hand_split()
    # k=2: u1 c e, u2 b d, u3 e f
    # binary: c 1/1; e (u1 hit, u3 miss) 1/2; b 1/1; d 0/1; f (u3: 2 < 3) 0/1
    # x: b 1, e 1/2 -> 3/4 (a not listed); y: c 1, d 0, f 0 -> 1/3; |3/4 - 1/3| = 5/12
    assert _value(rk.ItemMAD(2, relevant_threshold=3), split) == pytest.approx(5 / 12, rel=1e-12)
    # linear: c 5; e 4/2 = 2; b 4; d 0; f 0 -> x (4 + 2) / 2 = 3, y 5/3 -> 4/3
    assert _value(rk.ItemMAD(2, relevant_threshold=3, gains="linear"), split) == pytest.approx(4 / 3, rel=1e-12)
    # exponential 2**r - 1: c 31; e 15/2; b 15; d 0; f 0 -> x (15 + 7.5) / 2 = 11.25, y 31/3 -> 11/12
    assert _value(rk.ItemMAD(2, relevant_threshold=3, gains="exponential"), split) == \
        pytest.approx(11 / 12, rel=1e-12)
    # whole lists, binary: c 1, e 1/2, d 0/2, b 1, f (u2 hit, u3 miss) 1/2, a (u3) 0
    # -> x: a 0, b 1, e 1/2 -> 1/2; y: c 1, d 0, f 1/2 -> 1/2: 0
    assert _value(rk.ItemMAD(relevant_threshold=3), split) == pytest.approx(0.0, abs=1e-15)


def test_hand_worked_scores_three_groups_and_users_without_a_relevant_item():
    # predicted scores in list order; threshold 5: u1 {c}, u2 {f}, u3 {b} (b is not listed for u3)
    pred = HAND_PRED.assign(score=[0.9, 0.5, 0.25, 0.8, 0.4, 0.1, 0.7, 0.6, 0.3])
    groups = pd.Series({"a": "x", "b": "x", "e": "x", "c": "y", "d": "z", "f": "z"})
    split = _hand_split(pred, groups)
    # whole lists, score gains: c 0.9 (u1); e 0/2 (u1, u3); d 0/2 (u1, u2); b 0 (u2); f (u2 0.1, u3 0) / 2; a 0
    # x: a 0, b 0, e 0 -> 0; y: c 0.9; z: d 0, f 0.05 -> 0.025
    # pairs: |0 - 0.9|, |0 - 0.025|, |0.9 - 0.025| -> (0.9 + 0.025 + 0.875) / 3 = 0.6
    metric = rk.ItemMAD(relevant_threshold=5, gains="score")
    assert _value(metric, split) == pytest.approx(0.6, rel=1e-12)
    # threshold 5.5: nobody has a relevant item -> no item in any group -> NaN; nobody behind the value
    assert np.isnan(_value(rk.ItemMAD(relevant_threshold=5.5), split))
    assert rk.ItemMAD(relevant_threshold=5.5).users_behind(split.ranked_lists()) == 0
    assert rk.ItemMAD(relevant_threshold=5).users_behind(split.ranked_lists()) == 3
    # a group with no listed item: NaN (Elliot: its mean is 0/0)
    more = pd.concat([HAND_GROUPS, pd.Series({"g": "w"})])
    assert np.isnan(_value(rk.ItemMAD(relevant_threshold=3), _hand_split(groups=more)))
    # one group: no pair, NaN
    assert np.isnan(_value(rk.ItemMAD(relevant_threshold=3), _hand_split(groups=HAND_GROUPS.map(lambda g: "x"))))


def test_listed_items_without_a_group_warn_and_count_for_none():
    groups = HAND_GROUPS.drop(["e", "f"])
    with pytest.warns(RankevalWarning, match=r"ItemMAD@2: 3 of 6 listed items have no group in `item_groups`, "
                                             r"e.g. \['e', 'f'\]: they count for no group"):
        got = _value(rk.ItemMAD(2, relevant_threshold=3), _hand_split(groups=groups))
    # k=2 (u1 c e, u2 b d, u3 e f: e, e, f without a group), binary: x: b 1 -> 1; y: c 1, d 0 -> 1/2
    assert got == pytest.approx(0.5, rel=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="gains"):
        rk.ItemMAD(10, gains="dcg")
    with pytest.raises(ValueError, match=r"ItemMAD with gains='score' needs predicted scores"):
        rk.ItemMAD(gains="score", relevant_threshold=3).perform(_hand_split())
    with pytest.raises(ValueError, match=r"ItemMAD@2 needs side data: pass item_groups="):
        rk.ItemMAD(2).perform(rk.Split(HAND_PRED, HAND_TRUTH))
    big = HAND_TRUTH.assign(score=HAND_TRUTH["score"] * 300)
    with pytest.raises(ValueError, match=r"the gain of item 'c' for user 'u1' is not finite"):
        rk.ItemMAD(relevant_threshold=3, gains="exponential").perform(
            rk.Split(HAND_PRED, big, item_groups=HAND_GROUPS))


def test_names_and_cutoffs():
    assert str(rk.parse_metric("ItemMAD@10")) == "ItemMAD@10"
    assert rk.parse_metric("ItemMAD@10") == rk.ItemMAD(10)
    assert rk.ItemMAD.higher_is_better is False
    res = rk.ItemMAD([1, 2], relevant_threshold=3).perform(_hand_split()).system
    assert list(res.columns) == ["ItemMAD@1", "ItemMAD@2"]
    assert res.loc["sys", "ItemMAD@2"] == pytest.approx(5 / 12, rel=1e-12)
    sys_result, users = rk.EvalModel(HAND_PRED, HAND_TRUTH, [rk.ItemMAD(2, relevant_threshold=3)],
                                      item_groups=HAND_GROUPS).fit()
    assert sys_result.loc["fold1", "ItemMAD@2"] == pytest.approx(5 / 12, rel=1e-12)
    assert "ItemMAD@2" not in users.columns


# ---------------------------------------------------------------------- against Elliot's loop


@st.composite
def item_mad_data(draw):
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(3, 12))
    items = [f"i{j:02d}" for j in range(n_items)]
    pred_rows, truth_rows = [], []
    for u in range(int(rng.integers(1, 9))):
        listed = rng.choice(items, size=int(rng.integers(1, n_items + 1)), replace=False)
        scores = rng.permutation(len(listed)) + rng.random(len(listed)) * 0.5  # distinct
        pred_rows += [(f"u{u}", it, float(s) * 10.0 ** int(rng.integers(-3, 3))) for it, s in zip(listed, scores)]
        rated = rng.choice(items, size=int(rng.integers(1, n_items + 1)), replace=False)
        truth_rows += [(f"u{u}", it, float(rng.integers(1, 6))) for it in rated]
    grouped = [it for it in items if rng.random() < 0.9] or items[:1]
    groups = pd.Series({it: f"g{int(rng.integers(0, 3))}" for it in grouped})
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    return (pred, truth, groups, draw(st.sampled_from([None, 1, 3])), draw(st.sampled_from([None, 1.0, 3.0])),
            draw(st.sampled_from(["binary", "linear", "exponential", "score"])))


@settings(max_examples=60, deadline=None)
@given(item_mad_data())
def test_equal_elliot_loop(data):
    pred, truth, groups, k, threshold, gains = data
    clustering = dict(groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        split = rk.Split(pred, truth, item_groups=groups)
        got = _value(rk.ItemMAD(k, relevant_threshold=threshold, gains=gains), split)
    loop_gain = {"score": "elliot_rating"}.get(gains, gains)
    _same(got, elliot_item_mad(pred, truth, k, clustering, threshold, loop_gain))
    if gains == "exponential" and threshold == 1.0:  # Elliot's own gain 2**(r - t + 1) - 1 at t = 1
        _same(got, elliot_item_mad(pred, truth, k, clustering, 1.0, "elliot_ranking"))


# ---------------------------------------------------------------------- the exact parts


def test_keyed_sums_are_exact_and_merge_in_any_order():
    rng = np.random.default_rng(3)
    keys = rng.choice(np.array(["a", "b", "c", "d"]), 5000)
    values = rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000)
    values[:7] = np.nan
    whole = SystemParts.of({"g": KeyedSums(keys, values)}).values()["g"]
    for key in "abcd":
        mine = values[(keys == key) & ~np.isnan(values)]
        assert whole[key] == float(sum(Fraction(x) for x in mine))  # the exact sum, rounded once
    cut = rng.integers(0, 5, len(keys))
    buckets = [SystemParts.from_json(SystemParts.of({"g": KeyedSums(keys[cut == j], values[cut == j])}).to_json())
               for j in range(5)]
    for order in ([0, 1, 2, 3, 4], [4, 2, 0, 3, 1]):
        merged = buckets[order[0]]
        for j in order[1:]:
            merged = merged + buckets[j]
        pd.testing.assert_series_equal(merged.values()["g"], whole, check_exact=True, check_index_type=False)
    with pytest.raises(TypeError, match="finite"):
        SystemParts.of({"g": KeyedSums(["a"], [np.inf])})
    with pytest.raises(ValueError, match="one key per value"):
        KeyedSums(["a", "b"], [1.0])


# ---------------------------------------------------------------------- Spark


def test_spark_equals_pandas_for_any_bucketing(spark):
    rng = np.random.default_rng(8)
    items = [f"i{j:03d}" for j in range(60)]
    pred_rows, truth_rows = [], []
    for u in range(200):
        listed = rng.choice(items, size=int(rng.integers(1, 15)), replace=False)
        scores = rng.random(len(listed)) * 10.0 ** rng.integers(-2, 3)
        pred_rows += [(f"u{u:03d}", it, float(s)) for it, s in zip(listed, scores)]
        if u % 7:
            rated = rng.choice(items, size=int(rng.integers(1, 12)), replace=False)
            truth_rows += [(f"u{u:03d}", it, float(rng.integers(1, 6)) + 0.1 * rng.random()) for it in rated]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    groups = pd.Series({it: f"p{j % 4}" for j, it in enumerate(items[:55])})
    metrics = [rk.ItemMAD(k=[3, 10], relevant_threshold=3), rk.ItemMAD(10, gains="score", name="ItemMAD-score"),
               rk.ItemMAD(gains="linear", name="ItemMAD-linear"),
               rk.ItemMAD(5, gains="exponential", relevant_threshold=2, name="ItemMAD-exp")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, _ = rk.EvalModel(pred, truth, metrics, ties="item_id", item_groups=groups).fit()
        for b in (1, 4):
            sp_sys, _ = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), metrics,
                                     n_buckets=b, item_groups=groups).fit()
            pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
    assert np.isfinite(pd_sys.to_numpy()).all() and (pd_sys.to_numpy() > 0).all()
    clustering = dict(groups)
    expected = elliot_item_mad(pred, truth, 10, clustering, None, "elliot_rating")
    assert pd_sys.loc["fold1", "ItemMAD-score"] == pytest.approx(expected, rel=1e-12)


def test_cli_item_groups(tmp_path, monkeypatch, capsys):
    from rankeval.cli import main

    monkeypatch.chdir(tmp_path)
    HAND_PRED.to_csv("pred.csv", index=False)
    HAND_TRUTH.to_csv("truth.csv", index=False)
    HAND_GROUPS.rename_axis("item_id").reset_index(name="provider").to_csv("groups.csv", index=False)
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", "--item-groups", "groups.csv",
                   "-m", "ItemMAD@2", "--threshold", "3", "--format", "csv"])
    out = capsys.readouterr().out
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out), index_col=0)
    assert table.loc["fold1", "ItemMAD@2"] == pytest.approx(5 / 12, rel=1e-12)  # test_hand_worked
