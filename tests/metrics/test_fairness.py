"""Fairness and popularity-bias metrics: ACLT, PopREO, PopRSP, REO, RSP, UserMAD, BiasDisparity.

References: a hand-worked case written out below; Elliot's code transcribed as plain loops
(Elliot cannot be installed here: its package pulls TensorFlow and its metric modules import
the whole framework), each line citing the file and lines of sisinflab/elliot it follows,
compared under hypothesis; the Spark engine against the pandas engine.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval import RankevalWarning

# the toy lists recommend training items on purpose (popularity needs them): the ProtocolWarning's
# subject, tested in tests/test_protocol_checks.py
pytestmark = pytest.mark.filterwarnings("ignore::rankeval.exceptions.ProtocolWarning")

# ---------------------------------------------------------------------- Elliot, as plain loops


def elliot_short_head_long_tail(train: pd.DataFrame, pop_ratio: float) -> tuple[set, set]:
    """elliot/evaluation/popularity_utils/popularity.py, lines 25-53; transactions as in
    elliot/dataset/dataset.py line 205 (distinct (user, item) pairs of the train dict).
    Ties in popularity: item id ascending (rankeval's documented rule; Elliot's order is a set's)."""
    pairs = train.drop_duplicates(["user_id", "item_id"])
    pop = pairs.groupby("item_id").size().to_dict()          # sp_i_train.astype(bool).sum(axis=0)
    transactions = len(pairs)
    sorted_pop = sorted(sorted(pop.items()), key=lambda kv: kv[1], reverse=True)
    short_head, limit = [], transactions * pop_ratio
    for i, p in sorted_pop:                                  # lines 42-46
        short_head.append(i)
        limit -= p
        if limit <= 0:
            break
    long_tail = [i for i, _ in sorted_pop if i not in short_head]  # line 52
    return set(short_head), set(long_tail)


def _lists(pred: pd.DataFrame, k: int | None) -> dict:
    out = {}
    for u, rows in pred.groupby("user_id", sort=False):
        items = list(rows.sort_values("rank")["item_id"])
        out[u] = items if k is None else items[:k]
    return out


def _evaluated(pred: pd.DataFrame, truth: pd.DataFrame) -> list:
    return sorted(set(pred["user_id"]) & set(truth["user_id"]))


def _relevant(truth: pd.DataFrame, threshold: float | None) -> dict:
    """elliot/evaluation/relevance/relevance.py line 87: r >= threshold (None: each user's mean)."""
    out = {}
    for u, rows in truth.groupby("user_id"):
        t = rows["score"].mean() if threshold is None else threshold
        out[u] = set(rows.loc[rows["score"] >= t, "item_id"])
    return out


def _train_dict(train: pd.DataFrame) -> dict:
    return {u: set(rows["item_id"]) for u, rows in train.groupby("user_id")}


def _ratio(num: np.ndarray, den: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        pr = num / den                                       # pop_rsp.py line 94, reo.py line 116
        return float(np.std(pr) / np.mean(pr))               # pop_rsp.py line 95, reo.py line 126


def elliot_aclt(pred, truth, train, k, pop_ratio) -> dict:
    """elliot/evaluation/metrics/bias/aclt/aclt.py, lines 61-87."""
    _, long_tail = elliot_short_head_long_tail(train, pop_ratio)
    recs = _lists(pred, k)
    return {u: len(set(recs[u]) & long_tail) for u in _evaluated(pred, truth)}


def elliot_rsp(pred, truth, train, k, clustering: dict) -> float:
    """elliot/evaluation/metrics/fairness/rsp/rsp.py, lines 85-121 (PopRSP: bias/pop_rsp/pop_rsp.py,
    lines 68-95, the same with the clusters short head and long tail)."""
    recs, tr = _lists(pred, k), _train_dict(train)
    labels = sorted(clustering)
    num, den = np.zeros(len(labels)), np.zeros(len(labels))
    for u in _evaluated(pred, truth):
        recommended = set(recs[u])                           # line 93
        for j, g in enumerate(labels):
            num[j] += len(recommended & clustering[g])       # line 96
            den[j] += len(clustering[g] - tr.get(u, set()))  # line 97
    return _ratio(num, den)


def elliot_reo(pred, truth, train, k, clustering: dict, threshold) -> float:
    """elliot/evaluation/metrics/fairness/reo/reo.py, lines 89-126 (PopREO: bias/pop_reo/pop_reo.py,
    lines 71-99, the same with the clusters short head and long tail)."""
    recs, tr, rel = _lists(pred, k), _train_dict(train), _relevant(truth, threshold)
    labels = sorted(clustering)
    num, den = np.zeros(len(labels)), np.zeros(len(labels))
    for u in _evaluated(pred, truth):
        if not rel[u]:                                       # line 113
            continue
        recommended = {i for i in recs[u] if i in rel[u]}    # line 97
        for j, g in enumerate(labels):
            num[j] += len(recommended & clustering[g])                       # line 100
            den[j] += len((clustering[g] & rel[u]) - tr.get(u, set()))       # line 101
    return _ratio(num, den)


def elliot_ndcg(items: list, gains: dict, cutoff: int) -> float:
    """elliot/evaluation/metrics/fairness/MAD/UserMADranking.py, lines 91-115; gains from
    relevance.py lines 80-82 (2 ** (score - threshold + 1) - 1 for score >= threshold)."""
    def discount(r):                                         # relevance.py line 55
        return 1 / np.log(r + 2) * np.log(2)
    g = sorted(gains.values())
    n, m = min(len(g), cutoff), len(g)
    idcg = sum(g[m - r - 1] * discount(r) for r in range(n))
    dcg = sum(gains.get(x, 0) * discount(r) for r, x in enumerate(items) if r < cutoff)
    return dcg / idcg if dcg > 0 else 0


def elliot_user_mad(pred, truth, k, clustering: dict, threshold: float) -> float:
    """UserMADranking.py lines 117-135."""
    recs = _lists(pred, None)
    gains = {u: {i: 2 ** (s - threshold + 1) - 1 for i, s in zip(rows["item_id"], rows["score"]) if s >= threshold}
             for u, rows in truth.groupby("user_id")}
    labels = list(clustering)
    total, n = np.zeros(len(labels)), np.zeros(len(labels))
    for u in _evaluated(pred, truth):
        if gains[u]:                                         # line 123
            for j, g in enumerate(labels):
                if u in clustering[g]:
                    total[j] += elliot_ndcg(recs[u], gains[u], k)
                    n[j] += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = total / n                                      # line 130
    differences = [abs(avg[i] - avg[j]) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    return float(np.average(differences)) if differences else float("nan")


def elliot_bias_disparity(pred, truth, train, k, item_clustering: dict, user_clustering: dict | None) -> dict:
    """elliot/evaluation/metrics/fairness/BiasDisparity/BiasDisparityBR.py lines 79-108 (over the
    recommendations), BiasDisparityBS.py lines 79-109 (over train), BiasDisparityBD.py line 94."""
    recs, tr = _lists(pred, k), _train_dict(train)
    cats = sorted(set(item_clustering.values()))
    ugroups = ["all"] if user_clustering is None else sorted(set(user_clustering.values()))

    def bias(lists):
        cat_sum, total = np.zeros((len(ugroups), len(cats))), np.zeros(len(ugroups))
        for u, items in lists.items():
            g = "all" if user_clustering is None else user_clustering.get(u)
            if g is None:
                continue
            for i in items:
                c = item_clustering.get(i)
                if c is not None:
                    cat_sum[ugroups.index(g), cats.index(c)] += 1
                    total[ugroups.index(g)] += 1
        counts = pd.Series(list(item_clustering.values())).value_counts()
        pc = np.array([counts.get(c, 0) / len(item_clustering) for c in cats])
        with np.errstate(divide="ignore", invalid="ignore"):
            return ((cat_sum.T / total).T) / pc
    br = bias({u: recs[u] for u in _evaluated(pred, truth)})
    bs = bias(tr)
    with np.errstate(divide="ignore", invalid="ignore"):
        bd = (br - bs) / bs
    return {m: {(g, c): v[a, b] for a, g in enumerate(ugroups) for b, c in enumerate(cats)}
            for m, v in (("BR", br), ("BS", bs), ("BD", bd))}


def pop_clusters(train, pop_ratio) -> dict:
    head, tail = elliot_short_head_long_tail(train, pop_ratio)
    return {"long_tail": tail, "short_head": head}


def group_clusters(groups: pd.Series) -> dict:
    return {g: set(groups.index[groups == g]) for g in groups.unique()}


# ---------------------------------------------------------------------- a hand-worked case
# train (distinct pairs; u1's second a counts once): u1 a, b; u2 a, c; u3 a, b; u9 a, d
#   -> popularity a 4, b 2, c 1, d 1; 8 interactions
# short head at pop_ratio 0.5: a (4 >= 4); at 0.8: cumulative 4, 6, 7 >= 6.4 -> a, b, c (c before d:
#   ties by id); long tail d
# item groups: x = {a, b, e}, y = {c, d, f}
# lists (rank order):  u1: c e d     u2: b d f     u3: e f a
# truth (threshold 3): u1: c 5, d 1, e 4   u2: b 4, f 5, a 3   u3: f 2, b 5
HAND_TRAIN = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u9", "u9", "u1"],
                           "item_id": ["a", "b", "a", "c", "a", "b", "a", "d", "a"]})
HAND_PRED = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 3,
                          "item_id": list("ced") + list("bdf") + list("efa"), "rank": [1, 2, 3] * 3})
