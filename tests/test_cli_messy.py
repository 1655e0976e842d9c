"""The command line and the readers on messy files: ids spelled like missing values, cutoffs
no list can reach, outputs that could not be written."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from rankeval.cli import main
from rankeval.io import read_frame


def _files(tmp_path: Path) -> tuple[Path, Path]:
    pred = tmp_path / "p.csv"
    truth = tmp_path / "t.csv"
    pred.write_text("user_id,item_id,score\nNA,a,0.9\nNA,x,0.8\nnull,b,0.7\nNone,c,0.6\nnan,d,0.5\nN/A,e,0.4\n")
    truth.write_text("user_id,item_id,score\nNA,a,5\nnull,z,4\nNone,c,3\nnan,d,NA\nN/A,e,2\n")
    return pred, truth


def test_ids_spelled_like_missing_values_are_read_as_text(tmp_path):
    pred, truth = _files(tmp_path)
    frame = read_frame(pred)
    assert frame["user_id"].tolist() == ["NA", "NA", "null", "None", "nan", "N/A"]
    # score columns still read the usual markers: truth 'nan,d,NA' has a missing grade
    grades = read_frame(truth)["score"]
    assert grades.isna().tolist() == [False, False, False, True, False]


def test_empty_id_field_is_still_missing(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("user_id,item_id,score\nu1,,0.9\n")
    assert read_frame(path)["item_id"].isna().tolist() == [True]


def test_cli_evaluates_ids_spelled_like_missing_values(tmp_path, capsys):
    pred, truth = _files(tmp_path)
    truth.write_text(truth.read_text().replace("nan,d,NA", "nan,d,1"))
    assert main(["evaluate", "--pred", str(pred), "--truth", str(truth), "-m", "MRR", "--format", "csv"]) == 0
    out = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="split")
    # users NA (a first: 1), None (c: 1), nan (d: 1), N/A (e: 1), null (b unjudged: 0)
    assert out.loc["fold1", "MRR"] == pytest.approx(4 / 5, abs=0, rel=1e-15)


@pytest.mark.parametrize("metric, message", [
    ("NDCG@1000000000000000000000000000000", r"`k` = 1000000000000000000000000000000 is larger than any list"),
    ("NDCG@0", r"malformed metric name|k.* must be an integer >= 1"),
    ("P@2.0", r"malformed metric name 'P@2.0'"),
])
def test_bad_cutoffs_are_one_line_errors_with_status_2(tmp_path, capsys, metric, message):
    pred, truth = _files(tmp_path)
    assert main(["evaluate", "--pred", str(pred), "--truth", str(truth), "-m", metric]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rankeval: error: ")
    assert re.search(message, err)


@pytest.mark.parametrize("where", ["missing_folder", "a_folder"])
def test_outputs_that_cannot_be_written_fail_before_any_work(tmp_path, capsys, monkeypatch, where):
    pred, truth = _files(tmp_path)
    out = tmp_path / "nowhere" / "users.csv" if where == "missing_folder" else tmp_path
    if where == "a_folder":
        out = tmp_path / "sub.csv"
        out.mkdir()
    import rankeval.cli._commands as cli_module

    def no_work(*args, **kwargs):  # any evaluation would be work done in vain
        raise AssertionError("evaluated before checking the output path")

    monkeypatch.setattr(cli_module, "EvalModel", no_work)
    assert main(["evaluate", "--pred", str(pred), "--truth", str(truth), "-m", "MRR", "--per-user", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert ("does not exist" in err) if where == "missing_folder" else ("is a folder" in err)


def test_pred_from_standard_input_and_other_separators(tmp_path, capsys, monkeypatch):
    truth = tmp_path / "t.csv"
    truth.write_text("user_id;item_id;score\nu1;b;5\nu2;c;4\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("user_id;item_id;score\nu1;a;0.9\nu1;b;0.8\nu2;c;0.7\n"))
    assert main(["evaluate", "--pred", "-", "--truth", str(truth), "--sep", ";", "-m", "MRR", "--format", "csv"]) == 0
    out = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="split")
    assert out.loc["fold1", "MRR"] == 0.75  # u1: b at 2 -> 1/2; u2: c at 1 -> 1


def test_trec_run_from_standard_input(tmp_path, capsys, monkeypatch):
    qrels = tmp_path / "t.qrels"
    qrels.write_text("q1 0 d2 1\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 1.0 run\n"))
    assert main(["evaluate", "--pred", "-", "--pred-format", "trec", "--truth", str(qrels), "-m", "MRR",
                 "--threshold", "1", "--format", "csv"]) == 0
    assert pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="split").loc["fold1", "MRR"] == 0.5
