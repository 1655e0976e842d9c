"""Property tests: the vectorized metrics equal the slow per-user oracles.

The oracles (``tests/_oracles.py``) are written from the metric definitions (docs/metrics.md) alone, with one
Python loop per user; the frames come from ``tests/strategies.py``. For every
metric family and parameter variant, each evaluated user's value must match to
rtol = atol = 1e-12, with NaN in exactly the same places, and the system value
must be the NaN-ignoring mean of the user values.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval import (
    DCG,
    MAP,
    MRR,
    NDCG,
    Correlation,
    DCGAtK,
    HitRateAtK,
    MAPAtK,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
    Split,
)
from rankeval.exceptions import MissingUsersWarning

# random lists often share no item with random truth: the low-overlap warning is expected there
pytestmark = pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning")


def _load_sibling(name: str):
    """Import tests/<name>.py whatever pytest's import mode or sys.path is."""
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_rankeval_tests_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


oracles = _load_sibling("_oracles")
strategies = _load_sibling("strategies")
frames = strategies.frames
thresholds = strategies.thresholds

KS = [1, 3, 5, 20]
RTOL = ATOL = 1e-12

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def _split(pred: pd.DataFrame, truth: pd.DataFrame) -> Split:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return Split(pred, truth)


def _perform(metric, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return metric.perform(split)


def _describe(pred, truth) -> str:
    return f"\npred=\n{pred.to_string()}\ntruth=\n{truth.to_string()}"


def assert_matches_oracle(metric, split, expected: pd.Series, name: str, pred, truth) -> None:
    """Per-user values equal the oracle (aligned by user id), system == nanmean."""
    assert str(metric) == name
    res = _perform(metric, split)
    users = res.users
    assert list(users.columns) == [name], (list(users.columns), name)
    assert users.index.is_unique, f"duplicate users in {name}"
    assert users[name].dtype == np.float64, users[name].dtype

    got = dict(zip(users.index.tolist(), users[name].tolist()))
    assert set(got) == set(expected.index.tolist()), (
        f"{name}: evaluated users differ: fast={sorted(map(str, got))} "
        f"oracle={sorted(map(str, expected.index))}" + _describe(pred, truth)
    )
    got_arr = np.array([got[u] for u in expected.index.tolist()], dtype=float)
    exp_arr = expected.to_numpy(dtype=float)
    if not np.allclose(got_arr, exp_arr, rtol=RTOL, atol=ATOL, equal_nan=True):
        table = pd.DataFrame({"fast": got_arr, "oracle": exp_arr}, index=expected.index)
        raise AssertionError(f"{name} differs from the oracle:\n{table.to_string()}" + _describe(pred, truth))

    # the system value: mean over users, NaN users left out, NaN if none is left
    assert list(res.system.index) == ["sys"]
    assert list(res.system.columns) == [name]
    sys_value = float(res.system[name].iloc[0])
    finite = exp_arr[~np.isnan(exp_arr)]
    if finite.size == 0:
        assert np.isnan(sys_value), (name, sys_value)
    else:
        assert np.isclose(sys_value, finite.mean(), rtol=RTOL, atol=ATOL), (name, sys_value, finite.mean())


def _unchanged(pred, truth, pred0, truth0) -> None:
    pd.testing.assert_frame_equal(pred, pred0)
    pd.testing.assert_frame_equal(truth, truth0)


# --------------------------------------------------------------------------- #
# binary metrics
# --------------------------------------------------------------------------- #
@SETTINGS
@given(data=frames(), thr=thresholds())
def test_map_matches_oracle(data, thr):
    pred, truth = data
    pred0, truth0 = pred.copy(), truth.copy()
    split = _split(pred, truth)
    assert_matches_oracle(
        MAP(relevant_threshold=thr), split, oracles.average_precision(pred, truth, relevant_threshold=thr), "MAP", pred, truth
    )
    for k in KS:
        assert_matches_oracle(
            MAPAtK(k, relevant_threshold=thr),
            split,
            oracles.average_precision(pred, truth, k=k, relevant_threshold=thr),
            f"MAP@{k}",
            pred,
            truth,
        )
    _unchanged(pred, truth, pred0, truth0)


@SETTINGS
@given(data=frames(), thr=thresholds())
def test_mrr_matches_oracle(data, thr):
    pred, truth = data
    split = _split(pred, truth)
    assert_matches_oracle(
        MRR(relevant_threshold=thr), split, oracles.reciprocal_rank(pred, truth, relevant_threshold=thr), "MRR", pred, truth
    )
    for k in KS:
        assert_matches_oracle(
            MRRAtK(k, relevant_threshold=thr),
            split,
            oracles.reciprocal_rank(pred, truth, k=k, relevant_threshold=thr),
            f"MRR@{k}",
            pred,
            truth,
        )


@SETTINGS
@given(data=frames(), thr=thresholds())
def test_precision_recall_hitrate_match_oracle(data, thr):
    pred, truth = data
    split = _split(pred, truth)
    for k in KS:
        assert_matches_oracle(
            PrecisionAtK(k, relevant_threshold=thr),
            split,
            oracles.precision_at_k(pred, truth, k, relevant_threshold=thr),
            f"P@{k}",
            pred,
            truth,
        )
        assert_matches_oracle(
            RecallAtK(k, relevant_threshold=thr),
            split,
            oracles.recall_at_k(pred, truth, k, relevant_threshold=thr),
            f"R@{k}",
            pred,
            truth,
        )
        assert_matches_oracle(
            HitRateAtK(k, relevant_threshold=thr),
            split,
            oracles.hit_rate_at_k(pred, truth, k, relevant_threshold=thr),
            f"HR@{k}",
            pred,
            truth,
        )


# --------------------------------------------------------------------------- #
# graded metrics
# --------------------------------------------------------------------------- #
GAINS = st.sampled_from(["linear", "exponential", "binary"])
LOGS = st.sampled_from([np.log2, np.log])


@SETTINGS
@given(data=frames(), gains=GAINS, log=LOGS, thr=thresholds())
def test_dcg_matches_oracle(data, gains, log, thr):
    pred, truth = data
    split = _split(pred, truth)
    # relevant_threshold only matters (and is only passed) for binary gains
    extra = {"relevant_threshold": thr} if gains == "binary" else {}
    assert_matches_oracle(
        DCG(gains=gains, discount_log=log, **extra),
        split,
        oracles.dcg(pred, truth, gains=gains, discount_log=log, **extra),
        "DCG",
        pred,
        truth,
    )
    for k in KS:
        assert_matches_oracle(
            DCGAtK(k, gains=gains, discount_log=log, **extra),
            split,
            oracles.dcg(pred, truth, k=k, gains=gains, discount_log=log, **extra),
            f"DCG@{k}",
            pred,
            truth,
        )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    data=frames(),
    gains=GAINS,
    ideal=st.sampled_from(["truth", "ranked"]),
    judged_only=st.booleans(),
    log=LOGS,
    thr=thresholds(),
)
def test_ndcg_matches_oracle(data, gains, ideal, judged_only, log, thr):
    pred, truth = data
    split = _split(pred, truth)
    params = dict(gains=gains, discount_log=log, ideal=ideal, judged_only=judged_only, relevant_threshold=thr)
    assert_matches_oracle(NDCG(**params), split, oracles.ndcg(pred, truth, **params), "NDCG", pred, truth)
    for k in KS:
        assert_matches_oracle(
            NDCGAtK(k, **params), split, oracles.ndcg(pred, truth, k=k, **params), f"NDCG@{k}", pred, truth
        )


