"""The truth (and train) name their columns their own way: ``truth_user_col``, ``truth_item_col``,
``truth_score_col`` and ``--truth-user-col`` / ``--truth-item-col`` / ``--truth-score-col``.

Every result is checked against the same evaluation of frames renamed by plain pandas to one set
of names, the path that existed before the truth had names of its own.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankeval as rk
from rankeval import ProtocolWarning
from rankeval.exceptions import RankevalWarning

from ._require import require
from .test_protocol_checks import _Tables

#: MovieLens' names for the held-out ratings and the training interactions
ML = {"user_id": "userId", "item_id": "movieId", "score": "rating"}
NAMES = {"truth_user_col": "userId", "truth_item_col": "movieId", "truth_score_col": "rating"}


def _data(seed: int = 0, users: int = 40, items: int = 30) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(pred, truth, train) under rankeval's default names; lists hold seen and unseen items."""
    rng = np.random.default_rng(seed)
    rows = pd.DataFrame({"user_id": rng.integers(0, users, 900), "item_id": rng.integers(0, items, 900),
                         "score": rng.integers(1, 6, 900).astype(float)}).drop_duplicates(["user_id", "item_id"])
    rows = rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    train, truth = rows.iloc[: len(rows) * 2 // 3], rows.iloc[len(rows) * 2 // 3:]
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(users), 8), "item_id": rng.integers(0, items, users * 8),
                         "score": rng.random(users * 8)}).drop_duplicates(["user_id", "item_id"])
    return pred.reset_index(drop=True), truth.reset_index(drop=True), train.reset_index(drop=True)


METRICS = [rk.NDCGAtK(5), rk.MAPAtK(5), rk.MRR(), rk.MAE(), rk.Novelty(5), rk.CatalogCoverage(5)]


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)  # the same in both runs: compared where it matters
        return fn()


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_evalmodel_reads_the_truth_and_train_under_their_own_names(kind):
    pred, truth, train = _data()
    ml_truth, ml_train = truth.rename(columns=ML), train.rename(columns=ML)
    if kind == "polars":
        pl = require("polars")
        ml_truth, ml_train = pl.from_pandas(ml_truth), pl.from_pandas(ml_train)
    elif kind == "arrow":
        ml_truth, ml_train = pa.Table.from_pandas(ml_truth), pa.Table.from_pandas(ml_train)
    expected = _quiet(lambda: rk.EvalModel(pred, truth, METRICS, train=train).fit())
    got = _quiet(lambda: rk.EvalModel(pred, ml_truth, METRICS, train=ml_train, **NAMES).fit())
    pd.testing.assert_frame_equal(got[0], expected[0], check_exact=True)
    pd.testing.assert_frame_equal(got[1], expected[1], check_exact=True)
    # the per-user index keeps pred's name
    assert got[1].index.names == ["split", "user_id"]


def test_a_restricted_evaluation_finds_the_users_in_the_truths_column():
    pred, truth, train = _data(seed=1)
    wanted = [3, 5, 8, 13]
    expected = _quiet(lambda: rk.EvalModel(pred, truth, METRICS[:4]).fit(user_id_list=wanted))
    got = _quiet(lambda: rk.EvalModel(pred, truth.rename(columns=ML), METRICS[:4], **NAMES).fit(user_id_list=wanted))
    pd.testing.assert_frame_equal(got[1], expected[1], check_exact=True)
    assert sorted(got[1].index.get_level_values("user_id").unique()) == wanted


def test_compare_and_its_units_follow_the_truths_names():
    pred, truth, train = _data(seed=2)
    other = pred.assign(score=pred["score"].to_numpy()[::-1])
    systems = {"a": pred, "b": other}
    kw = {"n_resamples": 200, "seed": 1}
    expected = _quiet(lambda: rk.compare(systems, truth, METRICS, train=train, **kw))
    got = _quiet(lambda: rk.compare(systems, truth.rename(columns=ML), METRICS, train=train.rename(columns=ML),
                                    **NAMES, **kw))
    pd.testing.assert_frame_equal(got.table, expected.table, check_exact=True)
    pd.testing.assert_frame_equal(got.units, expected.units, check_exact=True)


