"""EvalModel: splits x metrics, the result frames, user policies, warnings, no mutation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import EvalModel, MissingUsersWarning, Split

L = np.log2


@pytest.fixture
def two_splits(toy_frames):
    """Split 1 is the toy case; split 2 (worked out below) has two users.

    v1 truth a=4 b=2 (mean 3: a relevant)   list b, a      -> MRR 1/2, P@2 1/2, MAP@2 (1/2)/1
    u1 truth c=5 d=1 (mean 3: c relevant)   list c, d      -> MRR 1,   P@2 1/2, MAP@2 1
    """
    pred2 = pd.DataFrame({"user_id": ["v1", "v1", "u1", "u1"], "item_id": ["b", "a", "c", "d"],
                          "score": [2.0, 1.0, 2.0, 1.0]})
    truth2 = pd.DataFrame({"user_id": ["v1", "v1", "u1", "u1"], "item_id": ["a", "b", "c", "d"],
                           "score": [4.0, 2.0, 5.0, 1.0]})
    return [toy_frames[0], pred2], [toy_frames[1], truth2]


METRICS = [rk.MRR(), rk.MAPAtK(2), rk.PrecisionAtK(2), rk.NDCGAtK(2)]


def test_two_splits_by_hand(two_splits):
    preds, truths = two_splits
    sys_result, users_result = EvalModel(preds, truths, METRICS).fit()

    expected_users = pd.DataFrame({
        "MRR": [1, 1 / 3, 0, 1 / 2, 1],
        "MAP@2": [1 / 2, 0, 0, 1 / 2, 1],
        "P@2": [1 / 2, 0, 0, 1 / 2, 1 / 2],
        "NDCG@2": [5 / (5 + 4 / L(3)), 2 / (4 + 2 / L(3)), 0, (2 + 4 / L(3)) / (4 + 2 / L(3)), 1],
    }, index=pd.MultiIndex.from_tuples([("fold1", "u1"), ("fold1", "u2"), ("fold1", "u3"),
                                        ("fold2", "v1"), ("fold2", "u1")], names=["split", "user_id"]))
    pd.testing.assert_frame_equal(users_result, expected_users, rtol=1e-12)

    fold1 = expected_users.loc["fold1"].mean()
    fold2 = expected_users.loc["fold2"].mean()
    expected_sys = pd.DataFrame([fold1, fold2, (fold1 + fold2) / 2], index=pd.Index(["fold1", "fold2", "mean"],
                                                                                    name="split"))
    pd.testing.assert_frame_equal(sys_result, expected_sys, rtol=1e-12)
    assert list(sys_result.columns) == ["MRR", "MAP@2", "P@2", "NDCG@2"]


def test_split_names_single_frame_and_from_splits(two_splits):
    preds, truths = two_splits
    sys_a, users_a = EvalModel(preds, truths, METRICS, split_names=["a", "b"]).fit()
    assert list(sys_a.index) == ["a", "b", "mean"]
    assert users_a.index.get_level_values("split").unique().tolist() == ["a", "b"]
    sys_one, _ = EvalModel(preds[0], truths[0], METRICS).fit()
    assert list(sys_one.index) == ["fold1", "mean"]
    pd.testing.assert_series_equal(sys_one.loc["mean"], sys_one.loc["fold1"], check_names=False)
    splits = [Split(preds[0], truths[0], name="x"), Split(preds[1], truths[1])]
    sys_s, _ = EvalModel.from_splits(splits, METRICS).fit()
    assert list(sys_s.index) == ["x", "fold2", "mean"]
    np.testing.assert_allclose(sys_s.to_numpy(), sys_a.to_numpy(), rtol=1e-12)


def test_nan_split_rows_are_left_out_of_the_mean(two_splits):
    preds, truths = two_splits
    truths = [truths[0], truths[1].assign(score=1.0)]  # split 2: nothing reaches threshold 3
    sys_result, _ = EvalModel(preds, truths, [rk.MAP(relevant_threshold=3)]).fit()
    assert np.isnan(sys_result.loc["fold2", "MAP"])
    assert sys_result.loc["mean", "MAP"] == sys_result.loc["fold1", "MAP"]


def _with_truth_only_users(truth: pd.DataFrame, n: int) -> pd.DataFrame:
    extra = pd.DataFrame({"user_id": [f"t{i}" for i in range(n)], "item_id": "q", "score": 3.0})
    return pd.concat([truth, extra], ignore_index=True)


def test_missing_users_ignore_warns_with_the_count(two_splits):
    preds, truths = two_splits
    truths = [_with_truth_only_users(truths[0], 3), truths[1]]
    with pytest.warns(MissingUsersWarning, match=r"3 `truth` user\(s\) in split 'fold1' have no recommendations "
                                                 r"and are left out, e.g. \['t0', 't1', 't2'\]"):
        model = EvalModel(preds, truths, METRICS)
    _, users = model.fit()
    assert "t0" not in users.index.get_level_values("user_id")


def test_missing_users_zero_scores_them_zero_on_every_metric(two_splits):
    preds, truths = two_splits
    truths = [_with_truth_only_users(truths[0], 2), truths[1]]
    with pytest.warns(MissingUsersWarning, match=r"2 `truth` user\(s\) in split 'fold1' .* get 0 for every metric"):
        sys_result, users = EvalModel(preds, truths, METRICS, missing_users="zero").fit()
    zeros = users.loc[("fold1", ["t0", "t1"]), :]
    assert (zeros.to_numpy() == 0).all()
    assert sys_result.loc["fold1", "MRR"] == pytest.approx((1 + 1 / 3 + 0 + 0 + 0) / 5)


def test_missing_users_error_names_up_to_ten(two_splits):
    preds, truths = two_splits
    truths = [_with_truth_only_users(truths[0], 12), truths[1]]
    with pytest.raises(ValueError, match=r"12 `truth` user\(s\) in split 'fold1' have no recommendations, e.g. "
                                         r"\['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9'\]"):
        EvalModel(preds, truths, METRICS, missing_users="error")


def test_pred_only_users_warn_with_the_count(two_splits):
    preds, truths = two_splits
    extra = pd.DataFrame({"user_id": ["p1", "p2"], "item_id": "z", "score": 1.0})
    preds = [preds[0], pd.concat([preds[1], extra], ignore_index=True)]
    with pytest.warns(MissingUsersWarning, match=r"2 `pred` user\(s\) in split 'fold2' have no truth ratings"):
        EvalModel(preds, truths, METRICS)


def test_user_id_list_restricts_and_warns_about_unknown_ids(two_splits):
    preds, truths = two_splits
    model = EvalModel(preds, truths, METRICS)
    with pytest.warns(MissingUsersWarning, match=r"1 id\(s\) of `user_id_list` appear in no split and are "
                                                 r"ignored, e.g. \['nobody'\]"):
        sys_result, users = model.fit(user_id_list=["u1", "v1", "nobody"])
    assert users.index.tolist() == [("fold1", "u1"), ("fold2", "v1"), ("fold2", "u1")]
    full_sys, full_users = model.fit()
    pd.testing.assert_frame_equal(users, full_users.loc[users.index])
    assert sys_result.loc["fold1", "MRR"] == 1.0
    assert sys_result.loc["fold2", "MRR"] == pytest.approx(3 / 4)


def test_user_id_list_that_empties_a_split_is_an_error(two_splits):
    with pytest.raises(ValueError, match=r"`user_id_list` leaves split 'fold2' with no user to evaluate"):
        EvalModel(*two_splits, METRICS).fit(user_id_list=["u2"])


@pytest.mark.parametrize("make, exc, match", [
    (lambda p, t: EvalModel(p, t, [rk.MRR(), rk.MRR()]), ValueError,
     r"`metric_list` has repeated metric names \['MRR'\]; .* pass name="),
    (lambda p, t: EvalModel(p, t, [rk.NDCGAtK(10), rk.NDCGAtK(10, gains="exponential")]), ValueError,
     r"repeated metric names \['NDCG@10'\]"),
    (lambda p, t: EvalModel(p, t[:1], [rk.MRR()]), ValueError,
     r"`pred_list` has 2 frames but `truth_list` has 1"),
    (lambda p, t: EvalModel(p, t, []), ValueError, r"`metric_list` is empty"),
    (lambda p, t: EvalModel(p, t, ["MRR"]), TypeError, r"`metric_list`\[0\] must be a RankingMetric, got str"),
    (lambda p, t: EvalModel(p, t, [rk.MRR()], split_names=["a"]), ValueError, r"`split_names` has 1 names for 2"),
    (lambda p, t: EvalModel(p, t, [rk.MRR()], split_names=["a", "a"]), ValueError, r"must be distinct"),
    (lambda p, t: EvalModel(p, t, [rk.MRR()], missing_users="drop"), ValueError, r"`missing_users` must be one of"),
    (lambda p, t: EvalModel("pred.csv", t, [rk.MRR()]), TypeError, r"`pred_list` must be a DataFrame or a list"),
])
def test_bad_arguments(two_splits, make, exc, match):
    with pytest.raises(exc, match=match):
        make(*two_splits)


def test_name_resolves_duplicate_names(two_splits):
    sys_result, _ = EvalModel(*two_splits, [rk.NDCGAtK(2), rk.NDCGAtK(2, gains="exponential", name="NDCG@2-exp")]
                              ).fit()
    assert list(sys_result.columns) == ["NDCG@2", "NDCG@2-exp"]


def test_inputs_unchanged_and_results_are_fresh(two_splits):
    preds, truths = two_splits
    before = [df.copy(deep=True) for df in preds + truths]
    model = EvalModel(preds, truths, METRICS)
    sys1, users1 = model.fit()
    sys1.iloc[0, 0] = -1.0
    users1.iloc[0, 0] = -1.0
    sys2, users2 = model.fit()
    assert sys2.iloc[0, 0] != -1.0 and users2.iloc[0, 0] != -1.0
    for df, copy in zip(preds + truths, before):
        pd.testing.assert_frame_equal(df, copy)


def test_progress_bar_can_be_forced(two_splits, capsys):
    EvalModel(*two_splits, METRICS, progress=True).fit()
    err = capsys.readouterr().err
    assert "rankeval" in err and "8/8" in err
    EvalModel(*two_splits, METRICS, progress=False).fit()
    assert capsys.readouterr().err == ""


def test_one_join_per_split_shared_by_all_metrics(two_splits, monkeypatch):
    calls = []
    original = rk.RankedLists.build.__func__

    def counting(cls, *args, **kwargs):
        calls.append(1)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(rk.RankedLists, "build", classmethod(counting))
    EvalModel(*two_splits, METRICS * 1 + [rk.MRRAtK(1), rk.HitRateAtK(2), rk.DCG()]).fit()
    assert len(calls) == 2


def test_integer_user_ids_beyond_2_53_stay_apart_when_splits_or_sides_differ_in_dtype():
    # int64 meeting uint64 or float64 ids would go through float64, where 2**62 + 1 and 2**62 + 2 are one number
    big = 2 ** 62
    pred1 = pd.DataFrame({"user_id": np.array([big + 1, big + 2], dtype=np.uint64), "item_id": ["a", "a"],
                          "score": [1.0, 1.0]})
    truth1 = pd.DataFrame({"user_id": np.array([big + 1, big + 2, big + 3], dtype=np.int64),
                           "item_id": ["a", "a", "a"], "score": [1.0, 1.0, 1.0]})
    pred2 = pd.DataFrame({"user_id": [1.5, 1.5], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    truth2 = pd.DataFrame({"user_id": [1.5], "item_id": ["b"], "score": [1.0]})
    with pytest.warns(MissingUsersWarning, match=r"1 `truth` user\(s\) in split 'fold1'"):
        _, users = EvalModel([pred1, pred2], [truth1, truth2], [rk.MRR()], missing_users="zero").fit()
    assert users.index.tolist() == [("fold1", big + 1), ("fold1", big + 2), ("fold1", big + 3), ("fold2", 1.5)]
    assert users["MRR"].tolist() == [1.0, 1.0, 0.0, 0.5]
