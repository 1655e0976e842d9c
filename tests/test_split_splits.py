"""The ``Splits`` object, ``to_dir``, frame kinds, cold items, and the size-dependent paths of the splitters."""

from __future__ import annotations

import json
from unittest import mock

import numpy as np
import pandas as pd
import pytest

import rankeval.split._order as order_module
from rankeval.exceptions import RankevalWarning
from rankeval.io import read_frame
from rankeval.split import Splits, bootstrap, global_temporal, kfold, random_holdout, temporal_holdout

from ._paths import id_paths
from ._require import require


def ratings(n_users: int = 30, per_user: int = 12, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "user_id": np.repeat([f"u{u}" for u in range(n_users)], per_user),
        "item_id": np.concatenate([rng.choice(40, per_user, replace=False) for _ in range(n_users)]),
        "score": rng.integers(1, 6, n_users * per_user).astype(float),
        "timestamp": rng.integers(0, 1000, n_users * per_user),
        "extra": "kept",
    })


def test_splits_api():
    frame = ratings()
    splits = kfold(frame, 3, seed=1)
    assert isinstance(splits, Splits) and len(splits) == 3
    assert splits.names == ["fold1", "fold2", "fold3"]
    assert [len(t) for t in splits.tests] == [len(test) for _, test in splits]
    train, test = splits["fold2"]
    assert splits[1][0] is train and splits[-1][1] is splits.tests[2]
    assert list(train.columns) == list(frame.columns)  # the caller's columns, extra ones too
    assert splits.params == {"method": "kfold", "n_splits": 3, "by": "user", "seed": 1, "min_interactions": 1,
                             "drop_cold_items": False, "user_col": "user_id", "item_col": "item_id",
                             "score_col": "score", "time_col": "timestamp"}
    assert repr(splits).startswith("Splits(kfold: n_splits=3, by='user', seed=1, min_interactions=1, "
                                   "drop_cold_items=False; fold1: train 240 / test 120")
    with pytest.raises(KeyError, match=r"no split named 'fold9'; the names are \['fold1', 'fold2', 'fold3'\]"):
        splits["fold9"]
    with pytest.raises(TypeError, match="indexed by position or name"):
        splits[1.0]


def test_every_splitter_records_its_parameters():
    frame = ratings()
    assert temporal_holdout(frame, 0.25).params["test_size"] == 0.25
    assert temporal_holdout(frame).params["n_last"] == 1
    assert random_holdout(frame, by="record", seed=3).params["by"] == "record"
    assert bootstrap(frame, seed=2).params["method"] == "bootstrap"
    cut = global_temporal(frame, test_size=0.2).params
    assert cut["test_size"] == 0.2 and cut["cutoff"] == frame["timestamp"].quantile(0.8)


def test_to_dir_writes_every_fold_and_the_parameters(tmp_path):
    frame = ratings()
    splits = kfold(frame, 2, seed=5)
    root = splits.to_dir(tmp_path / "out" / "splits")
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "fold1/test.csv", "fold1/train.csv", "fold2/test.csv", "fold2/train.csv", "params.json"]
    assert json.loads((root / "params.json").read_text()) == splits.params
    for name, (train, test) in zip(splits.names, splits):
        pd.testing.assert_frame_equal(read_frame(root / name / "train.csv"), train.reset_index(drop=True))
        pd.testing.assert_frame_equal(read_frame(root / name / "test.csv"), test.reset_index(drop=True))
    splits.to_dir(root, format="tsv")
    assert (root / "fold1" / "train.tsv").exists()
    with pytest.raises(ValueError, match=r"`format` must be one of \['csv', 'tsv', 'parquet'\]"):
        splits.to_dir(root, format="json")


def test_to_dir_leaves_no_partial_file_when_a_write_fails(tmp_path):
    splits = temporal_holdout(ratings())
    with mock.patch.object(pd.DataFrame, "to_csv", side_effect=OSError("disk full")), pytest.raises(OSError):
        splits.to_dir(tmp_path)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []


def test_times_in_params_are_iso_text(tmp_path):
    frame = ratings().assign(timestamp=lambda f: pd.to_datetime(f["timestamp"], unit="D", origin="2020-01-01"))
    splits = global_temporal(frame, "2021-06-01")
    assert splits.params["cutoff"] == "2021-06-01T00:00:00"
    splits.to_dir(tmp_path)
    assert json.loads((tmp_path / "params.json").read_text())["cutoff"] == "2021-06-01T00:00:00"


