"""Reading real files from the command line: RecBole's atomic files (``.inter``, ``.item``,
``.user``), each file's own separator, decimal commas, the ``--truth-*-col`` options of ``audit``,
and messages that name the command's options (never the API's ``user_col=``).

The atomic fixture is a slice of MovieLens-100K as RecBole 1.2.1's wheel ships it
(``recbole/dataset_example/ml-100k/ml-100k.inter``: users 6, 22 and 62, their first five
rows, in file order); the whole file is read at the end when the wheel can be fetched.
"""

from __future__ import annotations

import gzip
import io
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.io import read_frame
from rankeval.io._files import EXACT_FLOATS

# the fixture of test_cli: main() in-process in tmp_path, giving (status, stdout, stderr)
from ._require import require, unavailable
from .test_cli import run  # noqa: F401
# ruff: noqa: F811

ML_SLICE = """user_id:token\titem_id:token\trating:float\ttimestamp:float
22\t377\t1\t878887116
6\t86\t3\t883603013
62\t257\t2\t879372434
62\t498\t4\t879373848
62\t382\t3\t879375537
62\t21\t3\t879373460
6\t14\t5\t883599249
62\t65\t4\t879374686
22\t376\t3\t878887112
6\t98\t5\t883600680
22\t128\t5\t878887983
22\t80\t4\t878887227
6\t463\t4\t883601713
6\t301\t2\t883600406
22\t241\t3\t878888025
"""
ML_ITEM = """item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq
86\tRemains of the Day, The\t1993\tDrama
14\tPostino, Il\t1994\tDrama Romance
98\tSilence of the Lambs, The\t1991\tDrama Thriller
463\tSecret of Roan Inish, The\t1994\t
"""
ML_USER = """user_id:token\tage:token\tgender:token\toccupation:token\tzip_code:token
8\t36\tM\tadministrator\t05201
9\t29\tM\tstudent\t01002
"""


def _slice() -> pd.DataFrame:
    """The slice as the readers give it: ids as text, whole-number floats as int64."""
    rows = [line.split("\t") for line in ML_SLICE.splitlines()[1:]]
    return pd.DataFrame({"user_id": [r[0] for r in rows], "item_id": [r[1] for r in rows],
                         "rating": np.array([int(r[2]) for r in rows], dtype=np.int64),
                         "timestamp": np.array([int(r[3]) for r in rows], dtype=np.int64)})


def _same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same columns, values and kinds (ids text whatever pandas' string dtype, numbers exact)."""
    assert list(got.columns) == list(expected.columns)
    for column in expected.columns:
        if expected[column].dtype.kind in "iuf":
            assert got[column].dtype == expected[column].dtype, column
            assert np.array_equal(got[column].to_numpy(), expected[column].to_numpy(), equal_nan=True), column
        else:
            assert pd.api.types.is_string_dtype(got[column]) or got[column].dtype == object, column
            assert got[column].tolist() == expected[column].tolist(), column


def _csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), index_col="split", **EXACT_FLOATS)


# ---------------------------------------------------------------------- RecBole atomic files, read_frame
def test_inter_file_reads_without_type_suffixes(tmp_path):
    (tmp_path / "ml.inter").write_text(ML_SLICE)
    _same(read_frame(tmp_path / "ml.inter"), _slice())
    # compressed, and under another extension with format="atomic"
    with gzip.open(tmp_path / "ml.inter.gz", "wt") as handle:
        handle.write(ML_SLICE)
    _same(read_frame(tmp_path / "ml.inter.gz"), _slice())
    (tmp_path / "ml.txt").write_text(ML_SLICE)
    _same(read_frame(tmp_path / "ml.txt", format="atomic"), _slice())


def test_item_and_user_files_keep_text_as_written(tmp_path):
    (tmp_path / "ml.item").write_text(ML_ITEM)
    (tmp_path / "ml.user").write_text(ML_USER)
    items = read_frame(tmp_path / "ml.item")
    assert list(items.columns) == ["item_id", "movie_title", "release_year", "class"]
    # token_seq: one space-separated string, as written; an empty field is missing; token: text
    assert items["class"].tolist()[:3] == ["Drama", "Drama Romance", "Drama Thriller"]
    assert pd.isna(items["class"].iloc[3])
    assert items["release_year"].tolist() == ["1993", "1994", "1991", "1994"]
    users = read_frame(tmp_path / "ml.user")
    assert users["zip_code"].tolist() == ["05201", "01002"] and users["age"].tolist() == ["36", "29"]


