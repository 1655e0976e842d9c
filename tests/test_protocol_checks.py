"""Splits as the truth of EvalModel / compare, and the cheap protocol checks they run with train.

The counts in the warnings are checked against plain pandas merges written here.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import ProtocolWarning


def _interactions(seed: int = 0, n: int = 3000, users: int = 120, items: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"user_id": rng.integers(0, users, n), "item_id": rng.integers(0, items, n),
                          "score": rng.integers(1, 6, n).astype(float), "timestamp": rng.integers(0, 10**6, n)})
    return frame.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)


def _popular(train: pd.DataFrame, test: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """The k most popular train items for every test user, seen items not excluded (the bug)."""
    top = train.groupby("item_id").size().sort_values(ascending=False, kind="stable").index[:k].to_numpy()
    users = test["user_id"].unique()
    return pd.DataFrame({"user_id": np.repeat(users, k), "item_id": np.tile(top, len(users)),
                         "score": np.tile(np.arange(k, 0, -1), len(users)).astype(float)})


def _record(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return value, [w for w in caught if issubclass(w.category, ProtocolWarning)]


def _expected(train: pd.DataFrame, test: pd.DataFrame, pred: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """The three counts by plain pandas: (count, whole)."""
    train_pairs = train[["user_id", "item_id"]].drop_duplicates()
    seen = pred.merge(train_pairs, on=["user_id", "item_id"], how="inner")
    test_pairs = test[["user_id", "item_id"]].drop_duplicates()
    overlap = test_pairs.merge(train_pairs, on=["user_id", "item_id"], how="inner")
    test_users = set(test["user_id"])
    cold = test_users - set(train["user_id"])
    return {"seen": (len(seen), len(pred)), "overlap": (len(overlap), len(test_pairs)),
            "cold": (len(cold), len(test_users))}


def _counts_in(message: str) -> dict[str, tuple[int, int]]:
    found = {}
    for key, text in (("seen", "listed rows recommend"), ("overlap", "test \\(user, item\\) pairs"),
                      ("cold", "test users have no")):
        match = re.search(r"([\d,]+) of ([\d,]+) " + text, message)
        if match:
            found[key] = (int(match[1].replace(",", "")), int(match[2].replace(",", "")))
    return found


def test_a_splits_truth_equals_its_tests_with_its_trains():
    frame = _interactions()
    splits = rk.split.kfold(frame, 3, seed=1)
    preds = [_popular(train, test) for train, test in splits]
    metrics = [rk.NDCGAtK(10), rk.Novelty(10), rk.CatalogCoverage(10)]
    (sys_a, users_a), _ = _record(lambda: rk.EvalModel(preds, splits, metrics).fit())
    (sys_b, users_b), _ = _record(lambda: rk.EvalModel(preds, splits.tests, metrics, train=splits.trains,
                                                       split_names=splits.names).fit())
    pd.testing.assert_frame_equal(sys_a, sys_b)
    pd.testing.assert_frame_equal(users_a, users_b)
    assert list(sys_a.index) == ["fold1", "fold2", "fold3", "mean"]
    # Novelty needs train: it came from the Splits object
    assert sys_a["Novelty@10"].notna().all()


def test_split_names_given_win_over_the_splits_names():
    splits = rk.split.random_holdout(_interactions(), 0.2, seed=3)
    pred = _popular(*splits[0])
    (sys_result, _), _ = _record(lambda: rk.EvalModel(pred, splits, [rk.MRR()], split_names=["holdout"]).fit())
    assert list(sys_result.index) == ["holdout", "mean"]


def test_train_given_twice_is_refused():
    splits = rk.split.random_holdout(_interactions(), 0.2)
    pred = _popular(*splits[0])
    with pytest.raises(ValueError, match="`train` is given twice"):
        rk.EvalModel(pred, splits, [rk.MRR()], train=splits.trains[0])
    with pytest.raises(ValueError, match="`train` is given twice"):
        rk.compare({"a": pred, "b": pred}, splits, [rk.MRR()], train=splits.trains[0])


def test_the_splits_columns_are_the_default_columns():
    frame = _interactions().rename(columns={"user_id": "u", "item_id": "i"})
    splits = rk.split.temporal_holdout(frame, n_last=2, user_col="u", item_col="i")
    train, test = splits[0]
    pred = _popular(train.rename(columns={"u": "user_id", "i": "item_id"}),
                    test.rename(columns={"u": "user_id", "i": "item_id"})).rename(columns={"user_id": "u",
                                                                                             "item_id": "i"})
    (sys_result, users), _ = _record(lambda: rk.EvalModel(pred, splits, [rk.HitRateAtK(10)]).fit())
    assert users.index.names == ["split", "u"]
    expected, _ = _record(lambda: rk.EvalModel(pred, test, [rk.HitRateAtK(10)], user_col="u", item_col="i").fit())
    assert sys_result.loc["fold1", "HR@10"] == expected[0].loc["fold1", "HR@10"]


@pytest.mark.parametrize("method", ["temporal", "random", "kfold"])
def test_the_warning_counts_equal_plain_pandas(method):
    frame = _interactions(seed=7)
    splits = {"temporal": lambda: rk.split.temporal_holdout(frame, n_last=3),
              "random": lambda: rk.split.random_holdout(frame, 0.3, seed=2),
              "kfold": lambda: rk.split.kfold(frame, 2, seed=5)}[method]()
    preds = [_popular(train, test) for train, test in splits]
    _, caught = _record(lambda: rk.EvalModel(preds, splits, [rk.NDCGAtK(10)]).fit())
    assert len(caught) == 1
    message = str(caught[0].message)
    for name, (train, test), pred in zip(splits.names, splits, preds):
        expected = {k: v for k, v in _expected(train, test, pred).items() if v[0]}
        part = message.split(f"split {name!r}: ")[1:]
        got: dict[str, tuple[int, int]] = {}
        for chunk in part:
            got.update(_counts_in(chunk.split("; split ")[0]))
        assert got == expected, (name, message)
    assert "seen" in _counts_in(message)  # popular items include items users had: the bug is found


def test_overlap_and_cold_users_are_counted_against_plain_pandas():
    frame = _interactions(seed=11)
    train = frame.iloc[:2000]
    test = pd.concat([frame.iloc[1900:], pd.DataFrame({"user_id": [10_001, 10_002], "item_id": [1, 2],
                                                       "score": [5.0, 4.0], "timestamp": [1, 2]})])
    pred = _popular(train, test)
    pred = pred.merge(train[["user_id", "item_id"]], how="left", indicator=True)
    pred = pred[pred["_merge"] == "left_only"].drop(columns="_merge")  # seen items excluded: no seen line
    _, caught = _record(lambda: rk.EvalModel(pred, test, [rk.MRR()], train=train).fit())
    assert len(caught) == 1
    got = _counts_in(str(caught[0].message))
    expected = _expected(train, test, pred)
    assert expected["seen"][0] == 0 and "seen" not in got
    assert got["overlap"] == expected["overlap"] == (100, len(test[["user_id", "item_id"]].drop_duplicates()))
    assert got["cold"] == expected["cold"] and expected["cold"][0] >= 2


def test_a_clean_protocol_warns_nothing():
    frame = _interactions(seed=5)
    splits = rk.split.temporal_holdout(frame, n_last=1)
    train, test = splits[0]
    pred = _popular(train, test, k=60)
    pred = pred.merge(train[["user_id", "item_id"]], how="left", indicator=True)
    pred = pred[pred["_merge"] == "left_only"].drop(columns="_merge")
    (_, _), caught = _record(lambda: rk.EvalModel(pred, splits, [rk.MRR()]).fit())
    assert caught == []
    # and without train there is nothing to check
    (_, _), caught = _record(lambda: rk.EvalModel(_popular(train, test), test, [rk.MRR()]).fit())
    assert caught == []


def test_compare_checks_train_against_test_once_and_each_systems_lists():
    frame = _interactions(seed=9)
    splits = rk.split.random_holdout(frame, 0.3, seed=4)
    train, test = splits[0]
    dirty = _popular(train, test)
    clean = dirty.merge(train[["user_id", "item_id"]], how="left", indicator=True)
    clean = clean[clean["_merge"] == "left_only"].drop(columns="_merge")
    res, caught = _record(lambda: rk.compare({"dirty": dirty, "clean": clean}, splits, [rk.NDCGAtK(10)],
                                             n_resamples=100))
    messages = [str(w.message) for w in caught]
    seen = [m for m in messages if "already has in `train`" in m]
    assert len(seen) == 1 and seen[0].startswith("system 'dirty': ")
    assert _counts_in(seen[0])["seen"] == _expected(train, test, dirty)["seen"]
    # the explicit lists give the same comparison
    same, _ = _record(lambda: rk.compare({"dirty": dirty, "clean": clean}, splits.tests, [rk.NDCGAtK(10)],
                                         train=splits.trains, n_resamples=100))
    pd.testing.assert_frame_equal(res.table, same.table)


class _Tables(HTMLParser):
    """The cells of every <table id=...> of a page, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._table = dict(attrs).get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_report_shows_the_audit_of_every_split(tmp_path):
    frame = _interactions(seed=13)
    splits = rk.split.kfold(frame, 2, seed=3)
    preds = {"pop": [_popular(train, test) for train, test in splits],
             "pop5": [_popular(train, test, k=5) for train, test in splits]}
    path = tmp_path / "page.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProtocolWarning)
        rk.report(systems=preds, truth=splits, metrics=[rk.NDCGAtK(10)], path=path, progress=False)
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    header, *rows = parser.tables["audit"]  # one table: every check of every split, a check's splits together
    assert header[:6] == ["check", "split", "count", "of", "share", "users_affected"]
    for i, (train, test) in enumerate(splits):
        expected = rk.audit(train, test, {name: frames[i] for name, frames in preds.items()}).table
        shown = {row[0]: row[2:] for row in rows if row[1] == splits.names[i]}
        assert list(shown) == list(expected.index)
        for check, line in expected.iterrows():
            count, of, share, users = shown[check][:4]
            assert count == str(int(line["count"]))
            assert of == ("–" if pd.isna(line["of"]) else str(int(line["of"])))
            assert users == ("–" if pd.isna(line["users_affected"]) else str(int(line["users_affected"])))
            if not pd.isna(line["share"]):
                assert float(share) == pytest.approx(line["share"], abs=5e-5)
        assert int(shown["seen items recommended (pop)"][0]) == _expected(train, test, preds["pop"][i])["seen"][0]