# --------------------------------------------------------------------------- #
# correlation
# --------------------------------------------------------------------------- #
# Truth scores that differ by one ulp (0.7 vs 0.7000000000000001) make Pearson
# ill-conditioned: pandas and any other float implementation return different noise
# (-0.5, -0.29; exactly it is -0.87), so this test draws well-separated scores only.
@SETTINGS
@given(data=frames(rounding_sensitive=False))
def test_correlation_matches_oracle(data):
    pred, truth = data
    split = _split(pred, truth)
    # without a score column both correlate -position (ranks with gaps included)
    with warnings.catch_warnings():
        # constant inputs: numpy/scipy may warn on their way to NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ["pearson", "spearman", "kendall"]:
            for top_n in [None, 3]:
                name = method if top_n is None else f"{method}@{top_n}"
                assert_matches_oracle(
                    Correlation(method, top_n=top_n),
                    split,
                    oracles.correlation(pred, truth, method=method, top_n=top_n),
                    name,
                    pred,
                    truth,
                )


def test_pearson_without_score_uses_positions_not_rank_values():
    pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "rank": [1, 2, 10]})
    truth = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "score": [3.0, 2.0, 0.0]})
    expected = oracles.correlation(pred, truth)  # corr([-1, -2, -3], [3, 2, 0])
    assert expected.iloc[0] == pytest.approx(np.corrcoef([-1, -2, -3], [3, 2, 0])[0, 1])
    got = Correlation().perform(_split(pred, truth)).users["pearson"]
    assert got.loc[1] == pytest.approx(expected.iloc[0], rel=1e-12)


