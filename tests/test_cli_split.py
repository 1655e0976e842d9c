"""``rankeval split`` and ``rankeval audit``: the files written and the table printed are the API's,
in-process (``main``) and in a subprocess (``python -m rankeval``); bad input is one error line, status 2.

The reference is the API on the same data, read as the command reads it (CSV ids as text):
``rk.split.<method>(frame, ...)`` for the files, ``rk.audit(train, test, pred)`` for the table.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.io import read_frame
from rankeval.io._files import EXACT_FLOATS

# the fixture of test_cli: main() in-process in tmp_path, giving (status, stdout, stderr); the tests
# take it as an argument, which ruff reads as a redefinition
from .test_cli import run  # noqa: F401
# ruff: noqa: F811

IDS = {"user_id": str, "item_id": str}
ROOT = Path(__file__).resolve().parents[1]


def _ratings(seed: int = 0) -> pd.DataFrame:
    """Users with 1 to 12 interactions, ids with leading zeros, scores that are not round, tied times."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(40):
        items = rng.choice(60, size=int(rng.integers(1, 13)), replace=False)
        start = int(rng.integers(0, 5000))
        for i in items:
            rows.append((f"u{u:03d}", f"{int(i):04d}", float(rng.integers(1, 6)) + 0.1 * rng.random(),
                         start + int(rng.integers(0, 40)) * 25))
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "score", "timestamp"])
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


@pytest.fixture
def ratings(tmp_path) -> pd.DataFrame:
    """The ratings as written to tmp_path/ratings.csv and read back as the command reads them."""
    _ratings().to_csv(tmp_path / "ratings.csv", index=False)
    return read_frame(tmp_path / "ratings.csv", dtype=IDS)


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m rankeval`` in tmp_path, on this checkout's package (whatever PYTHONPATH says)."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "rankeval", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": path})


def _api(frame: pd.DataFrame, function, **options) -> rk.split.Splits:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return function(frame, **options)


def _assert_written(folder: Path, splits: rk.split.Splits, fmt: str = "csv") -> None:
    """Every fold's files hold the API's frames, row for row and bit for bit (index labels not written)."""
    assert sorted(p.name for p in folder.iterdir()) == sorted([*splits.names, "params.json"])
    for name, (train, test) in zip(splits.names, splits):
        for part, expected in (("train", train), ("test", test)):
            got = read_frame(folder / name / f"{part}.{fmt}", **({"dtype": IDS} if fmt != "parquet" else {}))
            pd.testing.assert_frame_equal(got, expected.reset_index(drop=True), check_exact=True)
    params = json.loads((folder / "params.json").read_text())
    assert params.pop("source").endswith("ratings.csv")
    assert params == splits.params


METHODS = [
    pytest.param(["--method", "random", "--test-size", "0.3", "--seed", "7"], rk.split.random_holdout,
                 {"test_size": 0.3, "seed": 7}, id="random"),
    pytest.param(["--method", "random", "--by", "record", "--min-interactions", "3"], rk.split.random_holdout,
                 {"by": "record", "min_interactions": 3}, id="random-record"),
    pytest.param(["--method", "temporal"], rk.split.temporal_holdout, {}, id="temporal-last-one"),
    pytest.param(["--method", "temporal", "--n-last", "2", "--drop-cold-items"], rk.split.temporal_holdout,
                 {"n_last": 2, "drop_cold_items": True}, id="temporal-last-two"),
    pytest.param(["--method", "temporal", "--test-size", "0.25"], rk.split.temporal_holdout, {"test_size": 0.25},
                 id="temporal-share"),
    pytest.param(["--method", "temporal", "--test-size", "0.25", "--rounding", "half_even"],
                 rk.split.temporal_holdout, {"test_size": 0.25, "rounding": "half_even"}, id="temporal-half-even"),
    pytest.param(["--method", "temporal", "--test-size", "0.3", "--rounding", "train_half_even"],
                 rk.split.temporal_holdout, {"test_size": 0.3, "rounding": "train_half_even"},
                 id="temporal-train-half-even"),
    pytest.param(["--method", "global", "--cutoff", "4000"], rk.split.global_temporal, {"cutoff": 4000},
                 id="global-cutoff"),
    pytest.param(["--method", "global", "--test-size", "0.2"], rk.split.global_temporal, {"test_size": 0.2},
                 id="global-share"),
    pytest.param(["--method", "kfold", "--n-splits", "3", "--seed", "1"], rk.split.kfold,
                 {"n_splits": 3, "seed": 1}, id="kfold"),
    pytest.param(["--method", "kfold", "--by", "record"], rk.split.kfold, {"by": "record"}, id="kfold-record"),
    pytest.param(["--method", "bootstrap", "--seed", "4"], rk.split.bootstrap, {"seed": 4}, id="bootstrap"),
]


