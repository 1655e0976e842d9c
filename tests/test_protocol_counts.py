"""The protocol checks an evaluation runs, read from the split's own codes, against plain pandas.

``EvalModel``/``compare`` given ``train`` count seen items recommended, train/test overlap
and cold users from the codes the split already holds (no second hashing of the frames).
Every count here is compared with plain pandas merges on the caller's frames, and with the
audit's own coding (``rankeval.split.cheap_checks``), on random frames that reach every case:
pred users without truth, truth users without a list, truth items no list holds, train ids
found nowhere else, repeated train rows, int/float and string ids, and the chunked table's
boundaries (its sizes patched small) and hash fallback.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval as rk
import rankeval.data._join as join
from rankeval.split import cheap_checks
import rankeval.split._split_checks as split_checks
from rankeval.split._split_checks import split_cheap_counts

CHECKS = ("seen", "overlap", "cold")


def _pandas_counts(train: pd.DataFrame, truth: pd.DataFrame, pred: pd.DataFrame) -> dict[str, int]:
    """The three counts and their wholes by plain merges of the caller's frames."""
    pairs = train[["user_id", "item_id"]].drop_duplicates()
    seen = pred.merge(pairs, on=["user_id", "item_id"], how="inner")
    overlap = truth[["user_id", "item_id"]].merge(pairs, on=["user_id", "item_id"], how="inner")
    truth_users = set(truth["user_id"])
    return {"seen_items_recommended": len(seen), "pred_rows": len(pred), "overlap": len(overlap),
            "test_pairs": len(truth), "cold_users": len(truth_users - set(train["user_id"])),
            "test_users": len(truth_users)}


