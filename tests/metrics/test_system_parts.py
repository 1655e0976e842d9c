"""The system-value hook: parts that merge exactly over any partition of the users, micro
averages in EvalModel, compare's refusal of pooled system values, the CLI's names."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval import Split
from rankeval.engines._pandas import evaluate_split_with_parts
from rankeval.metrics._parts import SystemParts, merge_parts

from ._load import load_sibling

peer_data = load_sibling("_peer_data")

pytestmark = pytest.mark.filterwarnings("ignore::rankeval.MissingUsersWarning")


# --------------------------------------------------------------------------- #
# SystemParts: exact, mergeable, order-independent
# --------------------------------------------------------------------------- #
FLOATS = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.one_of(FLOATS, st.sampled_from([0.1, 0.2, 0.3, 1e-300, 5e-324, 1e16, -1e16])),
                       max_size=60),
       cuts=st.lists(st.integers(0, 60), max_size=6), seed=st.integers(0, 2**32 - 1))
def test_parts_merge_exactly_in_any_partition_and_order(values, cuts, seed):
    values = np.array(values, dtype=float)
    bounds = sorted({0, len(values), *[c for c in cuts if c <= len(values)]})
    buckets = [SystemParts.of({"x": values[a:b]}) for a, b in zip(bounds[:-1], bounds[1:])] or [
        SystemParts.of({"x": values})]
    order = np.random.default_rng(seed).permutation(len(buckets))
    merged = merge_parts([buckets[i] for i in order])
    whole = SystemParts.of({"x": values})
    exact = float(sum((Fraction(v) for v in values), Fraction(0)))  # the exact sum, rounded once
    assert merged.values()["x"] == whole.values()["x"] == exact
    assert merged.count("x") == len(values)
    # the same bits through JSON (how Spark buckets reach the driver)
    assert SystemParts.from_json(merged.to_json()).values() == merged.values()


def test_parts_skip_nan_keep_infinities_and_merge_keyed_counts():
    a = SystemParts.of({"x": np.array([1.0, np.nan, np.inf]),
                        "items": pd.Series([1, 2], index=["i1", "i2"])})
    b = SystemParts.of({"x": np.array([2.0]), "items": pd.Series([3, 1, 1], index=["i2", "i3", "i3"])})
    merged = (b + a).values()
    assert merged["x"] == np.inf
    assert merged["items"].to_dict() == {"i1": 1, "i2": 5, "i3": 2}
    assert (a + b).values()["items"].equals(merged["items"])
    both = SystemParts.of({"x": np.array([np.inf, -np.inf])}).values()["x"]
    assert math.isnan(both)
    assert SystemParts.from_json((a + b).to_json()).values()["items"].to_dict() == {"i1": 1, "i2": 5, "i3": 2}
    with pytest.raises(TypeError, match="must hold integer counts"):
        SystemParts.of({"items": pd.Series([0.5], index=["i1"])})
    with pytest.raises(ValueError, match="different names"):
        a + SystemParts.of({"y": np.array([1.0])})
    assert merge_parts([None, None]) is None


def test_parts_of_a_metric_merge_over_buckets_of_users_to_the_same_bits():
    pred, truth = peer_data.peer_frames(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = Split(pred, truth)
        users = whole.ranked_lists().user_ids
        rng = np.random.default_rng(0)
        bucket_of = dict(zip(users, rng.integers(0, 5, len(users))))
        buckets = []
        for b in range(5):
            keep = [u for u in users if bucket_of[u] == b]
            buckets.append(Split(pred[pred.user_id.isin(keep)], truth[truth.user_id.isin(keep)]))
    metrics = [rk.Precision(1, average="micro"), rk.FMeasureAtK(5, 1, average="micro"),
               rk.RPrecision(1, average="micro"), rk.MAE(average="micro"), rk.RMSE(average="micro"),
               rk.NumRelRet(1), rk.RecallAtK(10, 1, average="micro")]
    _, systems, _ = evaluate_split_with_parts(whole, metrics)
    per_bucket = [evaluate_split_with_parts(s, metrics)[2] for s in buckets]
    for metric in metrics:
        name = str(metric)
        for order in (range(5), [4, 2, 0, 3, 1]):
            merged = merge_parts(per_bucket[i][name] for i in order)
            assert metric.system_value(merged.values()) == systems[name], name  # bit for bit
    # a mean of users has no parts
    assert evaluate_split_with_parts(whole, [rk.Precision(1)])[2] == {"P": None}


def test_a_custom_metric_uses_the_hook_with_keyed_parts():
    class ListedItems(rk.RankingMetric):
        """Items listed in the first k positions, over the system (a catalog coverage count)."""

        stem = "Listed"

        def per_user(self, lists):
            return lists.segment_sum(lists.position <= self.k)

        def system_parts(self, lists, values):
            top = lists.position <= self.k
            return {"items": pd.Series(1, index=pd.Index(lists.item_ids[top])).groupby(level=0).size()}

        def system_value(self, parts):
            return float(len(parts["items"]))

    pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"], "score": [2, 1, 2, 1]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [1, 1]})
    metric = ListedItems(k=1)
    assert not metric.system_is_user_mean
    sys_result, users_result = rk.EvalModel([pred, pred.head(2)], [truth, truth], [metric]).fit()
    assert sys_result.loc["fold1", "Listed@1"] == 1.0  # only "a" is first anywhere
    assert sys_result.loc["fold2", "Listed@1"] == 1.0
    assert users_result["Listed@1"].tolist() == [1.0, 1.0, 1.0]


# --------------------------------------------------------------------------- #
# EvalModel: split rows from system_value, n_users still counts users
# --------------------------------------------------------------------------- #
def test_evalmodel_micro_rows_over_several_splits():
    folds = [peer_data.peer_frames(seed) for seed in (0, 1, 2)]
    metrics = [rk.Precision(1), rk.Precision(1, average="micro"), rk.MAE(average="micro"), rk.NumRet()]
    preds = [p.assign(score=p["score"] / 25.0) for p, _ in folds]  # scores on the grades' scale
    truths = [t for _, t in folds]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys_result, users_result = rk.EvalModel(preds, truths, metrics).fit()
    for name, (pred, truth) in zip(["fold1", "fold2", "fold3"], zip(preds, truths)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = Split(pred, truth)
        lists = s.ranked_lists().for_threshold(1)
        defined = lists.n_relevant > 0
        hits = lists.segment_sum(lists.relevant)
        assert sys_result.loc[name, "P-micro"] == hits[defined].sum() / lists.n_listed[defined].sum()
        assert sys_result.loc[name, "num_ret"] == lists.n_listed.sum()
        judged = lists.judged
        errors = np.abs(lists.pred_score[judged] - lists.truth_score[judged])
        assert sys_result.loc[name, "MAE-micro"] == pytest.approx(errors.mean(), rel=1e-13)
        # users behind each value: users, whatever the average
        counts = sys_result.attrs["n_users"][name]
        assert counts["P-micro"] == counts["P"] == int(defined.sum())
        assert counts["num_ret"] == lists.n_users
        users = users_result.xs(name, level="split")
        pd.testing.assert_series_equal(users["P-micro"], users["P"], check_names=False)
    # the mean row: the unweighted mean of the split rows, whatever the metric
    split_rows = sys_result.drop(index="mean")
    pd.testing.assert_series_equal(sys_result.loc["mean"], split_rows.mean(), check_names=False)


# --------------------------------------------------------------------------- #
# compare: a pooled system value has no per-user pairing
# --------------------------------------------------------------------------- #
def test_compare_lists_pooled_system_values_without_a_test():
    pred, truth = peer_data.peer_frames(0)
    other = pred.assign(score=-pred["score"])
    for metric, shown in ((rk.PrecisionAtK(5, 1, average="micro"), "P@5-micro"), (rk.NumRet(), "num_ret"),
                          (rk.MAE(average="micro"), "MAE-micro")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rk.compare({"a": pred, "b": other}, truth, [rk.MRR(1), metric], n_resamples=40)
        assert res.metrics == ("MRR",) and list(res.system_values.columns) == [shown]
        for name, frame in (("a", pred), ("b", other)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alone = rk.EvalModel(frame, truth, [metric]).fit()[0]
            assert res.system_values.loc[name, shown] == alone.loc["mean", shown]
    # the macro forms pair per user as any metric
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rk.compare({"a": pred, "b": other}, truth,
                         [rk.PrecisionAtK(5, 1), rk.NumRet(average="macro"), rk.MAE()], n_resamples=40)
    assert list(res.table.index.get_level_values("metric")) == ["P@5", "num_ret-macro", "MAE"]
    # MAE: lower is better, so the wins are counted for the lower error
    row = res.table.loc[("MAE", "a", "b")]
    units = res.units
    a, b = units[("MAE", "a")].to_numpy(), units[("MAE", "b")].to_numpy()
    both = ~np.isnan(a) & ~np.isnan(b)
    assert row["wins"] == int((b[both] < a[both]).sum()) and row["losses"] == int((b[both] > a[both]).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.DroppedUnitsWarning)
        ranks = res.mean_ranks()
    better = "a" if np.nanmean(a[both]) < np.nanmean(b[both]) else "b"
    assert ranks.loc["MAE", better] < 1.5  # rank 1 = the lower error


# --------------------------------------------------------------------------- #
# the command line: the new names parse with -m
# --------------------------------------------------------------------------- #
def test_cli_evaluates_the_new_metrics(tmp_path, capsys):
    from rankeval.cli import main

    pred, truth = peer_data.rating_frames()
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    names = ["P", "P@3-micro", "R", "F1", "F1@3", "RPrec", "MAE", "RMSE-micro", "BPref", "RBP", "ERR@3",
             "num_ret", "num_rel-macro", "num_rel_ret"]
    args = ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
            "--format", "csv", "--threshold", "3"]
    for name in names:
        args += ["-m", name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col=0)
    assert list(out.columns) == names
    s = Split(pred, truth)
    assert out.loc["fold1", "MAE"] == rk.MAE().perform(s).system.iloc[0, 0]
    assert out.loc["fold1", "num_ret"] == len(pred)