@pytest.mark.parametrize("args, function, options", METHODS)
def test_split_writes_the_api_frames(run, tmp_path, ratings, args, function, options):
    status, out, err = run("split", "--in", "ratings.csv", *args, "--out-dir", "splits")
    assert status == 0, err
    splits = _api(ratings, function, **options)
    _assert_written(tmp_path / "splits", splits)
    assert out.splitlines()[0].startswith(f"fold1: train {len(splits.trains[0]):,} / test {len(splits.tests[0]):,}")


def test_split_warnings_are_the_api_s_counted_lines(run, ratings):
    status, _, err = run("split", "--in", "ratings.csv", "--method", "kfold", "--n-splits", "4", "--out-dir", "s")
    with pytest.warns(rk.RankevalWarning) as caught:
        rk.split.kfold(ratings, n_splits=4)
    assert status == 0
    # the API's words, its parameter named as the option that sets it
    expected = [" ".join(str(w.message).split()).replace("n_splits=4", "--n-splits 4") for w in caught]
    assert err.splitlines() == [f"rankeval: warning: {text}" for text in expected]
    assert "--n-splits 4" in err and "n_splits=" not in err


def test_split_other_columns_parquet_and_iso_times(run, tmp_path):
    frame = _ratings(1).rename(columns={"user_id": "u", "item_id": "i", "score": "r", "timestamp": "t"})
    frame["t"] = pd.to_datetime(frame["t"], unit="h", utc=True)
    frame.assign(t=frame["t"].map(lambda x: x.isoformat())).to_csv(tmp_path / "ratings.csv", index=False)
    status, _, err = run("split", "--in", "ratings.csv", "--method", "global", "--cutoff", "1970-04-10T00:00:00Z",
                         "--user-col", "u", "--item-col", "i", "--score-col", "r", "--time-col", "t",
                         "--out-dir", "out", "--out-format", "parquet")
    assert status == 0, err
    read = read_frame(tmp_path / "ratings.csv", dtype={"u": str, "i": str})
    read["t"] = pd.to_datetime(read["t"], format="ISO8601")
    splits = _api(read, rk.split.global_temporal, cutoff=pd.Timestamp("1970-04-10", tz="UTC"), user_col="u",
                  item_col="i", score_col="r", time_col="t")
    assert splits.params["cutoff"] == "1970-04-10T00:00:00+00:00"
    _assert_written(tmp_path / "out", splits, "parquet")
    # a parquet input keeps its stored types: the split of the frame itself
    frame.to_parquet(tmp_path / "ratings.parquet")
    status, _, err = run("split", "--in", "ratings.parquet", "--method", "kfold", "--user-col", "u", "--item-col", "i",
                         "--score-col", "r", "--time-col", "t", "--out-dir", "pq")
    assert status == 0, err
    splits = _api(frame, rk.split.kfold, user_col="u", item_col="i", score_col="r", time_col="t")
    for name, (train, test) in zip(splits.names, splits):
        got = pd.read_csv(tmp_path / "pq" / name / "test.csv", dtype={"u": str, "i": str}, **EXACT_FLOATS)
        assert got["u"].tolist() == test["u"].tolist() and got["i"].tolist() == test["i"].tolist()
        assert got["r"].tolist() == test["r"].tolist()