def test_atomic_float_fields_are_numbers_and_ids_spelled_like_missing_values_are_text(tmp_path):
    path = tmp_path / "odd.inter"
    path.write_text("user_id:token\titem_id:token\tscore:float\tfeat:float_seq\nNA\t0042\t0.1\t1 2\nnull\tx\tNA\t\n")
    frame = read_frame(path)
    assert frame["user_id"].tolist() == ["NA", "null"] and frame["item_id"].tolist() == ["0042", "x"]
    assert frame["score"].dtype == np.float64 and frame["score"].iloc[0] == 0.1 and np.isnan(frame["score"].iloc[1])
    assert frame["feat"].iloc[0] == "1 2" and pd.isna(frame["feat"].iloc[1])
    # options name the columns without their suffix
    picked = read_frame(path, usecols=["user_id", "score"], dtype={"score": str})
    assert picked.columns.tolist() == ["user_id", "score"] and picked["score"].iloc[0] == "0.1"


@pytest.mark.parametrize("header, message", [
    ("user_id\titem_id:token", r"header field 'user_id' has no ':type' suffix; a RecBole atomic file names every "
                               r"field name:type, the type one of token, token_seq, float, float_seq"),
    ("user_id:token\titem_id:int", r"header field 'item_id:int' has type 'int'"),
    ("user_id:token\tuser_id:float", r"the fields \['user_id'\] appear more than once"),
])
def test_atomic_header_errors(tmp_path, header, message):
    path = tmp_path / "bad.inter"
    path.write_text(header + "\n1\t2\n")
    with pytest.raises(ValueError, match=message):
        read_frame(path)


def test_atomic_float_field_of_text_is_an_error(tmp_path):
    path = tmp_path / "bad.inter"
    path.write_text("user_id:token\titem_id:token\trating:float\n1\ta\t4,5\n1\tb\t3\n")
    with pytest.raises(ValueError, match=r"field 'rating:float' holds numbers with a decimal comma \(1 value\(s\), "
                                         r"e.g. '4,5'\): read the file with decimal=','"):
        read_frame(path)
    assert read_frame(path, decimal=",")["rating"].tolist() == [4.5, 3.0]
    path.write_text("user_id:token\titem_id:token\trating:float\n1\ta\tgood\n")
    with pytest.raises(ValueError, match=r"field 'rating:float' holds text that is not a number \(e.g. 'good'\)"):
        read_frame(path)


@pytest.mark.parametrize("first_line, default, expected", [
    ("user_id,item_id,score", ",", ","),
    ("user_id;item_id;score", ",", ";"),
    ("user_id\titem_id\tscore", ",", "\t"),
    ("user_id|item_id|score", "\t", "|"),
    ("user;item,id;score", ",", ","),          # the extension's own separator wins when the line holds it
    ('"a;b"|c|d', ",", "|"),                     # separators inside quotes do not count
    ("item_id", ",", ","),                       # one column: the extension's
    ("\ufeffuser_id;item_id", ",", ";"),         # a byte-order mark
])
def test_header_separator(tmp_path, first_line, default, expected):
    from rankeval.io._files import header_separator

    path = tmp_path / "f.csv"
    path.write_text(first_line + "\nx\n", encoding="utf-8")
    assert header_separator(path, default) == expected


def test_header_separator_of_a_compressed_file_and_a_missing_one(tmp_path):
    from rankeval.io._files import header_separator

    with gzip.open(tmp_path / "p.csv.gz", "wt") as handle:
        handle.write("user_id;item_id;score\nu1;a;0,5\n")
    assert header_separator(tmp_path / "p.csv.gz", ",") == ";"
    with pytest.raises(FileNotFoundError, match="file not found"):
        header_separator(tmp_path / "nope.csv", ",")


# ---------------------------------------------------------------------- atomic files from the command line
def test_split_reads_an_inter_file_as_it_is(run, tmp_path):
    (tmp_path / "ml-100k.inter").write_text(ML_SLICE)
    status, _, err = run("split", "--in", "ml-100k.inter", "--method", "temporal", "--n-last", "2", "--out-dir", "s")
    assert status == 0, err
    train, test = rk.split.temporal_holdout(_slice(), n_last=2)[0]
    for part, expected in (("train", train), ("test", test)):
        written = tmp_path / "s" / "fold1" / f"{part}.csv"
        assert written.read_text().splitlines()[0] == "user_id,item_id,rating,timestamp"
        _same(read_frame(written, dtype={"user_id": str, "item_id": str}), expected.reset_index(drop=True))
    assert len(test) == 6  # two per user: 22's 128, 241; 6's 86, 463; 62's 498, 382


