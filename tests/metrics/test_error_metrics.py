"""MAE, MSE, RMSE: hand-computed values, scikit-learn's numbers, the oracle, micro vs macro.

scikit-learn is not a test dependency: its numbers below were printed once by the script
next to them (in a separate venv) on ``tests/_peer_data.py``'s ``rating_frames()``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import rankeval as rk
from rankeval import MAE, MSE, RMSE, Split

from ._load import assert_system, assert_users, load_sibling, nanmean, quiet_split

oracles = load_sibling("_oracles")
strategies = load_sibling("strategies")

pytestmark = pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning")


@pytest.fixture
def toy() -> Split:
    # u1: a (4.5 vs 5), b (2 vs 4), x unjudged     errors 0.5, 2
    # u2: c (3 vs 3)                                error 0
    # u3: y unjudged only                           no pair: NaN
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u3"], "item_id": ["a", "b", "x", "c", "y"],
                         "score": [4.5, 2.0, 3.0, 3.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3"], "item_id": ["a", "b", "c", "d", "z"],
                          "score": [5, 4, 3, 1, 2]})
    return Split(pred, truth)


@pytest.mark.parametrize("metric, users, system", [
    pytest.param(MAE(), [1.25, 0.0, np.nan], 0.625, id="MAE"),
    pytest.param(MAE(average="micro"), [1.25, 0.0, np.nan], 2.5 / 3, id="MAE-micro"),
    pytest.param(MSE(), [2.125, 0.0, np.nan], 1.0625, id="MSE"),
    pytest.param(MSE(average="micro"), [2.125, 0.0, np.nan], 4.25 / 3, id="MSE-micro"),
    pytest.param(RMSE(), [np.sqrt(2.125), 0.0, np.nan], np.sqrt(2.125) / 2, id="RMSE"),
    pytest.param(RMSE(average="micro"), [np.sqrt(2.125), 0.0, np.nan], np.sqrt(4.25 / 3), id="RMSE-micro"),
])
def test_hand_computed(toy, metric, users, system):
    res = metric.perform(toy)
    np.testing.assert_allclose(res.users.loc[["u1", "u2", "u3"], str(metric)], users, rtol=1e-12)
    assert res.system.loc["sys", str(metric)] == pytest.approx(system, rel=1e-12)


def test_lower_is_better_and_names():
    for cls, name in ((MAE, "MAE"), (MSE, "MSE"), (RMSE, "RMSE")):
        assert cls.higher_is_better is False
        assert str(cls()) == name and str(cls(average="micro")) == f"{name}-micro"
        assert rk.parse_metric(name) == cls() and rk.parse_metric(f"{name}-micro") == cls(average="micro")
        with pytest.raises(ValueError, match="takes no cutoff"):
            rk.parse_metric(f"{name}@5")


def test_needs_a_score_column():
    pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"], "rank": [1, 2]})
    truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [3]})
    with pytest.raises(ValueError, match="MAE needs predicted scores: `pred` has no score column"):
        MAE().perform(Split(pred, truth))


def test_order_and_ties_do_not_matter(toy):
    pred, truth = toy.pred, toy.truth
    shuffled = Split(pred.sample(frac=1, random_state=1), truth.sample(frac=1, random_state=2), ties="item_id")
    for metric in (MAE(), RMSE(average="micro")):
        pd.testing.assert_frame_equal(metric.perform(shuffled).users.sort_index(),
                                      metric.perform(toy).users.sort_index())


# --------------------------------------------------------------------------- #
# scikit-learn, on the same pairs
# --------------------------------------------------------------------------- #
# scikit-learn is not a test dependency. These values were printed by this script, run from
# the repository root in a separate venv (python3.11 -m venv /tmp/vpeer;
# /tmp/vpeer/bin/pip install scikit-learn pandas numpy -> scikit-learn 1.9.1):
#
#   PYTHONPATH=. /tmp/vpeer/bin/python - <<'EOF'
#   import sklearn.metrics as skm
#   from tests._peer_data import rating_frames
#   pred, truth = rating_frames()
#   pairs = pred.merge(truth, on=["user_id", "item_id"], suffixes=("_pred", ""))
#   for u, g in pairs.groupby("user_id"):
#       print(repr(u), (skm.mean_absolute_error(g["score"], g["score_pred"]),
#                       skm.mean_squared_error(g["score"], g["score_pred"]),
#                       skm.root_mean_squared_error(g["score"], g["score_pred"])))
#   print("micro", (skm.mean_absolute_error(pairs["score"], pairs["score_pred"]),
#                   skm.mean_squared_error(pairs["score"], pairs["score_pred"]),
#                   skm.root_mean_squared_error(pairs["score"], pairs["score_pred"])))
#   EOF
SKLEARN_PER_USER = {  # user -> (MAE, MSE, RMSE) over the user's listed, judged items
    "u0": (2.1007499999999997, 6.55598575, 2.5604659243973544),
    "u1": (1.4935, 2.814105, 1.6775294334228537),
    "u2": (1.7399999999999998, 4.013084999999999, 2.0032685790976705),
    "u3": (1.21375, 1.96390975, 1.4013956436353012),
    "u4": (2.097, 5.8494165, 2.4185566977021646),
    "u5": (1.75975, 4.3690222499999996, 2.0902206223267434),
}
SKLEARN_MICRO = (1.734125, 4.260920708333333, 2.0641997743274105)  # over every judged pair


def test_scikit_learn_values():
    peer_data = load_sibling("_peer_data")
    pred, truth = peer_data.rating_frames()
    s = Split(pred, truth)
    for j, cls in enumerate((MAE, MSE, RMSE)):
        users = cls().perform(s).users[str(cls())]
        assert sorted(users.index) == sorted(SKLEARN_PER_USER)
        for u, values in SKLEARN_PER_USER.items():
            assert users[u] == pytest.approx(values[j], rel=1e-12, abs=1e-12), (cls, u)
        macro = cls().perform(s).system.iloc[0, 0]
        assert macro == pytest.approx(np.mean([v[j] for v in SKLEARN_PER_USER.values()]), rel=1e-12)
        assert cls(average="micro").perform(s).system.iloc[0, 0] == pytest.approx(SKLEARN_MICRO[j], rel=1e-12)


# --------------------------------------------------------------------------- #
# the oracle, under hypothesis
# --------------------------------------------------------------------------- #
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=strategies.frames(allow_no_score=False))
def test_error_metrics_match_the_oracle(data):
    pred, truth = data
    split = quiet_split(pred, truth)
    for cls, kind in ((MAE, "mae"), (MSE, "mse"), (RMSE, "rmse")):
        if "score" not in pred.columns:
            with pytest.raises(ValueError, match="needs predicted scores"):
                cls().perform(split)
            continue
        expected = oracles.error(pred, truth, kind)
        res = assert_users(cls(), split, expected, pred, truth)
        assert_system(res, str(cls()), nanmean(expected), pred, truth)
        micro = assert_users(cls(average="micro"), split, expected, pred, truth)
        assert_system(micro, str(cls(average="micro")), oracles.error_micro(pred, truth, kind), pred, truth)
