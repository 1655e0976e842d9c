"""random_holdout, kfold and bootstrap against a plain-Python reference, and their seeds against row order.

The reference re-derives every draw from the rule :mod:`rankeval.split._draws` documents
(splitmix64's finalizer over the ids' hashes and the seed, in Python integers), then splits
each user in a Python loop: rank the user's rows by key (ties: time, score, input row),
take ``⌊test_size · n_u⌋`` (the product read as the decimal written), deal folds in turn,
draw ``n_u`` bootstrap positions. None of the library's sorting, segment or tie code is used.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.exceptions import RankevalWarning
from rankeval.split import bootstrap, kfold, random_holdout

M = (1 << 64) - 1
G = 0x9E3779B97F4A7C15


def mix(x: int) -> int:
    x &= M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def seed_word(seed: int, stream: int) -> int:
    return mix(mix(seed * G + stream) + stream * G)


def id_hash(value) -> int:
    if isinstance(value, (bool, np.bool_)):
        return mix(int(value))
    if isinstance(value, (int, np.integer)):
        return mix(int(value) & M)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return mix(int(value) & M)
    return int(pd.util.hash_array(np.array([value], dtype=object), categorize=False)[0])


def pair_key(seed: int, user, item) -> int:
    return mix((mix(id_hash(user) ^ seed_word(seed, 1)) + id_hash(item)) & M)


def draw(seed: int, user, j: int) -> float:
    return (mix((mix(id_hash(user) ^ seed_word(seed, 2)) + j * G) & M) >> 11) * 2.0**-53


def ranked_rows(frame: pd.DataFrame, seed: int) -> dict:
    """Each user's row positions, in key order (ties: time, score, input row)."""
    out: dict = {}
    has_time, has_score = "timestamp" in frame, "score" in frame
    for pos, row in enumerate(frame.itertuples(index=False)):
        row = row._asdict()
        sort = (pair_key(seed, row["user_id"], row["item_id"]), row["timestamp"] if has_time else 0,
                row["score"] if has_score else 0, pos)
        out.setdefault(row["user_id"], []).append((sort, pos))
    return {user: [pos for _, pos in sorted(rows)] for user, rows in out.items()}


def floor_share(test_size: float, n: int) -> int:
    return math.floor(Fraction(repr(test_size)) * n)


def ref_random_holdout(frame, test_size, seed, min_interactions):
    test = []
    for rows in ranked_rows(frame, seed).values():
        if len(rows) >= min_interactions:
            test += rows[:floor_share(test_size, len(rows))]
    return sorted(test)


def ref_kfold(frame, k, seed, min_interactions):
    folds = [[] for _ in range(k)]
    for rows in ranked_rows(frame, seed).values():
        if len(rows) >= max(k, min_interactions):
            for position, row in enumerate(rows):
                folds[position % k].append(row)
    return [sorted(f) for f in folds]


def ref_bootstrap(frame, seed, min_interactions):
    drawn = []
    for user, rows in ranked_rows(frame, seed).items():
        n = len(rows)
        if n < min_interactions:
            drawn += rows
            continue
        drawn += [rows[min(int(draw(seed, user, j) * n), n - 1)] for j in range(n)]
    return sorted(drawn), sorted(set(range(len(frame))) - set(drawn))


def ref_record_holdout(frame, test_size, seed, min_interactions):
    counts = frame.groupby("user_id", sort=False).size()
    eligible = frame["user_id"].map(counts).to_numpy() >= min_interactions
    keyed = sorted((pair_key(seed, u, i), t if "timestamp" in frame else 0, s if "score" in frame else 0, pos)
                   for pos, (u, i, t, s) in enumerate(zip(frame["user_id"], frame["item_id"],
                                                          frame.get("timestamp", frame["user_id"]),
                                                          frame.get("score", frame["user_id"])))
                   if eligible[pos])
    test = {pos for *_, pos in keyed[:floor_share(test_size, int(eligible.sum()))]}
    for user, n in counts.items():  # a user drawn whole goes back to train
        mine = set(np.flatnonzero(frame["user_id"].to_numpy() == user))
        if mine <= test:
            test -= mine
    return sorted(test)


def positions(part: pd.DataFrame, frame: pd.DataFrame) -> list[int]:
    return sorted(frame.index.get_indexer(part.index).tolist())


