"""Precision, Recall, FMeasure, FMeasureAtK, RPrecision (whole lists) and micro averages.

Hand-computed values, the plain-loop oracles (``tests/_oracles.py``) under hypothesis,
micro against macro, and trec_eval (pytrec_eval) and ranx on seeded random data.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval import FMeasure, FMeasureAtK, Precision, PrecisionAtK, Recall, RecallAtK, RPrecision, Split

from ._load import assert_system, assert_users, load_sibling, nanmean, quiet_split
from .._require import require

oracles = load_sibling("_oracles")
strategies = load_sibling("strategies")

pytestmark = pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning")

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- #
# hand-computed
# --------------------------------------------------------------------------- #
# user-mean threshold:
#   u1 truth a=5 b=1 c=4 (mean 10/3: a, c relevant, m=2)  list a x b y    h=1, N=4
#   u2 truth c=2 d=4 e=5 (mean 11/3: d, e relevant, m=2)  list c d z      h=1, N=3
#   u3 truth f=3          (mean 3: f relevant, m=1)        list g f        h=1, N=2
@pytest.fixture
def toy() -> Split:
    pred = pd.DataFrame({"user_id": ["u1"] * 4 + ["u2"] * 3 + ["u3"] * 2,
                         "item_id": ["a", "x", "b", "y", "c", "d", "z", "g", "f"]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u2", "u2", "u3"],
                          "item_id": ["a", "b", "c", "c", "d", "e", "f"], "score": [5, 1, 4, 2, 4, 5, 3]})
    return Split(pred, truth)


def f1(h, n, m):
    return 2 * h / (m + n)


@pytest.mark.parametrize("metric, users, system", [
    pytest.param(Precision(), [1 / 4, 1 / 3, 1 / 2], (1 / 4 + 1 / 3 + 1 / 2) / 3, id="P"),
    pytest.param(Precision(average="micro"), [1 / 4, 1 / 3, 1 / 2], 3 / 9, id="P-micro"),
    pytest.param(Recall(), [1 / 2, 1 / 2, 1], 2 / 3, id="R"),
    pytest.param(Recall(average="micro"), [1 / 2, 1 / 2, 1], 3 / 5, id="R-micro"),
    pytest.param(FMeasure(), [f1(1, 4, 2), f1(1, 3, 2), f1(1, 2, 1)],
                 (f1(1, 4, 2) + f1(1, 3, 2) + f1(1, 2, 1)) / 3, id="F1"),
    pytest.param(FMeasure(average="micro"), [f1(1, 4, 2), f1(1, 3, 2), f1(1, 2, 1)], 2 * 3 / (5 + 9),
                 id="F1-micro"),
    # F2: (1 + 4) h / (4 m + N)
    pytest.param(FMeasure(2), [5 / 12, 5 / 11, 5 / 6], (5 / 12 + 5 / 11 + 5 / 6) / 3, id="F2"),
    # F1@2: u1 a x (h 1), u2 c d (h 1), u3 g f (h 1); P divides by k = 2
    pytest.param(FMeasureAtK(2), [f1(1, 2, 2), f1(1, 2, 2), f1(1, 2, 1)],
                 (0.5 + 0.5 + 2 / 3) / 3, id="F1@2"),
    # F1@3, denominator="listed": u3 lists 2 items
    pytest.param(FMeasureAtK(3, denominator="listed"), [f1(1, 3, 2), f1(1, 3, 2), f1(1, 2, 1)],
                 (0.4 + 0.4 + 2 / 3) / 3, id="F1@3-listed"),
    pytest.param(FMeasureAtK(3, average="micro"), [f1(1, 3, 2), f1(1, 3, 2), f1(1, 3, 1)],
                 2 * 3 / (5 + 9), id="F1@3-micro"),
    # R-precision: u1 first 2 (a x): 1/2; u2 first 2 (c d): 1/2; u3 first 1 (g): 0
    pytest.param(RPrecision(), [1 / 2, 1 / 2, 0], 1 / 3, id="RPrec"),
    pytest.param(RPrecision(average="micro"), [1 / 2, 1 / 2, 0], 2 / 5, id="RPrec-micro"),
    pytest.param(PrecisionAtK(3, average="micro"), [1 / 3, 1 / 3, 1 / 3], 3 / 9, id="P@3-micro"),
    pytest.param(PrecisionAtK(3, denominator="listed", average="micro"), [1 / 3, 1 / 3, 1 / 2], 3 / 8,
                 id="P@3-listed-micro"),
    pytest.param(RecallAtK(1, average="micro"), [1 / 2, 0, 0], 1 / 5, id="R@1-micro"),
])
def test_hand_computed(toy, metric, users, system):
    res = metric.perform(toy)
    name = str(metric)
    np.testing.assert_allclose(res.users.loc[["u1", "u2", "u3"], name], users, rtol=1e-12)
    assert res.system.loc["sys", name] == pytest.approx(system, rel=1e-12)


def test_rprecision_denominator_listed_short_list():
    # m = 3 relevant, the list holds 2 items, one relevant: trec_eval 1/3, ClayRS 1/2
    pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "x"]})
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c"], "score": [1, 1, 1]})
    s = Split(pred, truth)
    assert RPrecision(relevant_threshold=1).perform(s).users.iloc[0, 0] == pytest.approx(1 / 3)
    assert RPrecision(relevant_threshold=1, denominator="listed").perform(s).users.iloc[0, 0] == 0.5


def test_f_is_zero_without_a_hit_and_nan_without_relevant_items():
    pred = pd.DataFrame({"user_id": [1, 2], "item_id": ["x", "a"]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "a"], "score": [5, 0]})
    s = Split(pred, truth)
    users = FMeasure(relevant_threshold=1).perform(s).users["F1"]
    assert users[1] == 0.0 and np.isnan(users[2])
    assert FMeasure(relevant_threshold=1, no_relevant="zero").perform(s).users["F1"].tolist() == [0.0, 0.0]
    # micro: no hit among the defined users is 0, not NaN (ClayRS's safediv)
    assert FMeasure(relevant_threshold=1, average="micro").perform(s).system.iloc[0, 0] == 0.0
    # no defined user at all: NaN
    none = Precision(relevant_threshold=9, average="micro").perform(s)
    assert np.isnan(none.system.iloc[0, 0])


def test_micro_zero_policy_pools_users_without_relevant_items():
    # user 2 has no relevant item: left out of the micro sums by default, in with "zero"
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 2], "item_id": ["a", "x", "b", "y", "z"]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"], "score": [5, 0]})
    s = Split(pred, truth)
    assert Precision(relevant_threshold=1, average="micro").perform(s).system.iloc[0, 0] == 0.5
    zero = Precision(relevant_threshold=1, average="micro", no_relevant="zero").perform(s)
    assert zero.system.iloc[0, 0] == 1 / 5


@pytest.mark.parametrize("make", [Precision, Recall, FMeasure, RPrecision, functools.partial(FMeasureAtK, 2),
                                  functools.partial(PrecisionAtK, 2), functools.partial(RecallAtK, 2)])
def test_micro_names_and_construction(make):
    macro, micro = make(), make(average="micro")
    assert str(micro) == str(macro) + "-micro"
    assert rk.parse_metric(str(micro)) == micro
    assert macro.system_is_user_mean and not micro.system_is_user_mean
    with pytest.raises(ValueError, match="`average` must be one of"):
        make(average="weighted")


def test_parse_round_trip_of_the_new_set_metrics():
    for text, metric in [("P", Precision()), ("R", Recall()), ("F1", FMeasure()), ("F1@10", FMeasureAtK(10)),
                         ("F2", FMeasure(2)), ("F0.5@3", FMeasureAtK(3, 0.5)), ("RPrec", RPrecision()),
                         ("P-micro", Precision(average="micro")), ("F1@5-micro", FMeasureAtK(5, average="micro")),
                         ("P@10", PrecisionAtK(10)), ("R@10-micro", RecallAtK(10, average="micro"))]:
        assert rk.parse_metric(text) == metric, text
        assert str(metric) == text
    with pytest.raises(ValueError, match=r"'MRR-micro'.*has no `average`"):
        rk.parse_metric("MRR-micro")
    with pytest.raises(ValueError, match=r"'F0'.*`beta` must be"):
        rk.parse_metric("F0")
    with pytest.raises(ValueError, match="takes no cutoff"):
        rk.parse_metric("RPrec@5")
    with pytest.raises(ValueError, match="`beta` must be a finite number > 0"):
        FMeasure(beta=-1)


def test_k_beyond_the_longest_list_is_the_whole_list(toy):
    # F1@1000 with denominator="listed" divides by the list length: the whole-list F1
    np.testing.assert_allclose(FMeasureAtK(1000, denominator="listed").perform(toy).users.to_numpy(),
                               FMeasure().perform(toy).users.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(PrecisionAtK(1000, denominator="listed").perform(toy).users.to_numpy(),
                               Precision().perform(toy).users.to_numpy(), rtol=1e-12)


# --------------------------------------------------------------------------- #
# oracles, under hypothesis
# --------------------------------------------------------------------------- #
KINDS = [
    ("precision", lambda thr, nr, avg: Precision(thr, no_relevant=nr, average=avg), {}),
    ("recall", lambda thr, nr, avg: Recall(thr, no_relevant=nr, average=avg), {}),
    ("f", lambda thr, nr, avg: FMeasure(1.0, thr, no_relevant=nr, average=avg), {"beta": 1.0}),
    ("f", lambda thr, nr, avg: FMeasure(0.5, thr, no_relevant=nr, average=avg), {"beta": 0.5}),
    ("rprec", lambda thr, nr, avg: RPrecision(thr, no_relevant=nr, average=avg), {}),
    ("rprec", lambda thr, nr, avg: RPrecision(thr, denominator="listed", no_relevant=nr, average=avg),
     {"denominator": "listed"}),
]
for _k in (1, 3, 20):
    KINDS += [
        ("f_at_k", lambda thr, nr, avg, k=_k: FMeasureAtK(k, 2.0, thr, no_relevant=nr, average=avg),
         {"k": _k, "beta": 2.0}),
        ("f_at_k", lambda thr, nr, avg, k=_k: FMeasureAtK(k, 1.0, thr, denominator="listed", no_relevant=nr,
                                                          average=avg),
         {"k": _k, "beta": 1.0, "denominator": "listed"}),
        ("p_at_k", lambda thr, nr, avg, k=_k: PrecisionAtK(k, thr, no_relevant=nr, average=avg), {"k": _k}),
        ("p_at_k", lambda thr, nr, avg, k=_k: PrecisionAtK(k, thr, denominator="listed", no_relevant=nr,
                                                           average=avg), {"k": _k, "denominator": "listed"}),
    ]


@SETTINGS
@given(data=strategies.frames(), thr=strategies.thresholds(), no_relevant=st.sampled_from(["nan", "zero"]))
def test_set_metrics_match_the_oracle_macro_and_micro(data, thr, no_relevant):
    pred, truth = data
    split = quiet_split(pred, truth)
    for kind, make, params in KINDS:
        expected = oracles.set_metric(pred, truth, kind, relevant_threshold=thr, no_relevant=no_relevant, **params)
        macro = assert_users(make(thr, no_relevant, "macro"), split, expected, pred, truth)
        assert_system(macro, str(make(thr, no_relevant, "macro")), nanmean(expected), pred, truth)
        micro_metric = make(thr, no_relevant, "micro")
        micro = assert_users(micro_metric, split, expected, pred, truth)
        assert_system(micro, str(micro_metric),
                      oracles.set_metric_micro(pred, truth, kind, relevant_threshold=thr, no_relevant=no_relevant,
                                               **params), pred, truth)


@SETTINGS
@given(data=strategies.frames(), thr=strategies.thresholds())
def test_recall_at_k_micro_matches_the_oracle(data, thr):
    pred, truth = data
    split = quiet_split(pred, truth)
    for k in (1, 5):
        res = RecallAtK(k, thr, average="micro").perform(split)
        expected = oracles.recall_at_k(pred, truth, k, relevant_threshold=thr)
        hits = {u: v for u, v in oracles.set_counts(pred, truth, "f_at_k", k, thr).items() if v is not None}
        micro = (sum(c["hits"] for c in hits.values()) / sum(c["relevant"] for c in hits.values())
                 if hits else float("nan"))
        np.testing.assert_allclose(res.users[str(RecallAtK(k, average="micro"))].loc[expected.index].to_numpy(float),
                                   expected.to_numpy(float), rtol=1e-12, equal_nan=True)
        assert_system(res, f"R@{k}-micro", micro)


# --------------------------------------------------------------------------- #
# peers: trec_eval (pytrec_eval) and ranx, run inside the tests
# --------------------------------------------------------------------------- #
def _peers():
    pytrec_eval = require("pytrec_eval")
    ranx = require("ranx")
    return pytrec_eval, ranx


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_eval_set_measures_agree(seed):
    pytrec_eval, _ = _peers()
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.peer_frames(seed)
    s = quiet_split(pred, truth)
    evaluator = pytrec_eval.RelevanceEvaluator(peer_data.as_qrels(truth), {"set_P", "set_recall", "set_F", "Rprec"},
                                               relevance_level=1)
    results = evaluator.evaluate(peer_data.as_run(pred))
    for measure, metric in [("set_P", Precision(1, no_relevant="zero")), ("set_recall", Recall(1, no_relevant="zero")),
                            ("set_F", FMeasure(1.0, 1, no_relevant="zero")),
                            ("Rprec", RPrecision(1, no_relevant="zero"))]:
        peer = pd.Series({q: v[measure] for q, v in results.items()}, dtype=float)
        ours = metric.perform(s).users[str(metric)].loc[peer.index]
        np.testing.assert_allclose(ours.to_numpy(), peer.to_numpy(), rtol=1e-12, atol=1e-12, err_msg=measure)
        # the trec_eval convention gives the same numbers from the default metric
        preset = type(metric)(relevant_threshold=1).with_convention("trec_eval")
        np.testing.assert_allclose(preset.perform(s).users[str(preset)].loc[peer.index].to_numpy(), peer.to_numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=measure)


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
@pytest.mark.parametrize("seed", [0, 1])
def test_ranx_f1_and_r_precision_agree(seed):
    _, ranx = _peers()
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.peer_frames(seed)
    s = quiet_split(pred, truth, missing_users="zero")  # ranx scores truth users without a list 0
    qrels = ranx.Qrels(peer_data.as_qrels(truth))
    run = ranx.Run(peer_data.as_run(pred)).make_comparable(qrels)
    names = ["f1", "f1@5", "f1@10", "r-precision"]
    scores = ranx.evaluate(qrels, run, names, return_mean=False, threads=1, save_results_in_run=False)
    q_ids = list(run.get_query_ids())
    pairs = [("f1", FMeasure(relevant_threshold=1)), ("f1@5", FMeasureAtK(5, relevant_threshold=1)),
             ("f1@10", FMeasureAtK(10, relevant_threshold=1)), ("r-precision", RPrecision(relevant_threshold=1))]
    for name, metric in pairs:
        peer = pd.Series(scores[name], index=q_ids)
        converted = metric.with_convention("ranx")
        ours = converted.perform(s).users[str(converted)].loc[q_ids]
        np.testing.assert_allclose(ours.to_numpy(), peer.to_numpy(), rtol=1e-12, atol=1e-12, err_msg=name)


def test_ranx_f1_at_k_divides_precision_by_k_clayrs_by_the_cut_list():
    """A list of 2 items, one relevant of 2: ranx's f1@5 uses P = 1/5, ClayRS's FMeasureAtK(5) P = 1/2."""
    pred = pd.DataFrame({"user_id": "q", "item_id": ["a", "x"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user_id": "q", "item_id": ["a", "b"], "score": [1, 1]})
    s = Split(pred, truth)
    by_k = FMeasureAtK(5, relevant_threshold=1).with_convention("ranx").perform(s).users.iloc[0, 0]
    listed = FMeasureAtK(5, relevant_threshold=1).with_convention("clayrs").perform(s).users.iloc[0, 0]
    assert by_k == pytest.approx(2 * (1 / 5) * (1 / 2) / (1 / 5 + 1 / 2), rel=1e-12)
    assert listed == pytest.approx(0.5, rel=1e-12)
    ranx = require("ranx")
    peer_data = load_sibling("_peer_data")
    value = ranx.evaluate(ranx.Qrels(peer_data.as_qrels(truth)), ranx.Run(peer_data.as_run(pred)), "f1@5",
                          threads=1)
    assert value == pytest.approx(by_k, rel=1e-12)
