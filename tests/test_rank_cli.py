"""``rankeval rank``: the file written equals the API's lists, from list columns or numbered columns."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rankeval.cli import main
from rankeval.rank import top_k
from rankeval.io._files import EXACT_FLOATS

from ._require import require


@pytest.fixture
def run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        return status, out, err
    return call


def _vectors():
    rng = np.random.default_rng(11)
    return rng.integers(-3, 4, (12, 4)).astype(float), rng.integers(-3, 4, (40, 4)).astype(float)


def test_rank_from_list_columns_equals_the_api(run, tmp_path):
    require("pyarrow")
    users, items = _vectors()
    pd.DataFrame({"user_id": np.arange(12) + 100, "vector": list(users)}).to_parquet(tmp_path / "u.parquet")
    pd.DataFrame({"item_id": np.arange(40) + 500, "vector": list(items)}).to_parquet(tmp_path / "v.parquet")
    train = pd.DataFrame({"user_id": [100, 100, 101], "item_id": [500, 507, 539]})
    train.to_csv(tmp_path / "train.csv", index=False)
    status, out, err = run("rank", "--users", "u.parquet", "--items", "v.parquet", "-k", "5", "--exclude",
                           "train.csv", "--out", "lists.parquet")
    assert status == 0, err
    assert "60 rows (12 users, k=5) -> lists.parquet" in out
    written = pd.read_parquet(tmp_path / "lists.parquet")
    expected = top_k(users, items, 5, user_ids=(np.arange(12) + 100).astype(str),
                     item_ids=(np.arange(40) + 500).astype(str), exclude=train.astype(str)).to_frame(categorical=False)
    assert written["user_id"].astype(str).tolist() == expected["user_id"].tolist()
    assert written["item_id"].astype(str).tolist() == expected["item_id"].tolist()
    assert written["score"].tolist() == expected["score"].tolist()
    assert written["rank"].tolist() == expected["rank"].tolist()
    listed = set(zip(written["user_id"].astype(str), written["item_id"].astype(str)))
    assert not listed & {("100", "500"), ("100", "507"), ("101", "539")}


def test_rank_from_numbered_columns(run, tmp_path):
    users, items = _vectors()
    pd.DataFrame(users, columns=[f"d{i}" for i in range(4)]).assign(user_id=[f"u{i}" for i in range(12)]).to_csv(
        tmp_path / "u.csv", index=False)
    pd.DataFrame(items, columns=[f"d{i}" for i in range(4)]).assign(item_id=[f"i{i}" for i in range(40)]).to_csv(
        tmp_path / "v.csv", index=False)
    status, _, err = run("rank", "--users", "u.csv", "--items", "v.csv", "-k", "3", "--out", "lists.csv",
                         "--ties", "item_id", "--similarity", "cosine")
    assert status == 0, err
    written = pd.read_csv(tmp_path / "lists.csv", **EXACT_FLOATS)  # pandas 2.2's default parser is off in the last bit
    expected = top_k(users, items, 3, user_ids=[f"u{i}" for i in range(12)], item_ids=[f"i{i}" for i in range(40)],
                     ties="item_id", similarity="cosine").to_frame(categorical=False)
    assert written["item_id"].tolist() == expected["item_id"].tolist()
    np.testing.assert_array_equal(written["score"].to_numpy(), expected["score"].to_numpy())


@pytest.mark.parametrize(("make", "args", "message"), [
    ("text", ["-k", "3"], r"--users file 'u.csv': the vectors must be one list column or numeric columns"),
    ("ok", ["-k", "0"], r"-k must be an integer from 1"),
    ("ok", ["-k", "3", "--memory", "10"], r"`memory` of 10 bytes is too small"),
    ("ok", ["-k", "3", "--user-col", "uid"], r"--users file 'u.csv' has no column 'uid'"),
])
def test_rank_errors(run, tmp_path, make, args, message):
    users, items = _vectors()
    frame = pd.DataFrame(users, columns=[f"d{i}" for i in range(4)]).assign(user_id=range(12))
    if make == "text":
        frame["d1"] = "x"
    frame.to_csv(tmp_path / "u.csv", index=False)
    pd.DataFrame(items, columns=[f"d{i}" for i in range(4)]).assign(item_id=range(40)).to_csv(
        tmp_path / "v.csv", index=False)
    status, _, err = run("rank", "--users", "u.csv", "--items", "v.csv", "--out", "o.csv", *args)
    assert status == 2
    assert re.search(message, err), err
