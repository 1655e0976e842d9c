"""The command line's weighted metrics: -m METRIC-IPS with --propensity FILE or --propensity-power X."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main
from rankeval.io._files import EXACT_FLOATS
from rankeval.unbiased import Propensity, Unbiased, stratified

from ._require import require

PRED = pd.DataFrame({"user_id": ["1"] * 4 + ["2"] * 3, "item_id": ["a", "b", "c", "d", "c", "e", "a"],
                     "score": [4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user_id": ["1", "1", "1", "2", "2"], "item_id": ["a", "c", "e", "e", "b"], "score": 1.0})
TRAIN = pd.DataFrame({"user_id": ["1", "2", "3", "4", "1", "2", "1", "3", "4"],
                      "item_id": ["a", "a", "a", "a", "c", "c", "e", "b", "d"]})
P = pd.DataFrame({"item_id": ["a", "b", "c", "d", "e"], "propensity": [0.5, 0.9, 0.25, 0.9, 1.0]})


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, frame in (("pred", PRED), ("truth", TRUTH), ("train", TRAIN), ("p", P)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return tmp_path


def _run(capsys, *args):
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", "--format", "csv", *args])
    out = capsys.readouterr().out
    return status, pd.read_csv(io.StringIO(out), index_col=0, **EXACT_FLOATS)


def test_propensity_file(files, capsys):
    status, table = _run(capsys, "-m", "R@3-IPS", "-m", "NDCG@3-SNIPS", "--propensity", "p.csv", "--threshold", "1")
    assert status == 0
    model = Propensity.given(P.assign(item_id=P.item_id.astype(str)))
    for name in ("R@3-IPS", "NDCG@3-SNIPS"):
        metric = Unbiased(rk.parse_metric(name).metric.__class__(3, relevant_threshold=1), model,
                          name.rsplit("-", 1)[1].lower())
        expected = metric.perform(rk.Split(PRED, TRUTH)).system.iloc[0, 0]
        assert table.loc["fold1", name] == pytest.approx(expected, rel=1e-15)


def test_propensity_power_reads_train(files, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.ProtocolWarning)
        status, table = _run(capsys, "-m", "R@3-IPS", "--propensity-power", "1", "--train", "train.csv",
                             "--threshold", "1")
        split = rk.Split(PRED, TRUTH, train=TRAIN)
        expected = Unbiased(rk.RecallAtK(3, relevant_threshold=1), Propensity.popularity(1.0)).perform(split)
    assert status == 0
    assert table.loc["fold1", "R@3-IPS"] == pytest.approx(expected.system.iloc[0, 0], rel=1e-15)


@pytest.mark.parametrize(("args", "match"), [
    (("-m", "R@3", "--propensity", "p.csv"), r"--propensity / --propensity-power weigh the metrics named"),
    (("-m", "R@3-IPS", "--propensity", "p.csv", "--propensity-power", "1"), r"two propensity models"),
    (("-m", "R@3-IPS", "--propensity-power", "0"), r"--propensity-power: `power` must be a finite number > 0"),
    (("-m", "R@3-IPS", "--propensity", "pred.csv"), r"--propensity file 'pred.csv' needs the item column"),
])
def test_bad_flags(files, capsys, args, match):
    status = main(["evaluate", "--pred", "pred.csv", "--truth", "truth.csv", *args])
    assert status != 0
    assert re.search(match, capsys.readouterr().err)


def test_report_strata(files, capsys):
    require("jinja2")
    require("matplotlib")
    PRED.assign(score=PRED.score[::-1].to_numpy()).to_csv("other.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        status = main(["report", "--system", "a=pred.csv", "--system", "b=other.csv", "--truth", "truth.csv",
                       "--train", "train.csv", "-m", "R@3", "-m", "R@3-SNIPS", "--strata", "2", "--threshold", "1",
                       "--out", "r.html", "--no-progress", "--n-resamples", "100"])
    assert status == 0, capsys.readouterr().err
    html = (files / "r.html").read_text()
    section = html[html.index('<section id="strata"'):html.index('<section id="card"')]
    values = json.loads(re.search(r'data-values="([^"]*)"', section).group(1).replace("&#34;", '"'))
    train = TRAIN.copy()
    expected = stratified(PRED, TRUTH, [rk.RecallAtK(3, relevant_threshold=1)], Propensity.popularity(0.5), 2,
                          train=train)
    line = values["panels"][0]["lines"][0]
    assert values["panels"][0]["metric"] == "R@3" and line["system"] == "a"
    np.testing.assert_array_equal(line["value"], expected.loc[line["strata"], "R@3"].to_numpy())
    assert line["combined"] == expected.loc["strata", "R@3"]
    assert "normalised popularity (n_i / max n)^0.5 from train: R@3-SNIPS" in html


def test_report_strata_needs_one_split(files, capsys):
    status = main(["report", "--system", "a=pred.csv,pred.csv", "--truth", "truth.csv", "--truth", "truth.csv",
                   "-m", "R@3", "--strata", "2", "--out", "r.html", "--no-progress"])
    assert status == 2 and "--strata evaluates one split, got 2 --truth files" in capsys.readouterr().err