def test_polars_and_arrow_frames_split_as_pandas():
    polars = require("polars")
    pa = require("pyarrow")
    frame = ratings()
    expected = random_holdout(frame, 0.3, seed=8).tests[0].reset_index(drop=True)
    for other in (polars.from_pandas(frame), polars.from_pandas(frame).lazy(), pa.Table.from_pandas(frame)):
        got = random_holdout(other, 0.3, seed=8).tests[0].reset_index(drop=True)
        pd.testing.assert_frame_equal(got.astype({"user_id": object, "item_id": "int64", "extra": object}),
                                      expected.astype({"user_id": object, "extra": object}))


def test_the_callers_frame_is_not_modified():
    frame = ratings()
    copy = frame.copy()
    for call in (lambda: random_holdout(frame), lambda: temporal_holdout(frame, drop_cold_items=True),
                 lambda: global_temporal(frame, test_size=0.3), lambda: kfold(frame), lambda: bootstrap(frame)):
        try:
            call()
        except RankevalWarning:
            pass
    pd.testing.assert_frame_equal(frame, copy)


def test_drop_cold_items_drops_and_counts_per_fold():
    frame = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": ["a", "b", "z", "a", "b", "y"],
                          "timestamp": [1, 2, 3, 1, 2, 3]})
    with pytest.warns(RankevalWarning, match=r"temporal_holdout: drop_cold_items dropped 2 of 2 test interaction\(s\) "
                                             r"\(100.0%\): their items have no interaction in the fold's train"):
        train, test = temporal_holdout(frame, drop_cold_items=True)[0]
    assert test.empty and len(train) == 4
    frame = pd.DataFrame({"user_id": np.repeat([1, 2, 3], 4), "item_id": list("abcd") + list("abce") + list("abcf")})
    plain = kfold(frame, 2, seed=0)
    cold = [int((~test["item_id"].isin(train["item_id"])).sum()) for train, test in plain]
    assert sum(cold) > 0
    with pytest.warns(RankevalWarning, match=rf"kfold: drop_cold_items dropped {sum(cold)} of 12 test "
                                             rf"interaction\(s\) \({sum(cold) / 12:.1%}\) \(fold1: {cold[0]}, "
                                             rf"fold2: {cold[1]}\)"):
        splits = kfold(frame, 2, seed=0, drop_cold_items=True)
    for (train, test), (plain_train, plain_test) in zip(splits, plain):
        assert test.index.tolist() == plain_test.index[plain_test["item_id"].isin(train["item_id"])].tolist()
        assert train.index.tolist() == plain_train.index.tolist()


@pytest.mark.parametrize("mode", ["default", "fast"])
def test_size_dependent_paths_give_the_same_splits(mode):
    """The id paths of large inputs (address hashing, Arrow hashing) and keys cut short enough that
    many tie (settled by the full key, time, score and row) give the splits of the plain path."""
    frame = ratings(60, 15, seed=4)
    frame = pd.concat([frame, frame.iloc[:20]], ignore_index=True)  # duplicate pairs too
    calls = (lambda f: random_holdout(f, 0.3, seed=2), lambda f: random_holdout(f, 0.3, by="record", seed=2),
             lambda f: kfold(f, 3, seed=2), lambda f: kfold(f, 4, by="record", seed=2), lambda f: bootstrap(f, seed=2))
    with pytest.warns(RankevalWarning):
        expected = [[(t.index.tolist(), s.index.tolist()) for t, s in call(frame)] for call in calls]
    with id_paths(mode), mock.patch.object(order_module, "_kept_bits", lambda *args: 6), \
            pytest.warns(RankevalWarning):
        got = [[(t.index.tolist(), s.index.tolist()) for t, s in call(frame)] for call in calls]
    assert got == expected


