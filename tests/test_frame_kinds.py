"""Every kind of frame gives the same numbers: pandas (object, pandas `str`, Arrow-backed and
categorical ids), polars DataFrame and LazyFrame, pyarrow.Table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.data import _keys

import pyarrow as pa  # noqa: E402  (extras of make test: never skipped)
import polars as pl  # noqa: E402

METRICS = [rk.NDCGAtK(5), rk.MAPAtK(5), rk.MRR(), rk.PrecisionAtK(3), rk.Correlation("kendall")]


def _data(seed: int = 0, n_users: int = 60) -> tuple[pd.DataFrame, pd.DataFrame]:
    """String ids, object dtype; lists of 1-8 items from 30, truth of 1-6 graded items."""
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        user = f"user{u:03d}"
        for item in rng.choice(30, size=rng.integers(1, 9), replace=False):
            pred_rows.append((user, f"item{item:02d}", float(rng.integers(0, 5)) / 4))
        for item in rng.choice(30, size=rng.integers(1, 7), replace=False):
            truth_rows.append((user, f"item{item:02d}", float(rng.integers(0, 6))))
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]).astype({"user_id": object, "item_id": object})
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]).astype({"user_id": object, "item_id": object})
    return pred, truth


def _as(kind: str, df: pd.DataFrame):
    if kind == "object":
        return df
    if kind == "pandas_str":  # pandas 3's default text dtype ("str"); object on pandas 2
        return df.astype({"user_id": "str", "item_id": "str"})
    if kind == "pandas_pyarrow_string":
        return df.astype({"user_id": pd.StringDtype("pyarrow"), "item_id": pd.StringDtype("pyarrow")})
    if kind == "arrow_dtype":
        return df.astype({"user_id": pd.ArrowDtype(pa.large_string()), "item_id": pd.ArrowDtype(pa.string())})
    if kind == "categorical":
        return df.astype({"user_id": "category", "item_id": "category"})
    if kind == "polars":
        return pl.from_pandas(df)
    if kind == "polars_lazy":
        return pl.from_pandas(df).lazy()
    if kind == "arrow":
        return pa.Table.from_pandas(df, preserve_index=False)
    raise AssertionError(kind)


KINDS = ["pandas_str", "pandas_pyarrow_string", "arrow_dtype", "categorical", "polars", "polars_lazy", "arrow"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_frame_kind_gives_the_object_dtype_values_bit_for_bit(kind):
    pred, truth = _data()
    expected_sys, expected_users = rk.EvalModel(pred, truth, METRICS).fit()
    sys_result, users_result = rk.EvalModel(_as(kind, pred), _as(kind, truth), METRICS).fit()
    assert isinstance(users_result, pd.DataFrame) and isinstance(sys_result, pd.DataFrame)
    pd.testing.assert_frame_equal(sys_result, expected_sys, check_exact=True)
    # same users, same order, same bits; ids come back as the caller's Python strings
    assert users_result.index.get_level_values("user_id").tolist() == \
        expected_users.index.get_level_values("user_id").tolist()
    np.testing.assert_array_equal(users_result.to_numpy(), expected_users.to_numpy())


@pytest.mark.parametrize("kind", ["polars", "arrow", "pandas_str"])
def test_mixed_kinds_between_pred_and_truth_agree(kind):
    """A polars pred against a pandas truth (and so on) joins on the ids' values."""
    pred, truth = _data(seed=1)
    expected = rk.NDCGAtK(5).perform(rk.Split(pred, truth)).users
    got = rk.NDCGAtK(5).perform(rk.Split(_as(kind, pred), truth)).users
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    got = rk.NDCGAtK(5).perform(rk.Split(pred, _as(kind, truth))).users
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


@pytest.mark.parametrize("kind", ["polars", "polars_lazy", "arrow"])
def test_compare_takes_polars_and_arrow_frames(kind):
    pred, truth = _data(seed=2)
    other, _ = _data(seed=3)
    # users without a relevant item have no NDCG: the same units drop on either kind
    with pytest.warns(rk.DroppedUnitsWarning, match="4 .split, user. units were left out"):
        expected = rk.compare({"a": pred, "b": other}, truth, METRICS[:2], n_resamples=200, seed=1)
    with pytest.warns(rk.DroppedUnitsWarning, match="4 .split, user. units were left out"):
        got = rk.compare({"a": _as(kind, pred), "b": _as(kind, other)}, _as(kind, truth), METRICS[:2],
                         n_resamples=200, seed=1)
    pd.testing.assert_frame_equal(got.table, expected.table, check_exact=True)


def test_arrow_ids_are_factorized_without_python_objects(monkeypatch):
    """The id path never asks an Arrow-backed column for a numpy (object) copy of its rows."""
    pred, truth = _data(seed=4)
    pred = _as("arrow_dtype", pred)
    column = pred["item_id"]
    assert not isinstance(_keys.id_values(column), np.ndarray)
    codes, uniques = _keys.factorize(_keys.id_values(column))
    expected_codes, expected_uniques = pd.factorize(column.to_numpy(dtype=object))
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.dtype == object and uniques.tolist() == expected_uniques.tolist()


def test_nullable_integer_ids_with_pd_na_are_named():
    pred = pd.DataFrame({"user_id": pd.array([1, 1, None], dtype="Int64"), "item_id": [1, 2, 3],
                         "score": [0.3, 0.2, 0.1]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "score": [1.0]})
    with pytest.raises(ValueError, match=r"`pred`\['user_id'\] has 1 missing value\(s\) at rows \[2\]"):
        rk.Split(pred, truth)


def test_polars_frame_is_not_modified_and_results_are_pandas():
    pred, truth = _data(seed=5)
    ppred, ptruth = pl.from_pandas(pred), pl.from_pandas(truth)
    before = ppred.clone()
    users = rk.MRR().perform(rk.Split(ppred, ptruth)).users
    assert isinstance(users, pd.DataFrame)
    assert ppred.equals(before)


def test_unknown_frame_kind_is_a_type_error_listing_the_kinds():
    pred, truth = _data()
    with pytest.raises(TypeError, match=r"`pred_list`\[0\] must be a pandas, polars \(DataFrame or LazyFrame\), "
                                        r"pyarrow.Table or Spark DataFrame, got dict"):
        rk.EvalModel([pred.to_dict()], [truth], METRICS)


@pytest.mark.parametrize("kind", ["pandas_pyarrow_string", "arrow_dtype"])
def test_missing_arrow_id_inside_a_run_of_users_is_named(kind):
    pred, truth = _data(seed=6)
    pred = _as(kind, pred)
    pred.loc[3, "user_id"] = None  # inside the first user's run
    with pytest.raises(ValueError, match=r"`pred`\['user_id'\] has 1 missing value\(s\) at rows \[3\]"):
        rk.Split(pred, truth)


def test_arrow_users_in_runs_and_shuffled_give_the_same_lists():
    pred, truth = _data(seed=7)
    grouped = _as("arrow_dtype", pred)
    shuffled = grouped.iloc[np.random.default_rng(0).permutation(len(grouped))]
    # tied scores: broken by item id, so that the row order does not decide them
    a = rk.NDCGAtK(5).perform(rk.Split(grouped, truth, ties="item_id")).users.sort_index()
    b = rk.NDCGAtK(5).perform(rk.Split(shuffled, truth, ties="item_id")).users.sort_index()
    pd.testing.assert_frame_equal(a, b, check_exact=True)