def _frames(seed: int, n_users: int, n_items: int, id_kind: str) -> tuple[pd.DataFrame, ...]:
    rng = np.random.default_rng(seed)

    def ids(values: np.ndarray, prefix: str) -> pd.Series:
        if id_kind == "str":
            return pd.Series([f"{prefix}{v}" for v in values], dtype=object)
        if id_kind == "float":  # whole numbers as floats: equal to train's ints
            return pd.Series(values.astype(np.float64))
        return pd.Series(values.astype(np.int64))

    def interactions(n: int, users: int, items: int) -> pd.DataFrame:
        frame = pd.DataFrame({"u": rng.integers(0, users, n), "i": rng.integers(0, items, n)})
        return frame.drop_duplicates().reset_index(drop=True)

    # pred users reach past truth's (pred-only users), truth users past pred's (missing users),
    # truth items past pred's (items no list holds), train ids past both
    listed = interactions(8 * n_users, n_users + 3, n_items)
    rated = interactions(4 * n_users, n_users + 6, n_items + 5)
    # one user in both, so that the split has someone to evaluate
    listed = pd.concat([listed, pd.DataFrame({"u": [0], "i": [0]})]).drop_duplicates().reset_index(drop=True)
    rated = pd.concat([rated, pd.DataFrame({"u": [0], "i": [1]})]).drop_duplicates().reset_index(drop=True)
    trained = interactions(6 * n_users, n_users + 9, n_items + 9)
    trained = pd.concat([trained, trained.iloc[: len(trained) // 5]])  # repeated train rows count once
    trained = trained[trained["u"] % 7 != 3]  # users without train rows: cold
    listed = listed.sample(frac=1.0, random_state=seed)  # lists in no user order
    pred = pd.DataFrame({"user_id": ids(listed["u"].to_numpy(), "u"), "item_id": ids(listed["i"].to_numpy(), "i"),
                         "score": rng.random(len(listed))})
    truth = pd.DataFrame({"user_id": ids(rated["u"].to_numpy(), "u"), "item_id": ids(rated["i"].to_numpy(), "i"),
                          "score": rng.integers(1, 6, len(rated)).astype(float)})
    train = pd.DataFrame({"user_id": ids(trained["u"].to_numpy(), "u"),
                          "item_id": ids(trained["i"].to_numpy(), "i")})
    if id_kind == "float":
        train = train.astype({"user_id": np.int64, "item_id": np.int64})
    return train, truth, pred


def _split(train: pd.DataFrame, truth: pd.DataFrame, pred: pd.DataFrame) -> rk.Split:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.Split(pred, truth, train=train)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_users=st.integers(1, 30), n_items=st.integers(1, 25),
       id_kind=st.sampled_from(["int", "str", "float"]), table=st.sampled_from([None, 8, 64]),
       turns=st.sampled_from([None, 2]))
def test_the_counts_equal_plain_pandas_and_the_audits_coding(seed, n_users, n_items, id_kind, table, turns):
    train, truth, pred = _frames(seed, n_users, n_items, id_kind)
    expected = _pandas_counts(train, truth, pred)
    with pytest.MonkeyPatch.context() as patch:
        if table is not None:  # a few users per chunk: every chunk boundary is crossed
            patch.setattr(join, "_MEMBER_TABLE", table)
        if turns is not None:  # few loop turns: larger tables, or past the largest the hash lookup
            patch.setattr(join, "_MEMBER_TURNS", turns)
            patch.setattr(join, "_MEMBER_TABLE_MAX", turns * 40)
        got = split_cheap_counts(_split(train, truth, pred), CHECKS)
    assert got == expected
    assert got == cheap_checks(train, truth, pred)


def test_a_hand_worked_split():
    train = pd.DataFrame({"user_id": [1, 1, 2, 2, 9], "item_id": ["a", "b", "a", "z", "a"]})
    truth = pd.DataFrame({"user_id": [1, 1, 2, 3, 4], "item_id": ["b", "c", "d", "a", "a"], "score": [5.0] * 5})
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 5, 5], "item_id": ["a", "c", "a", "b", "a", "a", "b"],
                         "score": [3.0, 2.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    # seen: (1, a) and (2, a) listed and trained; user 5 has no truth, lists nothing of train
    # overlap: (1, b) only; cold: users 3 and 4 (4 has no list)
    got = split_cheap_counts(_split(train, truth, pred), CHECKS)
    assert got == {"seen_items_recommended": 2, "pred_rows": 7, "overlap": 1, "test_pairs": 5,
                   "cold_users": 2, "test_users": 4}


def test_rows_of_users_the_lists_leave_out_are_counted():
    train = pd.DataFrame({"user_id": [1, 7, 8], "item_id": [10, 11, 12]})
    truth = pd.DataFrame({"user_id": [1, 8], "item_id": [20, 12], "score": [4.0, 4.0]})  # 8 has no list
    pred = pd.DataFrame({"user_id": [1, 7], "item_id": [10, 11], "score": [1.0, 1.0]})  # 7 has no truth
    got = split_cheap_counts(_split(train, truth, pred), CHECKS)
    assert (got["seen_items_recommended"], got["overlap"], got["cold_users"]) == (2, 1, 0)


def test_counts_are_kept_with_the_split(monkeypatch):
    train, truth, pred = _frames(3, 20, 15, "int")
    split = _split(train, truth, pred)
    first = split_cheap_counts(split, CHECKS)
    calls = []
    monkeypatch.setattr(split_checks, "rows_in_sets", lambda *args: calls.append(args))
    assert split_cheap_counts(split, CHECKS) == first and not calls


def test_only_the_checks_asked_for_are_counted():
    train, truth, pred = _frames(5, 10, 8, "str")
    got = split_cheap_counts(_split(train, truth, pred), ("overlap",))
    assert got["seen_items_recommended"] is None and got["cold_users"] is None
    assert got["overlap"] == _pandas_counts(train, truth, pred)["overlap"]


def test_the_audit_its_cheap_counts_and_the_evaluation_count_one_thing_under_one_name():
    from rankeval.split.internal import CHEAP_CHECKS

    train = pd.DataFrame({"user_id": [1, 1, 2, 2, 9], "item_id": ["a", "b", "a", "z", "a"]})
    truth = pd.DataFrame({"user_id": [1, 1, 2, 3, 4], "item_id": ["b", "c", "d", "a", "a"], "score": [5.0] * 5})
    pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 5, 5], "item_id": ["a", "c", "a", "b", "a", "a", "b"],
                         "score": [3.0, 2.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    cheap = cheap_checks(train, truth, pred)
    evaluation = split_cheap_counts(_split(train, truth, pred), CHECKS)
    assert list(cheap) == list(evaluation) == [k for c in CHEAP_CHECKS.values() for k in (c.count, c.whole)]
    assert cheap == evaluation == _pandas_counts(train, truth, pred)
    table = rk.audit(train, truth, pred).table
    for check in CHEAP_CHECKS.values():  # the audit's line of each check counts what cheap_checks does
        assert table.loc[check.line, "count"] == cheap[check.count]
        assert table.loc[check.line, "of"] == cheap[check.whole]
    with warnings.catch_warnings(record=True) as caught:  # besides: users without a list, lists without truth
        warnings.simplefilter("always")
        rk.EvalModel(pred, truth, [rk.PrecisionAtK(2)], train=train).fit()
    [message] = [str(w.message) for w in caught if issubclass(w.category, rk.ProtocolWarning)]
    for check in CHEAP_CHECKS.values():
        assert f"{cheap[check.count]:,} of {cheap[check.whole]:,} {check.text}" in message