HAND_TRUTH = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 2,
                           "item_id": list("cde") + list("bfa") + list("fb"),
                           "score": [5.0, 1.0, 4.0, 4.0, 5.0, 3.0, 2.0, 5.0]})
HAND_GROUPS = pd.Series({"a": "x", "b": "x", "e": "x", "c": "y", "d": "y", "f": "y"})


def _cv(p):
    p = np.asarray(p, dtype=float)
    return np.std(p) / np.mean(p)


@pytest.fixture
def hand_split():
    return rk.Split(HAND_PRED, HAND_TRUTH, train=HAND_TRAIN, item_groups=HAND_GROUPS)


def test_hand_worked_rsp(hand_split):
    # k=2: u1 c e, u2 b d, u3 e f -> x: e, b, e = 3; y: c, d, f = 3
    # den x = |{a,b,e} - T|: u1 {a,b} -> 1, u2 {a,c} -> 2, u3 {a,b} -> 1 = 4
    # den y = |{c,d,f} - T|: u1 3, u2 2 (c trained), u3 3 = 8
    expected = _cv([3 / 4, 3 / 8])
    got = rk.RSP(k=2).perform(hand_split).system.iloc[0, 0]
    assert got == pytest.approx(expected, rel=1e-12)
    # whole lists: x: e, b, e, a = 4; y: c, d, d, f, f = 5
    assert rk.RSP().perform(hand_split).system.iloc[0, 0] == pytest.approx(_cv([4 / 4, 5 / 8]), rel=1e-12)