@pytest.mark.parametrize("kind", ["int64", "negative", "uint32", "int8"])
def test_integer_ids_coded_by_a_table_give_the_splits_of_hashed_codes(kind):
    """Integer ids over a narrow range are coded by a lookup table (in order of value); hashed
    codes (in order of first appearance) give the same rows in every train and test, the same
    warnings and the same parameters."""
    frame = ratings(50, 9, seed=5)
    frame["user_id"] = frame["user_id"].str[1:].astype(int)
    frame = pd.concat([frame, frame.iloc[:15]], ignore_index=True).sample(frac=1, random_state=3)
    frame = frame[frame.index % 11 != 0]  # users of several sizes
    if kind == "negative":
        frame["user_id"] = frame["user_id"] * 7 - 1000
    elif kind != "int64":
        frame["user_id"] = frame["user_id"].astype(kind)
        frame["item_id"] = frame["item_id"].astype(kind)
    calls = (lambda f: random_holdout(f, 0.3, seed=2, min_interactions=3, drop_cold_items=True),
             lambda f: random_holdout(f, 0.3, by="record", seed=2), lambda f: temporal_holdout(f, 0.3),
             lambda f: global_temporal(f, test_size=0.3, min_interactions=4), lambda f: kfold(f, 3, seed=2),
             lambda f: kfold(f, 4, by="record", seed=2, drop_cold_items=True), lambda f: bootstrap(f, seed=2))

    def run() -> list:
        out = []
        for call in calls:
            with pytest.warns(RankevalWarning) as caught:
                splits = call(frame)
            out.append(([(t.index.tolist(), s.index.tolist()) for t, s in splits], splits.params,
                         [str(w.message) for w in caught]))
        return out

    from rankeval.split import _input

    tabled = run()
    assert _input._dense_codes(frame["user_id"].to_numpy()) is not None
    with mock.patch.object(_input, "_dense_codes", lambda values: None):
        hashed = run()
    assert tabled == hashed


def test_pairs_are_cut_when_used_from_the_frame_as_it_was():
    frame = ratings()
    splits = kfold(frame, 3, seed=0)
    frame.loc[:, "score"] = -1.0  # the caller edits the frame afterwards
    assert all((train["score"] > 0).all() and (test["score"] > 0).all() for train, test in splits)
    assert splits[0] is splits[0] and splits[-1] is splits[2]
    with pytest.raises(IndexError, match=r"split 3 out of range: there are 3"):
        splits[3]
    made = Splits([(frame.iloc[:5], frame.iloc[5:7])], {"method": "mine"})
    assert made[0][1].equals(frame.iloc[5:7]) and repr(made) == "Splits(mine: ; fold1: train 5 / test 2)"


def test_the_share_is_read_as_the_decimal_written():
    frame = pd.DataFrame({"user_id": np.repeat([1, 2], 100), "item_id": np.tile(np.arange(100), 2)})
    assert 0.29 * 100 < 29  # binary floating point
    test = random_holdout(frame, 0.29, seed=0).tests[0]
    assert test.groupby("user_id").size().tolist() == [29, 29]
    assert len(random_holdout(frame, 0.29, by="record", seed=0).tests[0]) == 58


def test_read_movielens_formats_and_errors(tmp_path):
    from rankeval.datasets import MOVIELENS_FORMATS, read_movielens

    (tmp_path / "u1.base").write_text("1\t10\t4\t100\n2\t10\t5\t200\n")
    (tmp_path / "ml.inter").write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
                                       "1\t10\t4.0\t100.0\n2\t10\t5\t200\n")
    expected = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 10], "score": [4.0, 5.0], "timestamp": [100, 200]})
    pd.testing.assert_frame_equal(read_movielens(tmp_path / "u1.base"), expected)
    pd.testing.assert_frame_equal(read_movielens(tmp_path / "ml.inter"), expected)
    (tmp_path / "ratings.txt").write_text("1::10::4::100\n2::10::5::200\n")
    pd.testing.assert_frame_equal(read_movielens(tmp_path / "ratings.txt", format="dat"), expected)
    (tmp_path / "implicit.inter").write_text("user_id:token\titem_id:token\n1\ta\n")
    assert list(read_movielens(tmp_path / "implicit.inter").columns) == ["user_id", "item_id"]
    assert sorted(MOVIELENS_FORMATS) == ["csv", "dat", "inter", "u.data"]
    with pytest.raises(ValueError, match=r"cannot tell the MovieLens format of .*ratings.txt.* pass format="):
        read_movielens(tmp_path / "ratings.txt")
    with pytest.raises(ValueError, match=r"`format` must be one of \['csv', 'dat', 'inter', 'u.data'\]"):
        read_movielens(tmp_path / "u1.base", format="xls")
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        read_movielens(tmp_path / "missing.csv")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no MovieLens ratings file in the folder"):
        read_movielens(empty)
    (tmp_path / "odd.inter").write_text("uid:token\titem_id:token\n1\ta\n")
    with pytest.raises(ValueError, match=r"has no \['user_id'\] field"):
        read_movielens(tmp_path / "odd.inter")


def test_missing_columns_name_the_options():
    with pytest.raises(ValueError, match=r"`frame` is missing column\(s\) \['timestamp'\]; it has \['user_id', "
                                         r"'item_id'\]. Rename the columns, or name yours with user_col=, item_col=, "
                                         r"score_col=, time_col="):
        temporal_holdout(pd.DataFrame({"user_id": [1], "item_id": [2]}))
