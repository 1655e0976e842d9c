"""``rankeval power`` and ``rankeval compare --per-user``: the MDE and users needed from per-user files.

The command's numbers against :meth:`ComparisonResult.power` of the same systems compared in
the API (itself checked against statsmodels in test_power.py), by both routes: evaluate's
per-user files (NAME=PATH) and compare's one file with a system column.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.io._files import EXACT_FLOATS

METRICS = ["NDCG@10", "P@5"]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ratings = make_ratings(n_users=150, n_items=80, seed=4)
    train, test = next(iter(train_test_folds(ratings, n_folds=5, seed=0)))
    test.to_csv("test.csv", index=False)
    systems = {k: recommend(train, test, k, n=10, seed=1) for k in ("popularity", "random", "noisy_oracle")}
    for name, frame in systems.items():
        frame.to_csv(f"{name}.csv", index=False)
    return systems, test


def _run(capsys, *args):
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def _api_power(systems, test, **options):
    res = rk.compare(systems, test, [rk.parse_metric(m) for m in METRICS], n_resamples=100, **options)
    return res, res.power().table


def test_power_from_evaluate_files_equals_the_comparison_method(files, capsys):
    systems, test = files
    for name in systems:
        status, _, _ = _run(capsys, "evaluate", "--pred", f"{name}.csv", "--truth", "test.csv", "-m", METRICS[0],
                            "-m", METRICS[1], "--per-user", f"{name}_users.csv")
        assert status == 0
    status, out, err = _run(capsys, "power", *(f"--per-user={n}={n}_users.csv" for n in systems), "--format", "csv")
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), index_col=[0, 1, 2], **EXACT_FLOATS)
    _, expected = _api_power(systems, test)
    assert list(got.index) == list(expected.index)
    for column in ("n", "mean_diff", "sd", "alpha", "effect", "power", "mde", "mde_dz", "n_needed"):
        np.testing.assert_allclose(got[column].to_numpy(dtype=float), expected[column].to_numpy(dtype=float),
                                   rtol=1e-12, err_msg=column)


def test_power_from_compares_file_with_a_baseline_and_a_relative_effect(files, capsys):
    systems, test = files
    status, _, err = _run(capsys, "compare", *(f"--system={n}={n}.csv" for n in systems), "--truth", "test.csv",
                          "-m", METRICS[0], "-m", METRICS[1], "--n-resamples", "100", "--baseline", "popularity",
                          "--per-user", "units.parquet")
    assert status == 0, err
    status, out, err = _run(capsys, "power", "--per-user", "units.parquet", "--baseline", "popularity",
                            "--relative-effect", "1", "--correction", "none", "--power", "0.9", "--format", "csv")
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), index_col=[0, 1, 2], **EXACT_FLOATS)
    res = rk.compare(systems, test, [rk.parse_metric(m) for m in METRICS], n_resamples=100, baseline="popularity",
                     correction=None)
    expected = res.power(0.01, relative=True, power=0.9).table
    assert list(got.index) == list(expected.index)
    np.testing.assert_allclose(got["effect"], 0.01 * res.table["mean_a"].to_numpy(), rtol=1e-12)
    for column in ("alpha", "mde", "power", "n_needed", "n_needed_exact"):
        np.testing.assert_allclose(got[column].to_numpy(dtype=float), expected[column].to_numpy(dtype=float),
                                   rtol=1e-10, err_msg=column)
    assert (got["alpha"] == 0.05).all()  # no correction: each test at alpha


def test_compare_per_user_file_holds_the_units(files, capsys):
    systems, test = files
    status, _, _ = _run(capsys, "compare", "--system=a=popularity.csv", "--system=b=random.csv", "--truth",
                        "test.csv", "-m", "NDCG@10", "--n-resamples", "100", "--per-user", "units.csv")
    assert status == 0
    written = pd.read_csv("units.csv", **EXACT_FLOATS)
    res = rk.compare({"a": systems["popularity"], "b": systems["random"]}, test, [rk.NDCGAtK(10)], n_resamples=100)
    assert list(written.columns) == ["split", "user_id", "system", "NDCG@10"]
    for name in ("a", "b"):
        part = written[written["system"] == name]
        np.testing.assert_array_equal(part["user_id"], res.units[("user_id", "")])
        np.testing.assert_allclose(part["NDCG@10"], res.units[("NDCG@10", name)], rtol=0)


@pytest.mark.parametrize(("args", "message"), [
    (["--per-user", "popularity.csv"], "needs a `system` column"),
    (["--per-user", "a=pu.csv", "--per-user", "b=pu.csv", "-m", "MAP@3"], "--metric 'MAP@3' is not a column"),
    (["--per-user", "a=pu.csv", "--per-user", "b=pu.csv", "--baseline", "c"], "--baseline 'c' is not among"),
    (["--per-user", "a=pu.csv", "--per-user", "a=pu.csv"], "system 'a' is given twice"),
])
def test_power_usage_errors(files, capsys, args, message):
    assert _run(capsys, "evaluate", "--pred", "popularity.csv", "--truth", "test.csv", "-m", "NDCG@10",
                "--per-user", "pu.csv")[0] == 0
    status, _, err = _run(capsys, "power", *args)
    assert status == 2 and message in err


def test_compare_equivalence_margin_prints_the_apis_equivalence_table(files, capsys):
    systems, test = files
    status, out, err = _run(capsys, "compare", "--system=a=popularity.csv", "--system=b=noisy_oracle.csv",
                            "--truth", "test.csv", "-m", "NDCG@10", "--n-resamples", "100",
                            "--equivalence-margin", "5%")
    assert status == 0, err
    res = rk.compare({"a": systems["popularity"], "b": systems["noisy_oracle"]}, test, [rk.NDCGAtK(10)],
                     n_resamples=100, equivalence_margin="5%")
    title = "equivalence within the margin (two one-sided tests at alpha = 0.05):\n"
    assert title in out
    shown = out[out.index(title) + len(title):].splitlines()
    row = res.equivalence.iloc[0]
    cells = shown[2].split()
    assert cells[:3] == ["NDCG@10", "a", "b"]
    assert float(cells[3]) == pytest.approx(0.05 * res.table.iloc[0]["mean_a"], abs=1e-6)  # 6 places shown
    assert float(cells[7]) == pytest.approx(row["tost_p"], abs=1e-6)
    assert cells[8] == str(bool(row["equivalent"])) and cells[9] == "t"


@pytest.mark.parametrize(("args", "message"), [
    (["--equivalence-margin", "x"], "--equivalence-margin must be a number > 0"),
    (["--equivalence-margin", "1%", "--format", "csv"], "use --format table, markdown or latex, not csv"),
])
def test_compare_equivalence_margin_usage_errors(files, capsys, args, message):
    status, _, err = _run(capsys, "compare", "--system=a=popularity.csv", "--system=b=random.csv", "--truth",
                          "test.csv", "-m", "NDCG@10", *args)
    assert status == 2 and message in err


def test_compare_seed_runs_on_the_command_line(files, capsys):
    systems, test = files
    runs = {f"s{i}": recommend(test.iloc[:0], test, "random", n=10, seed=20 + i)
            for i in range(3)}
    for label, frame in runs.items():
        frame.to_csv(f"rand_{label}.csv", index=False)
    status, out, err = _run(capsys, "compare", "--system=pop=popularity.csv",
                            *(f"--system=rand[{k}]=rand_{k}.csv" for k in runs), "--truth", "test.csv",
                            "-m", "NDCG@10", "--n-resamples", "100", "--baseline", "rand")
    assert status == 0, err
    res = rk.compare({"pop": systems["popularity"], "rand": runs}, test, [rk.NDCGAtK(10)], n_resamples=100,
                     baseline="rand")
    title = "spread over training seeds:\n"
    row = out[out.index(title) + len(title):].splitlines()[2].split()
    assert row[:4] == ["NDCG@10", "rand", "3", str(len(res.units))]
    assert float(row[5]) == pytest.approx(res.seeds.iloc[0]["seed_sd"], abs=1e-6)
    assert "exceeds the seed-to-seed spread" in out
    status, _, err = _run(capsys, "compare", "--system=rand=popularity.csv", "--system=rand[s0]=rand_s0.csv",
                          "--system=x=random.csv", "--truth", "test.csv", "-m", "NDCG@10")
    assert status == 2 and "given both as one system and as seed runs" in err


def test_report_equivalence_margin_puts_the_apis_verdict_in_the_how_sure_card(files, capsys):
    import re

    systems, test = files
    argv = ["report", "--system=a=popularity.csv", "--system=b=noisy_oracle.csv", "--truth", "test.csv",
            "-m", "NDCG@10", "--n-resamples", "100", "--out", "r.html", "-q"]
    status, _, err = _run(capsys, *argv, "--equivalence-margin", "5%")
    assert status == 0, err
    res = rk.compare({"a": systems["popularity"], "b": systems["noisy_oracle"]}, test, [rk.NDCGAtK(10)],
                     n_resamples=100, equivalence_margin="5%")
    row = res.equivalence.iloc[0]
    page = open("r.html", encoding="utf-8").read()
    card = re.sub(r"<[^>]+>", " ", page[page.index("equivalence (two one-sided tests)"):])
    cells = card.split()
    at = cells.index("NDCG@10")
    assert cells[at:at + 3] == ["NDCG@10", "a", "b"]
    assert float(cells[at + 3]) == pytest.approx(row["margin"], abs=5e-5)  # 4 places shown
    assert float(cells[at + 7]) == pytest.approx(row["tost_p"], abs=5e-5)
    assert _run(capsys, *argv)[0] == 0  # without a margin: no equivalence table
    assert "equivalence (two one-sided tests)" not in open("r.html", encoding="utf-8").read()