def test_hand_worked_reo(hand_split):
    # relevant (>= 3): u1 {c, e}, u2 {b, f, a}, u3 {b}
    # k=3 listed & relevant: u1 c (y), e (x); u2 b (x), f (y); u3 none (a is not relevant to u3)
    # -> num x 2, y 2; den x: u1 e, u2 b (a trained by u2 -> out), u3 b (trained by u3 -> out) = 2
    #                 den y: u1 c, u2 f = 2
    expected = _cv([2 / 2, 2 / 2])  # 0: both groups equally found
    res = rk.REO(k=3, relevant_threshold=3).perform(hand_split).system.iloc[0, 0]
    assert res == pytest.approx(expected, abs=1e-15)
    # k=1: u1 c (y, relevant), u2 b (x, relevant), u3 e (not relevant) -> num x 1, y 1 -> 0 as well;
    # threshold 4.5: relevant u1 {c}, u2 {f}, u3 {b}; k=3: u1 c, u2 f -> num x 0, y 2; den x: u3 b trained -> 0
    assert np.isnan(rk.REO(k=3, relevant_threshold=4.5).perform(hand_split).system.iloc[0, 0])
    # per-user mean thresholds: u1 mean 10/3 -> {c, e}; u2 mean 4 -> {b, f}; u3 mean 3.5 -> {b}
    # k=3: num x: e, b = 2; y: c, f = 2; den x: e, b = 2 (u3's b trained); y: c, f = 2 -> 0
    assert rk.REO(k=3).perform(hand_split).system.iloc[0, 0] == pytest.approx(0.0, abs=1e-15)


