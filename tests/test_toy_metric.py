"""A new metric is one file: tests/_toy_metric.py, written as a user writes one, registers its
name where it is defined and then works through parse_metric, EvalModel, compare, the command
line (``--metric-module``) and the Spark engine.

The data, by hand (ToyJudged@2: share of the first 2 positions holding an item with a truth score):

    truth   u1: a=5, c=1    u2: x=4    u3: f=2
    pred    u1: a, b, c     u2: d, e   u3: f          -> u1 1/2 (a), u2 0, u3 1/2 (f); mean 1/3
    other   u1: c, a        u2: x, d   u3: g, f       -> u1 1 (c, a), u2 1/2 (x), u3 1/2 (f); mean 2/3

compare's paired t test on the differences 1/2, 1/2, 0: mean 1/3, standard deviation
sqrt(1/12), t = (1/3) / (sqrt(1/12) / sqrt(3)) = 2 on 2 degrees of freedom, whose two-sided
p-value is 1 - 2 / sqrt(6) (Student's t with 2 degrees of freedom: F(t) = 1/2 + t / (2 sqrt(2 + t^2))).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main
from rankeval.cli._metric_modules import load_metric_module

TOY = Path(__file__).resolve().parent / "_toy_metric.py"

PRED = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u2", "u3"], "item_id": ["a", "b", "c", "d", "e", "f"],
                     "score": [0.9, 0.8, 0.7, 0.6, 0.2, 0.4]})
OTHER = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3"], "item_id": ["c", "a", "x", "d", "g", "f"],
                      "score": [0.9, 0.3, 0.8, 0.4, 0.7, 0.6]})
TRUTH = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u3"], "item_id": ["a", "c", "x", "f"],
                      "score": [5.0, 1.0, 4.0, 2.0]})
USERS = {"u1": 0.5, "u2": 0.0, "u3": 0.5}
OTHER_USERS = {"u1": 1.0, "u2": 0.5, "u3": 0.5}


@pytest.fixture
def toy():
    """The toy metric's file, run as the command line runs a user's file; its name forgotten after."""
    module = load_metric_module(str(TOY))
    try:
        yield module
    finally:
        rk.unregister_metric("ToyJudged")


def test_the_name_is_registered_where_the_class_is_defined(toy):
    metric = rk.parse_metric("ToyJudged@2")
    assert type(metric) is toy.ToyJudgedAtK and metric == toy.ToyJudgedAtK(2)
    assert str(metric) == "ToyJudged@2" and "ToyJudged@k" in rk.metric_names()
    assert [str(m) for m in rk.parse_metric("toyjudged@1,2").expand()] == ["ToyJudged@1", "ToyJudged@2"]
    with pytest.raises(ValueError, match=r"metric 'ToyJudged' needs a cutoff: write ToyJudged@k"):
        rk.parse_metric("ToyJudged")  # k has no default in its constructor: the name needs @k
    # the contract's defaults, declared once on RankingMetric
    assert (metric.system_level, metric.needs_side, metric.baseline, metric.averages) == (False, (), None, ())
    assert metric.system_is_user_mean and metric.explicit_params == frozenset({"k"})


def test_evalmodel_gives_the_hand_computed_values(toy):
    sys_result, users = rk.EvalModel([PRED, OTHER], [TRUTH, TRUTH], [rk.parse_metric("ToyJudged@2")]).fit()
    assert users.loc["fold1", "ToyJudged@2"].to_dict() == USERS
    assert users.loc["fold2", "ToyJudged@2"].to_dict() == OTHER_USERS
    np.testing.assert_allclose(sys_result["ToyJudged@2"], [1 / 3, 2 / 3, 1 / 2], rtol=1e-15)


def test_compare_pairs_the_users_of_the_toy_metric(toy):
    res = rk.compare({"pred": PRED, "other": OTHER}, TRUTH, [toy.ToyJudgedAtK(2)], n_resamples=200, seed=0)
    row = res.table.reset_index().iloc[0]
    assert (row["metric"], row["system_a"], row["system_b"]) == ("ToyJudged@2", "pred", "other")
    assert row["mean_a"] == pytest.approx(1 / 3, abs=1e-15) and row["mean_b"] == pytest.approx(2 / 3, abs=1e-15)
    assert row["diff"] == pytest.approx(1 / 3, abs=1e-15)
    assert (row["n"], row["wins"], row["ties"], row["losses"]) == (3, 2, 1, 0)
    assert row["statistic"] == pytest.approx(2.0, rel=1e-12)
    assert row["p_value"] == pytest.approx(1 - 2 / math.sqrt(6), rel=1e-9)


def test_the_command_line_loads_the_metric_from_its_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    PRED.to_csv("p.csv", index=False)
    TRUTH.to_csv("t.csv", index=False)
    try:
        assert main(["evaluate", "--metric-module", str(TOY), "--pred", "p.csv", "--truth", "t.csv",
                     "-m", "ToyJudged@2", "-m", "P@2", "--format", "csv"]) == 0
    finally:
        rk.unregister_metric("ToyJudged")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split(",")[1:] == ["ToyJudged@2", "P@2"]
    rows = {line.split(",")[0]: [float(v) for v in line.split(",")[1:]] for line in lines[1:]}
    np.testing.assert_allclose(rows["mean"], [1 / 3, 1 / 3], rtol=1e-15)  # P@2: u1 1/2 (a), u2 0, u3 1/2


def test_the_command_line_names_a_metric_module_it_cannot_load(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    PRED.to_csv("p.csv", index=False)
    TRUTH.to_csv("t.csv", index=False)
    (tmp_path / "broken.py").write_text("raise RuntimeError('no metric today')\n")
    for module, message in [("missing.py", r"--metric-module 'missing.py': no such file"),
                            ("no_such_module_here", r"--metric-module 'no_such_module_here': no such file or "
                                                    r"importable module"),
                            ("broken.py", r"--metric-module 'broken.py' failed while it ran: RuntimeError: no "
                                          r"metric today")]:
        assert main(["evaluate", "--metric-module", module, "--pred", "p.csv", "--truth", "t.csv",
                     "-m", "P@2"]) == 2
        err = capsys.readouterr().err
        assert re.match("rankeval: error: " + message, err), err


def test_the_spark_engine_runs_the_toy_metric(spark, toy):
    from pyspark import cloudpickle

    # the workers unpickle the metric: a module they cannot import travels by value
    cloudpickle.register_pickle_by_value(toy)
    try:
        sys_result, users = rk.EvalModel(spark.createDataFrame(PRED), spark.createDataFrame(TRUTH),
                                         [toy.ToyJudgedAtK(2)], n_buckets=2).fit()
    finally:
        cloudpickle.unregister_pickle_by_value(toy)
    got = {r["user_id"]: r["ToyJudged@2"] for r in users.collect()}
    assert got == USERS
    assert sys_result.loc["mean", "ToyJudged@2"] == pytest.approx(1 / 3, abs=1e-15)
