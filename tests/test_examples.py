"""The examples run end to end (the demo as `make demo` runs it; MovieLens on a file in u.data format),
and the demo's split -> audit numbers are checked against a plain-pandas computation."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankeval.datasets import make_ratings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demo() -> subprocess.CompletedProcess[str]:
    """The demo, run once for the tests of its output."""
    return subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True,
                          check=True, timeout=180)


def test_demo_prints_the_tables_and_writes_csv(demo):
    out = demo
    assert "system results, mean over the 5 folds" in out.stdout
    for name in ("popularity", "random", "noisy_oracle"):
        assert name in out.stdout
        system = pd.read_csv(ROOT / "examples" / "output" / f"{name}_system.csv", index_col="split")
        assert list(system.index) == ["fold1", "fold2", "fold3", "fold4", "fold5", "mean"]
        assert list(system.columns) == ["NDCG@10", "MAP@10", "MRR@10", "P@10", "R@10", "kendall@10"]
    means = {n: pd.read_csv(ROOT / "examples" / "output" / f"{n}_system.csv", index_col="split").loc["mean"]
             for n in ("popularity", "random", "noisy_oracle")}
    # the sample data has a popularity bias: oracle > popularity > random on every ranking metric
    for metric in ("NDCG@10", "MAP@10", "MRR@10", "P@10", "R@10"):
        assert means["noisy_oracle"][metric] > means["popularity"][metric] > means["random"][metric]


def _leakage_rows(stdout: str) -> dict[str, list[str]]:
    """The demo's split -> audit table: protocol -> its six values."""
    rows = {}
    for name in ("leave-last-one-out", "global cut, last 20%"):
        line = next(line for line in stdout.splitlines() if line.startswith(name))
        rows[name] = line[len(name):].split()
    return rows


def test_demo_shows_the_leak_of_a_per_user_split_and_none_in_a_global_cut(demo):
    rows = _leakage_rows(demo.stdout)
    # the printed leak, recomputed with plain pandas: leave-last-one-out trains on every rating but each
    # user's latest; the leak is the share of those later than the earliest of the users' latest ratings
    ratings = make_ratings(n_users=2000, n_items=500, ratings_per_user=50, seed=0, timestamps=True)
    latest = ratings.groupby("user_id")["timestamp"].transform("max")
    last_row = ratings.index.isin(ratings.assign(t=latest).loc[ratings["timestamp"] == latest]
                                  .groupby("user_id").tail(1).index)
    train_times = ratings.loc[~last_row, "timestamp"]
    share = (train_times > latest.min()).mean()
    train, users, leak, future, cold, ndcg = rows["leave-last-one-out"]
    assert (int(train), int(users), cold) == (len(ratings) - 2000, 2000, "0")
    assert leak == f"{share:.1%}" and share > 0.9
    g_train, g_users, g_leak, g_future, g_cold, g_ndcg = rows["global cut, last 20%"]
    assert (g_leak, g_future) == ("0.0%", "0")
    cut = ratings["timestamp"].quantile(0.8)
    assert int(g_train) == int((ratings["timestamp"] < cut).sum())
    assert int(g_users) == ratings.loc[ratings["timestamp"] >= cut, "user_id"].nunique()
    # the split that trains on the future flatters the popularity recommender
    assert float(ndcg) > 1.5 * float(g_ndcg) > 0


def _audit_rows(page: str) -> list[list[str]]:
    """The body rows of the report's protocol-audit table, as cell texts."""
    table = re.search(r'<table class="sortable" id="audit">(.*?)</table>', page, flags=re.S)
    assert table is not None, "the demo's report has no protocol-audit table"
    return [[unescape(c) for c in re.findall(r'<span class="v">(.*?)</span>', row, flags=re.S)]
            for row in re.findall(r"<tr>\s*(<td.*?)</tr>", table.group(1), flags=re.S)]


def test_the_demos_report_follows_the_audits_advice(demo):
    """The five folds of the comparison respect time (a rolling origin of global cuts): the report's audit finds
    no leakage, nor any other problem, in any fold."""
    page = (ROOT / "examples" / "output" / "report.html").read_text(encoding="utf-8")
    rows = _audit_rows(page)
    leaks = [row for row in rows if row[0].startswith("temporal leakage")]
    assert len(leaks) == 2 * 5  # per user and global, in each of the five folds
    assert [row[1] for row in leaks] == [f"fold{i}" for i in range(1, 6)] * 2
    assert all(row[2] == "0" and int(row[3]) >= 50_000 for row in leaks), leaks
    # no other problem either: nothing recommended from the future, no cold user or item
    for check in ("future items recommended (popularity)", "future items recommended (random)",
                  "future items recommended (noisy_oracle)", "cold users", "cold items", "overlap train ∩ test"):
        assert [row[2] for row in rows if row[0] == check] == ["0"] * 5, check
    assert page.count("no problem found") == 5