def test_mean_threshold_does_not_depend_on_truth_row_order():
    from fractions import Fraction

    scores = [0.1, 0.2, 0.3]
    # exactly, 0.2 (as a double) is above the mean of the three doubles: it is relevant
    assert Fraction(0.2) * 3 >= sum(Fraction(x) for x in scores)
    pred = pd.DataFrame({"user_id": [1], "item_id": ["b"], "score": [1.0]})
    truth = pd.DataFrame({"user_id": [1, 1, 1], "item_id": ["a", "b", "c"], "score": scores})
    for t in (truth, truth.iloc[::-1].reset_index(drop=True)):
        got = RecallAtK(1).perform(_split(pred, t)).users["R@1"]
        assert got.loc[1] == 0.5  # relevant: b and c


def test_correlation_default_is_pearson():
    assert str(Correlation()) == "pearson"


# --------------------------------------------------------------------------- #
# the system value
# --------------------------------------------------------------------------- #
_SYSTEM_METRICS = [
    lambda thr: MAP(relevant_threshold=thr),
    lambda thr: MAPAtK(3, relevant_threshold=thr),
    lambda thr: MRRAtK(5, relevant_threshold=thr),
    lambda thr: PrecisionAtK(3, relevant_threshold=thr),
    lambda thr: RecallAtK(5, relevant_threshold=thr),
    lambda thr: HitRateAtK(1, relevant_threshold=thr),
    lambda thr: NDCGAtK(5, relevant_threshold=thr),
    lambda thr: NDCG(gains="binary", relevant_threshold=thr),
    lambda thr: DCGAtK(3),
    lambda thr: Correlation("spearman"),
]


@SETTINGS
@given(data=frames(), thr=thresholds(), which=st.integers(0, len(_SYSTEM_METRICS) - 1))
def test_system_is_nanmean_of_users(data, thr, which):
    pred, truth = data
    metric = _SYSTEM_METRICS[which](thr)
    res = _perform(metric, _split(pred, truth))
    name = str(metric)
    values = res.users[name].to_numpy(dtype=float)
    sys_value = float(res.system[name].iloc[0])
    if np.isnan(values).all():
        assert np.isnan(sys_value)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.nanmean(values)
        assert np.isclose(sys_value, expected, rtol=RTOL, atol=ATOL), (sys_value, expected)


# --------------------------------------------------------------------------- #
# the oracle itself, on hand-checked numbers (so a shared mistake is unlikely)
# --------------------------------------------------------------------------- #
def _hand_example():
    pred = pd.DataFrame(
        {"user_id": ["a", "a", "a", "a", "b", "b"], "item_id": [1, 2, 3, 4, 1, 9], "score": [0.9, 0.8, 0.8, 0.1, 2.0, 1.0]}
    )
    truth = pd.DataFrame(
        {"user_id": ["a", "a", "a", "b", "c"], "item_id": [3, 1, 7, 9, 1], "score": [5.0, 1.0, 3.0, 2.0, 4.0]}
    )
    return pred, truth


