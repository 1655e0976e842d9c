"""Bad input: every defect of a split's input (docs/errors.md) raises a ValueError naming what is wrong,
and nothing the caller passed is modified, whether the call fails or succeeds."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import MissingUsersWarning, Split


def _add(df: pd.DataFrame, **row) -> pd.DataFrame:
    return pd.concat([df, pd.DataFrame([row])], ignore_index=True)


BAD_FRAMES = [
    pytest.param(lambda p, t: (p.drop(columns="item_id"), t),
                 r"`pred` is missing column\(s\) \['item_id'\]; it has \['user_id', 'score'\]", id="pred-no-item"),
    pytest.param(lambda p, t: (p.drop(columns="user_id"), t),
                 r"`pred` is missing column\(s\) \['user_id'\]", id="pred-no-user"),
    pytest.param(lambda p, t: (p, t.drop(columns="score")),
                 r"`truth` is missing column\(s\) \['score'\]", id="truth-no-score"),
    pytest.param(lambda p, t: (p.iloc[:0], t), r"`pred` is empty", id="pred-empty"),
    pytest.param(lambda p, t: (p, t.iloc[:0]), r"`truth` is empty", id="truth-empty"),
    pytest.param(lambda p, t: (_add(p, user_id="u1", item_id="a", score=0.1), t),
                 r"^`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \('u1', 'a'\) at rows 0 and 8; drop or "
                 r"aggregate the duplicates first$", id="pred-duplicate-pair"),
    pytest.param(lambda p, t: (p, _add(t, user_id="u2", item_id="e", score=1.0)),
                 r"^`truth` repeats 1 \(user_id, item_id\) pair in 2 rows: \('u2', 'e'\) at rows 4 and 6; drop "
                 r"or aggregate the duplicates first$", id="truth-duplicate-pair"),
    pytest.param(lambda p, t: (p, t.assign(score=[5.0, np.nan, 4, 2, 4, 1])),
                 r"`truth`\['score'\] has 1 NaN or infinite value\(s\) at rows \[1\]", id="truth-nan-score"),
    pytest.param(lambda p, t: (p, t.assign(score=[5.0, np.inf, 4, 2, 4, 1])),
                 r"`truth`\['score'\] has 1 NaN or infinite value\(s\) at rows \[1\]", id="truth-inf-score"),
    pytest.param(lambda p, t: (p, t.assign(score=["5", "1", "4", "2", "4", "1"])),
                 r"`truth`\['score'\] must be numeric, got dtype (object|str) \(e.g. '5' at row 0\)",
                 id="truth-text-score"),
    pytest.param(lambda p, t: (p, t.assign(score=[True, False, True, False, True, True])),
                 r"`truth`\['score'\] must be numeric, got dtype bool", id="truth-bool-score"),
    pytest.param(lambda p, t: (p.assign(score=[0.9, np.nan, 0.7, 0.9, 0.8, 0.7, 0.9, 0.8]), t),
                 r"`pred`\['score'\] has 1 NaN value\(s\) at rows \[1\]", id="pred-nan-score"),
    pytest.param(lambda p, t: (p.assign(score=list("abcdefgh")), t),
                 r"`pred`\['score'\] must be numeric", id="pred-text-score"),
    pytest.param(lambda p, t: (p.assign(rank=[1, np.nan, 3, 1, 2, 3, 1, 2]), t),
                 r"`pred`\['rank'\] has 1 NaN or infinite value\(s\) at rows \[1\]", id="rank-nan"),
    pytest.param(lambda p, t: (p.assign(rank=[0, 1, 2, 1, 2, 3, 1, 2]), t),
                 r"`pred`\['rank'\] must hold integers >= 1, got 0 for user_id='u1' \(1 bad ranks at rows \[0\]\)",
                 id="rank-zero"),
    pytest.param(lambda p, t: (p.assign(rank=[1, 2, 3, 1, 2, -3, 1, 2]), t),
                 r"`pred`\['rank'\] must hold integers >= 1, got -3 for user_id='u2'", id="rank-negative"),
    pytest.param(lambda p, t: (p.assign(rank=[1, 2.5, 3, 1, 2, 3, 1, 2]), t),
                 r"`pred`\['rank'\] must hold integers >= 1, got 2.5", id="rank-fraction"),
    pytest.param(lambda p, t: (p.assign(rank=[1, 2, 3, 1, 2, 2, 1, 2]), t),
                 r"`pred`\['rank'\] repeats rank 2 for user_id='u2' at rows \[4, 5\] \(1 repeated ranks in all\)",
                 id="rank-repeated"),
    pytest.param(lambda p, t: (p.assign(user_id=["u1", None, "u1", "u2", "u2", "u2", "u3", "u3"]), t),
                 r"`pred`\['user_id'\] has 1 missing value\(s\) at rows \[1\]", id="pred-missing-user"),
    pytest.param(lambda p, t: (p.assign(item_id=["a", "x", "c", "d", np.nan, "e", "y", "z"]), t),
                 r"`pred`\['item_id'\] has 1 missing value\(s\) at rows \[4\]", id="pred-missing-item"),
    pytest.param(lambda p, t: (p, t.assign(user_id=["u1", "u1", None, "u2", "u2", "u3"])),
                 r"`truth`\['user_id'\] has 1 missing value\(s\) at rows \[2\]", id="truth-missing-user"),
    pytest.param(lambda p, t: (p, t.assign(item_id=["a", "b", "c", None, "e", "f"])),
                 r"`truth`\['item_id'\] has 1 missing value\(s\) at rows \[3\]", id="truth-missing-item"),
    pytest.param(lambda p, t: (p.assign(user_id=[f"v{i}" for i in range(8)]), t),
                 r"no user of `pred` appears in `truth` \(pred has 8 users, e.g. \['v0', 'v1', 'v2'\]; truth has "
                 r"e.g. \['u1', 'u2', 'u3'\]\)", id="no-common-user"),
    pytest.param(lambda p, t: (p.assign(user_id=np.arange(8)), t),
                 r"`pred`\['user_id'\] holds numbers \(dtype int64, e.g. 0\) but `truth`\['user_id'\] holds text "
                 r"\(dtype (object|str), e.g. 'u1'\): no id could ever match. Convert `pred`'s ids to text: "
                 r"pred\['user_id'\] = pred\['user_id'\]\.astype\(str\)$", id="user-ids-int-vs-str"),
    pytest.param(lambda p, t: (p, t.assign(item_id=np.arange(6))),
                 r"`pred`\['item_id'\] holds text .* but `truth`\['item_id'\] holds numbers \(dtype int64, e.g. 0\)",
                 id="item-ids-str-vs-int"),
    pytest.param(lambda p, t: (p, t.assign(user_id=t["user_id"].astype(object).where(t.index != 2, None))),
                 r"`truth`\['user_id'\] has 1 missing value\(s\) at rows \[2\]", id="truth-none-user"),
    pytest.param(lambda p, t: (p.assign(user_id=p["user_id"].astype(object).where(p.index != 4, pd.NA)), t),
                 r"`pred`\['user_id'\] has 1 missing value\(s\) at rows \[4\]", id="pred-pd-na-user"),
    pytest.param(lambda p, t: (p.assign(item_id=[["a"], "x", "c", "d", "x", "e", "y", "z"]), t),
                 r"`pred`\['item_id'\] holds values that cannot be ids \(list\) at rows \[0\]", id="list-item-id"),
    pytest.param(lambda p, t: (p, t.assign(item_id=[{"a": 1}, "b", "c", "d", "e", "f"])),
                 r"`truth`\['item_id'\] holds values that cannot be ids \(dict\) at rows \[0\]", id="dict-item-id"),
    pytest.param(lambda p, t: (p, t.assign(score=t["score"] + 0j)),
                 r"`truth`\['score'\] must be numeric, got dtype complex128", id="complex-truth-score"),
    pytest.param(lambda p, t: (pd.concat([p, p[["score"]]], axis=1), t),
                 r"`pred` has more than one column named \['score'\]", id="repeated-column"),
]


@pytest.mark.parametrize("edit, match", BAD_FRAMES)
def test_split_rejects_bad_input_and_leaves_it_unchanged(toy_frames, edit, match):
    pred, truth = edit(*toy_frames)
    pred_before, truth_before = pred.copy(deep=True), truth.copy(deep=True)
    with pytest.raises(ValueError, match=match):
        Split(pred, truth)
    pd.testing.assert_frame_equal(pred, pred_before)
    pd.testing.assert_frame_equal(truth, truth_before)


def test_duplicate_pairs_found_with_int_ids_in_unsorted_frames():
    pred = pd.DataFrame({"user_id": [2, 1, 2, 1], "item_id": [7, 7, 8, 7], "score": [1.0, 2, 3, 4]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [7], "score": [1.0]})
    with pytest.raises(ValueError, match=r"^`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: \(1, 7\) at "
                                         r"rows 1 and 3; drop"):
        Split(pred, truth)


def test_missing_users_error_names_them(toy_frames):
    pred, truth = toy_frames
    truth = pd.concat([truth, pd.DataFrame({"user_id": ["u8", "u9"], "item_id": ["q", "q"], "score": [1.0, 2]})])
    with pytest.raises(ValueError, match=r"2 `truth` user\(s\) have no recommendations, e.g. \['u8', 'u9'\]; "
                                         r"pass missing_users='ignore'"):
        Split(pred, truth, missing_users="error")


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"ties": "random"}, ValueError, r"`ties` must be one of \['row_order', 'item_id', 'item_id_desc'\], got 'random'"),
    ({"missing_users": "drop"}, ValueError, r"`missing_users` must be one of \['ignore', 'zero', 'error'\]"),
    ({"score_col": "user_id"}, ValueError, r"column names must be distinct"),
    ({"score_col": "rating"}, ValueError, r"`truth` is missing column\(s\) \['rating'\]"),
])
def test_split_rejects_bad_options(toy_frames, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Split(*toy_frames, **kwargs)


def test_split_requires_dataframes(toy_frames):
    pred, truth = toy_frames
    with pytest.raises(TypeError, match=r"`pred` must be a pandas, polars \(DataFrame or LazyFrame\), "
                                        r"pyarrow.Table or Spark DataFrame, got dict"):
        Split(pred.to_dict(), truth)
    with pytest.raises(TypeError, match=r"`truth` must be a pandas, .* got list"):
        Split(pred, [1, 2])


def test_custom_column_names(toy_frames):
    pred, truth = toy_frames
    pred = pred.rename(columns={"user_id": "uid", "item_id": "iid", "score": "pred"})
    truth = truth.rename(columns={"user_id": "uid", "item_id": "iid", "score": "pred"})
    res = rk.MAP().perform(Split(pred, truth, user_col="uid", item_col="iid", score_col="pred"))
    assert res.users.index.name == "uid"
    np.testing.assert_allclose(res.users["MAP"], [(1 + 2 / 3) / 2, 1 / 3, 0])


@pytest.mark.parametrize("make, match", [
    (lambda: rk.NDCGAtK(0), r"`k` must be an integer >= 1, got 0"),
    (lambda: rk.MAPAtK(-2), r"`k` must be an integer >= 1, got -2"),
    (lambda: rk.PrecisionAtK(2.5), r"`k` must be an integer >= 1, got 2.5 of type float"),
    (lambda: rk.RecallAtK("10"), r"`k` must be an integer >= 1, got '10' of type str"),
    (lambda: rk.HitRateAtK(True), r"`k` must be an integer >= 1, got True of type bool"),
    (lambda: rk.MRRAtK(None), r"`k` is required"),
    (lambda: rk.Correlation(top_n=0), r"`top_n` must be an integer >= 1, got 0"),
    (lambda: rk.NDCG(gains="log"), r"`gains` must be one of \['linear', 'exponential', 'binary'\], got 'log'"),
    (lambda: rk.NDCG(ideal="best"), r"`ideal` must be one of \['truth', 'ranked', 'min_k_ones'\], got 'best'"),
    (lambda: rk.NDCG(ideal="min_k_ones"), r"`ideal`='min_k_ones' normalizes binary gains only"),
    (lambda: rk.NDCG(discount="ln"), r"`discount` must be one of \['log2', 'jarvelin'\]"),
    (lambda: rk.DCG(discount_log=2), r"`discount_log` must be a callable such as np.log2, got 2"),
    (lambda: rk.Correlation("cosine"), r"`method` must be one of \['pearson', 'spearman', 'kendall'\], got 'cosine'"),
    (lambda: rk.MAP(relevant_threshold="high"), r"`relevant_threshold` must be None or a number, got 'high'"),
    (lambda: rk.MAP(relevant_threshold=float("nan")), r"`relevant_threshold` must not be NaN"),
    (lambda: rk.MRR(no_relevant="skip"), r"`no_relevant` must be one of \['nan', 'zero'\], got 'skip'"),
    (lambda: rk.PrecisionAtK(5, denominator="m"), r"`denominator` must be one of \['k', 'listed'\]"),
    (lambda: rk.RecallAtK(5, denominator="k"), r"`denominator` must be one of \['relevant', 'min_k'\]"),
    (lambda: rk.MAP(name=""), r"`name` must be a non-empty string"),
])
def test_metric_parameters_are_checked_at_construction(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_successful_evaluation_leaves_inputs_unchanged(toy_frames):
    pred, truth = toy_frames
    # unsorted, with a rank column and a categorical id column: every path that could copy or sort
    pred = pred.assign(rank=[3, 1, 2, 2, 1, 3, 2, 1]).sample(frac=1.0, random_state=1)
    truth = truth.assign(user_id=truth["user_id"].astype("category"))
    pred_before, truth_before = pred.copy(deep=True), truth.copy(deep=True)
    split = Split(pred, truth, ties="item_id")
    for metric in [rk.NDCG(ideal="ranked"), rk.MAPAtK(2), rk.Correlation("kendall")]:
        metric.perform(split)
    pd.testing.assert_frame_equal(pred, pred_before)
    pd.testing.assert_frame_equal(truth, truth_before)


def test_warning_counts_and_no_warning_when_users_match(toy_frames, recwarn):
    Split(*toy_frames)
    assert not [w for w in recwarn if issubclass(w.category, MissingUsersWarning)]


def test_repeated_pairs_are_each_named_with_their_rows():
    truth = pd.DataFrame({"user_id": ["u1"], "item_id": ["a"], "score": [1.0]})
    five = pd.DataFrame({"user_id": ["u1", "u2", "u3", "u4", "u5"] * 2, "item_id": list("abcde") * 2,
                         "score": np.arange(10.0)})
    with pytest.raises(ValueError, match=re.escape(
            "`pred` repeats 5 (user_id, item_id) pairs in 10 rows: ('u1', 'a') at rows 0 and 5; ('u2', 'b') at rows "
            "1 and 6; ('u3', 'c') at rows 2 and 7; ('u4', 'd') at rows 3 and 8; ('u5', 'e') at rows 4 and 9; drop or "
            "aggregate the duplicates first")):
        Split(five, truth)
    # bounded: the first five pairs (in row order), each with its first five rows, then how many more
    many = pd.DataFrame({"user_id": [f"u{u}" for u in range(17)] * 2 + ["u0"] * 5,
                         "item_id": list("abcdefghijklmnopq") * 2 + ["a"] * 5, "score": np.arange(39.0)})
    with pytest.raises(ValueError, match=re.escape(
            "`pred` repeats 17 (user_id, item_id) pairs in 39 rows: ('u0', 'a') at rows 0, 17, 34, 35, 36 and 2 "
            "more; ('u1', 'b') at rows 1 and 18; ('u2', 'c') at rows 2 and 19; ('u3', 'd') at rows 3 and 20; "
            "('u4', 'e') at rows 4 and 21; and 12 more pairs; drop or aggregate the duplicates first")):
        Split(many, truth)
    # the caller's row labels, and the truth under its own column names
    labelled = truth.assign(movie=["a"]).drop(columns="item_id")
    twice = pd.concat([labelled, labelled]).set_axis(["r7", "r9"])
    with pytest.raises(ValueError, match=re.escape("`truth` repeats 1 (user_id, movie) pair in 2 rows: ('u1', 'a') "
                                                   "at rows 'r7' and 'r9'; drop")):
        Split(five.iloc[:1], twice, truth_item_col="movie")
