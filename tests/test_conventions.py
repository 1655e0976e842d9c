"""Conventions: every knob on hand-computed cases, and every preset against its peer.

Three parts:

- the convention knobs (``no_relevant``, the MAP / P@k / R@k denominators, NDCG's
  binary gains, Jarvelin discount and ``min_k_ones`` ideal, ``Split(ties="item_id_desc")``)
  on one-user cases whose values are written out as formulas;
- ``with_convention``, ``EvalModel(convention=...)`` and ``compare(convention=...)``;
- each preset against its peer on seeded random data, per user (or per system where the
  peer gives only that) to 1e-12. trec_eval (pytrec_eval), ranx and Spark MLlib's
  ``RankingMetrics`` run inside the tests. RecBole, Microsoft Recommenders, LensKit and
  ClayRS do not install beside this project's stack: their formulas are re-derived from
  their source below, one small per-user function each, with the peer's file and function
  named beside it; their real outputs, made in environments of their own, are stored under
  tests/reference/ and checked by tests/test_<peer>_reference.py.

The random lists have distinct scores within a user, so the tie rule only matters in the
tests that say so (trec_eval on tied scores).
"""

from __future__ import annotations

import functools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import (
    DCG,
    MAP,
    MRR,
    NDCG,
    Correlation,
    DCGAtK,
    EvalModel,
    HitRateAtK,
    MAPAtK,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
    Split,
)
from rankeval.conventions import CONVENTIONS, names
from rankeval.exceptions import MissingUsersWarning

from ._peer_data import as_qrels, as_run, peer_frames
from ._require import require

TOL = dict(rtol=1e-12, atol=1e-12)
SEEDS = [0, 1, 2]
KS = (5, 10)


def approx(x: float):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- #
# hand-computed knobs
# --------------------------------------------------------------------------- #
def one_user(listed, truth, scores=None, **split_options) -> Split:
    """One user "u": ``listed`` in list order (scores descending unless given), ``truth`` a
    dict item -> grade."""
    if scores is None:
        scores = [float(len(listed) - i) for i in range(len(listed))]
    pred = pd.DataFrame({"user_id": "u", "item_id": list(listed), "score": [float(s) for s in scores]})
    truth_df = pd.DataFrame({"user_id": "u", "item_id": list(truth), "score": [float(g) for g in truth.values()]})
    return Split(pred, truth_df, **split_options)


def value(metric, split: Split) -> float:
    return float(metric.perform(split).users[str(metric)].iloc[0])


# a worked example: R = {a, b, c, d}, list [a, x, b, y, z], k = 3.
# Relevant items at positions 1 and 3: precisions 1/1 and 2/3.
WORKED_LIST = ["a", "x", "b", "y", "z"]
WORKED_TRUTH = {"a": 1, "b": 1, "c": 1, "d": 1}


@pytest.mark.parametrize("denominator, expected", [
    ("relevant", (1 / 1 + 2 / 3) / 4),   # / m_u = 4                   -> 0.4167
    ("min_k", (1 / 1 + 2 / 3) / 3),      # / min(m_u, k) = 3           -> 0.5556
    ("hits", (1 / 1 + 2 / 3) / 2),       # / relevant found in top 3   -> 0.8333
    ("listed", (1 / 1 + 2 / 3) / 3),     # / min(m_u, min(5, k)) = 3   -> 0.5556
])
def test_worked_example_ap_at_3_under_each_denominator(denominator, expected):
    s = one_user(WORKED_LIST, WORKED_TRUTH)
    metric = MAPAtK(3, relevant_threshold=1, denominator=denominator)
    assert value(metric, s) == approx(expected)
    assert f"denominator={denominator!r}" in repr(metric)


def test_worked_example_rounded_values_and_the_precision_average():
    s = one_user(WORKED_LIST, WORKED_TRUTH)
    got = {d: round(value(MAPAtK(3, relevant_threshold=1, denominator=d), s), 4)
           for d in ("relevant", "min_k", "hits", "listed")}
    assert got == {"relevant": 0.4167, "min_k": 0.5556, "hits": 0.8333, "listed": 0.5556}
    # 0.7222 is the mean of P@1, P@2, P@3: precision at every cutoff, not at the relevant
    # positions; no denominator (and no preset) gives it
    p = [value(PrecisionAtK(i, relevant_threshold=1), s) for i in (1, 2, 3)]
    assert p == [1.0, 0.5, approx(2 / 3)]
    assert round(sum(p) / 3, 4) == 0.7222
    assert 0.7222 not in got.values()
    # the presets: m_u for trec_eval, ranx, ClayRS; min(m_u, k) for RecBole, MLlib, Recommenders;
    # min(m_u, listed within k) for LensKit (here 3 as well)
    by_convention = {c: round(value(MAPAtK(3, relevant_threshold=1).with_convention(c), s), 4) for c in names()}
    assert by_convention == {"rankeval": 0.4167, "trec_eval": 0.4167, "ranx": 0.4167, "clayrs": 0.4167,
                             "recbole": 0.5556, "spark_mllib": 0.5556, "ms_recommenders": 0.5556,
                             "lenskit": 0.5556}


def test_listed_denominator_differs_from_min_k_on_a_list_shorter_than_k():
    # R = {a, b, c, d}, list [a, x] (2 items), k = 3: one relevant item, at position 1
    s = one_user(["a", "x"], WORKED_TRUTH)
    assert value(MAPAtK(3, relevant_threshold=1, denominator="relevant"), s) == approx(1 / 4)
    assert value(MAPAtK(3, relevant_threshold=1, denominator="min_k"), s) == approx(1 / 3)   # min(4, 3)
    assert value(MAPAtK(3, relevant_threshold=1, denominator="listed"), s) == approx(1 / 2)  # min(4, 2)
    assert value(MAPAtK(3, relevant_threshold=1, denominator="hits"), s) == approx(1 / 1)
    # MAP without k: "listed" is min(m_u, list length), "min_k" is m_u
    assert value(MAP(relevant_threshold=1, denominator="listed"), s) == approx(1 / 2)
    assert value(MAP(relevant_threshold=1, denominator="min_k"), s) == approx(1 / 4)
    # the list holds more relevant items than the truth: listed = min(m_u, ...) = m_u
    s2 = one_user(["a", "b", "x"], {"a": 1, "b": 1})
    assert value(MAPAtK(3, relevant_threshold=1, denominator="listed"), s2) == approx((1 + 1) / 2)


def test_hits_denominator_is_zero_when_no_relevant_item_is_found():
    # the user has relevant items, none in the first k: 0 (not NaN: the user has some)
    s = one_user(["x", "y", "a"], WORKED_TRUTH)
    assert value(MAPAtK(2, relevant_threshold=1, denominator="hits"), s) == 0.0
    assert value(MAPAtK(3, relevant_threshold=1, denominator="hits"), s) == approx(1 / 3)


