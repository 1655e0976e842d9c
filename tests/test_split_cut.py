"""The frames a ``Splits`` cuts equal plain pandas' boolean-mask and ``iloc`` selections, to the bit."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from rankeval.split import bootstrap, global_temporal, kfold, random_holdout, temporal_holdout
from rankeval.split._splits import _take



def _str_dtype(storage: str) -> pd.StringDtype:
    """pandas 3's ``str`` with this storage; pandas 2.2 (no ``na_value``) has "python" (pd.NA) and
    "pyarrow_numpy" (NaN), which stand in for them there."""
    try:
        return pd.StringDtype(storage, na_value=np.nan)
    except TypeError:
        return pd.StringDtype("pyarrow_numpy" if storage == "pyarrow" else storage)


STR_PYTHON = _str_dtype("python")
STR_ARROW = _str_dtype("pyarrow")


def mixed(n_users: int = 25, seed: int = 0) -> pd.DataFrame:
    """Interactions with a column of each kind: object, str (python and pyarrow storage), int64,
    categorical, float with NaN, nullable integers, times with and without a zone."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 14, n_users)
    n = int(counts.sum())
    user = np.repeat([f"u{u}" for u in range(n_users)], counts)
    item = np.concatenate([rng.choice(60, c, replace=False) for c in counts])
    label = np.array([f"g{g}" for g in rng.integers(0, 7, n)], dtype=object)
    label[rng.random(n) < 0.1] = None
    weight = rng.random(n)
    weight[rng.random(n) < 0.1] = np.nan
    count = pd.array(rng.integers(0, 9, n), dtype="Int64")
    count[rng.random(n) < 0.1] = pd.NA
    frame = pd.DataFrame({
        "user_id": pd.Series(user, dtype=object),
        "item_id": item.astype(np.int64),
        "score": rng.integers(1, 6, n).astype(float),
        "timestamp": rng.integers(0, 10_000, n),
        "genre_object": pd.Series(label, dtype=object),
        "genre_str": pd.Series(label, dtype=STR_PYTHON),
        "genre_arrow": pd.Series(label, dtype=STR_ARROW),
        "genre_category": pd.Categorical(label, categories=[f"g{g}" for g in range(8)]),
        "weight": weight,
        "count": count,
        "seen": pd.to_datetime(rng.integers(0, 10**9, n), unit="s"),
        "seen_utc": pd.to_datetime(rng.integers(0, 10**9, n), unit="s", utc=True),
    })
    assert frame["genre_object"].dtype == object and frame["user_id"].dtype == object
    frame.attrs["source"] = "test"
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


INDEXES = {
    "range": lambda n: pd.RangeIndex(n),
    "range_named": lambda n: pd.RangeIndex(n, name="row"),
    "range_from_4": lambda n: pd.RangeIndex(4, 4 + n),
    "range_step_3": lambda n: pd.RangeIndex(7, 7 + 3 * n, 3),
    "labels": lambda n: pd.Index([f"r{i}" for i in range(n)], name="row"),
    "repeated": lambda n: pd.Index(np.arange(n) // 2),
}

SPLITTERS = {
    "kfold": lambda f: kfold(f, 3, seed=2),
    "kfold_record": lambda f: kfold(f, 4, by="record", seed=1),
    "kfold_cold": lambda f: kfold(f, 3, seed=5, drop_cold_items=True),
    "bootstrap": lambda f: bootstrap(f, seed=4),
    "random_holdout": lambda f: random_holdout(f, 0.3, seed=3),
    "temporal_holdout": lambda f: temporal_holdout(f, n_last=2),
    "global_temporal": lambda f: global_temporal(f, test_size=0.25),
}


def assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want, check_exact=True, check_index_type=True, check_column_type=True,
                                  check_frame_type=True, check_flags=True)
    assert list(got.dtypes) == list(want.dtypes)
    assert type(got.index) is type(want.index) and got.index.dtype == want.index.dtype
    assert got.attrs == want.attrs


@pytest.mark.parametrize("index", INDEXES)
@pytest.mark.parametrize("method", SPLITTERS)
def test_cut_frames_equal_plain_pandas_selections(method, index):
    frame = mixed()
    frame.index = INDEXES[index](len(frame))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # users kept whole, cold items dropped: counted elsewhere
        splits = SPLITTERS[method](frame)
    for i, (train, test) in enumerate(splits):
        train_rows, in_test = splits._rows[i]  # which rows the splitter assigned: the subject here is the cut
        assert_same(test, frame[in_test])
        if train_rows.dtype == np.bool_:
            assert_same(train, frame[train_rows])
        else:  # a bootstrap sample: each row as many times as drawn, in the frame's order
            assert_same(train, frame.iloc[train_rows])
        for cut in (train, test):
            assert not any(np.shares_memory(cut[c].to_numpy(), frame[c].to_numpy())
                           for c in ("item_id", "score", "weight"))


def test_a_write_to_one_cut_frame_stays_in_it():
    frame = mixed()
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # users with fewer rows than folds: counted, and not the subject here
        splits = kfold(frame, 3)
    (train1, test1), (train2, test2) = splits[0], splits[1]
    kept = train2.copy(), test2.copy()
    train1.loc[:, "score"] = -1.0
    test1.iloc[0, 1] = -5
    assert_same(splits[1][0], kept[0])
    assert_same(splits[1][1], kept[1])
    assert (splits[0][0]["score"] == -1).all()
    pd.testing.assert_frame_equal(frame, before, check_exact=True)


@pytest.mark.parametrize("columns", [["a", "a", "b"], pd.MultiIndex.from_tuples([("x", 1), ("x", 2), ("y", 1)]),
                                     pd.Index([3, 1, 2], name="col")])
def test_take_keeps_repeated_and_nested_column_labels(columns):
    frame = pd.DataFrame({0: np.arange(6), 1: list("abcdef"), 2: np.linspace(0, 1, 6)})
    frame.columns = columns
    for rows in (np.array([True, False, True, True, False, True]), np.array([5, 0, 0, 3], dtype=np.int64)):
        want = frame.take(np.flatnonzero(rows) if rows.dtype == np.bool_ else rows)
        assert_same(_take(frame, rows), want)


@pytest.mark.parametrize("rows", [np.zeros(6, dtype=bool), np.ones(6, dtype=bool), np.arange(6, dtype=np.int64),
                                  np.array([], dtype=np.int64)])
def test_take_of_no_row_or_every_row_is_frame_take(rows):
    frame = pd.DataFrame({"a": np.arange(6), "b": list("abcdef")})
    got = _take(frame, rows)
    want = frame.take(np.flatnonzero(rows) if rows.dtype == np.bool_ else rows)
    assert_same(got, want)
    assert type(got.index) is type(want.index)  # a RangeIndex on pandas 3; pandas 2.2 takes into an Index