def test_evaluate_reads_inter_files_as_their_csv(run, tmp_path):
    (tmp_path / "truth.inter").write_text(ML_SLICE)
    pred = pd.DataFrame({"user_id": ["22", "22", "22", "6", "6", "62", "62"],
                         "item_id": ["128", "999", "377", "98", "14", "21", "65"],
                         "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.45, 0.25]})
    pred.to_csv(tmp_path / "pred.inter", sep="\t", index=False,
                header=["user_id:token", "item_id:token", "score:float"])
    args = ["-m", "NDCG@3", "-m", "MRR", "-m", "P@2", "--truth-score-col", "rating", "--format", "csv"]
    status, out, err = run("evaluate", "--pred", "pred.inter", "--truth", "truth.inter", *args)
    assert status == 0, err
    expected = rk.EvalModel(pred, _slice(), [rk.parse_metric(m) for m in ("NDCG@3", "MRR", "P@2")],
                            truth_score_col="rating").fit()[0]
    got = _csv(out)
    for metric in ("NDCG@3", "MRR", "P@2"):
        assert got.loc["fold1", metric] == expected.loc["fold1", metric]
    # hand value: user 6's truth 86=3 14=5 98=5 463=4 301=2 (mean 3.8): relevant 14, 98, 463; list 98, 14: P@2 1
    assert got.loc["fold1", "P@2"] == pytest.approx((1 / 2 + 1 + 1 / 2) / 3, abs=1e-15)


def test_item_file_gives_feature_sets_split_on_spaces(run, tmp_path):
    (tmp_path / "truth.inter").write_text(ML_SLICE)
    (tmp_path / "ml.item").write_text(ML_ITEM)
    pd.DataFrame({"user_id": ["6", "6", "6"], "item_id": ["86", "14", "98"], "score": [3.0, 2.0, 1.0]}).to_csv(
        tmp_path / "pred.csv", index=False)
    status, out, err = run("evaluate", "--pred", "pred.csv", "--truth", "truth.inter", "--truth-score-col", "rating",
                           "-m", "ILD@3", "--item-features", "ml.item", "--feature-sets", "class", "--format", "csv")
    assert status == 0, err
    # Jaccard distances: {Drama} vs {Drama, Romance} 1/2, vs {Drama, Thriller} 1/2; the two others 2/3
    assert _csv(out).loc["fold1", "ILD@3"] == pytest.approx((1 / 2 + 1 / 2 + 2 / 3) / 3, abs=1e-15)


def test_a_column_flag_with_its_type_suffix_names_the_bare_name(run, tmp_path):
    (tmp_path / "ml.inter").write_text(ML_SLICE)
    status, _, err = run("split", "--in", "ml.inter", "--method", "random", "--user-col", "user_id:token",
                         "--out-dir", "s")
    assert status == 2
    assert "--user-col user_id:token: RecBole atomic files are read without the ':type' suffix of their columns; " \
           "pass --user-col user_id" in err
    status, _, err = run("evaluate", "--pred", "ml.inter", "--truth", "ml.inter", "-m", "MRR",
                         "--item-col", "item_id:token")
    assert status == 2 and "pass --item-col item_id" in err


# ---------------------------------------------------------------------- audit: the column options of evaluate
def test_audit_takes_the_truth_column_options(run, tmp_path):
    ratings = _slice()
    train, test = rk.split.temporal_holdout(ratings)[0]
    names = {"user_id": "userId", "item_id": "movieId"}
    train.rename(columns=names).to_csv(tmp_path / "train.csv", index=False)
    test.rename(columns=names).to_csv(tmp_path / "test.csv", index=False)
    pred = pd.DataFrame({"user_id": ["22", "22", "6", "62"], "item_id": ["377", "241", "14", "9"],
                         "score": [2.0, 1.0, 1.0, 1.0]})
    pred.to_csv(tmp_path / "pred.csv", index=False)
    status, out, err = run("audit", "--train", "train.csv", "--truth", "test.csv", "--pred", "pred.csv",
                           "--truth-user-col", "userId", "--truth-item-col", "movieId", "--truth-score-col", "rating",
                           "--threshold", "3", "--format", "csv")
    assert status == 0, err
    got = pd.read_csv(io.StringIO(out), index_col="check", **EXACT_FLOATS)
    expected = rk.audit(train, test, pred, score_col="rating", relevant_threshold=3).table
    assert got["count"].astype("Int64").tolist() == expected["count"].tolist()
    assert got.loc["seen items recommended", "count"] == 2  # 22's 377 and 6's 14 are in train
    # each user's latest (22's 241, 6's 86, 62's 382) is rated 3: relevant at --threshold 3, from --truth-score-col
    assert got.loc["test users with a relevant item", "count"] == 3
    # the truth file without --truth-user-col: an error naming that option, not an API argument
    status, _, err = run("audit", "--train", "train.csv", "--truth", "test.csv")
    assert status == 2
    assert "--train file 'train.csv' has no column 'user_id', 'item_id'" in err
    assert "pass --truth-user-col userId; its item ids are in 'movieId'? pass --truth-item-col movieId" in err


# ---------------------------------------------------------------------- separators and decimal commas
def _files(tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u2", "u3"], "item_id": ["a", "b", "c", "a", "d", "e"],
                         "score": [0.75, 0.5, 0.125, 2.5, 1.1, 0.3]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u3"], "item_id": ["b", "c", "d", "x"],
                          "score": [4.5, 2.0, 3.25, 1.0]})
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    return pred, truth


ARGS = ["-m", "NDCG@3", "-m", "MRR", "-m", "MAP@2", "--threshold", "2", "--format", "csv"]


def test_a_semicolon_pred_and_a_comma_truth_give_the_numbers_of_two_comma_files(run, tmp_path):
    pred, truth = _files(tmp_path)
    pred.to_csv(tmp_path / "pred_semi.csv", index=False, sep=";")
    truth.to_csv(tmp_path / "truth.tsv", index=False, sep="|")  # a .tsv whose header says '|'
    status, commas, err = run("evaluate", "--pred", "pred.csv", "--truth", "truth.csv", *ARGS)
    assert status == 0, err
    status, mixed, err = run("evaluate", "--pred", "pred_semi.csv", "--truth", "truth.tsv", *ARGS)
    assert status == 0, err
    assert mixed == commas
    got = _csv(mixed)
    # u1: b (4.5) at 2 -> 1/2, u2: d at 2 -> 1/2; u3 has no relevant item (x: 1.0 < 2), left out
    assert got.loc["fold1", "MRR"] == 0.5


def test_decimal_commas_give_the_numbers_of_decimal_points(run, tmp_path):
    pred, truth = _files(tmp_path)
    status, points, err = run("evaluate", "--pred", "pred.csv", "--truth", "truth.csv", *ARGS)
    assert status == 0, err
    pred.to_csv(tmp_path / "pred_eu.csv", index=False, sep=";", decimal=",")
    truth.to_csv(tmp_path / "truth_eu.csv", index=False, sep=";", decimal=",")
    assert "0,75" in (tmp_path / "pred_eu.csv").read_text()
    status, commas, err = run("evaluate", "--pred", "pred_eu.csv", "--truth", "truth_eu.csv", "--decimal", ",", *ARGS)
    assert status == 0, err
    assert commas == points
    # a comma-separated truth beside them: --decimal , is not applied to it
    status, mixed, err = run("evaluate", "--pred", "pred_eu.csv", "--truth", "truth.csv", "--decimal", ",", *ARGS)
    assert status == 0, err
    assert mixed == points


def test_decimal_commas_in_split_and_audit(run, tmp_path):
    ratings = _slice().assign(rating=lambda f: f["rating"] - 0.5 + np.arange(len(f)) / 8)
    ratings.to_csv(tmp_path / "ratings.csv", index=False, sep=";", decimal=",")
    status, _, err = run("split", "--in", "ratings.csv", "--method", "temporal", "--decimal", ",", "--out-dir", "s")
    assert status == 0, err
    train, test = rk.split.temporal_holdout(ratings)[0]
    got = read_frame(tmp_path / "s" / "fold1" / "test.csv", dtype={"user_id": str, "item_id": str})
    # each user's latest: 6's 86 (row 1), 62's 382 (row 4), 22's 241 (row 14)
    assert got["rating"].tolist() == test["rating"].tolist() == [2.5 + 1 / 8, 2.5 + 4 / 8, 2.5 + 14 / 8]
    status, _, err = run("audit", "--train", "ratings.csv", "--truth", "ratings.csv", "--score-col", "rating")
    assert status == 2
    assert "--truth file 'ratings.csv': column 'rating' holds numbers with a decimal comma (15 value(s), e.g. " \
           "'0,5'): read the file with --decimal ," in err


@pytest.mark.parametrize("command, pattern", [
    (["evaluate", "--pred", "pred_eu.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"--pred file 'pred_eu.csv': column 'score' holds numbers with a decimal comma \(6 value\(s\), e.g. '0,75'\): "
     r"read the file with --decimal ,$"),
    (["evaluate", "--pred", "pred.csv", "--truth", "truth_eu.csv", "-m", "MRR"],
     r"--truth file 'truth_eu.csv': column 'score' holds numbers with a decimal comma .*--decimal ,$"),
    (["evaluate", "--pred", "pred_text.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"--pred file 'pred_text.csv': column 'score' holds text that is not a number \(e.g. 'high'\): write numbers "
     r"in it, or name the right column with --score-col$"),
    (["evaluate", "--pred", "pred_eu.csv", "--truth", "truth.csv", "--sep", ",", "-m", "MRR"],
     r"'pred_eu.csv': its rows have more fields than its header .*; it was read with --sep ',': pass --sep with "
     r"the file's own separator, or leave --sep out"),
    (["evaluate", "--pred", "pred_ragged.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"cannot parse 'pred_ragged.csv' as CSV: .*; it was read with the separator ',' found in its header line: pass "
     r"--sep with the file's own \(numbers with a decimal comma need another separator, or quotes, and --decimal ,\)"),
    (["evaluate", "--pred", "pred_ranked.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"--pred file 'pred_ranked.csv': column 'score' holds text that is not a number \(e.g. 'high'\)"),
    (["evaluate", "--pred", "pred_latin.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"'pred_latin.csv' is not UTF-8 text \(.*\): save it as UTF-8$"),
    (["evaluate", "--pred", "pred_colon.csv", "--truth", "truth.csv", "-m", "MRR"],
     r"has one column 'user_id:item_id:score': no separator was found in its header line; pass --sep with the "
     r"file's own separator"),
])
def test_reading_errors_name_the_options(run, tmp_path, command, pattern):
    pred, truth = _files(tmp_path)
    pred.to_csv(tmp_path / "pred_eu.csv", index=False, sep=";", decimal=",")
    truth.to_csv(tmp_path / "truth_eu.csv", index=False, sep=";", decimal=",")
    pred.assign(score="high").to_csv(tmp_path / "pred_text.csv", index=False)
    (tmp_path / "pred_ragged.csv").write_text("user_id,item_id,score\nu1,a,0,5\nu1,b,0,25,1\n")
    pred.to_csv(tmp_path / "pred_colon.csv", index=False, sep=":")
    pred.assign(score="high", rank=range(1, 7)).to_csv(tmp_path / "pred_ranked.csv", index=False)
    (tmp_path / "pred_latin.csv").write_bytes("user_id,item_id,score\ncaf\xe9,a,1\n".encode("latin-1"))
    status, out, err = run(*command)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("rankeval: error: "), err
    assert re.search(pattern, err.strip()), err


# ---------------------------------------------------------------------- messages name options, not arguments
#: an API argument in a message: user_col=, n_splits=, score_col='rating', ...
API_ARGUMENT = re.compile(r"\b[a-z]+_[a-z_]+=")


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    """Every command on input that makes the library speak of its column arguments."""
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "c"], "rating": [0.9, 0.8, 0.7]})
    pred.to_csv(tmp_path / "norank.csv", index=False)  # no score, no rank: a numeric 'rating' unused
    pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["b", "c"], "score": [5.0, 4.0]}).to_csv(
        tmp_path / "truth.csv", index=False)
    ratings = pd.DataFrame({"uid": [f"u{i % 4}" for i in range(12)], "item_id": [f"i{i}" for i in range(12)],
                            "score": 1.0, "timestamp": range(12)})
    ratings.to_csv(tmp_path / "uid.csv", index=False)
    truth_args = ["--truth", "truth.csv", "-m", "MRR"]
    return {
        "evaluate": ["evaluate", "--pred", "norank.csv", *truth_args],
        "compare": ["compare", "--system", "a=norank.csv", "--system", "b=norank.csv", *truth_args],
        "report": ["report", "--system", "a=norank.csv", *truth_args, "--out", "r.html"],
        "split": ["split", "--in", "uid.csv", "--method", "kfold", "--n-splits", "4", "--user-col", "uid",
                  "--out-dir", "s"],
        "split-columns": ["split", "--in", "uid.csv", "--method", "temporal", "--out-dir", "s"],
        "audit": ["audit", "--train", "uid.csv", "--truth", "uid.csv"],
    }


@pytest.mark.parametrize("name", ["evaluate", "compare", "report", "split", "split-columns", "audit"])
def test_every_command_names_options_not_api_arguments(run, tmp_path, name):
    if name == "report":
        require("jinja2")
        require("matplotlib")
    command = _commands(tmp_path)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # one-user comparisons: no variance to test
        status, _, err = run(*command)
    lines = [line for line in err.splitlines() if line.startswith("rankeval: ")]
    assert lines, err
    spoken = [line for line in lines if "_col" in line or "--" in line]
    assert spoken, lines
    for line in lines:
        assert not API_ARGUMENT.search(line), line
        assert "to Split" not in line and "--test " not in line, line
    flags = {"evaluate": "--score-col", "compare": "--score-col", "report": "--score-col", "split": "--n-splits 4",
             "split-columns": "--user-col", "audit": "--truth-user-col uid"}
    assert any(flags[name] in line for line in lines), lines


@pytest.mark.parametrize("api, cli", [
    ("Rename the columns or pass user_col=/item_col=/score_col= to Split",
     "Rename the columns or pass --user-col/--item-col/--score-col"),
    ("its scores are in 'rating'? pass score_col='rating')", "its scores are in 'rating'? pass --score-col rating)"),
    ("Its user ids are in 'userId'? Pass truth_user_col='userId'", "Its user ids are in 'userId'? Pass "
                                                                   "--truth-user-col userId"),
    ("fewer interactions than n_splits=4 folds", "fewer interactions than --n-splits 4 folds"),
    ("read the file with decimal=','", "read the file with --decimal ,"),
    ("`alpha` must be a number", "--alpha must be a number"),
    ("skipped (time_col=None)", "skipped (--time-col)"),
    ("k=10 and user_id=3 are not options", "k=10 and user_id=3 are not options"),
])
def test_api_arguments_become_options(api, cli):
    from rankeval.cli._main import _cli_words

    assert _cli_words(api) == cli


def test_audit_names_its_test_frame_truth():
    from rankeval.cli._main import _cli_words

    assert _cli_words("`test` is missing column(s) ['uid']", "audit") == "--truth is missing column(s) ['uid']"
    assert _cli_words("`test` must be one of", "compare") == "--test must be one of"


# ---------------------------------------------------------------------- the whole of MovieLens-100K
def test_split_of_the_whole_ml100k_inter_file(run, tmp_path):
    from .test_split_movielens import MEMBER, _wheel

    wheel = _wheel()
    if wheel is None:
        unavailable("recbole", "RecBole 1.2.1's wheel (MovieLens-100K) could not be fetched with pip")
    with zipfile.ZipFile(wheel) as archive:
        (tmp_path / "ml-100k.inter").write_bytes(archive.read(MEMBER))
    status, out, err = run("split", "--in", "ml-100k.inter", "--method", "temporal", "--out-dir", "loo")
    assert status == 0, err
    assert out.startswith("fold1: train 99,057 / test 943 rows")
    frame = rk.datasets.read_movielens(tmp_path / "ml-100k.inter").rename(columns={"score": "rating"})
    frame = frame.astype({"user_id": str, "item_id": str, "rating": np.int64})
    train, test = rk.split.temporal_holdout(frame)[0]
    got = read_frame(tmp_path / "loo" / "fold1" / "test.csv", dtype={"user_id": str, "item_id": str})
    _same(got, test.reset_index(drop=True))
    assert (tmp_path / "loo" / "fold1" / "train.csv").read_text().startswith("user_id,item_id,rating,timestamp\n")


def test_one_dtype_for_every_field_reads_float_fields_as_asked(tmp_path):
    (tmp_path / "ml.inter").write_text(ML_SLICE)
    frame = read_frame(tmp_path / "ml.inter", dtype=str)
    assert frame["rating"].tolist()[:3] == ["1", "3", "2"] and frame["timestamp"].iloc[0] == "878887116"