def test_oracle_hand_checked_values():
    pred, truth = _hand_example()
    # user a: list 1,2,3,4 (2 and 3 tie at 0.8 -> row order); truth {3:5, 1:1, 7:3}; mean 3 -> relevant {3, 7}
    # user b: list 1,9; truth {9:2}; relevant {9}; user c: truth only (not evaluated)
    ap = oracles.average_precision(pred, truth)
    assert ap.index.tolist() == ["a", "b"]
    assert ap["a"] == pytest.approx((1 / 3) / 2)
    assert ap["b"] == pytest.approx(0.5 / 1)
    assert oracles.reciprocal_rank(pred, truth).tolist() == pytest.approx([1 / 3, 1 / 2])
    assert oracles.precision_at_k(pred, truth, 5).tolist() == pytest.approx([1 / 5, 1 / 5])
    assert oracles.recall_at_k(pred, truth, 2).tolist() == pytest.approx([0.0, 1.0])
    assert oracles.hit_rate_at_k(pred, truth, 2).tolist() == [0.0, 1.0]
    # DCG of a: gains 1, 0, 5, 0 -> 1/log2(2) + 5/log2(4)
    assert oracles.dcg(pred, truth)["a"] == pytest.approx(1 + 5 / 2)
    # IDCG (truth) of a: 5, 3, 1 -> 5 + 3/log2(3) + 1/2
    idcg = 5 + 3 / np.log2(3) + 0.5
    assert oracles.ndcg(pred, truth)["a"] == pytest.approx(3.5 / idcg)
    # ideal=ranked, judged_only: condensed list 1, 3 with gains 1, 5; ideal 5, 1
    assert oracles.ndcg(pred, truth, ideal="ranked", judged_only=True)["a"] == pytest.approx(
        (1 + 5 / np.log2(3)) / (5 + 1 / np.log2(3))
    )
    # binary, ideal=truth: m_u = 2 ones; list rel 0,0,1,0
    assert oracles.ndcg(pred, truth, gains="binary")["a"] == pytest.approx((1 / 2) / (1 + 1 / np.log2(3)))
    # negative grades: kept in the DCG, left out of the ideal (docs/decisions.md)
    neg_truth = pd.DataFrame({"user_id": ["a", "a"], "item_id": [1, 3], "score": [-1.0, 2.0]})
    assert oracles.ndcg(pred, neg_truth)["a"] == pytest.approx((-1 + 2 / 2) / 2)
    assert oracles.ndcg(pred, neg_truth, clip_negative_ideal=False)["a"] == pytest.approx(0 / (2 - 1 / np.log2(3)))
    # fixed threshold above everything: binary metrics NaN, NDCG with binary gains NaN
    assert oracles.average_precision(pred, truth, relevant_threshold=10).isna().all()
    assert oracles.ndcg(pred, truth, gains="binary", relevant_threshold=10).isna().all()
    # correlation of a: common items 1 (0.9, 1.0) and 3 (0.8, 5.0) -> -1
    corr = oracles.correlation(pred, truth)
    assert corr["a"] == pytest.approx(-1.0)
    assert np.isnan(corr["b"])  # one common item


def test_oracle_mean_threshold_is_exact():
    # (0.1 + 0.1 + 0.1) / 3 rounds above 0.1: a float mean would leave nobody relevant
    pred = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 2]})
    truth = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "score": [0.1, 0.1, 0.1]})
    assert (0.1 + 0.1 + 0.1) / 3 > 0.1
    assert oracles.recall_at_k(pred, truth, 2).tolist() == [pytest.approx(2 / 3)]


def test_oracle_orders_by_rank_then_score_then_rows():
    truth = pd.DataFrame({"user_id": [1], "item_id": ["x"], "score": [1.0]})
    by_rank = pd.DataFrame({"user_id": [1, 1], "item_id": ["x", "y"], "score": [9.0, 1.0], "rank": [2, 1]})
    assert oracles.reciprocal_rank(by_rank, truth).tolist() == [0.5]
    by_score = pd.DataFrame({"user_id": [1, 1], "item_id": ["y", "x"], "score": [1.0, 9.0]})
    assert oracles.reciprocal_rank(by_score, truth).tolist() == [1.0]
    by_rows = pd.DataFrame({"user_id": [1, 1], "item_id": ["y", "x"]})
    assert oracles.reciprocal_rank(by_rows, truth).tolist() == [0.5]


def test_pearson_is_nan_when_truth_is_constant_but_its_float_mean_is_not():
    """Eight ratings of 0.1 have a float mean of 0.09999999999999999: their deviations are
    tiny, not zero, and a test on the sum of squares would report a correlation of 0."""
    items = list(range(8))
    pred = pd.DataFrame({"user_id": 1, "item_id": items, "score": [0.5] + [0.25] * 7})
    truth = pd.DataFrame({"user_id": 1, "item_id": items, "score": 0.1})
    assert sum([0.1] * 8) / 8 != 0.1
    for method in ("pearson", "spearman", "kendall"):
        value = _perform(Correlation(method), _split(pred, truth)).users.iloc[0, 0]
        assert np.isnan(value), (method, value)