def test_the_protocol_checks_count_the_same_under_other_names():
    pred, truth, train = _data(seed=3)
    with warnings.catch_warnings(record=True) as plain:
        warnings.simplefilter("always")
        rk.EvalModel(pred, truth, [rk.MRR()], train=train).fit()
    with warnings.catch_warnings(record=True) as named:
        warnings.simplefilter("always")
        rk.EvalModel(pred, truth.rename(columns=ML), [rk.MRR()], train=train.rename(columns=ML), **NAMES).fit()
    texts = [[str(w.message) for w in caught if issubclass(w.category, ProtocolWarning)] for caught in (plain, named)]
    assert texts[0] and texts[0] == texts[1]
    # by plain pandas: listed rows whose (user, item) is in train
    seen = len(pred.merge(train[["user_id", "item_id"]], on=["user_id", "item_id"]))
    assert f"{seen:,} of {len(pred):,} listed rows recommend" in texts[1][0]


def test_a_splits_object_of_other_names_is_the_truth_of_lists_of_the_default_names():
    pred_names = {"user_col": "user_id", "item_col": "item_id", "score_col": "score"}
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"userId": rng.integers(0, 50, 1500), "movieId": rng.integers(0, 40, 1500),
                          "rating": rng.integers(1, 6, 1500).astype(float)}).drop_duplicates(["userId", "movieId"])
    splits = rk.split.random_holdout(frame, 0.25, seed=2, user_col="userId", item_col="movieId", score_col="rating")
    train, test = splits[0]
    pred = pd.DataFrame({"user_id": np.repeat(test["userId"].unique(), 6),
                         "item_id": rng.integers(0, 40, 6 * test["userId"].nunique()),
                         "score": rng.random(6 * test["userId"].nunique())}).drop_duplicates(["user_id", "item_id"])
    got = _quiet(lambda: rk.EvalModel(pred, splits, METRICS, **pred_names).fit())
    back = {v: k for k, v in ML.items()}
    expected = _quiet(lambda: rk.EvalModel(pred, test.rename(columns=back), METRICS,
                                           train=train.rename(columns=back)).fit())
    pd.testing.assert_frame_equal(got[0], expected[0], check_exact=True)
    pd.testing.assert_frame_equal(got[1], expected[1], check_exact=True)


def test_the_reports_audit_reads_the_lists_under_the_truths_names(tmp_path):
    pred, truth, train = _data(seed=5)
    systems = {"a": pred, "b": pred.assign(score=-pred["score"])}
    pages = {}
    for label, (t, tr, names) in {"plain": (truth, train, {}),
                                  "named": (truth.rename(columns=ML), train.rename(columns=ML), NAMES)}.items():
        path = tmp_path / f"{label}.html"
        _quiet(lambda: rk.report(systems=systems, truth=t, metrics=[rk.NDCGAtK(5)], train=tr, path=path,
                                 progress=False, n_resamples=200, **names))
        parser = _Tables()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[label] = parser.tables
    assert pages["named"]["audit"] == pages["plain"]["audit"]
    shown = {row[0]: row[2:] for row in pages["named"]["audit"][1:]}  # check, split, count, ...
    seen = len(pred.merge(train[["user_id", "item_id"]], on=["user_id", "item_id"]))
    assert int(shown["seen items recommended (a)"][0]) == seen


# --------------------------------------------------------------------------- errors name the truth's columns
def test_errors_name_the_truths_own_columns():
    pred, truth, _ = _data(seed=6)
    ml = truth.rename(columns=ML)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['user_id', 'item_id', 'score'\].*"
                                         r"Pass truth_score_col='rating'.*Pass truth_user_col='userId'.*"
                                         r"Pass truth_item_col='movieId'"):
        rk.Split(pred, ml)
    with pytest.raises(ValueError, match=r"`truth`\['movieId'\] holds text"):
        rk.Split(pred, ml.assign(movieId=ml["movieId"].astype(str)), **NAMES)
    with pytest.raises(ValueError, match=r"`truth` repeats 1 \(userId, movieId\) pair in 2 rows: \(\d+, \d+\) at rows \d+ and \d+;"):
        rk.Split(pred, pd.concat([ml, ml.iloc[:1]], ignore_index=True), **NAMES)
    with pytest.raises(ValueError, match=r"`truth`\['userId'\] has 1 missing value"):
        rk.Split(pred, ml.assign(userId=ml["userId"].astype(float).where(ml.index != 3)), **NAMES)
    with pytest.raises(ValueError, match=r"distinct within each frame.*truth_user_col='rating'"):
        rk.Split(pred, ml, truth_user_col="rating", truth_item_col="movieId", truth_score_col="rating")
    with pytest.raises(ValueError, match=r"`pred`\['user_id'\] and `truth`\['userId'\] hold the same ids"):
        rk.Split(pred, ml.assign(userId=ml["userId"] + 1000), **NAMES)


