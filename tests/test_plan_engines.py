"""The evaluation plan, the engines, and compare's paired statistics in rankeval.stats.

The statistics are checked against SciPy and against exact rational arithmetic
(``fractions.Fraction``); the plan and the engines against what the caller passed and
against EvalModel's and compare's own results.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

import rankeval as rk
from rankeval.engines import EvalPlan, LocalEngine, engine_for
from rankeval.evaluation._plan import build_plan
from rankeval.stats import cohen_dz, mean_difference, paired_test, stable_mean

FLOATS = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # SciPy's own, on nearly equal values
@given(st.lists(st.tuples(FLOATS, FLOATS), min_size=3, max_size=40))
def test_paired_tests_are_scipys(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    d = b - a
    if not np.any(d):
        assert paired_test(a, b, "paired_t") == (0.0, 1.0)
        return
    t = sps.ttest_rel(b, a)
    got = paired_test(a, b, "paired_t")
    assert got == pytest.approx((t.statistic, t.pvalue), nan_ok=True, rel=1e-12, abs=0)
    w = sps.wilcoxon(b, a)
    assert paired_test(a, b, "wilcoxon") == pytest.approx((w.statistic, w.pvalue), rel=1e-12)
    assert paired_test(a, b, "randomization")[0] == d.mean()
    assert math.isnan(paired_test(a, b, "randomization")[1])


def test_paired_test_without_units_or_with_an_unknown_test():
    assert all(math.isnan(x) for x in paired_test([1.0], [2.0]))
    with pytest.raises(ValueError, match="`test` must be one of"):
        paired_test([1.0, 2.0], [2.0, 3.0], "sign")


@given(st.lists(FLOATS, min_size=2, max_size=40))
def test_cohen_dz_is_mean_over_sample_sd(d):
    got = cohen_dz(d)
    if not any(d):
        assert got == 0.0
        return
    sd = statistics.stdev(d)
    if sd == 0:
        assert got == math.copysign(math.inf, d[0])
        return
    assert got == pytest.approx(statistics.fmean(d) / sd, rel=1e-9)


def test_means_are_exact_where_the_float_sum_cancels():
    a = np.array([1e16, 1.0, -1e16, 3.0])
    b = np.array([-1e16, 2.0, 1e16, 5.0])
    exact_a = float(sum(Fraction(x) for x in a) / len(a))
    assert stable_mean(a) == exact_a == 1.0
    exact = float((sum(Fraction(x) for x in b) - sum(Fraction(x) for x in a)) / len(a))
    assert mean_difference(a, b) == exact == 0.75
    assert mean_difference(np.array([1.0, np.inf]), np.array([2.0, 3.0])) == -math.inf
    assert math.isnan(stable_mean([])) and math.isnan(mean_difference([], []))


def _data():
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": ["a", "b", "a", "c", "b"],
                         "score": [0.9, 0.5, 0.8, 0.7, 0.6]})
    other = pred.assign(score=[0.1, 0.5, 0.8, 0.9, 0.6])
    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["b", "c", "b"], "score": [5.0, 3.0, 4.0]})
    return pred, other, truth


def test_plan_holds_what_the_caller_asked_for_and_is_frozen():
    pred, _, truth = _data()
    plan = build_plan([truth, truth], [rk.NDCGAtK([2, 3]), rk.MRR()], split_names=["x", "y"],
                      convention="trec_eval", train=truth, split_options={"item_col": "item_id"})
    assert isinstance(plan, EvalPlan)
    assert plan.names == ["NDCG@2", "NDCG@3", "MRR"]
    covered = build_plan(truth, [rk.NDCGAtK(2), rk.CatalogCoverage(2)], train=truth)
    assert covered.names == ["NDCG@2", "Coverage@2"] and covered.per_user == ["NDCG@2"]  # coverage: one number
    assert plan.split_names == ("x", "y") and plan.convention == "trec_eval"
    assert plan.missing_users == "ignore"  # trec_eval without -c
    assert plan.split_options["ties"] == "item_id_desc"
    assert plan.sides is not None and plan.side(0) is plan.side(1)  # one train, validated once
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.convention = "ranx"  # type: ignore[misc]


def test_eval_model_is_its_plan_run_by_its_engine():
    pred, other, truth = _data()
    model = rk.EvalModel([pred, other], [truth, truth], [rk.MRR(), rk.RecallAtK(1)])
    assert model.metrics == list(model.plan.metrics) and model.split_names == ["fold1", "fold2"]
    engine = engine_for(model.plan, [pred, other])
    assert isinstance(engine, LocalEngine)
    run = engine.run(model.plan)
    sys_result, users = model.fit()
    pd.testing.assert_frame_equal(users, run.users, check_exact=True)
    # hand-worked: the hits of users 1, 2, 3 are at ranks 2, 2, 1 in pred and 1, 1, 1 in other
    assert sys_result["MRR"].tolist() == pytest.approx([2 / 3, 1.0, 5 / 6], rel=1e-15)
    unstacked = engine.run(model.plan, stacked=False).users
    assert [frame.index.tolist() for frame in unstacked] == [[1, 2, 3], [1, 2, 3]]
    pd.testing.assert_frame_equal(unstacked[1], users.xs("fold2", level="split"), check_exact=True)


def test_compare_units_are_each_systems_eval_model_values():
    pred, other, truth = _data()
    res = rk.compare({"p": pred, "o": other}, truth, [rk.MRR()], n_resamples=50)
    for name, frame in (("p", pred), ("o", other)):
        _, users = rk.EvalModel(frame, truth, [rk.MRR()]).fit()
        assert res.units[("MRR", name)].tolist() == users["MRR"].tolist()
    a, b = res.units[("MRR", "p")].to_numpy(), res.units[("MRR", "o")].to_numpy()
    row = res.table.loc[("MRR", "p", "o")]
    assert (row["statistic"], row["p_value"]) == paired_test(a, b, "paired_t")
    assert row["effect_size"] == cohen_dz(b - a) and row["diff"] == mean_difference(a, b)