# --------------------------------------------------------------------------- #
# data
# --------------------------------------------------------------------------- #
@st.composite
def interactions(draw_, *, duplicates: bool = True):
    n = draw_(st.integers(1, 40))
    users = draw_(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    items = draw_(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    kind = draw_(st.sampled_from(["int", "str", "mixed"]))
    frame = pd.DataFrame({
        "user_id": users if kind == "int" else [f"u{u}" for u in users],
        "item_id": items if kind != "str" else [f"i{i}" for i in items],
        "score": draw_(st.lists(st.integers(1, 5), min_size=n, max_size=n)),
        "timestamp": draw_(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
    })
    frame["score"] = frame["score"].astype(float)
    if not duplicates:
        frame = frame.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    return frame


def quiet(call):
    """Run a splitter with its counted warnings silenced; an empty test gives None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        try:
            return call()
        except ValueError as exc:
            assert "is empty" in str(exc) or "is more than" in str(exc)
            return None


def values(part: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, part[["user_id", "item_id", "score", "timestamp"]].astype(str).to_numpy().tolist()))


# --------------------------------------------------------------------------- #
# against the reference
# --------------------------------------------------------------------------- #
@settings(max_examples=150)
@given(frame=interactions(), test_size=st.sampled_from([0.1, 0.2, 0.29, 0.5, 0.75]), seed=st.integers(0, 2**40),
       min_interactions=st.integers(1, 4))
def test_random_holdout_by_user_is_the_reference(frame, test_size, seed, min_interactions):
    expected = ref_random_holdout(frame, test_size, seed, min_interactions)
    splits = quiet(lambda: random_holdout(frame, test_size, seed=seed, min_interactions=min_interactions))
    if not expected:
        assert splits is None
        return
    train, test = splits[0]
    assert positions(test, frame) == expected
    assert positions(train, frame) == sorted(set(range(len(frame))) - set(expected))


@settings(max_examples=100)
@given(frame=interactions(), test_size=st.sampled_from([0.2, 0.5]), seed=st.integers(0, 1000),
       min_interactions=st.integers(1, 3))
def test_random_holdout_by_record_is_the_reference(frame, test_size, seed, min_interactions):
    expected = ref_record_holdout(frame, test_size, seed, min_interactions)
    splits = quiet(lambda: random_holdout(frame, test_size, by="record", seed=seed,
                                          min_interactions=min_interactions))
    assert (splits is None) == (not expected)
    if splits is not None:
        assert positions(splits.tests[0], frame) == expected


@settings(max_examples=100)
@given(frame=interactions(), k=st.integers(2, 4), seed=st.integers(0, 1000), min_interactions=st.integers(1, 5))
def test_kfold_by_user_is_the_reference(frame, k, seed, min_interactions):
    expected = ref_kfold(frame, k, seed, min_interactions)
    splits = quiet(lambda: kfold(frame, k, seed=seed, min_interactions=min_interactions))
    if not all(expected):
        assert splits is None
        return
    assert len(splits) == k and splits.names == [f"fold{i}" for i in range(1, k + 1)]
    for (train, test), fold in zip(splits, expected):
        assert positions(test, frame) == fold
        assert positions(train, frame) == sorted(set(range(len(frame))) - set(fold))


@settings(max_examples=100)
@given(frame=interactions(), seed=st.integers(0, 2**32), min_interactions=st.integers(1, 3))
def test_bootstrap_is_the_reference(frame, seed, min_interactions):
    drawn, out_of_bag = ref_bootstrap(frame, seed, min_interactions)
    splits = quiet(lambda: bootstrap(frame, seed=seed, min_interactions=min_interactions))
    if not out_of_bag:
        assert splits is None
        return
    train, test = splits[0]
    assert positions(test, frame) == out_of_bag
    assert frame.index.get_indexer(train.index).tolist() == drawn  # repeats kept, in input order


@settings(max_examples=100)
@given(frame=interactions(), seed=st.integers(0, 1000), data=st.data())
def test_a_seed_gives_the_same_split_under_any_row_order(frame, seed, data):
    order = data.draw(st.permutations(range(len(frame))))
    shuffled = frame.iloc[list(order)].reset_index(drop=True)
    for call in (lambda f: random_holdout(f, 0.3, seed=seed), lambda f: random_holdout(f, 0.3, by="record", seed=seed),
                 lambda f: kfold(f, 2, seed=seed), lambda f: kfold(f, 3, by="record", seed=seed),
                 lambda f: bootstrap(f, seed=seed)):
        first, second = quiet(lambda: call(frame)), quiet(lambda: call(shuffled))
        assert (first is None) == (second is None)
        if first is not None:
            for (train_a, test_a), (train_b, test_b) in zip(first, second):
                assert values(test_a) == values(test_b) and values(train_a) == values(train_b)


def test_ids_of_any_integer_dtype_and_whole_floats_draw_alike():
    base = pd.DataFrame({"user_id": np.repeat(np.arange(20), 10), "item_id": np.tile(np.arange(10), 20)})
    expected = positions(random_holdout(base, 0.3, seed=4).tests[0], base)
    for dtype in ("int32", "uint64", "float64", "Int64", object):
        frame = base.astype({"user_id": dtype, "item_id": dtype})
        assert positions(random_holdout(frame, 0.3, seed=4).tests[0], frame) == expected, dtype
    text = base.astype(str)  # "7" is not 7: another draw, but each text kind draws alike
    from_text = positions(random_holdout(text, 0.3, seed=4).tests[0], text)
    for kind in ("string[pyarrow]", "category", object):
        other = text.astype(kind)
        assert positions(random_holdout(other, 0.3, seed=4).tests[0], other) == from_text, kind


def test_seeds_differ_and_shares_hold():
    frame = pd.DataFrame({"user_id": np.repeat(np.arange(300), 20), "item_id": np.tile(np.arange(20), 300)})
    a, b = random_holdout(frame, 0.25, seed=0).tests[0], random_holdout(frame, 0.25, seed=1).tests[0]
    assert len(a) == len(b) == 300 * 5
    assert 0.15 < len(a.index.intersection(b.index)) / len(a) < 0.35  # independent draws: about a quarter shared
    folds = kfold(frame, 5, seed=2)
    assert sorted(np.concatenate([t.index for t in folds.tests])) == list(range(len(frame)))
    train, test = bootstrap(frame, seed=3)[0]
    assert len(train) == len(frame) and abs(len(test) / len(frame) - (1 - 1 / 20) ** 20) < 0.02


def test_kfold_fold_sizes_are_kfolds():
    """scikit-learn's KFold (sklearn/model_selection/_split.py, KFold._iter_test_indices): fold_sizes =
    full(k, n // k); fold_sizes[: n % k] += 1. ClayRS's KFoldPartitioning runs it on each user."""
    counts = [5, 6, 7, 9, 13]
    frame = pd.DataFrame({"user_id": np.repeat(np.arange(len(counts)), counts),
                          "item_id": np.concatenate([np.arange(c) for c in counts])})
    splits = kfold(frame, 5, seed=9)
    for user, n in enumerate(counts):
        sizes = [int((test["user_id"] == user).sum()) for test in splits.tests]
        expected = np.full(5, n // 5)
        expected[: n % 5] += 1
        assert sizes == expected.tolist()


def test_record_kfold_sizes_are_array_splits():
    """LensKit's crossfold_records (src/lenskit/splitting/_records.py): shuffled rows cut by np.array_split."""
    frame = pd.DataFrame({"user_id": np.repeat(np.arange(40), 6), "item_id": np.tile(np.arange(6), 40)})
    sizes = [len(test) for test in kfold(frame, 7, by="record", seed=1).tests]
    assert sizes == [len(part) for part in np.array_split(np.arange(240), 7)]


def test_users_kept_whole_are_counted_once_per_call():
    frame = pd.DataFrame({"user_id": [1] * 10 + [2] * 3 + [3] * 1, "item_id": list(range(10)) + [0, 1, 2] + [5]})
    with pytest.warns(RankevalWarning) as caught:
        train, test = random_holdout(frame, 0.2, min_interactions=2)[0]
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "2 of 3 user(s) (66.7%) stay whole in train" in message
    assert "1 have fewer than min_interactions=2" in message and "1 would get no test interaction (⌊0.2·n_u⌋ = 0)" in message
    assert set(test["user_id"]) == {1} and len(test) == 2
    with pytest.warns(RankevalWarning, match=r"2 of 3 user\(s\) .* whole in train in every fold: 2 have fewer "
                                             r"interactions than n_splits=4 folds"):
        kfold(frame, 4)
    with pytest.warns(RankevalWarning, match=r"1 of 3 user\(s\) .* in train only: 1 had every interaction drawn"):
        bootstrap(frame, seed=0)


def test_duplicate_pairs_are_kept_and_counted():
    frame = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2, 2], "item_id": ["a", "a", "b", "c", "a", "b", "b"],
                          "score": [1.0, 2, 3, 4, 5, 1, 1], "timestamp": [1, 2, 3, 4, 5, 6, 7]})
    with pytest.warns(RankevalWarning, match=r"2 row\(s\) repeating a \(user_id, item_id\) pair \(2 pair\(s\)"):
        train, test = random_holdout(frame, 0.5, seed=1)[0]
    assert len(train) + len(test) == len(frame)


def test_bad_parameters():
    frame = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 2]})
    for call, message in [
        (lambda: random_holdout(frame, 0.0), r"`test_size` must be a number in \(0, 1\)"),
        (lambda: random_holdout(frame, 1.0), r"`test_size` must be a number in \(0, 1\)"),
        (lambda: random_holdout(frame, "0.2"), r"`test_size` must be a number"),
        (lambda: random_holdout(frame, by="item"), r"`by` must be one of \['user', 'record'\]"),
        (lambda: random_holdout(frame, seed=-1), r"`seed` must be an integer >= 0"),
        (lambda: random_holdout(frame, min_interactions=0), r"`min_interactions` must be an integer >= 1"),
        (lambda: random_holdout(frame, drop_cold_items=1), r"`drop_cold_items` must be True or False"),
        (lambda: kfold(frame, 1), r"`n_splits` must be an integer >= 2"),
        (lambda: kfold(frame, 5, by="record"), r"kfold: `n_splits`=5 is more than the 4 interaction\(s\)"),
        (lambda: random_holdout(frame.rename(columns={"item_id": "movie"})),
         r"`frame` is missing column\(s\) \['item_id'\]"),
        (lambda: random_holdout(frame.iloc[:0]), r"`frame` is empty"),
        (lambda: random_holdout(frame.assign(user_id=[1, None, 2, 2])), r"`frame`\['user_id'\] has 1 missing"),
        (lambda: random_holdout(frame.assign(item_id=[1, "2", 1, 2])), r"holds ids of more than one kind"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()
