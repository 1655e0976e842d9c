"""Miscalibration (Steck, RecSys 2018): a hand-worked genre example, the plain-loop oracle, validation.

LibRec's MiscalibrationEvaluator (Java) is the only peer; it does not follow Steck's
definition (see the class docstring), so the reference here is Steck's formulas, worked
out by hand below and coded one user at a time in ``_side_oracles.miscalibration``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from tests.metrics import _side_oracles as oracles

TOL = 1e-12
LN = math.log

# --------------------------------------------------------------------------- the hand-worked example
# genres:  a {drama}   b {comedy}   c {drama, comedy}   d {war}   e {}  (no genre)   f not in item_features
# Steck: an item spreads one unit evenly over its genres, p(g|i) = 1/|G_i|.
#
# u1 history a, c, e (e has no genre: left out)      -> p = drama (1 + 1/2)/2 = 3/4, comedy (1/2)/2 = 1/4
#    list    b, d, f (f has no genre: left out)      -> q = comedy 1/2, war 1/2
#    q~ = 0.99 q + 0.01 p: drama 0.0075, comedy 0.495 + 0.0025 = 0.4975
#    C = 3/4 ln(0.75 / 0.0075) + 1/4 ln(0.25 / 0.4975)
# u2 history c                                        -> p = drama 1/2, comedy 1/2
#    list    c, a                                     -> q = drama (1/2 + 1)/2 = 3/4, comedy 1/4
#    q~: drama 0.7425 + 0.005 = 0.7475, comedy 0.2475 + 0.005 = 0.2525
#    C = 1/2 ln(0.5 / 0.7475) + 1/2 ln(0.5 / 0.2525)
#    with rank weights 1/log2(r + 1): w1 = 1, w2 = 1/log2(3);
#    q = drama (1/2 + w2) / (1 + w2), comedy (1/2) / (1 + w2)
# u3 not in train                                     -> NaN
# u4 history a; list f only (no genre)                -> NaN
GENRES = pd.DataFrame({"genres": [{"drama"}, {"comedy"}, {"drama", "comedy"}, {"war"}, set()]},
                      index=list("abcde"))
TRAIN = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u4"], "item_id": ["a", "c", "e", "c", "a"],
                      "score": [4.0, 1.0, 5.0, 3.0, 2.0]})
PRED = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 2 + ["u3", "u4"], "item_id": list("bdfcaaf"),
                     "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0]})
TRUTH = pd.DataFrame({"user_id": ["u1", "u2", "u3", "u4"], "item_id": list("bcab"), "score": [1.0] * 4})
U1 = 0.75 * LN(0.75 / 0.0075) + 0.25 * LN(0.25 / 0.4975)
U2 = 0.5 * LN(0.5 / 0.7475) + 0.5 * LN(0.5 / 0.2525)
W2 = 1 / math.log2(3)


def _u2_log2_ranks():
    q_drama, q_comedy = (0.5 + W2) / (1 + W2), 0.5 / (1 + W2)
    return 0.5 * LN(0.5 / (0.99 * q_drama + 0.005)) + 0.5 * LN(0.5 / (0.99 * q_comedy + 0.005))


# u1 by training score: a 4, c 1 (e 5 has no genre) -> p = drama (4 + 1/2)/5 = 0.9, comedy 0.1
#    q~: drama 0.009, comedy 0.495 + 0.001 = 0.496
U1_SCORE = 0.9 * LN(0.9 / 0.009) + 0.1 * LN(0.1 / 0.496)


def _values(metric, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = metric.perform(split)
    return res.users[str(metric)].to_dict(), float(res.system.iloc[0, 0])


@pytest.mark.parametrize("metric, expected", [
    pytest.param(rk.Miscalibration(), {"u1": U1, "u2": U2}, id="steck-alpha-0.01"),
    pytest.param(rk.Miscalibration(rank_weight="log2"), {"u1": None, "u2": _u2_log2_ranks()}, id="rank-weights"),
    pytest.param(rk.Miscalibration(history_weight="score"), {"u1": U1_SCORE, "u2": U2}, id="history-by-score"),
    pytest.param(rk.Miscalibration(1), {"u1": 0.75 * LN(0.75 / 0.0075) + 0.25 * LN(0.25 / (0.99 + 0.0025)),
                                        "u2": U2 * 0 + 0.5 * LN(0.5 / (0.99 * 0.5 + 0.005)) * 2},
                 id="k=1"),
    pytest.param(rk.Miscalibration(base=2), {"u1": U1 / LN(2), "u2": U2 / LN(2)}, id="bits"),
])
def test_hand_worked_genre_example(metric, expected):
    split = rk.Split(PRED, TRUTH, train=TRAIN, item_features=GENRES)
    got, system = _values(metric, split)
    assert np.isnan(got["u3"]) and np.isnan(got["u4"])
    for user, value in expected.items():
        if value is not None:
            assert got[user] == pytest.approx(value, rel=TOL, abs=TOL), user
    assert system == pytest.approx(np.mean([got["u1"], got["u2"]]), rel=TOL)


def test_u1_with_rank_weights_by_hand():
    # u1's listed genres: b (rank 1, w 1) comedy, d (rank 2, w 1/log2 3) war: q = comedy 1/(1+W2), war W2/(1+W2)
    q_comedy = 1 / (1 + W2)
    expected = 0.75 * LN(0.75 / 0.0075) + 0.25 * LN(0.25 / (0.99 * q_comedy + 0.0025))
    got, _ = _values(rk.Miscalibration(rank_weight="log2"), rk.Split(PRED, TRUTH, train=TRAIN, item_features=GENRES))
    assert got["u1"] == pytest.approx(expected, rel=TOL)


def test_perfect_calibration_is_zero_and_alpha_zero_can_be_infinite():
    train = pd.DataFrame({"user_id": ["u1", "u1"], "item_id": ["a", "b"]})
    pred = pd.DataFrame({"user_id": ["u1", "u1"], "item_id": ["c", "d"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["u1"], "item_id": ["c"], "score": [1.0]})
    split = rk.Split(pred, truth, train=train, item_features=GENRES)
    # history drama 1/2 comedy 1/2; list c (drama, comedy) and d (war): q = drama 1/4, comedy 1/4, war 1/2
    assert _values(rk.Miscalibration(1), split)[0]["u1"] == 0.0
    expected = 2 * 0.5 * LN(0.5 / (0.99 * 0.25 + 0.005))
    assert _values(rk.Miscalibration(), split)[0]["u1"] == pytest.approx(expected, rel=TOL)
    assert _values(rk.Miscalibration(alpha=0), split)[0]["u1"] == pytest.approx(2 * 0.5 * LN(2), rel=TOL)
    only_war = pred.assign(item_id=["d", "c"], score=[2.0, 1.0])
    split = rk.Split(only_war, truth.assign(item_id=["d"]), train=train, item_features=GENRES)
    assert _values(rk.Miscalibration(1, alpha=0), split)[0]["u1"] == math.inf


# --------------------------------------------------------------------------- the oracle
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), k=st.sampled_from([None, 1, 3]),
       options=st.sampled_from([{}, {"rank_weight": "log2"}, {"history_weight": "score"}, {"alpha": 0.2},
                                {"base": 2.0}]))
def test_matches_the_plain_loop(seed, k, options):
    pred, truth, train, sets, _ = oracles.random_data(seed)
    split = rk.Split(pred, truth, train=train, item_features=sets)
    got = _values(rk.Miscalibration(k, **options), split)[0]
    expected = oracles.miscalibration(pred, truth, train, sets, k, **options)
    got = pd.Series(got).reindex(expected.index)
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12, atol=1e-13)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**20))
def test_row_order_of_inputs_changes_no_bit(seed):
    pred, truth, train, sets, _ = oracles.random_data(seed)
    rng = np.random.default_rng(seed)
    metrics = [rk.Miscalibration(3), rk.Miscalibration(history_weight="score", rank_weight="log2")]
    for m in metrics:
        a = _values(m, rk.Split(pred, truth, train=train, item_features=sets))[0]
        b = _values(m, rk.Split(pred.iloc[rng.permutation(len(pred))], truth, train=train.iloc[rng.permutation(
            len(train))], item_features=sets.iloc[rng.permutation(len(sets))]))[0]
        pd.testing.assert_series_equal(pd.Series(a).sort_index(), pd.Series(b).sort_index(), check_exact=True,
                                       check_index_type=False)


def test_several_cutoffs_and_names():
    split = rk.Split(PRED, TRUTH, train=TRAIN, item_features=GENRES)
    res = rk.Miscalibration(k=[1, 3]).perform(split)
    assert list(res.users.columns) == ["Miscalibration@1", "Miscalibration@3"]
    single = rk.Miscalibration(1).perform(split).users["Miscalibration@1"]
    pd.testing.assert_series_equal(res.users["Miscalibration@1"], single)
    for m in [rk.Miscalibration(), rk.Miscalibration(10)]:
        assert rk.parse_metric(str(m)) == m
    assert not rk.Miscalibration.higher_is_better and rk.Miscalibration().system_is_user_mean


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("side, argument", [
    ({"item_features": GENRES}, "train="), ({"train": TRAIN}, "item_features="),
])
def test_missing_side_data_names_the_argument(side, argument):
    with pytest.raises(ValueError, match=rf"Miscalibration needs side data: pass {argument}"):
        rk.Miscalibration().perform(rk.Split(PRED, TRUTH, **side))
    with pytest.raises(ValueError, match=rf"Miscalibration needs side data \(split 'fold1'\): pass {argument}"):
        rk.EvalModel(PRED, TRUTH, [rk.Miscalibration()], **side)


def test_numeric_features_are_not_genres():
    vectors = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=list("abcde"))
    with pytest.raises(ValueError, match=r"Miscalibration needs genres: `item_features` must hold one column of "
                                         r"category sets, got numeric vectors"):
        rk.Miscalibration().perform(rk.Split(PRED, TRUTH, train=TRAIN, item_features=vectors))


def test_history_by_score_needs_a_score_column():
    split = rk.Split(PRED, TRUTH, train=TRAIN.drop(columns="score"), item_features=GENRES)
    with pytest.raises(ValueError, match=r"`train` has no 'score' column to weight the history by"):
        rk.Miscalibration(history_weight="score").perform(split)


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": 1.0}, r"`alpha` must be a number in \[0, 1\), got 1.0"),
    ({"alpha": -0.1}, r"`alpha` must be a number in \[0, 1\)"),
    ({"base": 1.0}, r"`base` must be a finite number > 1, got 1.0"),
    ({"rank_weight": "exp"}, r"rank_weight"),
    ({"history_weight": "recency"}, r"history_weight"),
])
def test_parameters_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rk.Miscalibration(**kwargs)


def test_inputs_are_not_mutated():
    frames = [PRED.copy(), TRUTH.copy(), TRAIN.copy(), GENRES.copy()]
    rk.Miscalibration(history_weight="score").perform(rk.Split(PRED, TRUTH, train=TRAIN, item_features=GENRES))
    for before, after in zip(frames, [PRED, TRUTH, TRAIN, GENRES]):
        pd.testing.assert_frame_equal(before, after)


@pytest.mark.parametrize("seed", [3, 4])
def test_many_genres_take_the_sparse_path_with_the_same_values(seed):
    from rankeval.metrics.beyond._calibration import DENSE_GENRES

    pred, truth, train, sets, _ = oracles.random_data(seed)
    rng = np.random.default_rng(seed)
    many = [f"g{j:03d}" for j in range(DENSE_GENRES + 16)]
    sets = sets.assign(genres=[set(rng.choice(many, size=int(rng.integers(0, 4)), replace=False).tolist())
                               for _ in range(len(sets))])
    sets.iloc[0, 0] = set(many)  # every genre in use: more columns than the dense path takes
    split = rk.Split(pred, truth, train=train, item_features=sets)
    for options in ({}, {"rank_weight": "log2", "history_weight": "score"}):
        got = pd.Series(_values(rk.Miscalibration(3, **options), split)[0])
        expected = oracles.miscalibration(pred, truth, train, sets, 3, **options)
        np.testing.assert_allclose(got.reindex(expected.index), expected, rtol=1e-12, atol=1e-13)
