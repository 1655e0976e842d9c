"""Ids of kinds that never match (numbers against text): the message converts the frame that
needs it, in every direction, and running the conversion it suggests makes the input valid.

The frames of each case are (pred, truth, side data); the expected frame is the one the
message must convert. The suggested Python is executed on copies, then the split is built
again: a hint that converted the frame already right would still fail there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import rankeval as rk
from rankeval.cli import main
from ._require import require

P = pd.DataFrame({"user_id": ["1", "1", "2"], "item_id": ["10", "11", "10"], "score": [0.9, 0.8, 0.7]})
T = pd.DataFrame({"user_id": ["1", "2"], "item_id": ["10", "10"], "score": [5.0, 4.0]})


def _as(frame: pd.DataFrame, column: str, dtype: str) -> pd.DataFrame:
    return frame.assign(**{column: frame[column].astype(dtype)})


def _num(frame: pd.DataFrame, column: str = "item_id") -> pd.DataFrame:
    return _as(frame, column, "int64")


def _first_fix(message: str) -> str:
    """The first Python statement of the fix: after "ids to ...: ", up to ", or" or " (and"."""
    fix = re.search(r"ids to (?:text|numbers): (.*)$", message)
    assert fix is not None, message
    return re.split(r", or | \(and ", fix[1])[0]


CASES = [
    pytest.param(_num(P), T, {}, "pred", "pred['item_id'] = pred['item_id'].astype(str)", id="pred-numbers"),
    pytest.param(P, _num(T), {}, "truth", "truth['item_id'] = truth['item_id'].astype(str)", id="truth-numbers"),
    pytest.param(P, _as(T, "user_id", "float64"), {}, "truth",
                 "truth['user_id'] = truth['user_id'].astype(\"int64\").astype(str)", id="truth-float-users"),
    pytest.param(_num(P, "user_id"), T, {}, "pred", "pred['user_id'] = pred['user_id'].astype(str)",
                 id="pred-number-users"),
    pytest.param(P, T, {"train": _num(T)}, "train", "train['item_id'] = train['item_id'].astype(str)",
                 id="train-numbers"),
    pytest.param(P, T, {"train": _num(T, "user_id")}, "train", "train['user_id'] = train['user_id'].astype(str)",
                 id="train-number-users"),
    pytest.param(_num(P), _num(T), {"train": T}, "train", "train['item_id'] = pd.to_numeric(train['item_id'])",
                 id="train-text-of-numbers"),
    pytest.param(_num(P), _num(T), {"train": T.assign(item_id=["a", "b"])}, "pred",
                 "pred['item_id'] = pred['item_id'].astype(str)", id="train-text-not-numbers"),
    pytest.param(P, T, {"catalog": [10, 11]}, "catalog", "catalog = pd.Index(catalog).astype(str)",
                 id="catalog-numbers"),
    pytest.param(_num(P), _num(T), {"catalog": ["10", "11"]}, "catalog",
                 "catalog = pd.to_numeric(pd.Index(catalog))", id="catalog-text"),
    pytest.param(P, T, {"item_features": pd.DataFrame({"x": [1.0, 2.0]}, index=[10, 11])}, "item_features",
                 "item_features.index = item_features.index.astype(str)", id="features-numbers"),
    pytest.param(P, T, {"item_groups": pd.Series(["a", "b"], index=[10, 11])}, "item_groups",
                 "item_groups.index = item_groups.index.astype(str)", id="groups-numbers"),
]


@pytest.mark.parametrize("pred, truth, side, frame, fix", CASES)
def test_the_fix_converts_the_frame_that_needs_it_and_works(pred, truth, side, frame, fix):
    with pytest.raises(ValueError, match="no id could ever match") as info:
        rk.Split(pred, truth, **side)
    message = str(info.value)
    assert _first_fix(message) == fix
    assert re.search(rf"Convert (`{frame}`'s|pred's and truth's) ids", message), message
    # run the suggested fix on copies: the split then builds
    scope = {"pd": pd, "pred": pred.copy(), "truth": truth.copy(),
             **{k: v.copy() if hasattr(v, "copy") else list(v) for k, v in side.items()}}
    exec(fix, scope)
    if "(and truth's alike)" in message and fix.startswith("pred"):
        exec(fix.replace("pred", "truth"), scope)
    rk.Split(scope["pred"], scope["truth"], **{k: scope[k] for k in side})


@pytest.mark.parametrize("train, test, fix", [
    pytest.param(_num(T, "user_id"), T, "train['user_id'] = train['user_id'].astype(str)", id="train-numbers"),
    pytest.param(T, _as(T, "item_id", "float64"), "test['item_id'] = test['item_id'].astype(\"int64\").astype(str)",
                 id="test-floats"),
])
def test_the_audit_converts_the_frame_holding_numbers(train, test, fix):
    with pytest.raises(ValueError, match="no id could ever match") as info:
        rk.audit(train, test)
    assert _first_fix(str(info.value)) == fix
    scope = {"train": train.copy(), "test": test.copy()}
    exec(fix, scope)
    rk.audit(scope["train"], scope["test"])


def test_bytes_against_text_are_decoded():
    with pytest.raises(ValueError, match=re.escape("Decode the bytes first: pred['item_id'] = "
                                                   "pred['item_id'].str.decode(\"utf-8\")")):
        rk.Split(P.assign(item_id=P["item_id"].str.encode("utf-8")), T)


@pytest.fixture
def files(tmp_path: Path, monkeypatch) -> Path:
    require("pyarrow")
    monkeypatch.chdir(tmp_path)
    P.to_csv("p.csv", index=False)
    T.to_csv("t.csv", index=False)
    _num(P).to_parquet("pn.parquet")
    _num(T).to_parquet("tn.parquet")
    pd.DataFrame({"item_id": [10, 11]}).to_parquet("cat.parquet")
    return tmp_path


@pytest.mark.parametrize("argv, names, fix", [
    ("evaluate --pred pn.parquet --truth t.csv -m MRR", "the --pred file's 'item_id' holds numbers",
     "write the ids of the --pred file as text"),
    ("evaluate --pred p.csv --truth tn.parquet -m MRR", "the --truth file's 'item_id' holds numbers",
     "write the ids of the --truth file as text"),
    ("compare --system a=pn.parquet --system b=p.csv --truth t.csv -m MRR", "the --system file's 'item_id' holds numbers",
     "write the ids of the --system file as text"),
    ("evaluate --pred p.csv --truth t.csv --catalog cat.parquet -m Coverage",
     "the --catalog file's 'item_id' holds numbers", "write the ids of the --catalog file as text"),
    ("evaluate --pred pn.parquet --truth tn.parquet --train t.csv -m Novelty",
     "the --train file's 'item_id' holds text", "write the ids of the --pred and --truth files as text"),
    ("audit --train tn.parquet --truth t.csv", "the --train file's 'item_id' holds numbers",
     "write the ids of the --train file as text"),
])
def test_the_command_line_names_the_file_to_rewrite(files, capsys, argv, names, fix):
    assert main(argv.split()) == 2
    err = capsys.readouterr().err
    assert names in err and fix in err, err
    assert "astype(str) before to_parquet" in err
    assert "pred['item_id'] = " not in err and "train['user_id'] = " not in err  # no Python fix for a file