# --------------------------------------------------------------------------- the truth's own score column
RATED = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": list("abacd"), "rating": [5.0, 1.0, 4.0, 2.0, 3.0]})
LISTS = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": list("bacad"), "score": [0.9, 0.8, 0.7, 0.6, 0.5]})


def test_the_truth_has_its_own_score_column():
    renamed = RATED.rename(columns={"rating": "score"})
    metrics = [rk.NDCGAtK(2), rk.MAPAtK(2), rk.MAE()]
    expected = rk.EvalModel(LISTS, renamed, metrics).fit()
    got = rk.EvalModel(LISTS, RATED, metrics, truth_score_col="rating").fit()
    pd.testing.assert_frame_equal(got[0], expected[0])
    pd.testing.assert_frame_equal(got[1], expected[1])
    # by hand: user 1 lists b (rating 1) then a (5); NDCG@2 = (1 + 5/log2 3) / (5 + 1/log2 3)
    assert got[1].loc[("fold1", 1), "NDCG@2"] == pytest.approx((1 + 5 / np.log2(3)) / (5 + 1 / np.log2(3)), rel=1e-15)
    res = rk.compare({"a": LISTS, "b": LISTS.iloc[::-1]}, RATED, [rk.MRR()], truth_score_col="rating", n_resamples=100)
    same = rk.compare({"a": LISTS, "b": LISTS.iloc[::-1]}, renamed, [rk.MRR()], n_resamples=100)
    pd.testing.assert_frame_equal(res.table, same.table)


