"""The rankeval command: end to end in a subprocess, and main() in-process for the error paths.

Numbers are checked against values worked out by hand and against the Python API on the
same frames (to 1e-12; csv and json keep every float exactly).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ._require import unavailable

import rankeval as rk
import rankeval.io
from rankeval.io._files import EXACT_FLOATS  # exact float parsing on every pandas
from rankeval.cli import main

L = np.log2
METRICS = ["NDCG@10", "MAP@10", "MRR", "P@2"]

# split 1: the toy frames of conftest; split 2 below. Relevant = score >= the user's mean.
#   u1 truth a=5 b=1 c=4, list a x c | u2 truth d=2 e=4, list d x e | u3 truth f=1, list y z
#   v1 truth a=4 b=2,     list b a   | u1 truth c=5 d=1, list c d
HAND = {
    ("fold1", "u1"): [7 / (5 + 4 / L(3) + 1 / 2), (1 + 2 / 3) / 2, 1, 1 / 2],
    ("fold1", "u2"): [4 / (4 + 2 / L(3)), 1 / 3, 1 / 3, 0],
    ("fold1", "u3"): [0, 0, 0, 0],
    ("fold2", "v1"): [(2 + 4 / L(3)) / (4 + 2 / L(3)), 1 / 2, 1 / 2, 1 / 2],
    ("fold2", "u1"): [1, 1, 1, 1 / 2],
}


def _split2() -> tuple[pd.DataFrame, pd.DataFrame]:
    pred = pd.DataFrame({"user_id": ["v1", "v1", "u1", "u1"], "item_id": ["b", "a", "c", "d"],
                         "score": [2.0, 1.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["v1", "v1", "u1", "u1"], "item_id": ["a", "b", "c", "d"],
                          "score": [4.0, 2.0, 5.0, 1.0]})
    return pred, truth


def _reversed(pred: pd.DataFrame) -> pd.DataFrame:
    """Another system: each user's list in the opposite order, with scores that are not round."""
    out = pred.copy()
    out["score"] = -out["score"] / 3 + 0.1
    return out


def _write_run(pred: pd.DataFrame, path: Path) -> None:
    ranks = pred.sort_values("score", ascending=False, kind="stable").groupby("user_id", sort=False).cumcount() + 1
    path.write_text("".join(f"{u} Q0 {i} {ranks[k]} {s!r} tag\n"
                            for k, (u, i, s) in zip(pred.index, pred.itertuples(index=False))))


def _write_qrels(truth: pd.DataFrame, path: Path) -> None:
    path.write_text("".join(f"{u} 0 {i} {int(s)}\n" for u, i, s in truth.itertuples(index=False)))