NO_RELEVANT_METRICS = [
    lambda **kw: MAP(relevant_threshold=1, **kw),
    lambda **kw: MAPAtK(1, relevant_threshold=1, **kw),
    lambda **kw: MRR(relevant_threshold=1, **kw),
    lambda **kw: MRRAtK(1, relevant_threshold=1, **kw),
    lambda **kw: PrecisionAtK(1, relevant_threshold=1, **kw),
    lambda **kw: RecallAtK(1, relevant_threshold=1, **kw),
    lambda **kw: HitRateAtK(1, relevant_threshold=1, **kw),
    lambda **kw: NDCG(relevant_threshold=1, **kw),                       # every grade 0: IDCG = 0
    lambda **kw: NDCGAtK(1, gains="binary", ideal="min_k_ones", relevant_threshold=1, **kw),
]


@pytest.mark.parametrize("make", NO_RELEVANT_METRICS)
def test_no_relevant_is_nan_or_zero(make):
    # user "u": only grade 0, no relevant item at threshold 1; user "v": a hit at rank 1 (k = 1)
    pred = pd.DataFrame({"user_id": ["u", "u", "v"], "item_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["u", "u", "v"], "item_id": ["a", "b", "c"], "score": [0.0, 0.0, 1.0]})
    s = Split(pred, truth)
    default, zero = make(), make(no_relevant="zero")
    assert "no_relevant='nan'" in repr(default) and "no_relevant='zero'" in repr(zero)
    users = default.perform(s).users[str(default)]
    assert np.isnan(users["u"]) and users["v"] == 1.0
    assert default.perform(s).system.iloc[0, 0] == 1.0        # NaN users are left out
    users = zero.perform(s).users[str(zero)]
    assert users["u"] == 0.0 and users["v"] == 1.0
    assert zero.perform(s).system.iloc[0, 0] == 0.5           # the 0 is averaged in


GRADED = {"a": 3, "b": 2, "c": 1, "d": 1, "e": 0}   # e: judged, grade 0


def test_ndcg_binary_gains():
    # list [a, x, b, y, z]: relevant (grade >= 1) a at 1, b at 3; m_u = 4 (a, b, c, d)
    s = one_user(WORKED_LIST, GRADED)
    d = lambda i: 1 / math.log2(i + 1)  # noqa: E731  (the log2 discount at 1-based position i)
    dcg = d(1) + d(3)
    metric = NDCGAtK(3, gains="binary", relevant_threshold=1)
    assert "gains='binary'" in repr(metric)
    assert value(metric, s) == approx(dcg / (d(1) + d(2) + d(3)))       # ideal: 3 ones within k
    assert value(NDCG(gains="binary", relevant_threshold=1), s) == approx(dcg / (d(1) + d(2) + d(3) + d(4)))
    # the threshold decides what gains 1: at 2, only a and b are relevant
    assert value(NDCGAtK(3, gains="binary", relevant_threshold=2), s) == approx(dcg / (d(1) + d(2)))
    # linear gains, for contrast: the grades themselves
    assert value(NDCGAtK(3), s) == approx((3 * d(1) + 2 * d(3)) / (3 * d(1) + 2 * d(2) + 1 * d(3)))
    # binary DCG
    assert value(DCGAtK(3, gains="binary", relevant_threshold=1), s) == approx(dcg)


def test_ndcg_jarvelin_discount():
    # discount 1/log2(max(i, 2)): positions 1 and 2 both get 1
    s = one_user(WORKED_LIST, GRADED)
    d = lambda i: 1 / math.log2(max(i, 2))  # noqa: E731
    metric = NDCGAtK(3, gains="binary", discount="jarvelin", relevant_threshold=1)
    assert "discount='jarvelin'" in repr(metric)
    assert value(metric, s) == approx((d(1) + d(3)) / (d(1) + d(2) + d(3)))
    assert value(metric, s) == approx((1 + 1 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert value(DCG(gains="binary", discount="jarvelin", relevant_threshold=1), s) == approx(1 + 1 / math.log2(3))
    # linear gains with the Jarvelin discount: a (3) at 1, b (2) at 3
    assert value(DCGAtK(3, discount="jarvelin"), s) == approx(3 + 2 / math.log2(3))
    # a relevant item at position 2 counts as much as at position 1
    s2 = one_user(["x", "a"], {"a": 1})
    assert value(NDCG(gains="binary", discount="jarvelin", relevant_threshold=1), s2) == 1.0
    assert value(NDCG(gains="binary", relevant_threshold=1), s2) == approx(1 / math.log2(3))


def test_ndcg_min_k_ones_ideal():
    # ideal: min(m_u, k) gains of 1, whatever the list shows
    d = lambda i: 1 / math.log2(i + 1)  # noqa: E731
    s = one_user(WORKED_LIST, GRADED)
    dcg3 = d(1) + d(3)
    metric = NDCGAtK(3, gains="binary", ideal="min_k_ones", relevant_threshold=1)
    assert "ideal='min_k_ones'" in repr(metric)
    assert value(metric, s) == approx(dcg3 / (d(1) + d(2) + d(3)))                          # min(4, 3) ones
    assert value(NDCGAtK(10, gains="binary", ideal="min_k_ones", relevant_threshold=1), s) \
        == approx(dcg3 / (d(1) + d(2) + d(3) + d(4)))                                        # min(4, 10) ones
    # "ranked" normalizes by the listed items only (a and b): 2 ones
    assert value(NDCGAtK(3, gains="binary", ideal="ranked", relevant_threshold=1), s) == approx(dcg3 / (d(1) + d(2)))
    # a list shorter than k still has min(m_u, k) ones in the ideal
    s2 = one_user(["a"], GRADED)
    assert value(metric, s2) == approx(d(1) / (d(1) + d(2) + d(3)))
    with pytest.raises(ValueError, match="binary"):
        NDCGAtK(3, ideal="min_k_ones")  # linear gains could exceed 1


def test_precision_listed_denominator():
    # list [a, x] (2 items), k = 3: one hit
    s = one_user(["a", "x"], WORKED_TRUTH)
    assert value(PrecisionAtK(3, relevant_threshold=1), s) == approx(1 / 3)                    # / k
    listed = PrecisionAtK(3, relevant_threshold=1, denominator="listed")
    assert "denominator='listed'" in repr(listed)
    assert value(listed, s) == approx(1 / 2)                                                   # / min(k, 2)
    # a list at least k long: the same
    s5 = one_user(WORKED_LIST, WORKED_TRUTH)
    assert value(listed, s5) == value(PrecisionAtK(3, relevant_threshold=1), s5) == approx(2 / 3)


def test_recall_min_k_denominator():
    # R = {a, b, c, d}, list [a, x, b, y, z]: 2 hits in the first 3
    s = one_user(WORKED_LIST, WORKED_TRUTH)
    assert value(RecallAtK(3, relevant_threshold=1), s) == approx(2 / 4)                       # / m_u
    min_k = RecallAtK(3, relevant_threshold=1, denominator="min_k")
    assert "denominator='min_k'" in repr(min_k)
    assert value(min_k, s) == approx(2 / 3)                                                    # / min(4, 3)
    assert value(RecallAtK(10, relevant_threshold=1, denominator="min_k"), s) == approx(2 / 4)  # min(4, 10)
    # a user with more relevant items than k can reach 1
    s3 = one_user(["a", "b", "c"], WORKED_TRUTH)
    assert value(RecallAtK(3, relevant_threshold=1, denominator="min_k"), s3) == 1.0


def test_ties_item_id_desc_compares_ids_as_strings():
    # "10" and "9" tie; only "9" is relevant; the rows list "10" first
    kwargs = dict(scores=[1, 1])
    assert value(MRR(relevant_threshold=1), one_user(["10", "9"], {"9": 1, "10": 0}, **kwargs)) == 0.5
    desc = one_user(["10", "9"], {"9": 1, "10": 0}, ties="item_id_desc", **kwargs)
    assert "ties='item_id_desc'" in repr(desc)
    assert value(MRR(relevant_threshold=1), desc) == 1.0     # "9" > "10" as strings: "9" first
    assert value(MRR(relevant_threshold=1), one_user(["10", "9"], {"9": 1, "10": 0}, ties="item_id", **kwargs)) == 0.5
    # integer ids: item_id_desc still compares "9" > "10", as trec_eval's strcmp on docnos
    pred = pd.DataFrame({"user_id": "u", "item_id": [10, 9], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": "u", "item_id": [9, 10], "score": [1.0, 0.0]})
    assert value(MRR(relevant_threshold=1), Split(pred, truth, ties="item_id_desc")) == 1.0
    pred = pd.DataFrame({"user_id": "u", "item_id": [9, 100], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": "u", "item_id": [9, 100], "score": [0.0, 1.0]})
    assert value(MRR(relevant_threshold=1), Split(pred, truth, ties="item_id_desc")) == 0.5   # "9" > "100"
    # ties only reorder tied items: the scores come first
    s = one_user(["a", "c", "b", "z"], {"b": 1}, scores=[1, 1, 1, 2], ties="item_id_desc")
    assert value(MRR(relevant_threshold=1), s) == 1 / 3     # z (2), then c, b, a


# --------------------------------------------------------------------------- #
# with_convention, EvalModel(convention=), compare(convention=)
# --------------------------------------------------------------------------- #
def _instance(kind: str):
    """A default instance of a built-in metric class (k = 10 where it needs one)."""
    cls = getattr(rk, kind)
    if kind == "Correlation":
        return cls()
    if kind.endswith("AtK") or kind == "LAUC":
        return cls(10)
    return cls()


PRESET_CASES = [(c.name, kind) for c in CONVENTIONS.values() for kind in c.metrics]


@pytest.mark.parametrize("convention, kind", PRESET_CASES, ids=[f"{c}-{k}" for c, k in PRESET_CASES])
def test_preset_parameters_appear_in_repr(convention, kind):
    metric = _instance(kind).with_convention(convention)
    text = repr(metric)
    for key, val in CONVENTIONS[convention].metrics[kind].items():
        assert f"{key}={val!r}" in text, (key, text)
    if "relevant_threshold" in metric._params() and "relevant_threshold" not in CONVENTIONS[convention].metrics[kind]:
        expected = float("-inf") if CONVENTIONS[convention].relevance == "all" else None
        assert f"relevant_threshold={expected!r}" in text
    assert str(metric) == str(_instance(kind))   # names do not change


def test_with_convention_returns_a_new_metric():
    metric = MAPAtK(10)
    preset = metric.with_convention("recbole")
    assert preset is not metric and preset != metric
    assert metric.denominator == "relevant" and metric.relevant_threshold is None
    assert preset.denominator == "min_k" and preset.relevant_threshold == float("-inf")


def test_explicit_parameters_win_over_the_preset():
    m = MAPAtK(10, denominator="relevant").with_convention("recbole")   # the default value, but passed
    assert m.denominator == "relevant" and m.relevant_threshold == float("-inf")
    m = MAPAtK(10, relevant_threshold=3).with_convention("recbole")
    assert m.relevant_threshold == 3 and m.denominator == "min_k"
    m = MAPAtK(10, relevant_threshold=None).with_convention("lenskit")  # None (user mean), explicitly
    assert m.relevant_threshold is None and m.denominator == "listed"
    m = MAP(no_relevant="nan").with_convention("trec_eval")
    assert m.no_relevant == "nan"
    m = NDCGAtK(10, discount="log2").with_convention("lenskit")
    assert (m.discount, m.gains, m.ideal) == ("log2", "binary", "min_k_ones")
    m = PrecisionAtK(10, denominator="k").with_convention("clayrs")
    assert m.denominator == "k"
    m = MAPAtK(5, name="ap5").with_convention("spark_mllib")
    assert str(m) == "ap5" and m.denominator == "min_k"


@pytest.mark.parametrize("metric, convention", [
    (Correlation(), "trec_eval"),
    (Correlation("kendall"), "ranx"),
    (MRR(), "spark_mllib"),
    (MRRAtK(5), "ms_recommenders"),
    (HitRateAtK(10), "clayrs"),
    (MAP(), "recbole"),
    (NDCG(), "recbole"),
    (DCGAtK(5), "trec_eval"),
    (NDCG(), "spark_mllib"),
])
def test_a_metric_the_peer_lacks_raises_naming_the_convention(metric, convention):
    with pytest.raises(ValueError, match=f"'{convention}' convention"):
        metric.with_convention(convention)
    pred = pd.DataFrame({"user_id": "u", "item_id": ["a"], "score": [1.0]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match=f"'{convention}' convention"):
        EvalModel(pred, truth, [metric], convention=convention)


@pytest.mark.parametrize("metric, convention", [(MRRAtK(5), "trec_eval"), (MRR(), "recbole")],
                         ids=["MRRAtK-trec_eval", "MRR-recbole"])
def test_a_metric_the_peer_lacks_raises_mrr_cases(metric, convention):
    with pytest.raises(ValueError, match=f"'{convention}' convention"):
        metric.with_convention(convention)


def test_a_second_convention_never_keeps_the_first_silently():
    recbole = MAPAtK(10).with_convention("recbole")
    m = recbole.with_convention("trec_eval")  # a preset replaces the one before it
    assert (m.denominator, m.relevant_threshold, m.no_relevant) == ("relevant", None, "zero")


def test_unknown_convention_lists_the_names():
    with pytest.raises(ValueError) as info:
        MAPAtK(10).with_convention("trec-eval")
    for name in names():
        assert repr(name) in str(info.value)
    pred = pd.DataFrame({"user_id": "u", "item_id": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match="'lenskit'"):
        EvalModel(pred, pred, [MAP()], convention="LensKit")


def _tiny():
    pred = pd.DataFrame({"user_id": ["u", "u", "v", "v"], "item_id": ["10", "9", "a", "b"],
                         "score": [1.0, 1.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["u", "u", "v", "w"], "item_id": ["9", "10", "b", "c"],
                          "score": [1.0, 0.0, 1.0, 1.0]})
    return pred, truth


def test_evalmodel_convention_sets_ties_missing_users_and_metrics():
    pred, truth = _tiny()
    with pytest.warns(MissingUsersWarning):
        model = EvalModel(pred, truth, [MRR(relevant_threshold=1)], convention="trec_eval")
    assert model.splits()[0].ties == "item_id_desc"
    assert model.missing_users == "ignore"
    assert model.metrics[0].no_relevant == "zero"
    assert "convention='trec_eval'" in repr(model)
    sys_result, users = model.fit()
    assert sys_result.attrs["convention"] == "trec_eval" and users.attrs["convention"] == "trec_eval"
    # "9" before "10" (ids descending as strings): u's relevant "9" is first
    assert users.loc[("fold1", "u"), "MRR"] == 1.0
    # without a convention: row order, and the result says "rankeval"
    with pytest.warns(MissingUsersWarning):
        sys_result, users = EvalModel(pred, truth, [MRR(relevant_threshold=1)]).fit()
    assert sys_result.attrs["convention"] == "rankeval" and users.attrs["convention"] == "rankeval"
    assert users.loc[("fold1", "u"), "MRR"] == 0.5


def test_evalmodel_explicit_ties_and_missing_users_win():
    pred, truth = _tiny()
    with pytest.warns(MissingUsersWarning):
        model = EvalModel(pred, truth, [MRR(relevant_threshold=1)], convention="trec_eval", ties="row_order")
    assert model.splits()[0].ties == "row_order"
    assert model.fit()[1].loc[("fold1", "u"), "MRR"] == 0.5
    # ranx scores truth users without a list as 0 ...
    with pytest.warns(MissingUsersWarning):
        model = EvalModel(pred, truth, [MRR(relevant_threshold=1)], convention="ranx")
    assert model.missing_users == "zero"
    assert model.fit()[1].loc[("fold1", "w"), "MRR"] == 0.0
    # ... unless the caller says otherwise
    with pytest.warns(MissingUsersWarning):
        model = EvalModel(pred, truth, [MRR(relevant_threshold=1)], convention="ranx", missing_users="ignore")
    assert model.missing_users == "ignore"
    assert "w" not in model.fit()[1].index.get_level_values("user_id")
    with pytest.raises(ValueError, match="w"):
        EvalModel(pred, truth, [MRR(relevant_threshold=1)], convention="ranx", missing_users="error")


def test_compare_records_the_convention():
    truth = pd.DataFrame({"user_id": np.repeat([f"u{i}" for i in range(6)], 2),
                          "item_id": ["a", "b"] * 6, "score": [1.0, 0.0] * 6})
    good = pd.DataFrame({"user_id": np.repeat([f"u{i}" for i in range(6)], 2),
                         "item_id": ["a", "b"] * 6, "score": [2.0, 1.0] * 6})
    bad = good.assign(score=[1.5, 2.5] * 6)  # 1, 2 would read as ranks (RanksAsScoresWarning)
    metrics = [MAP(relevant_threshold=1), NDCGAtK(2)]
    res = rk.compare({"good": good, "bad": bad}, truth, metrics, convention="lenskit")
    assert res.convention == "lenskit"
    assert res.metrics == ("MAP", "NDCG@2")
    # the preset applies, except the explicit threshold: "bad" lists b (grade 0) before a, so
    # AP = (1/2) / min(m_u = 1, listed = 2); NDCG@2 follows the preset in full: every truth
    # row relevant (threshold -inf), binary gains, both listed in the first 2: 1
    means = res.system_means()
    assert means.loc["bad", "MAP"] == 0.5 and means.loc["good", "MAP"] == 1.0
    assert means.loc["bad", "NDCG@2"] == 1.0 and means.loc["good", "NDCG@2"] == 1.0
    assert rk.compare({"good": good, "bad": bad}, truth, metrics).convention == "rankeval"
    with pytest.raises(ValueError, match="'clayrs' convention"):
        rk.compare({"good": good, "bad": bad}, truth, [HitRateAtK(1)], convention="clayrs")


# --------------------------------------------------------------------------- #
# random data
# --------------------------------------------------------------------------- #
@functools.lru_cache(maxsize=None)
def make_frames(seed: int, *, tied: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    return peer_frames(seed, tied=tied, min_users=100, float_grades=True)


def ranked_lists(pred: pd.DataFrame) -> dict[str, list[str]]:
    """Each user's items by score, descending (scores distinct within a user)."""
    ordered = pred.sort_values(["user_id", "score"], ascending=[True, False], kind="stable")
    return {u: g["item_id"].tolist() for u, g in ordered.groupby("user_id", sort=False)}


def truth_grades(truth: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {u: dict(zip(g["item_id"], g["score"])) for u, g in truth.groupby("user_id", sort=False)}


def evaluate(pred, truth, metrics, convention, **options) -> tuple[pd.Series, pd.DataFrame]:
    """rankeval under ``convention``: the system row and the per-user frame of the one split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        sys_result, users = EvalModel(pred, truth, metrics, convention=convention, **options).fit()
    assert sys_result.attrs["convention"] == convention
    return sys_result.loc["fold1"], users.xs("fold1", level="split")


def assert_same(ours: pd.Series, theirs: dict | pd.Series, what: str) -> None:
    """Same users, same values to 1e-12 (NaN where the peer has NaN)."""
    theirs = pd.Series(theirs, dtype=float)
    assert set(ours.index) == set(theirs.index), what
    np.testing.assert_allclose(ours.loc[theirs.index].to_numpy(dtype=float), theirs.to_numpy(), **TOL,
                               err_msg=what)


def test_generator_covers_the_cases():
    for seed in SEEDS:
        pred, truth = make_frames(seed)
        lists = ranked_lists(pred)
        grades = truth_grades(truth)
        both = set(lists) & set(grades)
        assert 100 <= len(both) <= 200
        assert any(len(lists[u]) < 5 for u in both) and any(len(lists[u]) > 10 for u in both)
        assert any(max(grades[u].values()) < 1 for u in both)             # nothing relevant at 1
        assert any(sum(g >= 1 for g in grades[u].values()) > 10 for u in both) or \
            any(len(grades[u]) > 10 for u in both)                          # more relevant than k
        assert set(grades) - set(lists) and set(lists) - set(grades)        # truth-only, pred-only
        assert not pred.duplicated(["user_id", "score"]).any()
        assert make_frames(seed, tied=True)[0].duplicated(["user_id", "score"]).any()


# --------------------------------------------------------------------------- #
# trec_eval, running: pytrec_eval
# --------------------------------------------------------------------------- #
def _trec_pairs():
    pairs = [("map", MAP(relevant_threshold=1)), ("recip_rank", MRR(relevant_threshold=1)),
             ("ndcg", NDCG(relevant_threshold=1))]
    for k in KS:
        pairs += [(f"map_cut_{k}", MAPAtK(k, relevant_threshold=1)), (f"P_{k}", PrecisionAtK(k, relevant_threshold=1)),
                  (f"recall_{k}", RecallAtK(k, relevant_threshold=1)),
                  (f"ndcg_cut_{k}", NDCGAtK(k, relevant_threshold=1)),
                  (f"success_{k}", HitRateAtK(k, relevant_threshold=1))]
    return pairs


@pytest.mark.parametrize("tied", [False, True], ids=["distinct-scores", "tied-scores"])
@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_preset_matches_pytrec_eval_per_user(seed, tied):
    pytrec_eval = require("pytrec_eval")
    pred, truth = make_frames(seed, tied=tied)
    pairs = _trec_pairs()
    measures = {"map", "map_cut", "P", "recall", "recip_rank", "ndcg", "ndcg_cut", "success"}
    peer = pytrec_eval.RelevanceEvaluator(as_qrels(truth), measures, relevance_level=1).evaluate(as_run(pred))
    _, users = evaluate(pred, truth, [m for _, m in pairs], "trec_eval")
    no_relevant = {u for u, g in truth_grades(truth).items() if max(g.values()) < 1} & set(peer)
    assert no_relevant, "the data must hold evaluated users without a relevant item"
    for measure, metric in pairs:
        theirs = {u: v[measure] for u, v in peer.items()}
        assert_same(users[str(metric)], theirs, f"{measure} vs {metric!r}")
        assert all(theirs[u] == 0.0 for u in no_relevant)  # trec_eval: 0, and the preset too
    if tied:
        # the default tie rule (row order) does not reproduce trec_eval on this data
        _, row_order = evaluate(pred, truth, [m for _, m in pairs], "trec_eval", ties="row_order")
        theirs = pd.Series({u: v["map"] for u, v in peer.items()})
        assert not np.allclose(row_order["MAP"].loc[theirs.index], theirs, **TOL)


# --------------------------------------------------------------------------- #
# ranx, running
# --------------------------------------------------------------------------- #
def _ranx_pairs():
    pairs = [("map", MAP(relevant_threshold=1)), ("mrr", MRR(relevant_threshold=1)),
             ("ndcg", NDCG(relevant_threshold=1)), ("dcg", DCG(relevant_threshold=1))]
    for k in KS:
        pairs += [(f"map@{k}", MAPAtK(k, relevant_threshold=1)), (f"mrr@{k}", MRRAtK(k, relevant_threshold=1)),
                  (f"precision@{k}", PrecisionAtK(k, relevant_threshold=1)),
                  (f"recall@{k}", RecallAtK(k, relevant_threshold=1)),
                  (f"ndcg@{k}", NDCGAtK(k, relevant_threshold=1)), (f"dcg@{k}", DCGAtK(k, relevant_threshold=1)),
                  (f"hit_rate@{k}", HitRateAtK(k, relevant_threshold=1))]
    return pairs


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_preset_matches_ranx_per_user(seed):
    ranx = require("ranx")
    pred, truth = make_frames(seed)
    pairs = _ranx_pairs()
    qrels, run = ranx.Qrels(as_qrels(truth)), ranx.Run(as_run(pred))
    scores = ranx.evaluate(qrels, run, [m for m, _ in pairs], return_mean=False, make_comparable=True,
                           threads=1, save_results_in_run=False)
    q_ids = list(run.get_query_ids())   # make_comparable: the qrels' queries, empty lists for the missing
    assert q_ids == list(qrels.get_query_ids())
    _, users = evaluate(pred, truth, [m for _, m in pairs], "ranx")
    truth_only = set(truth["user_id"]) - set(pred["user_id"])
    assert truth_only and truth_only <= set(users.index)      # missing_users="zero", as make_comparable
    for measure, metric in pairs:
        theirs = dict(zip(q_ids, scores[measure]))
        assert_same(users[str(metric)], theirs, f"{measure} vs {metric!r}")
        assert all(theirs[u] == 0.0 for u in truth_only)


# --------------------------------------------------------------------------- #
# Spark MLlib, running: pyspark.mllib.evaluation.RankingMetrics in local mode
# --------------------------------------------------------------------------- #
def _mllib_values(spark, pred, labels_of: dict[str, list[str]], users, only=None) -> dict[str, float]:
    """MLlib's system values on the (ranked list, ground truth list) pairs of ``users``."""
    from pyspark.mllib.evaluation import RankingMetrics
    lists = ranked_lists(pred)
    pairs = [(lists[u], labels_of.get(u, [])) for u in users]
    pairs.sort(key=lambda p: not p[1])   # a non-empty ground truth first: schema inference needs one
    peer = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    calls = {"MAP": lambda: peer.meanAveragePrecision}
    for k in KS:
        calls.update({f"MAP@{k}": functools.partial(peer.meanAveragePrecisionAt, k),
                      f"P@{k}": functools.partial(peer.precisionAt, k),
                      f"R@{k}": functools.partial(peer.recallAt, k), f"NDCG@{k}": functools.partial(peer.ndcgAt, k)})
    return {name: call() for name, call in calls.items() if only is None or name in only}


#: RankingMetrics goes through the deprecated SQLContext
mllib_deprecation = pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")


SPARK_METRICS = [MAP()] + [m for k in KS for m in (MAPAtK(k), PrecisionAtK(k), RecallAtK(k), NDCGAtK(k))]


@mllib_deprecation
@pytest.mark.parametrize("seed", SEEDS)
def test_spark_mllib_preset_matches_ranking_metrics(spark, seed):
    pred, truth = make_frames(seed)
    ours, users = evaluate(pred, truth, SPARK_METRICS, "spark_mllib")
    # the pairs MLlib sees: every user with a list and a ground truth (what the preset evaluates);
    # every truth row is in the ground truth set
    both = sorted(set(pred["user_id"]) & set(truth["user_id"]))
    assert sorted(users.index) == both
    labels = {u: list(items) for u, items in truth_grades(truth).items()}
    theirs = _mllib_values(spark, pred, labels, both)
    for name, v in theirs.items():
        assert ours[name] == pytest.approx(v, rel=1e-12, abs=1e-12), name


@mllib_deprecation
def test_spark_mllib_empty_ground_truth_scores_zero(spark):
    # MLlib scores an empty ground-truth set 0 (with a warning), NDCG too. That happens to
    # users whose relevant set, after the caller's threshold, is empty: the preset's
    # no_relevant="zero" with an explicit relevant_threshold reproduces it.
    pred, truth = make_frames(SEEDS[0])
    metrics = [m.__class__(*([m.k] if m.k else []), relevant_threshold=2) for m in SPARK_METRICS]
    ours, users = evaluate(pred, truth, metrics, "spark_mllib")
    both = sorted(set(pred["user_id"]) & set(truth["user_id"]))
    labels = {u: [i for i, g in items.items() if g >= 2] for u, items in truth_grades(truth).items()}
    empty = [u for u in both if not labels[u]]
    assert empty
    assert (users.loc[empty] == 0.0).all().all()
    theirs = _mllib_values(spark, pred, labels, both)
    for name, v in theirs.items():
        assert ours[name] == pytest.approx(v, rel=1e-12, abs=1e-12), name
    # a pred-only user (no truth row at all) would be an empty ground truth too, a 0 in MLlib's
    # mean; rankeval leaves pred-only users out under every convention
    with_pred_only = _mllib_values(spark, pred, labels, sorted(set(pred["user_id"])), only={"P@5"})
    n, n_all = len(both), len(set(pred["user_id"]))
    assert with_pred_only["P@5"] == pytest.approx(ours["P@5"] * n / n_all, rel=1e-12)


# --------------------------------------------------------------------------- #
# RecBole, re-derived from recbole/evaluator/metrics.py (RecBole 1.2.1)
# --------------------------------------------------------------------------- #
# Every RecBole top-k metric computes ``metric_info(pos_index, pos_len)`` on ``pos_index``, the
# boolean matrix "the item at rank i is one of the user's test items" over the first max(topk)
# ranks of a full ranking, and ``pos_len``, the user's number of test items; ``topk_result``
# reads column k - 1. Every test interaction is positive. A full ranking always has k items:
# a shorter list here is padded with misses.
def _recbole_pos(ranked, truth, k):
    return np.array([item in truth for item in ranked[:k]] + [False] * max(0, k - len(ranked)))


def recbole_hit(ranked, truth, k):  # metrics.py Hit.metric_info: cumsum(pos_index) > 0
    return float(_recbole_pos(ranked, truth, k).any())


def recbole_mrr(ranked, truth, k):  # metrics.py MRR.metric_info: 1 / (first hit index + 1), 0 without one
    pos = _recbole_pos(ranked, truth, k)
    return 1.0 / (np.argmax(pos) + 1) if pos.any() else 0.0


def recbole_map(ranked, truth, k):  # metrics.py MAP.metric_info: sum_pre / min(pos_len, k)
    pos = _recbole_pos(ranked, truth, k)
    pre = pos.cumsum() / np.arange(1, k + 1)
    sum_pre = np.sum(pre * pos)
    return sum_pre / min(len(truth), k)


def recbole_recall(ranked, truth, k):  # metrics.py Recall.metric_info: cumsum(pos_index) / pos_len
    return _recbole_pos(ranked, truth, k).sum() / len(truth)


def recbole_ndcg(ranked, truth, k):  # metrics.py NDCG.metric_info: idcg of min(pos_len, k) ones
    pos = _recbole_pos(ranked, truth, k)
    ranks = np.arange(1, k + 1)
    dcg = np.sum(np.where(pos, 1.0 / np.log2(ranks + 1), 0.0))
    idcg = np.sum(1.0 / np.log2(ranks[:min(len(truth), k)] + 1))
    return dcg / idcg


def recbole_precision(ranked, truth, k):  # metrics.py Precision.metric_info: cumsum(pos_index) / k
    return _recbole_pos(ranked, truth, k).sum() / k


RECBOLE = [(cls(k), functools.partial(fn, k=k)) for k in KS for cls, fn in [
    (HitRateAtK, recbole_hit), (MRRAtK, recbole_mrr), (MAPAtK, recbole_map), (RecallAtK, recbole_recall),
    (NDCGAtK, recbole_ndcg), (PrecisionAtK, recbole_precision)]]


# --------------------------------------------------------------------------- #
# Microsoft Recommenders, re-derived from recommenders/evaluation/python_evaluation.py (1.2.1)
# --------------------------------------------------------------------------- #
# merge_ranking_true_pred keeps the users in both frames; get_top_k_items keeps each user's k
# best predictions, ranked 1..k; a hit is a top-k item present in rating_true (every truth row
# is relevant). Each function returns (sum of per-user values over users with a hit) / n_users,
# users without a hit counting 0: the per-user values are these.
def _ms_hit_ranks(ranked, truth, k):
    top = ranked if k is None else ranked[:k]
    return [rank for rank, item in enumerate(top, 1) if item in truth]


def ms_precision_at_k(ranked, truth, k):  # precision_at_k: hit / k
    return len(_ms_hit_ranks(ranked, truth, k)) / k


def ms_recall_at_k(ranked, truth, k):  # recall_at_k: hit / actual
    return len(_ms_hit_ranks(ranked, truth, k)) / len(truth)


def _ms_rr(ranked, truth, k):  # _get_reciprocal_rank: "rr" = sum of (hit number) / rank over hits
    return sum(j / rank for j, rank in enumerate(_ms_hit_ranks(ranked, truth, k), 1))


def ms_map_at_k(ranked, truth, k):  # map_at_k: rr / min(actual, k)
    return _ms_rr(ranked, truth, k) / min(len(truth), k)


def ms_map(ranked, truth, k=None):  # map: rr / actual (k=None: relevancy_method=None, the list as given)
    return _ms_rr(ranked, truth, k) / len(truth)


def ms_ndcg_at_k(ranked, truth, k):
    # ndcg_at_k(score_type="binary", discfun_type="loge"): rel = 1 for every row; dcg over the
    # hits at their rank, idcg over the user's truth rows re-ranked 1, 2, ... and cut at k
    dcg = sum(1.0 / np.log(1 + rank) for rank in _ms_hit_ranks(ranked, truth, k))
    idcg = sum(1.0 / np.log(1 + irank) for irank in range(1, min(len(truth), k) + 1))
    return dcg / idcg


MS_RECOMMENDERS = [(MAP(), ms_map)] + [(cls(k), functools.partial(fn, k=k)) for k in KS for cls, fn in [
    (PrecisionAtK, ms_precision_at_k), (RecallAtK, ms_recall_at_k), (MAPAtK, ms_map_at_k),
    (NDCGAtK, ms_ndcg_at_k)]]


# --------------------------------------------------------------------------- #
# LensKit, re-derived from lenskit/metrics/ranking/ (lenskit 2025.8.1)
# --------------------------------------------------------------------------- #
# Every metric first truncates the list to n (RankingMetricBase.truncate); "good" marks the
# listed items found in the test items (every test row is relevant); ranks are 1-based.
def _lk_good(ranked, truth, n):
    recs = ranked if n is None else ranked[:n]
    return recs, np.array([item in truth for item in recs]), np.arange(1, len(recs) + 1)


def _lk_weight(ranks):  # _weighting.py LogRankWeight.weight: log(2) / log(max(rank, 2))
    return np.log(2) / np.log(np.maximum(ranks, 2))


def lenskit_ap(ranked, truth, n=None):  # _map.py AveragePrecision: / min(len(test), len(recs))
    recs, good, ranks = _lk_good(ranked, truth, n)
    return np.sum(np.cumsum(good)[good] / ranks[good]) / min(len(truth), len(recs))


def lenskit_precision(ranked, truth, n):  # _pr.py Precision: ngood / len(recs)
    recs, good, _ = _lk_good(ranked, truth, n)
    return good.sum() / len(recs)


def lenskit_recall(ranked, truth, n):  # _pr.py Recall: ngood / min(len(test), n)
    _, good, _ = _lk_good(ranked, truth, n)
    return good.sum() / min(len(truth), n)


def lenskit_dcg(ranked, truth, n=None):  # _dcg.py _binary_dcg: sum of the weights of the good ranks
    _, good, ranks = _lk_good(ranked, truth, n)
    return np.sum(_lk_weight(ranks[good]))


def lenskit_ndcg(ranked, truth, n=None):  # _dcg.py NDCG (gain=None): / fixed_dcg(min(len(test), n))
    ideal = len(truth) if n is None else min(len(truth), n)
    return lenskit_dcg(ranked, truth, n) / np.sum(_lk_weight(np.arange(1, ideal + 1)))


def lenskit_recip_rank(ranked, truth, n=None):  # _recip.py RecipRank: 1 / (first good index + 1), else 0
    _, good, _ = _lk_good(ranked, truth, n)
    return 1.0 / (np.flatnonzero(good)[0] + 1.0) if good.any() else 0.0


def lenskit_hit(ranked, truth, n):  # _hit.py Hit
    _, good, _ = _lk_good(ranked, truth, n)
    return 1.0 if good.any() else 0.0


LENSKIT = [(MAP(), lenskit_ap), (NDCG(), lenskit_ndcg), (DCG(), lenskit_dcg), (MRR(), lenskit_recip_rank)] + [
    (cls(k), functools.partial(fn, n=k)) for k in KS for cls, fn in [
        (MAPAtK, lenskit_ap), (PrecisionAtK, lenskit_precision), (RecallAtK, lenskit_recall),
        (NDCGAtK, lenskit_ndcg), (DCGAtK, lenskit_dcg), (MRRAtK, lenskit_recip_rank), (HitRateAtK, lenskit_hit)]]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("convention, pairs", [("recbole", RECBOLE), ("ms_recommenders", MS_RECOMMENDERS),
                                               ("lenskit", LENSKIT)], ids=["recbole", "ms_recommenders", "lenskit"])
def test_all_relevant_presets_match_their_peers_formulas_per_user(convention, pairs, seed):
    pred, truth = make_frames(seed)
    ours, users = evaluate(pred, truth, [m for m, _ in pairs], convention)
    lists, grades = ranked_lists(pred), truth_grades(truth)
    both = set(lists) & set(grades)        # the peers evaluate users with a list and test items
    for metric, reference in pairs:
        theirs = {u: reference(lists[u], grades[u]) for u in both}
        assert_same(users[str(metric)], theirs, f"{convention}: {metric!r}")
        # the system value is the plain mean over those users (none is NaN: all have test items)
        assert ours[str(metric)] == pytest.approx(np.mean(list(theirs.values())), rel=1e-12)


def test_ms_recommenders_map_cuts_at_k_by_default():
    # Recommenders' map(k=10) (relevancy_method="top_k", its default) cuts the list at k and
    # divides by every truth item: MAPAtK(10, denominator="relevant") under the preset
    pred, truth = make_frames(SEEDS[0])
    lists, grades = ranked_lists(pred), truth_grades(truth)
    metric = MAPAtK(10, denominator="relevant", name="map(k=10)")
    _, users = evaluate(pred, truth, [metric], "ms_recommenders")
    assert_same(users["map(k=10)"], {u: ms_map(lists[u], grades[u], k=10) for u in set(lists) & set(grades)},
                "map(k=10)")


def test_ms_recommenders_ndcg_counts_truth_only_users_as_zero():
    # ndcg_at_k outer-merges the hits with the whole rating_true: a truth user without
    # predictions gets DCG 0 and enters the mean, unlike the other functions (n_users = users
    # in both frames). Its system value is the preset's with missing_users="zero".
    pred, truth = make_frames(SEEDS[0])
    lists, grades = ranked_lists(pred), truth_grades(truth)
    per_user = {u: ms_ndcg_at_k(lists[u], grades[u], 10) if u in lists else 0.0 for u in grades}
    peer_system = np.mean(list(per_user.values()))
    ignore, _ = evaluate(pred, truth, [NDCGAtK(10)], "ms_recommenders")
    zero, users = evaluate(pred, truth, [NDCGAtK(10)], "ms_recommenders", missing_users="zero")
    assert_same(users["NDCG@10"], per_user, "ndcg_at_k over every truth user")
    assert zero["NDCG@10"] == pytest.approx(peer_system, rel=1e-12)
    assert ignore["NDCG@10"] > peer_system


# --------------------------------------------------------------------------- #
# ClayRS, re-derived from clayrs/evaluation/metrics/ (ClayRS 0.5.1)
# --------------------------------------------------------------------------- #
# ClayRS takes each user's predictions in row order (here: by score, descending) and, for the
# binary metrics, the relevant truth items: score >= relevant_threshold, by default the
# user's mean truth score (np.nanmean); a user without one is NaN (left out of np.nanmean).
def _clayrs_relevant(truth, threshold):
    if threshold is None:
        threshold = np.nanmean(list(truth.values()))
    return [item for item, score in truth.items() if score >= threshold]


def clayrs_ndcg(ranked, truth, k=None):
    # ranking_metrics.py NDCG._calc_ndcg / NDCGAtK._calc_ndcg: r = truth scores of the listed
    # items found in truth, in list order; DCG(r[:k]) / DCG(sorted(r, desc)[:k]), with
    # _dcg_score = sum(r / log2(arange(2, len(r) + 2))), NaN for an empty r
    r = np.array([truth[item] for item in ranked if item in truth], dtype=float)

    def dcg(x):
        return np.nan if len(x) == 0 else np.sum(x / np.log2(np.arange(2, len(x) + 2)))

    with np.errstate(invalid="ignore", divide="ignore"):
        return dcg(r[:k]) / dcg(np.sort(r)[::-1][:k])


def clayrs_ap(ranked, truth, k=None, threshold=None):
    # ranking_metrics.py MAP._compute_ap (MAPAtK cuts the predictions at k first):
    # sum(tp / position) over relevant listed items, times 1 / len(relevant truth items)
    relevant = _clayrs_relevant(truth, threshold)
    if not relevant:
        return np.nan
    positions = [i for i, item in enumerate(ranked[:k], 1) if item in relevant]
    return sum(tp / pos for tp, pos in enumerate(positions, 1)) / len(relevant)


def clayrs_rr(ranked, truth, k=None, threshold=None):
    # ranking_metrics.py MRR.calc_reciprocal_rank (MRRAtK cuts at k): 1 / first relevant position
    relevant = _clayrs_relevant(truth, threshold)
    if not relevant:
        return np.nan
    positions = [i for i, item in enumerate(ranked[:k], 1) if item in relevant]
    return 1.0 / positions[0] if positions else 0.0


def clayrs_precision(ranked, truth, k, threshold=None):
    # classification_metrics.py PrecisionAtK._perform_single_user: tp / len(predictions[:k])
    relevant = _clayrs_relevant(truth, threshold)
    if not relevant:
        return np.nan
    cut = ranked[:k]
    return len(np.intersect1d(cut, relevant)) / len(cut)


def clayrs_recall(ranked, truth, k, threshold=None):
    # classification_metrics.py RecallAtK._perform_single_user: tp / (tp + fn) = tp / len(relevant)
    relevant = _clayrs_relevant(truth, threshold)
    if not relevant:
        return np.nan
    return len(np.intersect1d(ranked[:k], relevant)) / len(relevant)


def clayrs_correlation(ranked, truth, scores, method, top_n=None):
    # ranking_metrics.py Correlation.perform: the first top_n predictions that are in truth,
    # pandas Series.corr(method) of their predicted and truth scores; NaN under 2 items
    common = [item for item in ranked[:top_n] if item in truth]
    if len(common) < 2:
        return np.nan
    return pd.Series([scores[i] for i in common]).corr(pd.Series([truth[i] for i in common]), method=method)


def _clayrs_pairs(threshold):
    pairs = [(NDCG(), clayrs_ndcg),
             (MAP(relevant_threshold=threshold), functools.partial(clayrs_ap, threshold=threshold)),
             (MRR(relevant_threshold=threshold), functools.partial(clayrs_rr, threshold=threshold))]
    for k in KS:
        pairs += [(NDCGAtK(k), functools.partial(clayrs_ndcg, k=k)),
                  (MAPAtK(k, relevant_threshold=threshold), functools.partial(clayrs_ap, k=k, threshold=threshold)),
                  (MRRAtK(k, relevant_threshold=threshold), functools.partial(clayrs_rr, k=k, threshold=threshold)),
                  (PrecisionAtK(k, relevant_threshold=threshold),
                   functools.partial(clayrs_precision, k=k, threshold=threshold)),
                  (RecallAtK(k, relevant_threshold=threshold),
                   functools.partial(clayrs_recall, k=k, threshold=threshold))]
    return pairs


@pytest.mark.parametrize("threshold", [None, 2.0], ids=["user-mean", "threshold-2"])
@pytest.mark.parametrize("seed", SEEDS)
def test_clayrs_preset_matches_its_formulas_per_user(seed, threshold):
    pred, truth = make_frames(seed)
    pairs = _clayrs_pairs(threshold)
    correlations = [Correlation("pearson"), Correlation("kendall", top_n=10), Correlation("spearman")]
    ours, users = evaluate(pred, truth, [m for m, _ in pairs] + correlations, "clayrs")
    lists, grades = ranked_lists(pred), truth_grades(truth)
    both = set(lists) & set(grades)    # ClayRS requires the same users in pred and truth
    for metric, reference in pairs:
        theirs = {u: reference(lists[u], grades[u]) for u in both}
        assert_same(users[str(metric)], theirs, f"clayrs: {metric!r}")
        assert ours[str(metric)] == pytest.approx(np.nanmean(list(theirs.values())), rel=1e-12)
    scores = {u: dict(zip(g["item_id"], g["score"])) for u, g in pred.groupby("user_id")}
    for metric in correlations:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # pandas on constant inputs
            theirs = {u: clayrs_correlation(lists[u], grades[u], scores[u], metric.method, metric.top_n) for u in both}
        assert_same(users[str(metric)], theirs, f"clayrs: {metric!r}")
    if threshold is not None:
        assert users["MAP"].isna().any()   # users without a grade >= 2: NaN, as ClayRS


# --------------------------------------------------------------------------- #
# every preset names the peer code or paper each of its choices comes from
# --------------------------------------------------------------------------- #
def test_every_preset_documents_its_sources():
    for convention in CONVENTIONS.values():
        assert convention.sources, convention.name
        assert convention.ties in ("row_order", "item_id_desc")
        assert convention.missing_users in ("ignore", "zero")
    assert re.search(r"docno", CONVENTIONS["trec_eval"].sources["ties"])


@pytest.mark.parametrize("judged_only", [False, True])
def test_trec_eval_preset_reads_negative_grades_as_unjudged_as_trec_eval_with_and_without_J(judged_only):
    pytrec_eval = require("pytrec_eval")
    qrels = {"q1": {"a": 2, "b": -1, "c": 1, "d": 0, "e": -2}, "q2": {"x": -1, "y": 3, "z": 1}}
    run = {"q1": {"a": 1.0, "b": 5.0, "c": 3.0, "f": 4.0, "e": 2.5, "d": 0.5},
           "q2": {"x": 9.0, "w": 8.0, "z": 7.0, "y": 1.0}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.3"},
                                               judged_docs_only_flag=judged_only).evaluate(run)
    pred = pd.DataFrame([(q, d, s) for q, v in run.items() for d, s in v.items()],
                        columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame([(q, d, float(g)) for q, v in qrels.items() for d, g in v.items()],
                         columns=["user_id", "item_id", "score"])
    metrics = [rk.NDCG(judged_only=judged_only), rk.NDCGAtK(3, judged_only=judged_only)]
    _, users = rk.EvalModel(pred, truth, metrics, convention="trec_eval").fit()
    for q in qrels:
        assert users.loc[("fold1", q), "NDCG"] == pytest.approx(reference[q]["ndcg"], rel=1e-12)
        assert users.loc[("fold1", q), "NDCG@3"] == pytest.approx(reference[q]["ndcg_cut_3"], rel=1e-12)
    # rankeval's own default keeps negative grades as (negative) gains: another number
    _, own = rk.EvalModel(pred, truth, metrics).fit()
    assert own.loc[("fold1", "q1"), "NDCG"] != users.loc[("fold1", "q1"), "NDCG"]


def test_negative_grades_unjudged_by_hand():
    # list b (-1), a (2): "unjudged" gives b no gain; with judged_only b leaves the list and a moves to rank 1
    pred = pd.DataFrame({"user_id": 1, "item_id": ["b", "a"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [2.0, -1.0]})
    split = rk.Split(pred, truth)
    value = lambda m: m.perform(split).users.iloc[0, 0]  # noqa: E731
    assert value(rk.NDCG(negative_grades="unjudged")) == pytest.approx((2 / np.log2(3)) / 2)
    assert value(rk.NDCG(negative_grades="unjudged", judged_only=True)) == 1.0
    assert value(rk.NDCG()) == pytest.approx((-1 + 2 / np.log2(3)) / 2)
    assert value(rk.NDCG(judged_only=True)) == pytest.approx((-1 + 2 / np.log2(3)) / 2)
    with pytest.raises(ValueError, match="negative_grades"):
        rk.NDCG(negative_grades="drop")
