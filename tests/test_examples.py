"""The examples run end to end (the demo as `make demo` runs it; MovieLens on a file in u.data format)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def test_demo_prints_the_tables_and_writes_csv():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True,
                         check=True, timeout=120)
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
