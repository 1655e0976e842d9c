"""Metrics at many cutoffs in one pass: NDCGAtK(k=[1, 5, 10]) equals the single-cutoff
metrics bit for bit, wherever a metric list is accepted."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk

CUTOFFS = [1, 2, 3, 5, 8, 20]

#: every built-in metric with a cutoff, in its variants
AT_K = [
    lambda k: rk.NDCGAtK(k),
    lambda k: rk.NDCGAtK(k, gains="exponential"),
    lambda k: rk.NDCGAtK(k, gains="binary", relevant_threshold=3),
    lambda k: rk.NDCGAtK(k, gains="binary", ideal="min_k_ones"),
    lambda k: rk.NDCGAtK(k, judged_only=True),
    lambda k: rk.NDCGAtK(k, ideal="ranked", judged_only=True),
    lambda k: rk.NDCGAtK(k, negative_grades="unjudged"),
    lambda k: rk.DCGAtK(k),
    lambda k: rk.MAPAtK(k),
    lambda k: rk.MAPAtK(k, denominator="min_k"),
    lambda k: rk.MAPAtK(k, denominator="hits"),
    lambda k: rk.MAPAtK(k, denominator="listed"),
    lambda k: rk.MRRAtK(k),
    lambda k: rk.MRRAtK(k, no_relevant="zero"),
    lambda k: rk.PrecisionAtK(k),
    lambda k: rk.PrecisionAtK(k, denominator="listed"),
    lambda k: rk.RecallAtK(k),
    lambda k: rk.HitRateAtK(k),
]


def _data(seed: int, n_users: int = 300, with_negative: bool = False) -> rk.Split:
    rng = np.random.default_rng(seed)
    n_items = 60
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 25), "item_id": rng.integers(0, n_items, n_users * 25),
                         "score": rng.integers(0, 6, n_users * 25).astype(float)})
    pred = pred.drop_duplicates(["user_id", "item_id"])
    low = -2 if with_negative else 1
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 12), "item_id": rng.integers(0, n_items, n_users * 12),
                          "score": rng.integers(low, 6, n_users * 12).astype(float)})
    truth = truth.drop_duplicates(["user_id", "item_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.MissingUsersWarning)
        return rk.Split(pred, truth)


@pytest.mark.parametrize("make", AT_K)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_cutoff_equals_the_single_cutoff_metric_bit_for_bit(make, seed):
    split = _data(seed, with_negative=seed == 1)
    group = make(CUTOFFS)
    assert group.columns == [str(make(k)) for k in CUTOFFS]
    result = group.perform(split)
    assert list(result.users.columns) == group.columns
    for k in CUTOFFS:
        single = make(k).perform(split)
        np.testing.assert_array_equal(result.users[str(make(k))].to_numpy(), single.users.iloc[:, 0].to_numpy())
        assert result.system[str(make(k))].iloc[0] == single.system.iloc[0, 0] or (
            np.isnan(result.system[str(make(k))].iloc[0]) and np.isnan(single.system.iloc[0, 0]))


@settings(max_examples=25, deadline=None)
@given(cutoffs=st.lists(st.integers(1, 30), min_size=1, max_size=6, unique=True), seed=st.integers(0, 10 ** 6),
       which=st.integers(0, len(AT_K) - 1))
def test_any_set_of_cutoffs_equals_single_cutoffs(cutoffs, seed, which):
    make = AT_K[which]
    split = _data(seed, n_users=40)
    users = make(cutoffs).perform(split).users
    for k in cutoffs:
        np.testing.assert_array_equal(users[str(make(k))].to_numpy(), make(k).perform(split).users.iloc[:, 0])


def test_evalmodel_compare_and_conventions_see_one_column_per_cutoff():
    split = _data(3)
    sys_result, users = rk.EvalModel(split.pred, split.truth, [rk.NDCGAtK([10, 5, 1]), rk.MAP()]).fit()
    assert list(sys_result.columns) == ["NDCG@1", "NDCG@5", "NDCG@10", "MAP"]
    single, _ = rk.EvalModel(split.pred, split.truth, [rk.NDCGAtK(5)]).fit()
    assert sys_result.loc["fold1", "NDCG@5"] == single.loc["fold1", "NDCG@5"]
    trec, _ = rk.EvalModel(split.pred, split.truth, [rk.NDCGAtK([1, 5])], convention="trec_eval").fit()
    trec_single, _ = rk.EvalModel(split.pred, split.truth, [rk.NDCGAtK(5)], convention="trec_eval").fit()
    assert trec.loc["fold1", "NDCG@5"] == trec_single.loc["fold1", "NDCG@5"]
    other = split.pred.assign(score=split.pred["score"][::-1].to_numpy())
    res = rk.compare({"a": split.pred, "b": other}, split.truth, [rk.NDCGAtK([1, 5])], n_resamples=100)
    assert res.metrics == ("NDCG@1", "NDCG@5")


def test_a_custom_metric_gets_many_cutoffs_through_the_base_class():
    class JudgedAtK(rk.RankingMetric):
        stem = "Judged"

        def __init__(self, k, *, name=None):
            super().__init__(k, None, name)

        def per_user(self, lists):
            return lists.segment_sum((lists.position <= self.k) & lists.judged) / self.k

    split = _data(4)
    users = JudgedAtK([2, 4]).perform(split).users
    assert list(users.columns) == ["Judged@2", "Judged@4"]
    np.testing.assert_array_equal(users["Judged@4"].to_numpy(), JudgedAtK(4).perform(split).users.iloc[:, 0])


def test_parse_metric_reads_a_list_of_cutoffs():
    metric = rk.parse_metric("NDCG@1,5,10")
    assert metric == rk.NDCGAtK([1, 5, 10]) and str(metric) == "NDCG@1,5,10"
    assert rk.parse_metric(str(rk.MAPAtK([3, 1]))) == rk.MAPAtK([1, 3])


@pytest.mark.parametrize("k, message", [([], r"`k` is an empty list"), ([5, 5], r"`k` repeats the cutoff\(s\) \[5\]"),
                                        ([0, 5], r"`k` must be an integer >= 1, got 0"),
                                        ([1.5], r"`k` must be an integer >= 1, got 1.5")])
def test_bad_cutoff_lists_are_refused(k, message):
    with pytest.raises(ValueError, match=message):
        rk.NDCGAtK(k)


def test_a_name_cannot_cover_several_columns():
    with pytest.raises(ValueError, match=r"`name` cannot name the 2 columns"):
        rk.NDCGAtK([5, 10], name="mine")


def test_the_command_line_takes_a_list_of_cutoffs(tmp_path, capsys):
    from rankeval.cli import main

    split = _data(5, n_users=30)
    split.pred.to_csv(tmp_path / "pred.csv", index=False)
    split.truth.to_csv(tmp_path / "truth.csv", index=False)
    status = main(["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
                   "-m", "NDCG@1,5", "-m", "MRR@3", "--threshold", "3", "--format", "csv"])
    out = capsys.readouterr().out
    assert status == 0
    table = pd.read_csv(pd.io.common.StringIO(out), index_col=0)
    assert list(table.columns) == ["NDCG@1", "NDCG@5", "MRR@3"]
    single = rk.NDCGAtK(5, relevant_threshold=3).perform(rk.Split(pd.read_csv(tmp_path / "pred.csv"),
                                                                 pd.read_csv(tmp_path / "truth.csv")))
    assert table.loc["fold1", "NDCG@5"] == pytest.approx(single.system.iloc[0, 0], rel=1e-15)