def test_spark_reads_the_truth_under_its_own_names(spark):
    pred, truth, _ = _data(seed=7)
    ml = truth.rename(columns=ML)
    metrics = METRICS[:4]
    expected, _ = _quiet(lambda: rk.EvalModel(pred, truth, metrics, ties="item_id").fit())
    got, users = _quiet(lambda: rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(ml), metrics,
                                             ties="item_id", **NAMES).fit())
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert users.columns[:2] == ["split", "user_id"]
    repeated = spark.createDataFrame(pd.concat([ml, ml.iloc[:1]], ignore_index=True))
    with pytest.raises(ValueError, match=r"`truth` repeats 1 \(userId, movieId\) pair in 2 rows: \(\d+, \d+\) in 2 rows;"):
        rk.EvalModel(spark.createDataFrame(pred), repeated, metrics, ties="item_id", **NAMES).fit()
    with pytest.raises(ValueError, match=r"`truth` is missing column\(s\) \['user_id', 'item_id'\]"):
        rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(ml), metrics, truth_score_col="rating").fit()


def test_the_command_line_takes_the_truths_own_names(tmp_path, capsys):
    from rankeval.cli import main

    pred, truth, train = _data(seed=8)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.rename(columns=ML).to_csv(tmp_path / "truth.csv", index=False)
    train.rename(columns=ML).to_csv(tmp_path / "train.csv", index=False)
    args = ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
            "-m", "NDCG@5", "-m", "Novelty@5", "--format", "json", "--train", str(tmp_path / "train.csv")]
    assert main(args[:-2]) == 2  # the truth file alone
    err = capsys.readouterr().err
    assert "--truth file" in err and "pass --truth-user-col userId" in err and "pass --truth-item-col movieId" in err
    assert main(args) == 2  # the train file, read first, is named as the truth
    err = capsys.readouterr().err
    assert "--train file" in err
    assert "its user ids are in 'userId'? pass --truth-user-col userId" in err
    assert "its item ids are in 'movieId'? pass --truth-item-col movieId" in err
    flags = ["--truth-user-col", "userId", "--truth-item-col", "movieId", "--truth-score-col", "rating"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProtocolWarning)
        assert main([*args, *flags]) == 0
    out = capsys.readouterr().out
    # the CLI reads ids as text: the API on the same text ids
    as_text = {c: str for c in ("user_id", "item_id")}
    expected = _quiet(lambda: rk.EvalModel(pred.astype(as_text), truth.astype(as_text),
                                           [rk.NDCGAtK(5), rk.Novelty(5)], train=train.astype(as_text)).fit())
    for metric in ("NDCG@5", "Novelty@5"):
        assert repr(float(expected[0].loc["mean", metric])) in out


def test_side_files_and_frames_name_their_items_as_the_truth(tmp_path, capsys):
    from rankeval.cli import main

    pred, truth, train = _data(seed=9)
    catalog = pd.DataFrame({"movieId": np.arange(45), "title": [f"m{i}" for i in range(45)]})
    expected = _quiet(lambda: rk.EvalModel(pred, truth, [rk.CatalogCoverage(5)],
                                           catalog=catalog.rename(columns={"movieId": "item_id"})).fit())
    got = _quiet(lambda: rk.EvalModel(pred, truth.rename(columns=ML), [rk.CatalogCoverage(5)],
                                      catalog=catalog, **NAMES).fit())
    pd.testing.assert_frame_equal(got[0], expected[0], check_exact=True)
    # by hand: distinct items in the first 5 of every list, over the 45 catalog items
    shown = pred.sort_values(["user_id", "score"], ascending=[True, False]).groupby("user_id").head(5)
    assert got[0].loc["fold1", "Coverage@5"] == pytest.approx(shown["item_id"].nunique() / 45, rel=1e-15)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.rename(columns=ML).to_csv(tmp_path / "truth.csv", index=False)
    catalog.to_csv(tmp_path / "catalog.csv", index=False)
    assert main(["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
                 "-m", "Coverage@5", "--catalog", str(tmp_path / "catalog.csv"), "--format", "json",
                 "--truth-user-col", "userId", "--truth-item-col", "movieId", "--truth-score-col", "rating"]) == 0
    assert repr(float(expected[0].loc["mean", "Coverage@5"])) in capsys.readouterr().out
