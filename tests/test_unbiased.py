"""Propensity-weighted (IPS, SNIPS) metrics and propensities: hand-worked values, a plain-loop
oracle under hypothesis, the names, compare on the weighted per-user values, bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from rankeval.unbiased import (
    AOA,
    Propensity,
    PropensityClippedWarning,
    Unbiased,
    UnseenItemsWarning,
    fit_power_law_exponent,
    with_propensity,
)
from rankeval.metrics.unbiased._metric import _weighted

# ---------------------------------------------------------------------- the plain-loop oracle


def _oracle(kind, k, estimator, listed, relevant, w):
    """One user's value, the formulas of docs/unbiased.md written out item by item.

    ``listed``: the items in list order; ``relevant``: the set of relevant truth items;
    ``w``: item -> 1/p."""
    n = len(relevant)
    if n == 0:
        return math.nan
    cut = listed if k is None else listed[:k]
    total = 0.0
    if kind in ("recall", "precision", "dcg", "ndcg"):
        for r, item in enumerate(cut, start=1):
            if item in relevant:
                total += w[item] * (1.0 if kind in ("recall", "precision") else 1.0 / math.log2(r + 1))
        if kind == "recall":
            total /= n
        elif kind == "precision":
            total /= k
        elif kind == "ndcg":
            total /= sum(1.0 / math.log2(j + 1) for j in range(1, min(n, k or n) + 1))
    elif kind in ("hit", "rr"):
        for r, item in enumerate(cut, start=1):
            if item in relevant:
                total = w[item] if kind == "hit" else w[item] / r
                break
    elif kind == "ap":
        for r, item in enumerate(cut, start=1):
            if item in relevant:
                above = sum(w[j] for j in cut[:r - 1] if j in relevant)
                total += w[item] / r * (1.0 + above)
        total /= n
    else:  # aoa
        negatives = [j for j in listed if j not in relevant]
        if not negatives:
            return math.nan
        for r, item in enumerate(listed, start=1):
            if item in relevant:
                below = sum(1 for j in listed[r:] if j not in relevant)
                total += w[item] * below / len(negatives)
        total /= n
    if estimator == "snips":
        total *= n / sum(w[i] for i in relevant)
    return total


def _metric(kind, k):
    return {"recall": rk.RecallAtK(k, relevant_threshold=3), "precision": rk.PrecisionAtK(k, relevant_threshold=3),
            "hit": rk.HitRateAtK(k, relevant_threshold=3), "rr": rk.MRRAtK(k, relevant_threshold=3),
            "ap": rk.MAPAtK(k, relevant_threshold=3), "dcg": rk.DCGAtK(k, gains="binary", relevant_threshold=3),
            "ndcg": rk.NDCGAtK(k, gains="binary", relevant_threshold=3), "aoa": AOA(relevant_threshold=3)}[kind]


KINDS = ["recall", "precision", "hit", "rr", "ap", "dcg", "ndcg", "aoa"]


@st.composite
def _data(draw):
    n_items = draw(st.integers(3, 12))
    n_users = draw(st.integers(1, 8))
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        listed = draw(st.permutations(range(n_items)))[:draw(st.integers(1, n_items))]
        rated = draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=n_items, unique=True))
        pred_rows += [(u, f"i{i}", float(len(listed) - r)) for r, i in enumerate(listed)]
        truth_rows += [(u, f"i{i}", float(draw(st.integers(1, 5)))) for i in rated]
    p = draw(st.lists(st.floats(0.01, 1.0), min_size=n_items, max_size=n_items))
    return (pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]),
            pd.Series(p, index=[f"i{i}" for i in range(n_items)]))


@settings(max_examples=60)
@given(_data(), st.sampled_from(KINDS), st.sampled_from([1, 3, 20]), st.sampled_from(["ips", "snips"]))
def test_every_estimator_equals_the_plain_loop(data, kind, k, estimator):
    pred, truth, p = data
    metric = Unbiased(_metric(kind, k), Propensity.given(p), estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.MissingUsersWarning)
        got = metric.perform(rk.Split(pred, truth)).users.iloc[:, 0]
    w = (1.0 / p).to_dict()
    for user, value in got.items():
        listed = pred[pred.user_id == user].sort_values("score", ascending=False).item_id.tolist()
        rows = truth[truth.user_id == user]
        relevant = set(rows.item_id[rows.score >= 3])
        expected = _oracle(kind, None if kind == "aoa" else k, estimator, listed, relevant, w)
        if math.isnan(expected):
            assert math.isnan(value)
        else:
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=60)
@given(_data(), st.sampled_from(KINDS), st.sampled_from([1, 3, 20]), st.sampled_from(["ips", "snips"]),
       st.booleans(), st.booleans())
def test_the_rows_a_form_reads_give_the_bits_of_every_listed_row(data, kind, k, estimator, pairs, shuffled):
    """A weighted form reads the items of the relevant listed rows it needs (for HitRate and MRR
    each user's first) through ``item_codes_at``: the same bits as the weights of every relevant
    row, looked up by (user id, item id) in a dict of ``1/p``, summed by the same kernel."""
    pred, truth, p = data
    if shuffled:  # the join then reorders the rows: item_codes_at gathers through that order
        pred = pred.sample(frac=1.0, random_state=len(pred))
    truth = truth.assign(propensity=p.reindex(truth.item_id).to_numpy() * (1 + truth.user_id) / 8)
    model = Propensity.given(truth if pairs else p)
    metric = Unbiased(_metric(kind, k), model, estimator)
    with warnings.catch_warnings():  # users without a list, few judged rows: not what is tested
        warnings.simplefilter("ignore", RankevalWarning)
        lists = rk.Split(pred, truth).ranked_lists().for_threshold(3)
    view = lists if kind == "aoa" else lists.head(k)
    view.rows_cache.pop("row_item_codes", None)
    got = metric.per_user(view)
    rows = np.flatnonzero(view.relevant & (view.position <= (k if metric.k is not None else view.position.max())))
    assert np.array_equal(view.item_codes_at(rows), view.item_codes[rows])  # cached now: read from it
    assert np.array_equal(view.item_codes_at(rows), np.asarray(view.item_codes)[rows])
    users = view.user_of_row[rows]
    keys = zip(view.user_ids[users], view.item_uniques[view.item_codes[rows]], strict=True)
    inverse = {(u, i): 1.0 / q for u, i, q in truth[["user_id", "item_id", "propensity"]].itertuples(index=False)} \
        if pairs else {(u, i): 1.0 / p[i] for u, i in zip(truth.user_id, truth.item_id, strict=True)}
    expected = _weighted(metric.metric, metric.kind, view, rows, np.array([inverse[key] for key in keys]))
    if estimator == "snips":
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = expected * (view.n_relevant / model.weight_sums(view, metric))
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------- hand-worked values

PRED = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user_id": 1, "item_id": ["a", "c", "e"], "score": 1.0})
P = pd.Series({"a": 0.5, "b": 0.9, "c": 0.25, "d": 0.9, "e": 1.0})  # w: a 2, c 4, e 1; W = 7
IDCG3 = 1 + 1 / math.log2(3) + 1 / 2


@pytest.mark.parametrize(("name", "ips"), [
    ("R@3", (2 + 4) / 3),
    ("P@3", (2 + 4) / 3),
    ("HR@3", 2.0),
    ("MRR", 2.0),
    ("DCG@3", 2 / 1 + 4 / 2),
    ("NDCG@3", (2 + 4 / 2) / IDCG3),
    ("MAP@3", (2 / 1 * (1 + 0) + 4 / 3 * (1 + 2)) / 3),  # a at 1; c at 3 with a's weight above it
    ("AOA", (2 * 2 / 2 + 4 * 1 / 2) / 3),  # negatives b, d: a has both below, c one
], ids=lambda v: v if isinstance(v, str) else "")
def test_hand_worked_values(name, ips):
    split = rk.Split(PRED, TRUTH)
    for estimator, expected in (("IPS", ips), ("SNIPS", ips * 3 / 7)):
        metric = with_propensity([rk.parse_metric(f"{name}-{estimator}")], Propensity.given(P))[0]
        assert str(metric) == f"{name}-{estimator}"
        value = metric.perform(split).system.iloc[0, 0]
        assert value == pytest.approx(expected, rel=1e-15)


def test_with_every_propensity_1_the_plain_metric():
    rng = np.random.default_rng(3)
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(40), 8),
                         "item_id": np.concatenate([rng.permutation(25)[:8] for _ in range(40)])})
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(40), 4),
                          "item_id": np.concatenate([rng.permutation(25)[:4] for _ in range(40)]),
                          "score": rng.integers(1, 6, 160).astype(float)})
    split = rk.Split(pred, truth)
    ones = Propensity.given(pd.Series(1.0, index=np.arange(25)))
    for plain in (rk.RecallAtK(5), rk.PrecisionAtK(5), rk.HitRateAtK(5), rk.MRR(), rk.MAPAtK(5),
                  rk.MAPAtK(5, denominator="min_k"), rk.NDCGAtK(5, gains="binary"), rk.DCG(gains="binary")):
        expected = plain.perform(split).users.iloc[:, 0].to_numpy()
        for estimator in ("ips", "snips"):
            got = Unbiased(plain, ones, estimator).perform(split).users.iloc[:, 0].to_numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_aoa_is_the_share_of_positives_times_the_listed_auc():
    # AOA_u = (listed positives / n_u) * AUC_u with every other listed item a negative, list order deciding
    rng = np.random.default_rng(5)
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(30), 10),
                         "item_id": np.concatenate([rng.permutation(20)[:10] for _ in range(30)])})
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(30), 5),
                          "item_id": np.concatenate([rng.permutation(20)[:5] for _ in range(30)]), "score": 1.0})
    split = rk.Split(pred, truth)
    aoa = AOA(1).perform(split).users.iloc[:, 0]
    auc = rk.AUC(relevant_threshold=1, ties="list_order").perform(split).users.iloc[:, 0]
    hits = pred.merge(truth, on=["user_id", "item_id"]).groupby("user_id").size().reindex(aoa.index, fill_value=0)
    expected = np.where(hits > 0, hits / 5 * auc.fillna(0), 0.0)
    np.testing.assert_allclose(aoa.to_numpy(), expected, rtol=1e-14, atol=1e-15)


# ---------------------------------------------------------------------- propensity forms

TRAIN = pd.DataFrame({"user_id": [1, 2, 3, 4, 1, 2, 1, 1],
                      "item_id": ["a", "a", "a", "a", "c", "c", "e", "e"]})  # a 4 users, c 2, e 1 (repeat once)


def test_normalised_popularity_from_train():
    split = rk.Split(PRED, TRUTH, train=TRAIN)
    value = Unbiased(rk.RecallAtK(3), Propensity.popularity(1.0)).perform(split).system.iloc[0, 0]
    # p: a 4/4, c 2/4, e 1/4 -> w 1, 2, 4; a and c listed within 3
    assert value == pytest.approx((1 + 2) / 3, rel=1e-15)
    snips = Unbiased(rk.RecallAtK(3), Propensity.popularity(0.5), "snips").perform(split).system.iloc[0, 0]
    w = [1, math.sqrt(2), 2]
    assert snips == pytest.approx((w[0] + w[1]) / sum(w), rel=1e-15)


def test_power_law_propensity_given_and_fitted_gamma():
    split = rk.Split(PRED, TRUTH, train=TRAIN)
    value = Unbiased(rk.RecallAtK(3), Propensity.power_law(gamma=1.0)).perform(split).system.iloc[0, 0]
    assert value == pytest.approx((1 + 2) / 3, rel=1e-15)  # exponent (1 + 1)/2 = 1
    counts = np.array([4, 2, 1])
    gamma = 1 + 3 / np.log(counts / 0.5).sum()  # Clauset et al. eq. 3.7 with x_min = 1
    assert fit_power_law_exponent(counts) == pytest.approx(gamma, rel=1e-15)
    fitted = Unbiased(rk.RecallAtK(3), Propensity.power_law()).perform(split).system.iloc[0, 0]
    e = (gamma + 1) / 2
    assert fitted == pytest.approx((1 + 2 ** e) / 3, rel=1e-14)


def test_per_pair_propensities_from_a_truth_column():
    truth = TRUTH.assign(propensity=[0.5, 0.25, 1.0])
    metric = Unbiased(rk.RecallAtK(3), Propensity.given(truth))
    assert metric.perform(rk.Split(PRED, truth)).system.iloc[0, 0] == pytest.approx(2.0, rel=1e-15)


def test_clipping_counts_the_rows():
    with pytest.warns(PropensityClippedWarning, match=r"1 of 3 relevant truth rows had their propensity clipped"):
        value = Unbiased(rk.RecallAtK(3), Propensity.given(P, floor=0.5)).perform(rk.Split(PRED, TRUTH))
    assert value.system.iloc[0, 0] == pytest.approx((2 + 2) / 3, rel=1e-15)
    with pytest.warns(PropensityClippedWarning, match=r"2 of 3 relevant"):
        value = Unbiased(rk.RecallAtK(3), Propensity.given(P, cap=1.5)).perform(rk.Split(PRED, TRUTH))
    assert value.system.iloc[0, 0] == pytest.approx((1.5 + 1.5) / 3, rel=1e-15)


def test_items_without_training_interactions_get_popularity_1_with_a_count():
    train = TRAIN[TRAIN.item_id != "e"]
    with pytest.warns(UnseenItemsWarning, match=r"1 of 3 relevant truth rows hold items without training"):
        value = Unbiased(rk.RecallAtK(3), Propensity.popularity(1.0)).perform(rk.Split(PRED, TRUTH, train=train))
    assert value.system.iloc[0, 0] == pytest.approx((1 + 2) / 3, rel=1e-15)


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("values", "match"), [
    (pd.Series({"a": 0.0}), r"`propensity` must be in \(0, 1\].*1 values outside it"),
    (pd.Series({"a": 1.5, "b": np.nan}), r"2 values outside it"),
    (pd.Series([0.5, 0.5], index=["a", "a"]), r"gives 1 keys twice"),
    (pd.Series({"a": "x"}), r"must hold numbers"),
])
def test_bad_propensities(values, match):
    with pytest.raises(ValueError, match=match):
        Propensity.given(values)


def test_a_missing_propensity_is_an_error_that_counts_the_rows():
    with pytest.raises(ValueError, match=r"no value for 1 of 3 relevant truth rows of R@3-IPS \(items\), e.g. "
                                         r"items \['e'\]"):
        Unbiased(rk.RecallAtK(3), Propensity.given(P.drop("e"))).perform(rk.Split(PRED, TRUTH))


def test_estimated_propensities_need_train():
    with pytest.raises(ValueError, match=r"R@3-IPS needs side data: pass train="):
        Unbiased(rk.RecallAtK(3)).perform(rk.Split(PRED, TRUTH))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: Propensity.popularity(0), r"`power` must be a finite number > 0"),
    (lambda: Propensity.given(P, cap=0.5), r"`cap` must be a finite number >= 1"),
    (lambda: Propensity.given(P, floor=0), r"`floor`"),
    (lambda: Unbiased(rk.Correlation("kendall")), r"has no propensity-weighted form"),
    (lambda: Unbiased(rk.MAPAtK(5, denominator="hits")), r"divides by n_u or min\(n_u, k\)"),
    (lambda: Unbiased(rk.RecallAtK(5), estimator="dr"), r"`estimator`"),
    (lambda: rk.parse_metric("kendall@5-IPS"), r"metric 'kendall@5-IPS': .*no propensity-weighted form"),
])
def test_bad_options(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_names_round_trip():
    for name in ("R@10-IPS", "NDCG@10-SNIPS", "MAP-IPS", "MRR@3-SNIPS", "HR@5-IPS", "P@10-SNIPS", "DCG@5-IPS",
                 "AOA-SNIPS"):
        metric = rk.parse_metric(name)
        assert str(metric) == name and rk.parse_metric(str(metric)) == metric
    assert str(rk.parse_metric("r@10-ips")) == "R@10-IPS"


# ---------------------------------------------------------------------- EvalModel and compare


def _systems():
    rng = np.random.default_rng(11)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(60), 4),
                          "item_id": np.concatenate([rng.choice(30, 4, replace=False) for _ in range(60)]),
                          "score": 1.0})
    train = pd.DataFrame({"user_id": rng.integers(0, 60, 400), "item_id": (rng.pareto(1.2, 400) * 3).astype(int) % 30})
    systems = {name: pd.DataFrame({"user_id": np.repeat(np.arange(60), 10),
                                   "item_id": np.concatenate([rng.permutation(30)[:10] for _ in range(60)])})
               for name in ("a", "b")}
    return systems, truth, train


def test_compare_tests_the_weighted_per_user_values():
    systems, truth, train = _systems()
    metric = Unbiased(rk.RecallAtK(5), Propensity.popularity(0.5), "ips")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenItemsWarning)
        warnings.simplefilter("ignore", rk.ProtocolWarning)  # random lists hold training items: not the point here
        result = rk.compare(systems, truth, [metric], train=train, test="paired_t", correction=None)
        per_user = {s: metric.perform(rk.Split(p, truth, train=train)).users.iloc[:, 0] for s, p in systems.items()}
    row = result.table.loc[("R@5-IPS", "a", "b")]
    a, b = per_user["a"].to_numpy(), per_user["b"].to_numpy()
    assert row["diff"] == pytest.approx(np.mean(b - a), rel=1e-12)
    assert row["p_value"] == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-9)


def test_eval_model_takes_the_names_and_a_model():
    systems, truth, train = _systems()
    model = Propensity.popularity(0.5)
    metrics = with_propensity([rk.parse_metric("R@5-IPS"), rk.parse_metric("R@5-SNIPS"), rk.RecallAtK(5)], model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenItemsWarning)
        warnings.simplefilter("ignore", rk.ProtocolWarning)
        sys_result, users = rk.EvalModel(systems["a"], truth, metrics, train=train).fit()
        expected = metrics[0].perform(rk.Split(systems["a"], truth, train=train)).system.iloc[0, 0]
    assert list(users.columns[-3:]) == ["R@5-IPS", "R@5-SNIPS", "R@5"]
    assert sys_result.loc["mean", "R@5-IPS"] == pytest.approx(expected, rel=1e-15)


def test_strata_give_unseen_items_popularity_1_with_a_count():
    from rankeval.unbiased import UnseenItemsWarning, stratified
    train = TRAIN[TRAIN.item_id != "e"]
    with pytest.warns(UnseenItemsWarning, match=r"strata: 1 of 3 truth rows hold items without training"):
        table = stratified(PRED, TRUTH, [rk.RecallAtK(3)], Propensity.popularity(1.0), 2, train=train)
    # p: a 1, c 2/4, e 1/4 -> bins over [0.2475, 1.01] of width 0.38125: e and c in Q1, a in Q2
    assert table.loc["Q1", "size"] == 2 and table.loc["Q2", "size"] == 1
    assert table.loc["Q1", "R@3"] == pytest.approx(1 / 2, rel=1e-15)  # c listed at 3, e unlisted
    assert table.loc["strata", "R@3"] == pytest.approx(2 / 3 * 1 / 2 + 1 / 3 * 1, rel=1e-15)


def test_a_weighted_form_is_a_mean_over_users():
    with pytest.raises(ValueError, match=r"a weighted form is a mean over users, not average='micro'"):
        Unbiased(rk.PrecisionAtK(5, average="micro"))