def test_hand_worked_popularity_groups(hand_split):
    # pop_ratio 0.8: cumulative a 4, b 6, c 7 >= 6.4 -> head {a, b, c}, tail {d}
    # e, f are not in train: in neither group
    assert [sorted(s) for s in elliot_short_head_long_tail(HAND_TRAIN, 0.8)] == [["a", "b", "c"], ["d"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        aclt = rk.ACLT().perform(hand_split)
        # u1 c e d -> d; u2 b d f -> d; u3 e f a -> none
        np.testing.assert_array_equal(aclt.users.loc[["u1", "u2", "u3"], "ACLT"], [1.0, 1.0, 0.0])
        assert aclt.system.iloc[0, 0] == pytest.approx(2 / 3, rel=1e-12)
        # PopRSP whole lists: head: c, b, a = 3; tail: d, d = 2
        # den head = |{a,b,c} - T|: u1 1, u2 1, u3 1 = 3; den tail = |{d} - T| = 1 + 1 + 1 = 3
        rsp = rk.PopRSP().perform(hand_split).system.iloc[0, 0]
        assert rsp == pytest.approx(_cv([3 / 3, 2 / 3]), rel=1e-12)
        # PopREO, threshold 3: relevant u1 {c, e}, u2 {b, f, a}, u3 {b}
        # listed & relevant: u1 c (head), e (none); u2 b (head), f (none) -> head 2, tail 0
        # den head: u1 c, u2 b (a trained), u3 - (b trained) = 2; den tail: none -> 0: NaN
        assert np.isnan(rk.PopREO(relevant_threshold=3).perform(hand_split).system.iloc[0, 0])
        # pop_ratio 0.5: head {a}, tail {b, c, d}; relevant listed: u1 c (tail), u2 b (tail) -> head 0, tail 2
        # den head: u2's a trained -> 0: NaN again; PopRSP at 0.5: head a (u3) = 1, tail c, d, b, d = 4
        # den head: 0 (everyone trained a) -> NaN
        assert np.isnan(rk.PopRSP(pop_ratio=0.5).perform(hand_split).system.iloc[0, 0])


def test_listed_items_without_a_group_are_counted_in_a_warning():
    groups = HAND_GROUPS.drop(["e", "f"])
    split = rk.Split(HAND_PRED, HAND_TRUTH, train=HAND_TRAIN, item_groups=groups)
    with pytest.warns(RankevalWarning, match=r"RSP: 4 of 9 listed items have no group in `item_groups`, "
                                             r"e.g. \['e', 'f'\]: they count for no group"):
        got = rk.RSP().perform(split).system.iloc[0, 0]
    # x = {a, b}: listed b, a = 2, den u1 0, u2 1, u3 0 = 1; y = {c, d}: listed c, d, d = 3, den 2 + 1 + 2 = 5
    assert got == pytest.approx(_cv([2 / 1, 3 / 5]), rel=1e-12)
    with pytest.warns(RankevalWarning, match=r"PopRSP: 4 of 9 listed items are not in `train`"):
        rk.PopRSP().perform(split)


# ---------------------------------------------------------------------- against Elliot's loops


@st.composite
def fair_data(draw):
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(3, 12))
    items = [f"i{j:02d}" for j in range(n_items)]
    pred_rows, truth_rows, train_rows = [], [], []
    for u in range(int(rng.integers(1, 8))):
        listed = rng.choice(items, size=int(rng.integers(1, n_items + 1)), replace=False)
        pred_rows += [(f"u{u}", it, r + 1) for r, it in enumerate(listed)]
        rated = rng.choice(items, size=int(rng.integers(1, n_items + 1)), replace=False)
        truth_rows += [(f"u{u}", it, float(rng.integers(1, 6))) for it in rated]
    for u in range(int(rng.integers(1, 10))):
        trained = rng.choice(items, size=int(rng.integers(1, n_items + 1)), replace=False)
        train_rows += [(f"u{u}", it) for it in trained]
        if rng.random() < 0.3:
            train_rows.append((f"u{u}", trained[0]))          # a repeated interaction counts once
    grouped = [it for it in items if rng.random() < 0.9]
    groups = pd.Series({it: f"g{int(rng.integers(0, 3))}" for it in (grouped or items[:1])})
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "rank"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    k = draw(st.sampled_from([None, 1, 3]))
    return pred, truth, train, groups, k, draw(st.sampled_from([0.5, 0.8, 1.0])), draw(st.sampled_from([None, 3.0]))


def _same(got: float, expected: float) -> None:
    if np.isnan(expected) or np.isinf(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(fair_data())
def test_equal_elliot_loops(data):
    pred, truth, train, groups, k, pop_ratio, threshold = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        split = rk.Split(pred, truth, train=train, item_groups=groups)
        aclt = rk.ACLT(k, pop_ratio=pop_ratio).perform(split)
        expected = elliot_aclt(pred, truth, train, k, pop_ratio)
        got = aclt.users["ACLT" if k is None else f"ACLT@{k}"].to_dict()
        assert got == {u: float(v) for u, v in expected.items()}
        _same(rk.RSP(k).perform(split).system.iloc[0, 0],
              elliot_rsp(pred, truth, train, k, group_clusters(groups)))
        _same(rk.REO(k, relevant_threshold=threshold).perform(split).system.iloc[0, 0],
              elliot_reo(pred, truth, train, k, group_clusters(groups), threshold))
        _same(rk.PopRSP(k, pop_ratio=pop_ratio).perform(split).system.iloc[0, 0],
              elliot_rsp(pred, truth, train, k, pop_clusters(train, pop_ratio)))
        _same(rk.PopREO(k, pop_ratio=pop_ratio, relevant_threshold=threshold).perform(split).system.iloc[0, 0],
              elliot_reo(pred, truth, train, k, pop_clusters(train, pop_ratio), threshold))
        # Elliot's nDCG with threshold 1 on ratings 1..5: every rating relevant, gain 2**r - 1
        users = sorted(set(pred["user_id"]))
        user_groups = {f"g{j}": users[j::3] for j in range(3)}  # an empty group: NaN in both
        by_user = {u: g for g, ids in user_groups.items() for u in ids}
        for clustering in (None, by_user):
            expected = elliot_bias_disparity(pred, truth, train, k, dict(groups), clustering)
            for measure in ("BD", "BR", "BS"):
                cats = sorted(set(groups))
                bd = rk.BiasDisparity(cats, k, user_groups=None if clustering is None else user_groups,
                                      measure=measure)
                res = bd.perform(split).system.iloc[0]
                for metric in bd.expand():
                    group, cat = metric._cells()[0]
                    # a group without users is no cluster of Elliot's file: NaN here (no list, no training row)
                    _same(res[str(metric)], expected[measure].get(("all" if group is None else group, cat), np.nan))
        mad = rk.UserMAD(user_groups, rk.NDCGAtK(k or 100, gains="exponential"))
        _same(mad.perform(split).system.iloc[0, 0],
              elliot_user_mad(pred, truth, k or 100, {g: set(ids) for g, ids in user_groups.items()}, 1.0))


# ---------------------------------------------------------------------- orchestration


def test_evalmodel_and_compare_take_item_groups_and_several_cutoffs():
    metrics = [rk.RSP(k=[1, 2]), rk.REO(k=[1, 3], relevant_threshold=3), rk.ACLT(k=[1, 2]), rk.NDCGAtK(2)]
    sys_result, users = rk.EvalModel(HAND_PRED, HAND_TRUTH, metrics, train=HAND_TRAIN,
                                     item_groups=HAND_GROUPS).fit()
    assert sys_result.loc["fold1", "RSP@2"] == pytest.approx(_cv([3 / 4, 3 / 8]), rel=1e-12)
    assert "RSP@2" not in users.columns and "ACLT@2" in users.columns
    single = rk.Split(HAND_PRED, HAND_TRUTH, train=HAND_TRAIN, item_groups=HAND_GROUPS)
    assert sys_result.loc["fold1", "RSP@1"] == rk.RSP(1).perform(single).system.iloc[0, 0]
    res = rk.compare({"a": HAND_PRED, "b": HAND_PRED.assign(rank=4 - HAND_PRED["rank"])}, HAND_TRUTH,
                     [rk.RSP(2), rk.ACLT(2)], train=HAND_TRAIN, item_groups=HAND_GROUPS, n_resamples=50)
    assert res.system_values.loc["a", "RSP@2"] == pytest.approx(_cv([3 / 4, 3 / 8]), rel=1e-12)
    # b's top 2: u1 d e, u2 f d, u3 a f -> x: e, a = 2, y: d, f, d, f = 4
    assert res.system_values.loc["b", "RSP@2"] == pytest.approx(_cv([2 / 4, 4 / 8]), rel=1e-12)


def test_hand_worked_user_mad(hand_split):
    # P@1: u1 c relevant (>= 3) -> 1; u2 b -> 1; u3 e unjudged -> 0
    metric = rk.UserMAD({"g1": ["u1", "u3"], "g2": ["u2"], "g3": ["u9"]}, rk.PrecisionAtK(1, relevant_threshold=3))
    assert np.isnan(metric.perform(hand_split).system.iloc[0, 0])  # g3 has no evaluated user
    metric = rk.UserMAD(pd.Series({"u1": "g1", "u3": "g1", "u2": "g2"}), rk.PrecisionAtK(1, relevant_threshold=3))
    assert metric.perform(hand_split).system.iloc[0, 0] == pytest.approx(0.5, abs=1e-15)  # |1/2 - 1|
    assert str(metric) == "UserMAD[P@1]" and not metric.higher_is_better
    three = rk.UserMAD({"g1": ["u1"], "g2": ["u2"], "g3": ["u3"]}, rk.PrecisionAtK(1, relevant_threshold=3))
    assert three.perform(hand_split).system.iloc[0, 0] == pytest.approx((0 + 1 + 1) / 3, rel=1e-12)
    with pytest.raises(ValueError, match="`metric` of UserMAD must be one per-user metric"):
        rk.UserMAD({"g": ["u1"]}, rk.GiniIndex(10))
    with pytest.raises(ValueError, match="not shares"):
        rk.UserMAD({"g": 0.5, "h": 0.5})


def test_hand_worked_bias_disparity(hand_split):
    # item groups x = {a, b, e}, y = {c, d, f}: P(x) = P(y) = 1/2
    # recommendations, k=2: u1 c e, u2 b d, u3 e f -> x 3 of 6, y 3 of 6 -> BR 1, 1
    # train (distinct pairs): a b / a c / a b / a d -> x: a, b, a, a, b, a = 6 of 8, y: c, d = 2 of 8
    # -> BS x = (6/8)/(1/2) = 1.5, y = 0.5; BD x = (1 - 1.5)/1.5 = -1/3, y = (1 - 0.5)/0.5 = 1
    res = rk.BiasDisparity(["x", "y"], 2).perform(hand_split).system
    assert list(res.columns) == ["BD@2[x]", "BD@2[y]"]
    np.testing.assert_allclose(res.iloc[0].to_numpy(), [-1 / 3, 1.0], rtol=1e-12)
    groups = {"g1": ["u1", "u9"], "g2": ["u2", "u3"]}
    # g1: recs u1 c e -> x 1/2 -> BR x = 1; train u1 a b, u9 a d -> x 3/4 -> BS x = 1.5; BD = -1/3
    # g2: recs u2 b d, u3 e f -> x 2/4 -> BR 1; train u2 a c, u3 a b -> x 3/4 -> BS 1.5
    metric = rk.BiasDisparity("x", 2, user_groups=groups, measure="BS")
    assert metric.columns == ["BS@2[g1,x]", "BS@2[g2,x]"]
    sys_result, _ = rk.EvalModel(HAND_PRED, HAND_TRUTH, [metric], train=HAND_TRAIN, item_groups=HAND_GROUPS).fit()
    np.testing.assert_allclose(sys_result.loc["fold1", ["BS@2[g1,x]", "BS@2[g2,x]"]].to_numpy(float),
                               [1.5, 1.5], rtol=1e-12)
    with pytest.raises(ValueError, match=r"BD@2\[z\]: category 'z' is not a group of `item_groups`"):
        rk.BiasDisparity("z", 2).perform(hand_split)
    with pytest.raises(ValueError, match="`measure` must be one of"):
        rk.BiasDisparity("x", measure="XX")


def test_names_parse_back():
    for text in ["ACLT@10", "PopREO@10", "PopRSP@5", "REO@10", "RSP@10", "RSP", "ACLT@5,10"]:
        assert str(rk.parse_metric(text)) == text
    assert rk.parse_metric("RSP@10") == rk.RSP(10)
    assert not rk.RSP.higher_is_better and not rk.REO.higher_is_better
    assert not rk.PopREO.higher_is_better and not rk.PopRSP.higher_is_better and rk.ACLT.higher_is_better


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize("metric, side, match", [
    (rk.RSP(10), {"train": HAND_TRAIN}, r"RSP@10 needs side data: pass item_groups= \(a Series item id -> group"),
    (rk.REO(10), {"item_groups": HAND_GROUPS}, r"REO@10 needs side data: pass train="),
    (rk.PopREO(10), {"item_groups": HAND_GROUPS}, r"PopREO@10 needs side data: pass train="),
    (rk.ACLT(10), {}, r"ACLT@10 needs side data"),
])
def test_missing_side_data_names_the_argument(metric, side, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        split = rk.Split(HAND_PRED, HAND_TRUTH, **side)
        with pytest.raises(ValueError, match=match):
            metric.perform(split)
    with pytest.raises(ValueError, match=match.replace("needs side data", r"needs side data \(split 'fold1'\)")):
        rk.EvalModel(HAND_PRED, HAND_TRUTH, [metric], **side)


@pytest.mark.parametrize("groups, error, match", [
    (pd.Series(["x", "y"], index=["a", "a"]), ValueError, r"^`item_groups` repeats 1 item id in 2 rows: 'a' at "
                                                          r"positions 0 and 1; give each item one group$"),
    (pd.Series(["x", None], index=["a", "b"]), ValueError, r"`item_groups` has 1 item\(s\) without a group "
                                                           r"label, e.g. \['b'\]"),
    (pd.Series([], dtype=object), ValueError, r"`item_groups` is empty"),
    (pd.DataFrame({"a": [1], "b": [2], "c": [3]}), ValueError, r"`item_groups` is a frame with 3 columns"),
    ("x", TypeError, r"`item_groups` must be a Series"),
    (pd.Series(["x"], index=[7]), ValueError, r"`pred`\['item_id'\] holds text .* but `item_groups`\['item_id'\] "
                                              r"holds numbers"),
])
def test_bad_item_groups(groups, error, match):
    with pytest.raises(error, match=match):
        rk.Split(HAND_PRED, HAND_TRUTH, train=HAND_TRAIN, item_groups=groups)


def test_item_groups_forms_agree_and_are_not_mutated():
    frame = HAND_GROUPS.rename_axis("item_id").reset_index(name="group")
    before = frame.copy()
    values = []
    for groups in (HAND_GROUPS, frame, dict(HAND_GROUPS), frame[["group", "item_id"]]):
        split = rk.Split(HAND_PRED, HAND_TRUTH, train=HAND_TRAIN, item_groups=groups)
        values.append(rk.RSP(2).perform(split).system.iloc[0, 0])
    assert len(set(values)) == 1
    pd.testing.assert_frame_equal(frame, before)


def test_bad_pop_ratio():
    with pytest.raises(ValueError, match="pop_ratio"):
        rk.PopRSP(10, pop_ratio=0)
    with pytest.raises(ValueError, match="pop_ratio"):
        rk.ACLT(10, pop_ratio=1.5)


# ---------------------------------------------------------------------- Spark


def test_spark_equals_pandas_for_any_bucketing(spark):
    rng = np.random.default_rng(5)
    items = [f"i{j:03d}" for j in range(60)]
    pred_rows, truth_rows, train_rows = [], [], []
    for u in range(200):
        listed = rng.choice(items, size=int(rng.integers(1, 15)), replace=False)
        scores = rng.permutation(len(listed)).astype(float)
        pred_rows += [(f"u{u:03d}", it, s) for it, s in zip(listed, scores)]
        if u % 7:
            rated = rng.choice(items, size=int(rng.integers(1, 10)), replace=False)
            truth_rows += [(f"u{u:03d}", it, float(rng.integers(1, 6))) for it in rated]
        trained = rng.choice(items, size=int(rng.integers(1, 20)), replace=False)
        train_rows += [(f"u{u:03d}", it) for it in trained]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    groups = pd.Series({it: f"p{j % 4}" for j, it in enumerate(items[:55])})
    user_groups = pd.Series({f"u{u:03d}": f"g{u % 3}" for u in range(190)})
    metrics = [rk.RSP(k=[3, 10]), rk.REO(10), rk.PopRSP(5), rk.PopREO(10, relevant_threshold=3), rk.ACLT(k=[5, 10]),
               rk.UserMAD(user_groups), rk.BiasDisparity(["p0", "p1"], 10, user_groups=user_groups)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, pd_users = rk.EvalModel(pred, truth, metrics, ties="item_id", train=train,
                                        item_groups=groups).fit()
        for b in (1, 4):
            sp_sys, sp_users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), metrics,
                                            n_buckets=b, train=train, item_groups=groups).fit()
            pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
            got = sp_users.toPandas().set_index(["split", "user_id"]).sort_index()
            np.testing.assert_array_equal(got.to_numpy(), pd_users.sort_index().to_numpy())
    assert np.isfinite(pd_sys.loc["fold1", ["RSP@3", "RSP@10", "REO@10", "PopRSP@5", "PopREO@10",
                                            "UserMAD[NDCG@10]"]]).all()


def test_the_ungrouped_items_warning_reaches_the_caller_on_spark(spark):
    rng = np.random.default_rng(8)
    items = [f"i{j:03d}" for j in range(40)]
    pred = pd.DataFrame([(f"u{u:03d}", it, float(s)) for u in range(120)
                         for s, it in enumerate(rng.choice(items, size=12, replace=False))],
                        columns=["user_id", "item_id", "score"])
    truth = pred.groupby("user_id").head(4).assign(score=lambda d: rng.integers(1, 6, len(d)).astype(float))
    groups = pd.Series({it: f"p{j % 3}" for j, it in enumerate(items[:33])})  # i033..i039 have no group
    metrics = [rk.RSP(10), rk.REO(10), rk.ItemMAD(10)]
    # by plain pandas: the first 10 of every list (scores descending), rows whose item has no group
    first = pred.sort_values(["user_id", "score"], ascending=[True, False]).groupby("user_id").head(10)
    ungrouped = first[~first["item_id"].isin(groups.index)]
    examples = sorted(ungrouped["item_id"].unique())[:5]
    expected = [f"{m}: {len(ungrouped)} of {len(first)} listed items have no group in `item_groups`, "
                f"e.g. {examples}: they count for no group" for m in ("RSP@10", "REO@10", "ItemMAD@10")]

    def messages(fit):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fit()
        return result, sorted(str(w.message) for w in caught if "count for no group" in str(w.message))

    (pd_sys, _), shown = messages(lambda: rk.EvalModel(pred, truth, metrics, train=pred, item_groups=groups,
                                                       ties="item_id").fit())
    assert shown == sorted(expected)
    for b in (1, 4):
        (sp_sys, _), shown = messages(lambda: rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth),
                                                           metrics, n_buckets=b, train=pred, item_groups=groups
                                                           ).fit())
        assert shown == sorted(expected)
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)