def test_split_in_a_subprocess_writes_what_main_writes(run, tmp_path, ratings):
    out = cli(tmp_path, "split", "--in", "ratings.csv", "--method", "kfold", "--out-dir", "by_cli")
    assert out.returncode == 0, out.stderr
    status, stdout, _ = run("split", "--in", "ratings.csv", "--method", "kfold", "--out-dir", "by_main")
    assert status == 0 and out.stdout == stdout.replace("by_main", "by_cli")
    _assert_written(tmp_path / "by_cli", _api(ratings, rk.split.kfold))


# ---------------------------------------------------------------------- audit
def _leave_last_one_out(tmp_path: Path, ratings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A leave-last-one-out split and a popularity list (with a seen item) as files and as frames."""
    train, test = _api(ratings, rk.split.temporal_holdout)[0]
    popular = train["item_id"].value_counts().index[:5].to_numpy()
    users = test["user_id"].unique()
    pred = pd.DataFrame({"user_id": np.repeat(users, 5), "item_id": np.tile(popular, len(users)),
                         "score": np.tile(np.arange(5, 0, -1.0), len(users))})
    for name, df in (("train", train), ("test", test), ("pred", pred)):
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    return train.reset_index(drop=True), test.reset_index(drop=True), pred


def _table_from_csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), index_col="check", **EXACT_FLOATS)


def test_audit_csv_holds_the_api_numbers(run, tmp_path, ratings):
    train, test, pred = _leave_last_one_out(tmp_path, ratings)
    status, out, err = run("audit", "--train", "train.csv", "--truth", "test.csv", "--pred", "pred.csv",
                           "--format", "csv")
    assert status == 0, err
    got = _table_from_csv(out)
    expected = rk.audit(train, test, pred).table
    assert got.index.tolist() == expected.index.tolist()
    for column in ("count", "of", "users_affected"):
        assert got[column].astype("Int64").tolist() == expected[column].tolist()
    assert np.array_equal(got["share"].to_numpy(), expected["share"].to_numpy(), equal_nan=True)
    assert got["note"].tolist() == expected["note"].tolist()
    # a per-user temporal holdout leaks: training rows after other users' test rows, found by the command too
    assert got.loc["temporal leakage, global", "count"] > 0 and got.loc["seen items recommended", "count"] > 0


def test_audit_table_and_json_show_the_verdict(run, tmp_path, ratings):
    train, test, pred = _leave_last_one_out(tmp_path, ratings)
    expected = rk.audit(train, test, {"pop": pred, "again": pred}, relevant_threshold=3)
    status, out, err = run("audit", "--train", "train.csv", "--truth", "test.csv", "--system", "pop=pred.csv",
                           "--system", "again=pred.csv", "--threshold", "3", "--format", "json")
    assert status == 0, err
    got = json.loads(out)
    assert got["verdict"] == expected.verdict and got["skipped"] == expected.skipped
    assert [row["check"] for row in got["checks"]] == expected.table.index.tolist()
    assert [row["count"] for row in got["checks"]] == expected.table["count"].tolist()
    status, out, _ = run("audit", "--train", "train.csv", "--truth", "test.csv", "--time-col", "none")
    assert status == 0
    lines = out.splitlines()
    assert lines[-1] == f"verdict: {rk.audit(train, test, time_col='none').verdict}"
    share = rk.audit(train, test).table.loc["cold items", "share"]
    assert any(line.startswith("cold items") and f"{share:.2%}" in line for line in lines)
    assert "no 'none' column in train and test" in lines[-1]
    status, out, _ = run("audit", "--train", "train.csv", "--truth", "test.csv", "--format", "markdown")
    assert status == 0 and out.splitlines()[0].startswith("| check | count | of | share |")
    assert out.splitlines()[-1] == f"**Verdict:** {rk.audit(train, test).verdict}"


def test_audit_of_a_global_split_finds_no_leakage_in_a_subprocess(tmp_path, ratings):
    train, test = _api(ratings, rk.split.global_temporal, test_size=0.2)[0]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    out = cli(tmp_path, "audit", "--train", "train.csv", "--truth", "test.csv", "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = _table_from_csv(out.stdout)
    assert got.loc["temporal leakage, global", "count"] == 0 == got.loc["temporal leakage, per user", "count"]
    expected = rk.audit(train, test).table
    assert got["count"].tolist() == expected["count"].tolist()


# ---------------------------------------------------------------------- bad input: one line, status 2
@pytest.mark.parametrize("args, message", [
    (["split", "--in", "ratings.csv", "--method", "temporal", "--time-col", "when", "--out-dir", "s"],
     r"--in ratings.csv: the file is missing column\(s\) \['when'\].*--time-col"),
    (["split", "--in", "ratings.csv", "--method", "random", "--test-size", "1.5", "--out-dir", "s"],
     r"--test-size must be a number in \(0, 1\).*got 1.5"),
    (["split", "--in", "ratings.csv", "--method", "leave_one_out", "--out-dir", "s"],
     r"--method must be one of random, temporal, global, kfold, bootstrap, got 'leave_one_out'"),
    (["split", "--in", "ratings.csv", "--method", "random", "--out-dir", "ratings.csv"],
     r"--out-dir ratings.csv is the file given to --in"),
    (["split", "--in", "s/fold1/train.csv", "--method", "random", "--out-dir", "s"],
     r"--out-dir s/fold1/train.csv is the file given to --in"),
    (["split", "--in", "ratings.csv", "--method", "temporal", "--seed", "3", "--out-dir", "s"],
     r"--seed do\(es\) not apply to --method temporal"),
    (["split", "--in", "ratings.csv", "--method", "random", "--rounding", "half_even", "--out-dir", "s"],
     r"--rounding do\(es\) not apply to --method random"),
    (["split", "--in", "ratings.csv", "--method", "temporal", "--n-last", "2", "--rounding", "half_even",
      "--out-dir", "s"], r"--rounding half_even rounds --test-size F x n_u: give --test-size"),
    (["split", "--in", "ratings.csv", "--method", "global", "--out-dir", "s"],
     r"pass exactly one of --cutoff .* and --test-size"),
    (["split", "--in", "ratings.csv", "--method", "kfold", "--n-splits", "1", "--out-dir", "s"],
     r"--n-splits must be"),
    (["split", "--in", "nope.csv", "--method", "kfold", "--out-dir", "s"], r"nope.csv"),
    (["audit", "--train", "ratings.csv", "--truth", "ratings.csv", "--pred", "ratings.csv", "--system", "a=x.csv"],
     r"--pred PATH .* or --system NAME=PATH .* not both"),
    (["audit", "--train", "ratings.csv", "--truth", "ratings.run"], r"--truth ratings.run: .*not trec_run"),
])
def test_bad_input_is_one_line_and_status_2(run, tmp_path, ratings, args, message):
    (tmp_path / "s" / "fold1").mkdir(parents=True)
    ratings.to_csv(tmp_path / "s" / "fold1" / "train.csv", index=False)
    before = (tmp_path / "ratings.csv").read_bytes()
    status, out, err = run(*args)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("rankeval: error: "), err
    assert re.search(message, err), err
    assert (tmp_path / "ratings.csv").read_bytes() == before  # the input is untouched
    assert not (tmp_path / "s" / "params.json").exists()


def test_an_error_in_a_subprocess_is_one_line(tmp_path, ratings):
    out = cli(tmp_path, "split", "--in", "ratings.csv", "--method", "temporal", "--time-col", "when",
              "--out-dir", "s")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "'when'" in out.stderr and "Traceback" not in out.stderr