def test_a_truth_score_column_named_like_a_rating_is_pointed_out():
    with pytest.raises(ValueError, match=r"missing column\(s\) \['score'\].*Pass truth_score_col='rating'"):
        rk.Split(LISTS, RATED)
    with pytest.warns(rk.UnusedColumnsWarning, match=r"pass score_col='prediction'"):
        rk.Split(LISTS.rename(columns={"score": "prediction"}), RATED, truth_score_col="rating")
    # two candidates: no guess
    both = RATED.assign(relevance=1.0)
    with pytest.raises(ValueError, match=r"Rename the columns or pass"):
        rk.Split(LISTS, both)


def test_a_splits_score_column_is_the_truths():
    frame = _interactions(seed=21).rename(columns={"score": "rating"})
    splits = rk.split.random_holdout(frame, 0.3, seed=1, score_col="rating")
    pred = _popular(*splits[0])
    (sys_result, _), _ = _record(lambda: rk.EvalModel(pred, splits, [rk.NDCGAtK(10)]).fit())
    test = splits.tests[0].rename(columns={"rating": "score"})
    (expected, _), _ = _record(lambda: rk.EvalModel(pred, test, [rk.NDCGAtK(10)]).fit())
    assert sys_result.loc["fold1", "NDCG@10"] == expected.loc["fold1", "NDCG@10"]


def test_the_command_line_takes_the_truths_score_column(tmp_path, capsys):
    from rankeval.cli import main

    LISTS.to_csv(tmp_path / "pred.csv", index=False)
    RATED.to_csv(tmp_path / "truth.csv", index=False)
    args = ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"), "-m", "MRR",
            "--format", "json"]
    assert main(args) == 2
    assert "pass --truth-score-col rating" in capsys.readouterr().err
    assert main([*args, "--truth-score-col", "rating"]) == 0
    out = capsys.readouterr().out
    expected = rk.EvalModel(LISTS, RATED, [rk.MRR()], truth_score_col="rating").fit()[0].loc["mean", "MRR"]
    assert repr(float(expected)) in out or str(float(expected)) in out


def test_spark_takes_the_truths_score_column(spark):
    metrics = [rk.NDCGAtK(2), rk.MAP()]
    expected, _ = rk.EvalModel(LISTS, RATED, metrics, truth_score_col="rating", ties="item_id").fit()
    got, _ = rk.EvalModel(spark.createDataFrame(LISTS), spark.createDataFrame(RATED), metrics,
                          truth_score_col="rating", ties="item_id").fit()
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    with pytest.raises(ValueError, match=r"`truth` is missing column\(s\) \['score'\]"):
        rk.EvalModel(spark.createDataFrame(LISTS), spark.createDataFrame(RATED), metrics).fit()
