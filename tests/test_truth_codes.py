"""The truth hashed once for several lists (TruthCodes) joins every list exactly as the truth frame does.

The reference is the frame itself: ``RankedLists.build(pred, truth)`` against
``RankedLists.build(pred, TruthCodes(truth, columns))``, every array compared bit for bit
with its dtype, on random frames of every id kind (Arrow text of both widths, Python-storage
text, object columns, integers, floats, categoricals, and pred and truth of different kinds),
one TruthCodes shared by several lists; errors must be the frame's, word for word. Then
compare() against separate EvalModels, which never share a truth: per-user values and
system values equal to the bit.
"""

from __future__ import annotations

import warnings
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.data import Columns, RankedLists
from rankeval.data.internal import TruthCodes

from ._require import require


#: every array and per-user value RankedLists exposes
ARRAYS = ["user_ids", "offsets", "position", "item_ids", "item_codes", "item_uniques", "pred_score", "truth_score",
          "relevant", "n_listed", "n_truth", "n_relevant", "threshold", "truth_offsets", "truth_values",
          "truth_item_codes", "truth_only_item_ids", "missing_user_ids", "pred_only_user_ids",
          "unlisted_truth_rows", "unevaluated_pred_rows", "judged_rows"]

#: id column dtypes: (pred's, truth's); the last ones differ between the frames
KINDS = [("str", "str"), ("string[python]", "string[python]"), ("object", "object"), ("int64", "int64"),
         ("float64", "float64"), ("category", "category"), ("str", "object"), ("object", "str"),
         ("int64", "float64"), ("str", "string[python]")]
#: the same with Arrow text of either width (pyarrow)
ARROW_KINDS = [("string[pyarrow]", "string[pyarrow]"), ("large_string", "large_string"),
               ("str", "large_string"), ("string[pyarrow]", "object"), ("large_string", "string[pyarrow]")]


def _ids(prefix: str, numbers: list[int], dtype: str) -> pd.Series:
    """Ids ``prefix<n>`` (text kinds) or ``n`` (number kinds) as a column of ``dtype``."""
    if dtype in ("int64", "float64"):
        return pd.Series(numbers, dtype=dtype)
    text = [f"{prefix}{n}" for n in numbers]
    if "pyarrow" in dtype or dtype == "large_string":
        pa = require("pyarrow")
        if dtype == "large_string":
            return pd.Series(text, dtype=pd.ArrowDtype(pa.large_string()))
    return pd.Series(text, dtype=dtype)


@st.composite
def lists_and_truth(draw: Any, kinds: list[tuple[str, str]]) -> tuple[list[pd.DataFrame], pd.DataFrame]:
    """A truth and three lists: users listed or not, pred-only users, items absent from truth,
    grouped or shuffled rows, repeated scores (ties)."""
    kind = draw(st.sampled_from(kinds))
    n_users, n_items = draw(st.integers(1, 12)), draw(st.integers(1, 9))
    pairs = draw(st.sets(st.tuples(st.integers(0, n_users - 1), st.integers(0, n_items - 1)), min_size=1, max_size=40))
    pairs = draw(st.permutations(sorted(pairs)))
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, 0.1, 4.0]), min_size=len(pairs), max_size=len(pairs)))
    truth = pd.DataFrame({"user_id": _ids("u", [u for u, _ in pairs], kind[1]),
                          "item_id": _ids("i", [i for _, i in pairs], kind[1]), "score": scores})
    preds = []
    for _ in range(3):
        # users beyond the truth's (pred-only) and items beyond it (never rated)
        rows = draw(st.sets(st.tuples(st.integers(0, n_users + 2), st.integers(0, n_items + 3)), min_size=1,
                            max_size=40))
        rows = sorted(rows) if draw(st.booleans()) else draw(st.permutations(sorted(rows)))
        listed = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(rows), max_size=len(rows)))
        preds.append(pd.DataFrame({"user_id": _ids("u", [u for u, _ in rows], kind[0]),
                                   "item_id": _ids("i", [i for _, i in rows], kind[0]), "score": listed}))
    return preds, truth


def _same_lists(got: RankedLists, want: RankedLists) -> None:
    for name in ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name, strict=True)
    for threshold in (None, 1.0, 3.0):
        for name in ("relevant", "n_relevant", "threshold"):
            np.testing.assert_array_equal(getattr(got.for_threshold(threshold), name),
                                          getattr(want.for_threshold(threshold), name), strict=True)
    np.testing.assert_array_equal(got.ideal_scores(), want.ideal_scores(), strict=True)
    assert got.truth_score_max == want.truth_score_max


def _build(pred: pd.DataFrame, truth: Any) -> RankedLists | str:
    """The lists, or the message of the ValueError the join raised."""
    try:
        return RankedLists.build(pred, truth)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=300)
@given(lists_and_truth(KINDS))
def test_truth_codes_join_every_list_as_the_frame(data: tuple[list[pd.DataFrame], pd.DataFrame]) -> None:
    _joined_alike(*data)


@settings(max_examples=150)
@given(lists_and_truth(ARROW_KINDS))
def test_truth_codes_join_arrow_text_as_the_frame(data: tuple[list[pd.DataFrame], pd.DataFrame]) -> None:
    _joined_alike(*data)


def _joined_alike(preds: list[pd.DataFrame], truth: pd.DataFrame) -> None:
    before = truth.copy()
    coded = TruthCodes(truth, Columns())  # one for the three lists, as compare shares it
    for pred in preds:
        want, got = _build(pred, truth), _build(pred, coded)
        if isinstance(want, str):  # no user in common: the same error
            assert got == want
            continue
        assert isinstance(got, RankedLists)
        _same_lists(got, want)
    pd.testing.assert_frame_equal(truth, before)