# ---------------------------------------------------------------------- command line


def test_cli_item_groups(tmp_path, monkeypatch, capsys):
    from rankeval.cli import main

    monkeypatch.chdir(tmp_path)
    HAND_PRED.to_csv("pred.csv", index=False)
    HAND_TRUTH.to_csv("truth.csv", index=False)
    HAND_TRAIN.to_csv("train.csv", index=False)
    HAND_GROUPS.rename_axis("item_id").reset_index(name="provider").to_csv("groups.csv", index=False)
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", "--train", "train.csv",
                   "--item-groups", "groups.csv", "-m", "RSP@2", "-m", "ACLT@2", "--format", "csv"])
    out = capsys.readouterr().out
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out), index_col=0)
    assert table.loc["fold1", "RSP@2"] == pytest.approx(_cv([3 / 4, 3 / 8]), rel=1e-12)
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", "--train", "train.csv",
                   "-m", "RSP@2"])
    assert status == 2
    assert "RSP@2 needs side data (split 'fold1'): pass --item-groups (a Series item id -> group, e.g. the provider)\n" in capsys.readouterr().err
    pd.DataFrame({"a": ["x"], "b": ["y"], "c": ["z"]}).to_csv("bad.csv", index=False)
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", "--train", "train.csv",
                   "--item-groups", "bad.csv", "-m", "RSP@2"])
    assert status == 2
    assert "--item-groups file 'bad.csv' has 3 columns" in capsys.readouterr().err