def test_the_demo_prints_each_warning_on_one_line(demo):
    """A warning is one line, ``Category: message``: no file name, line number or source line of the demo."""
    lines = [line for line in demo.stderr.splitlines() if line.strip()]
    assert lines == ["ProtocolWarning: the evaluation protocol may make these numbers wrong: split 'fold1': 234 of "
                     "746 test users have no `train` row (31.37%). rankeval.audit(train, test, pred) shows every "
                     "check"]
    assert "demo.py" not in demo.stderr


def _report_image_script():
    """docs/_gen/report_image.py, the script that makes docs/img/report.png and report.json, as a module."""
    spec = importlib.util.spec_from_file_location("report_image", ROOT / "docs" / "_gen" / "report_image.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_report_picture_in_the_docs_is_of_todays_demo(demo):
    """docs/img/report.png shows the page the demo writes today: the title, the sections and the summary table
    recorded beside it (docs/img/report.json, written with it by docs/_gen/report_image.py) are today's page's,
    and the PNG is the one that script wrote. Remake both with that script when this fails."""
    script = _report_image_script()
    shown = json.loads(script.SHOWN.read_text(encoding="utf-8"))
    today = script.page_summary((ROOT / "examples" / "output" / "report.html").read_text(encoding="utf-8"))
    assert {k: shown[k] for k in today} == today, "docs/img/report.png is stale: run docs/_gen/report_image.py"
    assert hashlib.sha256(script.PNG.read_bytes()).hexdigest() == shown["png_sha256"]
    assert "audit" in today["sections"]
    # the summary read from the page holds the numbers the demo prints (compare's table, means to 4 decimals)
    printed = {line.split("|")[1].strip(): line for line in demo.stdout.splitlines()
               if line.startswith("| ") and " (" in line.split("|")[1]}
    head = today["summary"]["head"]
    for row in today["summary"]["rows"]:
        cells = [c.strip().replace("**", "") for c in printed[row[0]].split("|")[1:-1]]
        for metric in ("NDCG@10", "MAP@10", "MRR@10"):
            assert cells[1 + ["NDCG@10", "MAP@10", "MRR@10"].index(metric)].split("<")[0] == \
                row[head.index(metric)].rstrip("abc")


def test_sample_times_leave_the_ratings_as_they_are():
    plain = make_ratings(n_users=50, n_items=40, ratings_per_user=10, seed=3)
    timed = make_ratings(n_users=50, n_items=40, ratings_per_user=10, seed=3, timestamps=True)
    pd.testing.assert_frame_equal(timed.drop(columns="timestamp"), plain)
    assert timed["timestamp"].dtype == np.int64
    assert timed["timestamp"].between(1_704_067_200, 1_704_067_200 + 366 * 86_400).all()


def test_movielens_example_on_a_file_in_u_data_format(tmp_path):
    rng = np.random.default_rng(0)
    users, items = np.meshgrid(np.arange(1, 61), np.arange(1, 81))
    keep = rng.random(users.size) < 0.4
    data = pd.DataFrame({"user": users.ravel()[keep], "item": items.ravel()[keep],
                         "rating": rng.integers(1, 6, keep.sum()), "ts": 881250949})
    path = tmp_path / "u.data"
    data.to_csv(path, sep="\t", header=False, index=False)
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "movielens.py"), str(path), "--out",
                          str(tmp_path / "res")], capture_output=True, text=True, check=True, timeout=120)
    assert "mean over 5 folds" in out.stdout and "popularity" in out.stdout
    system = pd.read_csv(tmp_path / "res" / "popularity_system.csv", index_col="split")
    assert list(system.columns) == ["NDCG@10", "MAP@10", "MRR@10", "P@10", "R@10", "HR@10"]
    assert system.notna().all().all()


def test_movielens_example_reports_a_missing_file(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "movielens.py"), str(tmp_path / "nope")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "not found" in out.stderr and "Traceback" not in out.stderr
