"""rankeval.data._keys (id codes and row orders) against pandas and numpy, and the split built on them.

The fast paths only switch on above ``_MIN_ROWS`` rows; the tests lower that threshold so
that hypothesis's small inputs take them, and also run a few inputs of realistic size.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval import Split
from rankeval.data import _keys
from rankeval.data import _join as join
from rankeval.exceptions import MissingUsersWarning

from ._paths import id_paths
from .strategies import frames

# random lists often share no item with random truth: the low-overlap warning is expected there
pytestmark = pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning")

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@contextmanager
def fast_paths_always():
    with mock.patch.object(_keys, "_MIN_ROWS", 0), mock.patch.object(_keys, "_SAMPLE", 8):
        yield


def fresh(values) -> np.ndarray:
    """The same values as new objects (equal ids that are not the same object, as after astype(str)).

    Strings shorter than 2 characters stay shared: CPython caches them.
    """
    out = np.empty(len(values), dtype=object)
    out[:] = [("#" + v)[1:] if isinstance(v, str) else v for v in values]
    return out


def id_arrays():
    """Object arrays mixing shared and fresh string objects, NaN, None, ints, floats and bools."""
    atoms = st.sampled_from(["a", "bb", "ccc", "u0000001", "u0000002", "", None, float("nan"),
                             1, 1.0, True, 2, 3.5, "1"])
    return st.lists(atoms, min_size=0, max_size=60).flatmap(
        lambda xs: st.lists(st.booleans(), min_size=len(xs), max_size=len(xs)).map(
            lambda fresh_mask: _mix(xs, fresh_mask)))


def _mix(xs, fresh_mask):
    out = np.empty(len(xs), dtype=object)
    out[:] = xs
    if len(xs):
        refreshed = fresh(out)
        out[np.asarray(fresh_mask)] = refreshed[np.asarray(fresh_mask)]
    return out


@SETTINGS
@given(id_arrays())
def test_factorize_equals_pandas(values):
    expected_codes, expected_uniques = pd.factorize(values)
    with fast_paths_always():
        codes, uniques = _keys.factorize(values)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)


@SETTINGS
@given(id_arrays(), id_arrays())
def test_codes_in_equals_get_indexer(index_values, values):
    index = pd.Index(pd.unique(index_values)).dropna()
    with fast_paths_always():
        codes = _keys.codes_in(index, values)[0]
    np.testing.assert_array_equal(codes, index.get_indexer(values))


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["aa", "bb", "u0000001", "1", "x"]), st.integers(1, 8), st.booleans()),
                max_size=20))
def test_runs_equal_neighbour_comparison(pieces):
    """Runs of equal ids, some held by fresh objects mid-run (equal, not identical neighbours)."""
    values = np.empty(sum(n for _, n, _ in pieces), dtype=object)
    values[:] = [fresh([v])[0] if refresh and j % 2 else v for v, n, refresh in pieces for j in range(n)]
    expected = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else []
    index = pd.Index(["zz", "aa", "1"])
    with fast_paths_always():
        np.testing.assert_array_equal(_keys.runs(values), expected)
        np.testing.assert_array_equal(_keys.codes_in(index, values)[0], index.get_indexer(values))


def test_factorize_on_a_million_ids_shared_and_not():
    rng = np.random.default_rng(0)
    names = np.array([f"i{i:06d}" for i in range(5000)], dtype=object)
    shared = names[rng.integers(0, 5000, 1_000_000)]
    shared[::1000] = None
    for values in (shared, fresh(shared)):
        expected_codes, expected_uniques = pd.factorize(values)
        codes, uniques = _keys.factorize(values)
        np.testing.assert_array_equal(codes, expected_codes)
        np.testing.assert_array_equal(uniques, np.asarray(expected_uniques))
    assert 4900 < _keys._objects_in_sample(shared) <= 5001 and _keys._objects_in_sample(fresh(shared)) is None


def test_address_view_keeps_the_objects_alive():
    values = np.array([f"id{i}" for i in range(100)], dtype=object)
    view = _keys._addresses(values)
    del values
    assert len(set(view.tolist())) == 100  # still readable: the view owns the array


# ------------------------------------------------------------------------------ orders
wide_ints = st.integers(0, 2**63 - 1)
floats = st.sampled_from([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 1e-300, -1e-300, 2.0, 1e308]) | st.floats(
    allow_nan=False, width=64)


@SETTINGS
@given(st.integers(0, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(wide_ints, min_size=n, max_size=n),
    st.lists(floats, min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n))))
def test_lexsort_equals_numpy(columns):
    users, wide, scores, small = (np.asarray(c) for c in columns)
    users, small = users.astype(np.int64), small.astype(np.int64)
    wide = wide.astype(np.int64)
    scores = scores.astype(np.float64)
    expected = np.lexsort((small, wide, -scores, users))
    got = _keys.lexsort([small, wide, _keys.descending_float_key(scores), users])
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(_keys.lexsort([users]), np.argsort(users, kind="stable"))


def test_descending_float_key_orders_every_kind_of_float():
    x = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 5e-324, -5e-324, 2.0, -2.0, 0.0])
    order = _keys.lexsort([_keys.descending_float_key(x)])
    # -0.0 and 0.0 are one value: rows 0, 1 and 10 stay in row order
    np.testing.assert_array_equal(x[order], [np.inf, 2.0, 1.5, 5e-324, 0.0, -0.0, 0.0, -5e-324, -1.5, -2.0, -np.inf])
    np.testing.assert_array_equal(order[4:7], [0, 1, 10])


def test_lexsort_rejects_negative_keys():
    with pytest.raises(ValueError, match="non-negative"):
        _keys.lexsort([np.array([1, -1])])


def test_lexsort_on_two_million_tied_rows_matches_numpy():
    rng = np.random.default_rng(1)
    n = 2_000_000
    users = rng.integers(0, 20_000, n)
    scores = rng.integers(0, 50, n) / 7.0  # many ties: row order must survive them
    np.testing.assert_array_equal(_keys.lexsort([_keys.descending_float_key(scores), users]),
                                  np.lexsort((-scores, users)))


# ------------------------------------------------------------------------------ splits
def _lists(pred, truth, ties):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return Split(pred, truth, ties=ties).ranked_lists()


def _fresh_ids(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for col in ("user_id", "item_id"):
        if out[col].dtype == object:
            out[col] = fresh(out[col].to_numpy())
    return out


@SETTINGS
@given(data=frames(), ties=st.sampled_from(["row_order", "item_id", "item_id_desc"]), refresh=st.booleans())
def test_split_on_fast_paths_equals_plain_paths(data, ties, refresh):
    pred, truth = data
    if refresh:  # equal ids held by different objects in truth than in pred
        truth = _fresh_ids(truth)
    expected = _lists(pred, truth, ties)
    with fast_paths_always():
        got = _lists(pred, truth, ties)
    for name in ("user_ids", "offsets", "position", "item_ids", "truth_values", "n_truth",
                 "missing_user_ids", "pred_only_user_ids"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)
    np.testing.assert_array_equal(got.truth_score, expected.truth_score)
    np.testing.assert_array_equal(got.pred_score, expected.pred_score)


def test_shuffled_large_split_equals_a_pandas_merge():
    """A 300k-row split in random row order, joined and ordered as a pandas merge + sort does."""
    rng = np.random.default_rng(2)
    n_users, length = 3000, 100
    names = np.array([f"i{i:05d}" for i in range(20_000)], dtype=object)
    users = np.array([f"u{i:05d}" for i in range(n_users)], dtype=object)
    items = np.concatenate([rng.choice(20_000, length, replace=False) for _ in range(n_users)])
    pred = pd.DataFrame({"user_id": np.repeat(users, length), "item_id": names[items],
                         "score": rng.integers(0, 30, n_users * length) / 4.0})  # ties
    truth = pred.sample(frac=0.2, random_state=0)[["user_id", "item_id"]].assign(
        score=rng.integers(1, 6, int(round(0.2 * len(pred)))).astype(float))
    truth = _fresh_ids(truth)
    pred = pred.sample(frac=1.0, random_state=1).reset_index(drop=True)

    lists = _lists(pred, truth, "item_id")
    expected = (pred.merge(truth, on=["user_id", "item_id"], how="left", suffixes=("", "_truth"))
                .sort_values(["user_id", "score", "item_id"], ascending=[True, False, True], kind="stable"))
    got = pd.DataFrame({"user_id": np.repeat(lists.user_ids, lists.n_listed), "item_id": lists.item_ids,
                        "truth": lists.truth_score})
    got = got.sort_values("user_id", kind="stable")  # rankeval keeps users in first-appearance order
    np.testing.assert_array_equal(got["item_id"].to_numpy(), expected["item_id"].to_numpy())
    np.testing.assert_array_equal(got["truth"].to_numpy(), expected["score_truth"].to_numpy())


def test_strided_object_arrays_are_read_element_by_element():
    """A column taken from a 2-D object block is strided; pointers must not be read every 8 bytes."""
    block = np.array([[f"u{i % 7}", f"other{i}"] for i in range(50_000)], dtype=object)
    values = block[:, 0]
    assert not values.flags.c_contiguous
    expected_codes, expected_uniques = pd.factorize(values)
    codes, uniques = _keys.factorize(values)
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(uniques, np.asarray(expected_uniques))
    index = pd.Index(["u3", "u5"])
    np.testing.assert_array_equal(_keys.codes_in(index, values)[0], index.get_indexer(values))
    np.testing.assert_array_equal(_keys.runs(values), np.arange(50_000))
    shared = np.array([f"i{i}" for i in range(100)], dtype=object)[np.arange(60_000) % 100]
    reversed_view = shared[::-1]  # a negative stride: the buffer starts before the data pointer
    np.testing.assert_array_equal(_keys.factorize(reversed_view)[0], pd.factorize(reversed_view)[0])


# ------------------------------------------------------------------------------ id paths
def string_dtype(storage: str, na_value) -> pd.StringDtype:
    """pandas' text dtype with this storage and missing value; pandas 2.2 has only "python" (pd.NA)
    and "pyarrow_numpy" (NaN), which stand in for the others there."""
    try:
        return pd.StringDtype(storage, na_value=na_value)
    except TypeError:
        return pd.StringDtype("pyarrow_numpy" if storage == "pyarrow" and na_value is not pd.NA else storage)


def test_fresh_strings_whose_first_rows_are_distinct_take_arrow(monkeypatch):
    """Item ids built in Python: the first rows hold no repeat, equal ids are different objects.

    Hashing object addresses first would only add a pass over ten million distinct addresses,
    so a sample spread over the column decides, and Arrow hashes the strings.
    """
    rng = np.random.default_rng(3)
    names = np.array([f"i{i:06d}" for i in range(50_000)], dtype=object)
    values = fresh(names[np.concatenate([np.arange(50_000), rng.integers(0, 50_000, 450_000)])])
    assert _keys._objects_in_sample(values) is None
    calls = []
    real = _keys._factorize_arrow
    monkeypatch.setattr(_keys, "_factorize_arrow", lambda arrow: calls.append(len(arrow)) or real(arrow))
    codes, uniques = _keys.factorize(values)
    expected_codes, expected_uniques = pd.factorize(values)
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.dtype == object and uniques.tolist() == expected_uniques.tolist()
    assert calls == [len(values)]
    shared = names[rng.integers(0, 50_000, 500_000)]  # read from a file: equal ids share one object
    assert _keys._objects_in_sample(shared) is not None


@pytest.mark.parametrize("values", [
    ["a", 1, "b", 2],            # ints and strings: pandas compares them as objects
    ["a", b"a", "b", "c"],       # bytes
    ["a", "\ud800", "a", "b"],   # a lone surrogate: no UTF-8 for Arrow
    ["a", None, float("nan"), "a"],
], ids=["ints", "bytes", "surrogate", "missing"])
def test_object_ids_arrow_cannot_take_fall_back_to_pandas(values):
    array = np.empty(len(values) * 10_000, dtype=object)
    array[:] = values * 10_000
    array = fresh(array)
    expected_codes, expected_uniques = pd.factorize(array)
    codes, uniques = _keys.factorize(array)
    np.testing.assert_array_equal(codes, expected_codes)
    assert [type(u) for u in uniques] == [type(u) for u in expected_uniques]
    assert list(uniques) == list(expected_uniques)


@pytest.mark.parametrize("na_value", [pd.NA, np.nan], ids=["pd.NA", "nan"])
def test_python_storage_strings_are_read_as_their_object_array(na_value):
    dtype = string_dtype("python", na_value)
    column = pd.Series(["u1", "u1", "u2"], dtype=dtype)
    values = _keys.id_values(column)
    assert isinstance(values, np.ndarray) and values.dtype == object
    assert np.shares_memory(values, column.array._ndarray)  # no copy of the rows


@pytest.mark.parametrize("paths", ["default", "fast"])
@pytest.mark.parametrize("na_value", [pd.NA, np.nan], ids=["pd.NA", "nan"])
@pytest.mark.parametrize("column", ["user_id", "item_id"])
def test_missing_python_storage_ids_are_named(paths, na_value, column):
    dtype = string_dtype("python", na_value)
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["a", "b", "a", "c"],
                         "score": [4.0, 3.0, 2.0, 1.0]}).astype({"user_id": dtype, "item_id": dtype})
    truth = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "c"], "score": [1.0, 1.0]})
    pred.loc[1, column] = None
    with id_paths(paths), pytest.raises(ValueError, match=rf"`pred`\['{column}'\] has 1 missing value\(s\) at rows \[1\]"):
        Split(pred, truth)


@pytest.mark.parametrize("kind", ["object_shared", "object_fresh", "python", "pyarrow", "int64"])
def test_every_id_kind_gives_the_plain_lists_on_a_million_rows(kind):
    """Realistic size: every size-gated path of the kind, several dense-join chunks, against the
    sort join and the small-input paths (bit for bit)."""
    rng = np.random.default_rng(4)
    n_users, length, n_items = 10_000, 100, 60_000
    items = np.concatenate([rng.choice(n_items, length, replace=False) for _ in range(n_users)])
    user_names = np.array([f"u{i:05d}" for i in range(n_users)], dtype=object)
    item_names = np.array([f"i{i:05d}" for i in range(n_items)], dtype=object)
    pred = pd.DataFrame({"user_id": user_names[np.repeat(np.arange(n_users), length)],
                         "item_id": item_names[items], "score": rng.random(n_users * length)}, dtype=object)
    pred["score"] = pred["score"].astype(float)
    truth = pred.sample(frac=0.1, random_state=0)[["user_id", "item_id"]].assign(
        score=lambda d: rng.integers(1, 6, len(d)).astype(float))
    pred, truth = _as_kind(pred, kind), _as_kind(truth, kind)
    with id_paths("sorted_join"), mock.patch.object(_keys, "_MIN_ROWS", 2**62):
        expected = _lists(pred, truth, "row_order")
    assert join._TABLE // n_items < n_users  # the default dense join runs in several chunks
    got = _lists(pred, truth, "row_order")
    for name in ("user_ids", "offsets", "position", "item_ids", "truth_values", "n_truth", "truth_score",
                 "pred_score"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


def _as_kind(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    ids = ["user_id", "item_id"]
    if kind == "object_shared":
        return df
    if kind == "object_fresh":
        return df.assign(**{c: fresh(df[c].to_numpy()) for c in ids})
    if kind == "int64":
        return df.assign(**{c: df[c].str[1:].astype(np.int64) for c in ids})
    storage = {"python": "python", "pyarrow": "pyarrow"}[kind]
    return df.astype({c: string_dtype(storage, np.nan) for c in ids})


@pytest.mark.parametrize("paths", ["default", "fast", "sorted_join"])
@pytest.mark.parametrize("where_dup", ["first chunk", "last chunk", "unjudged item"])
def test_every_join_finds_a_repeated_pair(paths, where_dup):
    rng = np.random.default_rng(5)
    n_users, length = 300, 20
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), length),
                         "item_id": np.concatenate([rng.choice(1000, length, replace=False) for _ in range(n_users)]),
                         "score": np.tile(np.linspace(1, 0, length), n_users)})
    truth = pred.iloc[::3][["user_id", "item_id"]].assign(score=1.0)
    row = {"first chunk": 4, "last chunk": len(pred) - 2, "unjudged item": len(pred) - 1}[where_dup]
    other = row - 1  # same user; row 5997 is judged, rows 5998 and 5999 are not
    pred.loc[row, "item_id"] = pred.loc[other, "item_id"]
    with mock.patch.object(join, "_TABLE", 40), id_paths(paths), \
            pytest.raises(ValueError, match=rf"`pred` repeats 1 \(user_id, item_id\) pair in 2 rows: .* at rows {other} and {row};"):
        Split(pred, truth)


@SETTINGS
@given(id_arrays(), id_arrays())
def test_factorize_together_equals_factorize_of_both_end_to_end(first, second):
    expected_codes, expected_uniques = pd.factorize(np.concatenate([first, second]))
    with fast_paths_always():
        got = _keys.factorize_together(first, second)
    assert got is not None  # two object arrays: always one code space
    codes_first, codes_second, uniques = got
    np.testing.assert_array_equal(np.concatenate([codes_first, codes_second]), expected_codes)
    assert list(uniques) == list(expected_uniques)


@pytest.mark.parametrize("storage", ["pyarrow", "python"])
def test_factorize_together_on_text_columns_numbers_pred_items_first(storage):
    dtype = string_dtype(storage, np.nan)
    pred = pd.Series(["b", "a", "b", "c"] * 10_000, dtype=dtype)
    truth = pd.Series(["z", "a", "y", "z"] * 10_000, dtype=dtype)
    codes_pred, codes_truth, uniques = _keys.factorize_together(_keys.id_values(pred), _keys.id_values(truth))
    np.testing.assert_array_equal(codes_pred[:4], [0, 1, 0, 2])
    np.testing.assert_array_equal(codes_truth[:4], [3, 1, 4, 3])  # truth-only items after pred's
    assert uniques.tolist() == ["b", "a", "c", "z", "y"]


def test_factorize_together_keeps_columns_of_different_dtypes_apart():
    """int and float ids (beyond 2**53 a common float64 would merge them) are coded one by one."""
    big = np.array([2**62 + 1, 2**62 + 2], dtype=np.int64)
    assert _keys.factorize_together(big, big.astype(np.float64)) is None
    assert _keys.factorize_together(pd.array(["a"], dtype="category"), pd.array(["a"], dtype="category")) is None


@SETTINGS
@given(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]).flatmap(
    lambda dtype: st.lists(st.integers(0, 127), max_size=80).map(lambda xs: np.asarray(xs, dtype=dtype))))
def test_factorize_of_small_integers_equals_pandas(values):
    # ids within 0 .. len - 1 take the table indexed by the id (no hashing), the others pandas' hash
    expected_codes, expected_uniques = pd.factorize(values)
    with fast_paths_always():
        codes, uniques = _keys.factorize(values)
        both = _keys.factorize_together(values[: len(values) // 2], values[len(values) // 2:])
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.dtype == expected_uniques.dtype
    np.testing.assert_array_equal(uniques, expected_uniques)
    assert both is not None
    np.testing.assert_array_equal(np.concatenate(both[:2]), expected_codes)


def test_factorize_of_ten_million_dense_integers_equals_pandas():
    # the synthetic benchmark's shape: item numbers drawn from 50,000, first appearances spread out
    values = np.random.default_rng(3).integers(0, 50_000, 10_000_000)
    values[-1] = 49_999 + 10_000_000 // 2  # one late, wide id: still within the range of the rows
    assert _keys._factorize_small_ints(values) is not None  # the table path is the one tested
    expected_codes, expected_uniques = pd.factorize(values)
    codes, uniques = _keys.factorize(values)
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(uniques, expected_uniques)
    assert _keys._factorize_small_ints(np.array([0, len(values)] * 3)) is None  # wider than its rows: hashed
    assert _keys._factorize_small_ints(np.array([-1, 0] * 3)) is None


@pytest.mark.parametrize("table", [1, 3, 1 << 21])
def test_dense_join_ignores_rows_an_earlier_chunk_left_in_the_table(table):
    # one user per chunk at table=1: user 1 rates items 0 and 2, which only user 0 lists, so
    # their slots still hold user 0's rows 0 and 1 when user 1's chunk reads them
    user = np.array([0, 0, 1, 1, 2])
    item = np.array([0, 2, 1, 3, 0])
    truth_keys = np.array([0, 1, 4 + 0, 4 + 2, 4 + 3, 8 + 0, 8 + 2], dtype=np.int64)  # user * 4 + item
    truth_scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.5, 0.25])
    with mock.patch.object(join, "_TABLE", table), mock.patch.object(join, "_ROWS_PER_CHUNK", 1):
        got = join.join_in_list_order(user, item, None, np.array([2, 2, 1]), 3, 4, truth_keys, truth_scores)
    # by hand: (0, 0) -> 5, (0, 2) unrated, (1, 1) unrated, (1, 3) -> 1, (2, 0) -> 0.5
    np.testing.assert_array_equal(got, [5.0, np.nan, np.nan, 1.0, 0.5])