@pytest.fixture
def data(tmp_path, toy_frames):
    """Both splits as frames and as files (CSV, TREC) in tmp_path; tests run there."""
    pred1, truth1 = toy_frames
    pred2, truth2 = _split2()
    frames = {"p1": pred1, "t1": truth1, "p2": pred2, "t2": truth2, "r1": _reversed(pred1), "r2": _reversed(pred2)}
    for name, df in frames.items():
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    for i, (p, t) in enumerate([(pred1, truth1), (pred2, truth2)], start=1):
        _write_run(p, tmp_path / f"p{i}.run")
        _write_qrels(t, tmp_path / f"t{i}.qrels")
    return frames


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankeval", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def run(tmp_path, capsys, monkeypatch):
    """main() in-process, in tmp_path: returns (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        return status, out, err
    return call


def _metric_args() -> list[str]:
    return [arg for m in METRICS for arg in ("-m", m)]


def _api_metrics() -> list[rk.RankingMetric]:
    return [rk.parse_metric(m) for m in METRICS]


def close(a, b) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------- evaluate, end to end
def test_evaluate_csv_matches_hand_values_and_the_api(tmp_path, data):
    out = cli(tmp_path, "evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--pred", "p2.csv", "--truth", "t2.csv",
              *_metric_args(), "--format", "csv", "--per-user", "users.csv")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    got = pd.read_csv(io.StringIO(out.stdout), index_col="split", **EXACT_FLOATS)
    assert got.index.tolist() == ["fold1", "fold2", "mean"] and got.columns.tolist() == METRICS
    hand = pd.DataFrame(HAND, index=METRICS).T
    fold = hand.groupby(level=0).mean()
    close(got.loc[["fold1", "fold2"]], fold)
    close(got.loc["mean"], fold.mean())

    sys_api, users_api = rk.EvalModel([data["p1"], data["p2"]], [data["t1"], data["t2"]], _api_metrics()).fit()
    assert np.array_equal(got.to_numpy(), sys_api.to_numpy())  # csv keeps every bit
    users = pd.read_csv(tmp_path / "users.csv", index_col=["split", "user_id"], **EXACT_FLOATS)
    pd.testing.assert_frame_equal(users, users_api, check_exact=True)
    close(users.loc[list(HAND)], pd.DataFrame(HAND, index=METRICS).T)


def test_trec_files_give_the_csv_numbers(tmp_path, data):
    common = [*_metric_args(), "--format", "json", "--per-user", "users.json"]
    csv_out = cli(tmp_path, "evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--pred", "p2.csv",
                  "--truth", "t2.csv", *common)
    csv_users = json.loads((tmp_path / "users.json").read_text())
    trec_out = cli(tmp_path, "evaluate", "--pred", "p1.run", "--truth", "t1.qrels", "--pred", "p2.run",
                   "--truth", "t2.qrels", *common)
    assert csv_out.returncode == trec_out.returncode == 0, (csv_out.stderr, trec_out.stderr)
    assert json.loads(trec_out.stdout) == json.loads(csv_out.stdout)
    assert json.loads((tmp_path / "users.json").read_text()) == csv_users
    rows = json.loads(trec_out.stdout)
    assert [r["split"] for r in rows] == ["fold1", "fold2", "mean"]
    sys_api = rk.EvalModel([data["p1"], data["p2"]], [data["t1"], data["t2"]], _api_metrics()).fit()[0]
    close([[r[m] for m in METRICS] for r in rows], sys_api.to_numpy())


def test_evaluate_in_process_formats_and_options(run, data, tmp_path):
    args = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", *_metric_args()]
    status, out, err = run(*args)
    assert status == 0 and err == ""
    assert out.splitlines()[0].split() == METRICS and out.splitlines()[2].startswith("fold1")
    status, out, _ = run(*args, "--format", "markdown", "--digits", "3")
    assert out.splitlines()[0] == "| split | NDCG@10 | MAP@10 | MRR | P@2 |"
    assert out.splitlines()[2] == "| fold1 | 0.544 | 0.389 | 0.444 | 0.167 |"
    status, out, _ = run(*args, "--format", "latex")
    assert out.startswith(r"\begin{tabular}{lrrrr}") and r"fold1 & 0.5442 & 0.3889 & 0.4444 & 0.1667 \\" in out
    # --threshold rebuilds every metric that has a threshold; --split-name names the split
    status, out, _ = run(*args, "--threshold", "4", "--format", "json", "--split-name", "test")
    expected = rk.EvalModel(data["p1"], data["t1"], [
        rk.NDCGAtK(10, relevant_threshold=4), rk.MAPAtK(10, relevant_threshold=4), rk.MRR(relevant_threshold=4),
        rk.PrecisionAtK(2, relevant_threshold=4)], split_names=["test"]).fit()[0]
    rows = json.loads(out)
    assert [r["split"] for r in rows] == ["test", "mean"]
    close([[r[m] for m in METRICS] for r in rows], expected.to_numpy())
    # at threshold 4, u3 (truth f=1) has no relevant item: NaN, left out of the mean
    assert rows[0]["MRR"] == (1 + 1 / 3) / 2 != json.loads(run(*args, "--format", "json")[1])[0]["MRR"]


@pytest.mark.parametrize("convention", ["trec_eval", "lenskit"])
def test_convention_and_threshold_match_the_api(run, data, convention):
    args = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--pred", "p2.csv", "--truth", "t2.csv",
            *_metric_args(), "--convention", convention, "--format", "csv", "--per-user", "users.csv"]
    for extra, threshold in (([], None), (["--threshold", "4"], 4.0)):
        status, out, err = run(*args, *extra)
        assert status == 0 and err == "", err
        metrics = _api_metrics() if threshold is None else [
            rk.NDCGAtK(10, relevant_threshold=4), rk.MAPAtK(10, relevant_threshold=4), rk.MRR(relevant_threshold=4),
            rk.PrecisionAtK(2, relevant_threshold=4)]
        sys_api, users_api = rk.EvalModel([data["p1"], data["p2"]], [data["t1"], data["t2"]], metrics,
                                          convention=convention).fit()
        got = pd.read_csv(io.StringIO(out), index_col="split", **EXACT_FLOATS)
        assert np.array_equal(got.to_numpy(), sys_api.to_numpy(), equal_nan=True)
        users = pd.read_csv("users.csv", index_col=["split", "user_id"], **EXACT_FLOATS)
        assert np.array_equal(users.to_numpy(), users_api.to_numpy(), equal_nan=True)
    # the preset changes the numbers: lenskit's binary NDCG and listed denominators, trec_eval's 0 for
    # users without relevant items at threshold 4 (u3)
    plain_args = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--pred", "p2.csv", "--truth", "t2.csv",
                  *_metric_args(), "--threshold", "4", "--format", "csv"]
    plain = pd.read_csv(io.StringIO(run(*plain_args)[1]), index_col="split")
    assert not np.allclose(plain.to_numpy(), got.to_numpy())


def test_convention_in_compare_matches_the_api(run, data):
    status, out, err = run("compare", "--system", "good=p1.csv,p2.csv", "--system", "rev=r1.csv,r2.csv", "--truth",
                           "t1.csv", "--truth", "t2.csv", *_metric_args(), "--convention", "ranx", "--threshold",
                           "3", "--n-resamples", "200", "--format", "json")
    assert status == 0, err
    metrics = [rk.NDCGAtK(10, relevant_threshold=3), rk.MAPAtK(10, relevant_threshold=3),
               rk.MRR(relevant_threshold=3), rk.PrecisionAtK(2, relevant_threshold=3)]
    res = rk.compare({"good": [data["p1"], data["p2"]], "rev": [data["r1"], data["r2"]]}, [data["t1"], data["t2"]],
                     metrics, convention="ranx", n_resamples=200)
    rows = json.loads(out)
    close([[np.nan if r[c] is None else r[c] for c in ("mean_a", "mean_b", "p_value", "ci_low")] for r in rows],
          res.table[["mean_a", "mean_b", "p_value", "ci_low"]].to_numpy())


def test_ignore_rank_orders_trec_runs_as_trec_eval(run, tmp_path):
    # tied scores, ranks that start at 0: trec_eval orders by score, then docno descending
    (tmp_path / "tie.run").write_text("q1 Q0 a 0 2.0 t\nq1 Q0 b 1 2.0 t\nq1 Q0 c 2 1.0 t\n"
                                      "q2 Q0 d 0 1.0 t\nq2 Q0 e 1 3.0 t\n")
    (tmp_path / "tie.qrels").write_text("q1 0 a 1\nq1 0 c 1\nq2 0 d 1\n")
    args = ["evaluate", "--pred", "tie.run", "--truth", "tie.qrels", "-m", "MRR", "-m", "P@1", "--format", "json"]
    status, _, err = run(*args)
    _one_error_line(status, err, r"split 'fold1' \(--pred tie.run, --truth tie.qrels\): .*rank")
    status, out, err = run(*args, "--ignore-rank", "--convention", "trec_eval", "--threshold", "1")
    assert status == 0, err
    # q1: b (unjudged) before a (docno descending), then c -> MRR 1/2; q2: e before d -> MRR 1/2
    assert json.loads(out)[0] == {"split": "fold1", "MRR": 0.5, "P@1": 0.0}
    pred = rk.io.read_trec_run(tmp_path / "tie.run").drop(columns="rank")
    api = rk.EvalModel(pred, rk.io.read_trec_qrels(tmp_path / "tie.qrels"),
                       [rk.MRR(relevant_threshold=1), rk.PrecisionAtK(1, relevant_threshold=1)],
                       convention="trec_eval").fit()[0]
    assert api.loc["fold1"].tolist() == [0.5, 0.0]


def test_column_names_formats_and_string_ids(run, data, tmp_path):
    # other column names, a TSV with a .txt name, ids that look like numbers
    pred = data["p1"].rename(columns={"user_id": "uid", "item_id": "iid", "score": "s"})
    truth = data["t1"].rename(columns={"user_id": "uid", "item_id": "iid", "score": "s"})
    pred["uid"] = pred["uid"].map({"u1": "001", "u2": "002", "u3": "3"})
    truth["uid"] = truth["uid"].map({"u1": "001", "u2": "002", "u3": "3"})
    pred.to_csv(tmp_path / "pred.txt", sep="\t", index=False)
    truth.to_parquet(tmp_path / "truth.parquet", index=False)
    status, out, err = run("evaluate", "--pred", "pred.txt", "--pred-format", "tsv", "--truth", "truth.parquet",
                           "--user-col", "uid", "--item-col", "iid", "--score-col", "s", *_metric_args(),
                           "--format", "csv", "--per-user", "users.parquet")
    assert status == 0, err
    sys_api, users_api = rk.EvalModel(data["p1"], data["t1"], _api_metrics()).fit()
    got = pd.read_csv(io.StringIO(out), index_col="split", **EXACT_FLOATS)
    assert np.array_equal(got.to_numpy(), sys_api.to_numpy())
    users = pd.read_parquet(tmp_path / "users.parquet")
    assert users.columns.tolist() == ["split", "uid", *METRICS]
    assert users["uid"].tolist() == ["001", "002", "3"]  # ids read as text keep their zeros
    assert np.array_equal(users[METRICS].to_numpy(), users_api.to_numpy())
    # a TREC run with other column names configured: the TREC frame takes those names
    named = data["t1"].rename(columns={"user_id": "uid", "item_id": "iid", "score": "s"})
    named.to_csv(tmp_path / "t.csv", index=False)
    status, out, err = run("evaluate", "--pred", "p1.run", "--truth", "t.csv", "--user-col", "uid",
                           "--item-col", "iid", "--score-col", "s", *_metric_args(), "--format", "csv")
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), index_col="split", **EXACT_FLOATS)
    assert np.array_equal(got.to_numpy(), sys_api.to_numpy())


def test_missing_users_warn_in_one_line_and_zero_policy(run, data, tmp_path):
    truth = pd.concat([data["t1"], pd.DataFrame({"user_id": ["u9"], "item_id": ["q"], "score": [3.0]})])
    truth.to_csv(tmp_path / "t9.csv", index=False)
    args = ["evaluate", "--pred", "p1.csv", "--truth", "t9.csv", "-m", "MRR", "--format", "json"]
    status, out, err = run(*args)
    assert status == 0
    assert err.splitlines() == ["rankeval: warning: 1 `truth` user(s) in split 'fold1' have no recommendations "
                                "and are left out, e.g. ['u9']"]
    assert json.loads(out)[0]["MRR"] == (1 + 1 / 3) / 3
    status, out, err = run(*args, "--missing-users", "zero")
    assert status == 0 and len(err.splitlines()) == 1
    assert err.startswith("rankeval: warning: 1 `truth` user(s) in split 'fold1' have no recommendations and get 0")
    assert json.loads(out)[0]["MRR"] == (1 + 1 / 3) / 4
    status, out, err = run(*args, "--missing-users", "error")
    assert status == 2 and err.startswith("rankeval: error: ") and "u9" in err and err.count("\n") == 1


def test_progress_bar_on_request(run, data):
    args = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR", "-m", "MAP@10"]
    assert "rankeval" in run(*args, "--progress")[2]
    assert run(*args, "--no-progress")[2] == ""
    assert run(*args)[2] == ""  # default: only on a terminal, for large inputs


def test_one_progress_display_names_every_stage_and_quiet_silences_it(run, data):
    args = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR", "--per-user", "users.csv"]
    status, _, err = run(*args, "--progress")
    assert status == 0
    for stage in ("reading p1.csv", "reading t1.csv", "validating and joining split 'fold1'",
                  "1 metric(s) on 1 split(s)", "writing users.csv", "rankeval: metrics"):
        assert stage in err, stage
    assert run(*args, "--progress", "--quiet")[2] == ""
    assert run(*args, "-q")[2] == ""
    status, _, err = run("compare", "--system", "a=p1.csv", "--system", "b=p2.csv", "--truth", "t1.csv", "-m",
                         "MRR", "--n-resamples", "100", "--progress")
    assert status == 0
    for stage in ("reading t1.csv", "reading p1.csv", "reading p2.csv", "evaluating 2 systems and testing",
                  "rankeval: resampling"):
        assert stage in err, stage


# ---------------------------------------------------------------------- compare, end to end
def _compare_api(data, **options):
    return rk.compare({"good": [data["p1"], data["p2"]], "rev": [data["r1"], data["r2"]]},
                      [data["t1"], data["t2"]], _api_metrics(), **options)


def test_compare_csv_and_json_match_the_api(tmp_path, data):
    args = ["compare", "--system", "good=p1.csv", "--system", "rev=r1.csv", "--system", "good=p2.csv",
            "--system", "rev=r2.csv", "--truth", "t1.csv", "--truth", "t2.csv", *_metric_args(),
            "--test", "randomization", "--correction", "bonferroni", "--n-resamples", "500", "--seed", "3"]
    out = cli(tmp_path, *args, "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = pd.read_csv(io.StringIO(out.stdout), index_col=["metric", "system_a", "system_b"],
                      **EXACT_FLOATS)
    res = _compare_api(data, test="randomization", correction="bonferroni", n_resamples=500, seed=3)
    assert got.index.tolist() == res.table.index.tolist()
    assert got.columns.tolist() == res.table.columns.tolist()
    close(got.select_dtypes("number"), res.table.select_dtypes("number").astype(float))
    assert got["significant"].tolist() == res.table["significant"].tolist()
    # the same in json, with NAME=PATH1,PATH2
    out = cli(tmp_path, "compare", "--system", "good=p1.csv,p2.csv", "--system", "rev=r1.csv,r2.csv",
              *args[9:], "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["metric"], r["system_a"], r["system_b"]) for r in rows] == res.table.index.tolist()
    for row, (_, expected) in zip(rows, res.table.iterrows()):
        for column in ("mean_a", "mean_b", "diff", "ci_low", "ci_high", "statistic", "p_value", "p_adjusted",
                       "effect_size"):
            close(np.nan if row[column] is None else row[column], expected[column])
        assert row["n"] == expected["n"] == 5 and row["significant"] == expected["significant"]
    # hand check: MRR of good minus rev, pooled over the 5 (split, user) units
    mrr = next(r for r in rows if r["metric"] == "MRR")
    close(mrr["mean_a"], (1 + 1 / 3 + 0 + 1 / 2 + 1) / 5)
    close(mrr["mean_b"], (1 + 1 + 0 + 1 + 1 / 2) / 5)  # rev lists: c x a / e x d / z y; a b / d c


def test_compare_in_process_tables_baseline_and_plot(run, data, tmp_path):
    args = ["compare", "--system", "good=p1.csv,p2.csv", "--system", "rev=r1.csv,r2.csv", "--system",
            "same=p1.csv,p2.csv", "--truth", "t1.csv", "--truth", "t2.csv", "-m", "MRR", "-m", "NDCG@10",
            "--n-resamples", "200", "--baseline", "rev"]
    res = rk.compare({"good": [data["p1"], data["p2"]], "rev": [data["r1"], data["r2"]],
                      "same": [data["p1"], data["p2"]]}, [data["t1"], data["t2"]], [rk.MRR(), rk.NDCGAtK(10)],
                     n_resamples=200, baseline="rev")
    status, out, err = run(*args, "--format", "markdown")
    assert status == 0 and err == "" and out == res.to_markdown()
    status, out, _ = run(*args, "--format", "latex", "--digits", "2")
    assert out == res.to_latex(2)
    status, out, _ = run(*args, "--plot", "cmp.png")
    assert status == 0 and (tmp_path / "cmp.png").read_bytes()[:4] == b"\x89PNG"
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["mean_a", "mean_b", "diff"]
    assert lines[1].split() == ["metric", "system_a", "system_b"]
    assert len(lines) == 2 + len(res.table)
    assert lines[2].split()[:3] == ["MRR", "rev", "good"]
    close(float(lines[2].split()[3]), res.table["mean_a"].iloc[0])  # pandas shows 6 significant digits


def test_compare_posthoc_prints_the_many_system_tables_of_the_api(run, data):
    args = ["compare", "--system", "good=p1.csv,p2.csv", "--system", "rev=r1.csv,r2.csv", "--system",
            "same=p1.csv,p2.csv", "--truth", "t1.csv", "--truth", "t2.csv", "-m", "MRR", "-m", "NDCG@10",
            "--n-resamples", "200"]
    res = rk.compare({"good": [data["p1"], data["p2"]], "rev": [data["r1"], data["r2"]],
                      "same": [data["p1"], data["p2"]]}, [data["t1"], data["t2"]], [rk.MRR(), rk.NDCGAtK(10)],
                     n_resamples=200)
    status, out, err = run(*args, "--format", "markdown", "--posthoc", "nemenyi", "--posthoc", "friedman",
                           "--posthoc", "tukey")
    assert status == 0 and err == ""
    main_table, rest = out[:len(res.to_markdown())], out[len(res.to_markdown()):]
    assert main_table == res.to_markdown()
    # in the order friedman, nemenyi, tukey, whatever the order asked
    titles = [line for line in rest.splitlines() if line.startswith("**")]
    assert titles == ["**Friedman's test per metric (complete units)**", "**mean rank per system (1 = best)**",
                      "**Nemenyi's all-pairs test on the mean ranks**",
                      "**Tukey's HSD (independent groups: ignores the pairing)**"]
    ranks = res.mean_ranks()
    assert f"{ranks.loc['MRR', 'rev']:.4f}" in rest and f"{res.friedman().loc['MRR', 'statistic']:.4f}" in rest
    assert rest.count("| MRR | good | rev |") == 2  # Nemenyi's and Tukey's rows of that pair
    status, out, _ = run(*args, "--posthoc", "friedman")
    assert status == 0 and "mean rank per system (1 = best):" in out


# ---------------------------------------------------------------------- errors: one line, status 2
def _one_error_line(status: int, err: str, pattern: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rankeval: error: "), err
    assert re.search(pattern, lines[0]), lines[0]


EVAL = ["evaluate", "--pred", "p1.csv", "--truth", "t1.csv"]
COMPARE = ["compare", "--system", "a=p1.csv", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR"]


def test_compare_posthoc_refuses_machine_formats(run, data):
    status, _, err = run(*COMPARE, "--posthoc", "nemenyi", "--format", "csv")
    _one_error_line(status, err, r"--posthoc prints tables after the comparison: use --format table, markdown")


@pytest.mark.parametrize("args, pattern", [
    (["evaluate", "--pred", "nope.csv", "--truth", "t1.csv", "-m", "MRR"], r"file not found: 'nope.csv'"),
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.tsv", "-m", "MRR"], r"file not found: 't1.tsv'"),
    ([*EVAL, "-m", "NDGC@10"], r"unknown metric 'NDGC@10'; did you mean NDCG@10\?"),
    ([*EVAL, "-m", "HR"], r"metric 'HR' needs a cutoff: write HR@k"),
    ([*EVAL, "-m", "MRR", "-m", "MRR"], r"repeated metric names \['MRR'\]"),
    (["evaluate", "--pred", "p1.xlsx", "--truth", "t1.csv", "-m", "MRR"],
     r"cannot read 'p1.xlsx': unknown file extension '.xlsx'; supported: .csv"),
    ([*EVAL, "-m", "MRR", "--per-user", "u.xlsx"], r"cannot write 'u.xlsx': unknown file extension"),
    (["evaluate", "--pred", "bad.run", "--truth", "t1.qrels", "-m", "MRR"],
     r"bad.run, line 3: the score \(field 5\) must be a number, got 'x': 'u1 Q0 c 3 x tag'"),
    (["evaluate", "--pred", "p1.csv", "--truth", "short.qrels", "-m", "MRR"],
     r"short.qrels, line 2: expected 4 whitespace-separated fields \(qid 0 docid rel\), found 3"),
    (["evaluate", "--pred", "p1.csv", "--truth", "cols.csv", "-m", "MRR"],
     r"--truth file 'cols.csv' has no column 'score' \(its columns: \['user_id', 'item_id', 'rating'\]\); "
     r"its ratings are in 'rating'\? pass --truth-score-col rating"),
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--user-col", "uid", "-m", "MRR"],
     r"--pred file 'p1.csv' has no column 'uid'"),
    (["evaluate", "--pred", "semi.csv", "--truth", "t1.csv", "--sep", ",", "-m", "MRR"],
     r"has one column 'user_id;item_id;score': it was read with --sep ','; pass --sep with the file's own separator"),
    (["evaluate", "--pred", "p1.csv", "--pred", "p2.csv", "--truth", "t1.csv", "-m", "MRR"],
     r"--pred is given 2 time\(s\) but --truth 1"),
    ([*EVAL, "-m", "MRR", "--split-name", "a", "--split-name", "b"], r"--split-name is given 2 time\(s\) for 1 split"),
    ([*COMPARE, "--split-name", "a", "--split-name", "b"], r"--split-name is given 2 time\(s\) for 1 split"),
    ([*EVAL, "-m", "MRR", "--split-name", "mean"], r"--split-name values must be distinct and not 'mean'"),
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "--pred", "dup.csv", "--truth", "t1.csv", "-m", "MRR"],
     r"split 'fold2' \(--pred dup.csv, --truth t1.csv\): `pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \('u1', 'a'\) at rows 0 and \d+; .*duplicates"),
    (["compare", "--system", "a=dup.csv", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR"],
     r"`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \('u1', 'a'\) at rows 0 and \d+; .*duplicates"),
    (["evaluate", "--pred", "p1.csv", "--truth", "nan.csv", "-m", "MRR"], r"split 'fold1' .*`truth`.*NaN"),
    ([*COMPARE, "--baseline", "c"], r"--baseline 'c' is not one of the systems \['a', 'b'\]"),
    (["compare", "--system", "a=p1.csv,p2.csv", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR"],
     r"system 'a' has 2 file\(s\) but --truth is given 1 time\(s\)"),
    (["compare", "--system", "a=p1.csv", "--truth", "t1.csv", "-m", "MRR"], r"at least two systems"),
    (["compare", "--system", "a", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR"],
     r"--system expects NAME=PATH .*got 'a'"),
    ([*COMPARE, "--alpha", "1.5"], r"--alpha must be a number in \(0, 1\), got 1.5"),
    ([*COMPARE, "--n-resamples", "0"], r"--n-resamples must be an integer >= 40 .*, got 0"),
    ([*COMPARE, "--seed", "-1"], r"--seed must be a non-negative integer"),
    ([*EVAL, "-m", "MRR@10", "--convention", "trec_eval"], r"the 'trec_eval' convention has no MRR@10"),
    ([*COMPARE, "--convention", "spark_mllib"], r"the 'spark_mllib' convention has no MRR"),
])
def test_user_errors_are_one_line_with_status_2(run, data, tmp_path, args, pattern):
    (tmp_path / "bad.run").write_text("u1 Q0 a 1 0.9 tag\nu1 Q0 x 2 0.8 tag\nu1 Q0 c 3 x tag\n")
    (tmp_path / "short.qrels").write_text("u1 0 a 5\nu1 0 b\n")
    data["t1"].rename(columns={"score": "rating"}).to_csv(tmp_path / "cols.csv", index=False)
    data["p1"].to_csv(tmp_path / "semi.csv", index=False, sep=";")
    pd.concat([data["p1"], data["p1"].iloc[:1]]).to_csv(tmp_path / "dup.csv", index=False)
    data["t1"].assign(score=[5.0, None, 4.0, 2.0, 4.0, 1.0]).to_csv(tmp_path / "nan.csv", index=False)
    status, out, err = run(*args)
    assert out == ""
    _one_error_line(status, err, pattern)


def test_parquet_without_pyarrow_says_what_to_install(run, data, tmp_path, monkeypatch):
    data["p1"].to_parquet(tmp_path / "p1.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    status, _, err = run("evaluate", "--pred", "p1.parquet", "--truth", "t1.csv", "-m", "MRR")
    _one_error_line(status, err, r"reading Parquet file 'p1.parquet' needs pyarrow.*pip install 'pyarrow>=15'")


@pytest.mark.parametrize("args, pattern", [
    ([*COMPARE, "--test", "ttest"], r"argument --test: invalid choice: 'ttest'"),
    ([*COMPARE, "--correction", "sidak"], r"argument --correction: invalid choice: 'sidak'"),
    ([*COMPARE, "--alpha", "high"], r"argument --alpha: invalid float value: 'high'"),
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.csv"], r"the following arguments are required: -m/--metric"),
    ([*EVAL, "-m", "MRR", "--format", "xml"], r"argument --format: invalid choice: 'xml'"),
    (["rerank"], r"invalid choice: 'rerank'"),
    (["rank"], r"the following arguments are required: --users, --items, -k"),
    ([], r"the following arguments are required"),
])
def test_usage_errors_exit_2(run, data, args, pattern):
    status, out, err = run(*args)
    assert status == 2 and out == ""
    assert err.startswith("usage: rankeval") and "Traceback" not in err
    assert err.splitlines()[-1].startswith("rankeval")
    assert re.search(pattern, err)


def test_help_and_version(run):
    status, out, _ = run("--help")
    assert status == 0 and "evaluate" in out and "compare" in out
    status, out, _ = run("compare", "--help")
    for option in ("--system", "--truth", "--test", "--correction", "--baseline", "--seed", "--plot", "--format",
                   "--user-col", "--pred-format", "--ties", "--progress", "--threshold", "--missing-users",
                   "--convention", "--quiet", "--ci-method"):
        assert option in out
    status, out, _ = run("--version")
    assert status == 0 and out.strip() == f"rankeval {rk.__version__}"


def test_subprocess_errors_have_no_traceback(tmp_path, data):
    (tmp_path / "bad.run").write_text("u1 Q0 a 1 0.9 tag\n\nu1 Q0 x two 0.8 tag\n")
    out = cli(tmp_path, "evaluate", "--pred", "bad.run", "--truth", "t1.qrels", "-m", "NDCG@10")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("rankeval: error: bad.run, line 3: the rank (field 4) must be an integer, got 'two': "
                          "'u1 Q0 x two 0.8 tag'\n")
    out = cli(tmp_path, *COMPARE, "--test", "bogus")
    assert out.returncode == 2 and "invalid choice: 'bogus'" in out.stderr and "Traceback" not in out.stderr
    out = cli(tmp_path, "evaluate", "--pred", "p1.csv", "--truth", "missing.qrels", "-m", "MRR")
    assert (out.returncode, out.stderr) == (2, "rankeval: error: file not found: 'missing.qrels'\n")


def test_console_script(tmp_path, data):
    script = Path(sys.executable).with_name("rankeval")
    if not script.exists():  # make test installs the package: there the script must exist
        unavailable("rankeval", f"the console script {script} is missing: is the package installed?")
    out = subprocess.run([str(script), "evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR",
                          "--format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["MRR"] == (1 + 1 / 3) / 3


def test_plot_without_matplotlib_says_what_to_install(run, data, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    status, _, err = run(*COMPARE, "--plot", "cmp.png")
    _one_error_line(status, err, r"--plot needs matplotlib.*pip install 'matplotlib>=3.8'")


# ---------------------------------------------------------------------- outputs never destroy inputs
@pytest.mark.parametrize("args, output, source", [
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR", "--per-user", "./p1.csv"], "p1.csv", "--pred"),
    (["evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR", "--per-user", "same.csv"], "t1.csv",
     "--truth"),  # same.csv: a hard link to t1.csv, another path to the same file
    (["compare", "--system", "a=p1.csv", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR",
      "--system-values", "r1.csv"], "r1.csv", "--system"),
    (["compare", "--system", "a=p1.csv", "--system", "b=r1.csv", "--truth", "t1.csv", "-m", "MRR",
      "--plot", "link.csv"], "p1.csv", "--system"),  # link.csv: a symbolic link to p1.csv
    (["report", "--system", "a=p1.csv", "--truth", "t1.csv", "-m", "MRR", "--out", "t1.csv"], "t1.csv", "--truth"),
])
def test_an_output_that_is_an_input_file_is_refused_before_any_work(run, data, tmp_path, args, output, source):
    (tmp_path / "same.csv").hardlink_to(tmp_path / "t1.csv")
    (tmp_path / "link.csv").symlink_to(tmp_path / "p1.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    status, out, err = run(*args)
    assert out == ""
    _one_error_line(status, err, rf"is the file given to {source} \(.*{re.escape(output)}\): writing it would "
                                 rf"destroy that input; choose another output path")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("digits", ["-1", "18"])
def test_digits_out_of_range_is_refused_before_the_run(run, data, digits):
    status, out, err = run("evaluate", "--pred", "p1.csv", "--truth", "t1.csv", "-m", "MRR", "--digits", digits)
    assert out == ""
    _one_error_line(status, err, rf"--digits must be an integer from 0 to 17, got {digits}")


def test_an_explicit_separator_reads_any_file_name_as_delimited_text(run, data, tmp_path):
    data["p1"].to_csv(tmp_path / "p1.txt", index=False, sep=";")
    data["t1"].to_csv(tmp_path / "t1.dat", index=False, sep=";")
    status, out, err = run("evaluate", "--pred", "p1.txt", "--truth", "t1.dat", "--sep", ";", "-m", "MRR",
                           "--format", "csv")
    assert status == 0, err
    expected = rk.MRR().perform(rk.Split(data["p1"], data["t1"])).system.iloc[0, 0]
    got = pd.read_csv(io.StringIO(out), index_col="split", **EXACT_FLOATS)
    assert got.loc["fold1", "MRR"] == expected
    status, _, err = run("evaluate", "--pred", "p1.txt", "--truth", "t1.dat", "-m", "MRR")
    _one_error_line(status, err, r"unknown file extension '.txt'.*; for delimited text under another name pass "
                                 r"--pred-format csv or tsv, or --sep")


@pytest.mark.parametrize("sig, status, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_run_stopped_while_writing_exits_in_one_line_and_leaves_no_output(tmp_path, sig, status, word):
    """The signal arrives while --per-user is being written: status 130/143, one line, no file left."""
    import signal
    import time

    rng = np.random.default_rng(0)
    n_users, length = 300_000, 5
    users = np.repeat([f"u{i:06d}" for i in range(n_users)], length)
    items = rng.integers(0, 10**9, n_users * length).astype(str)
    pd.DataFrame({"user_id": users, "item_id": items,
                  "score": np.tile(np.arange(length, 0, -1), n_users)}).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"user_id": users[::length], "item_id": items[::length], "score": 1.0}).to_csv(
        tmp_path / "t.csv", index=False)
    proc = subprocess.Popen([sys.executable, "-m", "rankeval", "evaluate", "--pred", "p.csv", "--truth", "t.csv",
                             "-m", "NDCG@5", "-m", "MRR", "-q", "--per-user", "users.csv"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not any(p.name.startswith(".users.csv.") for p in tmp_path.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.002)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err == f"rankeval: error: {word}\n" and out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv", "t.csv"]