@pytest.mark.parametrize("case", ["kinds", "missing_truth_user", "missing_truth_item", "duplicate_truth",
                                  "missing_pred_item", "no_common_user"])
def test_truth_codes_errors_are_the_frames(case: str) -> None:
    truth = pd.DataFrame({"user_id": ["a", "a", "b"], "item_id": ["x", "y", "x"], "score": [1.0, 2.0, 3.0]})
    pred = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "z"], "score": [1.0, 0.5]})
    if case == "kinds":
        pred["user_id"] = [1, 2]
    elif case == "missing_truth_user":
        truth["user_id"] = ["a", None, "b"]
    elif case == "missing_truth_item":
        truth["item_id"] = ["x", None, "x"]
    elif case == "duplicate_truth":
        truth["item_id"] = ["x", "x", "x"]
    elif case == "missing_pred_item":
        pred["item_id"] = ["x", None]
    else:
        pred["user_id"] = ["c", "d"]
    with pytest.raises(ValueError) as want:
        RankedLists.build(pred, truth)
    with pytest.raises(ValueError) as got:
        RankedLists.build(pred, TruthCodes(truth, Columns()))
    assert str(got.value) == str(want.value)


def test_truth_codes_of_other_columns_are_not_used() -> None:
    """Codes made for other truth columns are ignored: the frame is read under the given names."""
    truth = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "y"], "score": [1.0, 2.0],
                          "rating": [5.0, 1.0]})
    pred = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "y"], "score": [1.0, 1.0]})
    columns = Columns(truth_score_col="rating")
    got = RankedLists.build(pred, TruthCodes(truth, Columns()), columns)
    assert got.truth_score.tolist() == [5.0, 1.0]
    _same_lists(got, RankedLists.build(pred, truth, columns))


# ---------------------------------------------------------------------------- compare
def _systems(kind: str) -> tuple[dict[str, list[pd.DataFrame]], list[pd.DataFrame], list[pd.DataFrame]]:
    """Two splits; systems listing every truth user, a subset plus users without truth, and
    items the truth never holds; truth users no system lists; a train per split."""
    rng = np.random.default_rng(7)
    systems: dict[str, list[pd.DataFrame]] = {"all": [], "some": [], "unrated": []}
    truths, trains = [], []
    for split in range(2):
        n_users, n_items = 40 + 10 * split, 30
        truth_pairs = [(u, i) for u in range(n_users) for i in rng.choice(n_items, 6, replace=False)]
        truths.append(pd.DataFrame({"user_id": _ids("u", [u for u, _ in truth_pairs], kind),
                                    "item_id": _ids("i", [i for _, i in truth_pairs], kind),
                                    "score": rng.integers(1, 6, len(truth_pairs)).astype(float)}))
        train_users, train_items = rng.integers(0, n_users, 200), rng.integers(0, n_items, 200)
        trains.append(pd.DataFrame({"user_id": _ids("u", train_users.tolist(), kind),
                                    "item_id": _ids("i", train_items.tolist(), kind)}).drop_duplicates())
        listed = {"all": range(n_users - 3),  # the last 3 truth users have no list anywhere
                  "some": [*range(0, n_users, 2), n_users + 1, n_users + 5],  # two users without truth
                  "unrated": range(5, n_users)}
        for name, users in listed.items():
            extra = 20 if name == "unrated" else 0  # items 30..49: in no truth
            rows = [(u, i) for u in users for i in rng.choice(n_items + extra, 8, replace=False)]
            systems[name].append(pd.DataFrame({"user_id": _ids("u", [u for u, _ in rows], kind),
                                               "item_id": _ids("i", [i for _, i in rows], kind),
                                               "score": rng.random(len(rows))}))
    return systems, truths, trains


METRICS = [rk.NDCGAtK(5), rk.PrecisionAtK(3, relevant_threshold=4.0), rk.RecallAtK(5), rk.MRR(),
           rk.MAPAtK(5, relevant_threshold=2.0), rk.PrecisionAtK(5, average="micro"), rk.CatalogCoverage()]


@pytest.mark.parametrize("kind", ["str", "object", "int64", "category"])
def test_compare_values_equal_separate_evalmodels(kind: str) -> None:
    systems, truths, trains = _systems(kind)
    calls = mock.patch.object(TruthCodes, "users_in", autospec=True, side_effect=TruthCodes.users_in)
    with warnings.catch_warnings(), calls as users_in:
        # users without lists or truth, units one system lacks, train items listed: expected here
        warnings.simplefilter("ignore", rk.RankevalWarning)
        result = rk.compare(systems, truths, METRICS, n_resamples=40, train=trains)
        fitted = {name: rk.EvalModel(frames, truths, METRICS, train=trains).fit() for name, frames in systems.items()}
    # compare joined every system's lists to the truth hashed once, and only compare did
    assert users_in.call_count == len(systems) * len(truths)
    units = result.units
    split_of = units[("split", "")].to_numpy()
    for name, (system_values, per_user) in fitted.items():
        for metric in result.metrics:
            want = per_user[metric]
            got = pd.Series(units[(metric, name)].to_numpy(),
                            index=pd.MultiIndex.from_arrays([split_of, units[("user_id", "")].to_numpy()]))
            got = got[got.notna() | got.index.isin(want.index)]  # units only other systems evaluated: NaN
            assert len(got) == len(want)
            np.testing.assert_array_equal(got.loc[want.index].to_numpy(), want.to_numpy(), strict=True)
        for metric in result.system_values.columns:  # the metrics compare lists, not tests
            assert result.system_values.loc[name, metric] == system_values.loc["mean", metric]
    assert list(result.system_values.columns) == ["P@5-micro", "Coverage"]
