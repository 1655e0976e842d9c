"""Serendipity (against MS Recommenders' own python_evaluation), Unexpectedness and Surprisal (RePlay).

MS Recommenders 1.2.1 installs without its dependencies (``pip install --no-deps
recommenders==1.2.1``) and its ``python_evaluation`` imports with pandas, numpy and
scikit-learn: its ``user_serendipity`` runs here on the same data. RePlay needs its own
stack (Spark, polars pins) and does not install: its per-user functions are re-derived in
``_side_oracles`` from replay/metrics/unexpectedness.py (``_get_metric_value_by_user``:
``1 - len(set(recs[:k]) & set(base_recs[:k])) / k``, 0 without a baseline list) and
replay/metrics/surprisal.py (``_get_weights``: ``log2(n_users / n_item_users) /
log2(n_users)``, cold items 1; ``_get_metric_value_by_user``: the first k weights / k),
and checked against RePlay's own docstring examples below.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from tests._require import require
from tests.metrics import _side_oracles as oracles

TOL = 1e-12


def _users(metric, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return metric.perform(split).users[str(metric)]


def _split(*frames, **side):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.Split(*frames, **side)


def _same(fast, slow):
    np.testing.assert_allclose(fast.reindex(slow.index).to_numpy(), slow.to_numpy(), rtol=1e-12, atol=1e-13)


# --------------------------------------------------------------------------- hand-worked
#   train: u1 a b | u2 a c | u3 b        -> U_a = {u1, u2}, U_b = {u1, u3}, U_c = {u2}
#   sim(c, a) = |{u2}| / sqrt(1 * 2) = 1/sqrt2, sim(c, b) = 0, sim(d, .) = 0 (d not in train)
#   u1 list c, d (truth c=5, d=1: mean 3, c relevant)
#   serendipity u1 = (1 * (1 - (1/sqrt2 + 0) / 2) + 0 * (1 - 0)) / 2;  relevance="none": + 1 for d
TRAIN = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3"], "item_id": list("abacb")})
PRED = pd.DataFrame({"user_id": ["u1", "u1", "u4"], "item_id": ["c", "d", "a"], "score": [2.0, 1.0, 1.0]})
TRUTH = pd.DataFrame({"user_id": ["u1", "u1", "u4"], "item_id": ["c", "d", "a"], "score": [5.0, 1.0, 1.0]})
S2 = 1 / math.sqrt(2)


def test_serendipity_by_hand():
    split = rk.Split(PRED, TRUTH, train=TRAIN)
    got = _users(rk.Serendipity(), split)
    assert got["u1"] == pytest.approx((1 - S2 / 2) / 2, rel=TOL) and np.isnan(got["u4"])  # u4 has no history
    got = _users(rk.Serendipity(relevance="none"), split)
    assert got["u1"] == pytest.approx((1 - S2 / 2 + 1) / 2, rel=TOL)
    assert _users(rk.Serendipity(1), split)["u1"] == pytest.approx(1 - S2 / 2, rel=TOL)
    # features: a (1, 0), b (0, 1), c (1, 1), d none -> cos(c, a) = cos(c, b) = 1/sqrt2
    vectors = pd.DataFrame({"x": [1.0, 0.0, 1.0], "y": [0.0, 1.0, 1.0]}, index=list("abc"))
    split = rk.Split(PRED, TRUTH, train=TRAIN, item_features=vectors)
    assert _users(rk.Serendipity(similarity="features"), split)["u1"] == pytest.approx((1 - S2) / 2, rel=TOL)


# --------------------------------------------------------------------------- MS Recommenders itself
def _ms_user_serendipity(pred, truth, train, k, features=None):
    """MS Recommenders' serendipity: its own ``_get_cosine_similarity`` (co-occurrence or feature
    cosine), then the steps of its ``user_item_serendipity`` / ``user_serendipity``.

    Those steps are written out here because under pandas 3 (copy-on-write) its
    ``reco_train_user_item_sim[col_sim].fillna(0, inplace=True)`` no longer writes into the
    frame, so pairs without a similarity would drop out of the mean instead of counting 0.
    """
    ms = require("recommenders.evaluation.python_evaluation")
    rel = {u: set(g.loc[g["score"] >= g["score"].mean(), "item_id"]) for u, g in truth.groupby("user_id")}
    lists = oracles._lists(pred, truth, k)
    reco = pd.DataFrame([(u, i, float(i in rel[u])) for u, items in lists.items() for i in items],
                        columns=["user_id", "item_id", "relevance"])
    hist = train.drop_duplicates(["user_id", "item_id"])[["user_id", "item_id"]].reset_index(drop=True)
    assert reco.merge(hist, on=["user_id", "item_id"]).empty  # MS refuses a list holding a history item
    if features is None:
        sim = ms._get_cosine_similarity(hist, col_user="user_id", col_item="item_id", col_sim="sim")
    else:
        item_features = pd.DataFrame({"item_id": features.index, "features": list(features.to_numpy())})
        sim = ms._get_cosine_similarity(hist, item_features, "item_feature_vector", "features", "user_id",
                                        "item_id", "sim")
    pairs = reco[["user_id", "item_id"]].merge(hist.rename(columns={"item_id": "h"}), on="user_id")
    pairs["i1"] = pairs[["item_id", "h"]].min(axis=1)
    pairs["i2"] = pairs[["item_id", "h"]].max(axis=1)
    pairs = pairs.merge(sim, on=["i1", "i2"], how="left")
    pairs["sim"] = pairs["sim"].fillna(0)
    avg = pairs.groupby(["user_id", "item_id"])["sim"].mean().rename("avg").reset_index()
    per_item = avg.merge(reco, on=["user_id", "item_id"])
    per_item["s"] = (1 - per_item["avg"]) * per_item["relevance"]
    return per_item.groupby("user_id")["s"].mean()


def _unseen(pred, train):
    """pred without the items each user had in train (MS Recommenders refuses them)."""
    seen = set(zip(train["user_id"], train["item_id"]))
    return pred[[(u, i) not in seen for u, i in zip(pred["user_id"], pred["item_id"])]]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), k=st.sampled_from([None, 2, 4]))
def test_serendipity_equals_ms_recommenders(seed, k):
    pred, truth, train, _, vectors = oracles.random_data(seed, str_ids=False)
    pred = _unseen(pred, train)
    if pred.empty or not set(pred["user_id"]) & set(truth["user_id"]):
        return
    ms = _ms_user_serendipity(pred, truth, train, k)
    ours = _users(rk.Serendipity(k), _split(pred, truth, train=train))
    assert set(ours.dropna().index) == set(ms.index)  # users without history: NaN here, absent there
    _same(ours, ms)
    # feature similarity: every item needs a non-zero vector there (MS divides by the norms)
    full = vectors.reindex(sorted(set(pred["item_id"]) | set(train["item_id"]))).fillna(1.0)
    full[(full == 0).all(axis=1)] = 1.0
    _same(_users(rk.Serendipity(k, similarity="features"), _split(pred, truth, train=train, item_features=full)),
          _ms_user_serendipity(pred, truth, train, k, full))


# --------------------------------------------------------------------------- plain loops
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), k=st.sampled_from([None, 1, 3]), relevance=st.sampled_from(["binary", "none"]))
def test_serendipity_matches_the_plain_loop(seed, k, relevance):
    pred, truth, train, sets, vectors = oracles.random_data(seed)
    for features, similarity in ((None, "cooccurrence"), (vectors, "features"), (sets, "features")):
        split = _split(pred, truth, train=train, item_features=sets if features is None else features)
        got = _users(rk.Serendipity(k, similarity=similarity, relevance=relevance), split)
        _same(got, oracles.serendipity(pred, truth, train, k, features, relevance))


@pytest.mark.parametrize("dense", [0, 1 << 30])
@pytest.mark.parametrize(("cells", "chunk"), [(1, 1), (7, 5), (40, 30), (1 << 22, 3)])
@pytest.mark.parametrize(("seed", "n_users"), [(0, 12), (1, 12), (2, 60)])
def test_cooccurrence_blocks_change_no_bit(monkeypatch, seed, n_users, cells, chunk, dense):
    """Co-occurrence serendipity in many small blocks of items (one item, a few, cut by work),
    counted into slots or into dense blocks, equals the plain loop, and the default to the last bit."""
    from rankeval.metrics.beyond import _serendipity

    pred, truth, train, _, _ = oracles.random_data(seed, n_users=n_users)
    whole = _users(rk.Serendipity(), _split(pred, truth, train=train))
    monkeypatch.setattr(_serendipity, "BUFFER_CELLS", cells)
    monkeypatch.setattr(_serendipity, "SLOT_CELLS", cells)
    monkeypatch.setattr(_serendipity, "CHUNK_ROWS", chunk)
    monkeypatch.setattr(_serendipity, "DENSE_CELLS_PER_PAIR", dense)
    blocks = _users(rk.Serendipity(), _split(pred, truth, train=train))
    np.testing.assert_array_equal(blocks.to_numpy(), whole.to_numpy())
    _same(blocks, oracles.serendipity(pred, truth, train, None, None, "binary"))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), k=st.sampled_from([None, 1, 3, 10]))
def test_unexpectedness_and_surprisal_match_the_plain_loop(seed, k):
    pred, truth, train, _, _ = oracles.random_data(seed)
    base, _, _, _, _ = oracles.random_data(seed + 1)
    split = _split(pred, truth, train=train)
    _same(_users(rk.Unexpectedness(k, baseline=base), split), oracles.unexpectedness(pred, truth, base, k))
    _same(_users(rk.Unexpectedness(k, baseline=base, no_baseline="zero"), split),
          oracles.unexpectedness(pred, truth, base, k, "zero"))
    _same(_users(rk.Surprisal(k), split), oracles.surprisal(pred, truth, train, k))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**20))
def test_row_order_of_side_data_changes_no_bit(seed):
    pred, truth, train, sets, vectors = oracles.random_data(seed)
    rng = np.random.default_rng(seed)
    for features, similarity in ((sets, "cooccurrence"), (vectors, "features"), (sets, "features")):
        a = _users(rk.Serendipity(3, similarity=similarity), _split(pred, truth, train=train, item_features=features))
        b = _users(rk.Serendipity(3, similarity=similarity), _split(
            pred, truth, train=train.iloc[rng.permutation(len(train))],
            item_features=features.iloc[rng.permutation(len(features))]))
        pd.testing.assert_series_equal(a, b, check_exact=True)


# --------------------------------------------------------------------------- RePlay's docstring examples
def test_replay_docstring_examples():
    # replay/metrics/unexpectedness.py and surprisal.py (current main): the same recommendations
    recs = pd.DataFrame({"user_id": [1] * 5 + [2] * 5 + [3] * 3, "item_id": [3, 7, 10, 11, 2, 5, 8, 11, 1, 3, 4, 9, 2],
                         "score": [.6, .5, .4, .3, .2, .6, .5, .4, .3, .2, 1.0, .5, .1]})
    base = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2, 3, 3], "item_id": [3, 7, 2, 5, 8, 3, 4, 9],
                         "score": [.5, .5, .7, .6, .6, .3, 1.0, .5]})
    train = pd.DataFrame({"user_id": [1] * 5 + [2] * 5 + [3] * 3, "item_id": [5, 6, 8, 9, 2, 5, 8, 11, 1, 3, 4, 9, 2]})
    truth = recs.assign(score=1.0)
    split = rk.Split(recs, truth, train=train)
    # RePlay: {'Unexpectedness-PerUser@2': {1: 0.5, 2: 0.0, 3: 0.0}, 'Unexpectedness-PerUser@4': {1: 0.5, 2: 0.5, 3: 0.5}}
    # (its base lists sort ties by item id descending: user 2's 5 and 8 at 0.6 come as 8, 5)
    assert _users(rk.Unexpectedness(2, baseline=base), split).to_dict() == {1: 0.5, 2: 0.0, 3: 0.0}
    assert _users(rk.Unexpectedness(4, baseline=base), split).to_dict() == {1: 0.5, 2: 0.5, 3: 0.5}
    # RePlay: {'Surprisal-PerUser@2': {1: 1.0, 2: 0.3690702464285426, 3: 0.6845351232142713}}
    got = _users(rk.Surprisal(2), split)
    np.testing.assert_allclose(got.loc[[1, 2, 3]], [1.0, 0.3690702464285426, 0.6845351232142713], rtol=1e-15)


# --------------------------------------------------------------------------- compare and Spark
def test_compare_resolves_a_baseline_system_by_name_per_split():
    splits = [oracles.random_data(s) for s in (1, 2)]
    truths = [t for _, t, _, _, _ in splits]
    pop = [p for p, _, _, _, _ in splits]
    knn = [oracles.random_data(s + 10)[0] for s in (1, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = rk.compare({"pop": pop, "knn": knn}, truths, [rk.Unexpectedness(3, baseline="pop")], n_resamples=100)
    units = res.units.set_index(["split", "user_id"])
    col = ("Unexpectedness@3", "knn")
    for label, p, k, t in zip(["fold1", "fold2"], pop, knn, truths):
        expected = oracles.unexpectedness(k, t, p, 3)
        _same(units.loc[label, col], expected)
        # pop against itself: 1 - min(|L_u|, 3) / 3 (RePlay divides by k), 0 for lists of 3 or more
        _same(units.loc[label, ("Unexpectedness@3", "pop")], oracles.unexpectedness(p, t, p, 3))
    with pytest.raises(ValueError, match=r"`baseline` 'none' of a metric is not among the systems \['pop', 'knn'\]"):
        rk.compare({"pop": pop, "knn": knn}, truths, [rk.Unexpectedness(3, baseline="none")], n_resamples=100)


def test_spark_engine_gives_the_same_numbers(spark):
    pred, truth, train, sets, _ = oracles.random_data(7, n_users=60, n_items=25)
    base = oracles.random_data(8, n_users=60, n_items=25)[0]
    metrics = [rk.Miscalibration(3), rk.Serendipity(3), rk.Serendipity(similarity="features"),
               rk.Unexpectedness(3, baseline=base), rk.Surprisal(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        local = rk.EvalModel(pred, truth, metrics, ties="item_id", train=train, item_features=sets).fit()
        for buckets in (1, 4):
            sys_result, users = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), metrics,
                                             n_buckets=buckets, train=train, item_features=sets).fit()
            pd.testing.assert_frame_equal(sys_result, local[0], check_exact=True)
            got = users.toPandas().set_index(["split", "user_id"]).sort_index()
            np.testing.assert_array_equal(got.to_numpy(), local[1].sort_index().to_numpy())
        local_cmp = rk.compare({"a": pred, "b": base}, truth, [rk.Unexpectedness(3, baseline="a")], n_resamples=100,
                               ties="item_id")
        spark_cmp = rk.compare({"a": spark.createDataFrame(pred), "b": spark.createDataFrame(base)},
                               spark.createDataFrame(truth), [rk.Unexpectedness(3, baseline="a")], n_resamples=100)
    pd.testing.assert_frame_equal(spark_cmp.table, local_cmp.table, check_exact=True)


# --------------------------------------------------------------------------- bad input and names
@pytest.mark.parametrize("metric, argument", [
    (rk.Serendipity(), "train="), (rk.Surprisal(5), "train="),
    (rk.Serendipity(similarity="features"), "train="),
])
def test_missing_side_data_names_the_argument(metric, argument):
    with pytest.raises(ValueError, match=rf"needs side data: pass {argument}"):
        metric.perform(rk.Split(PRED, TRUTH))


def test_feature_serendipity_needs_item_features():
    with pytest.raises(ValueError, match=r"Serendipity needs side data: pass item_features="):
        rk.Serendipity(similarity="features").perform(rk.Split(PRED, TRUTH, train=TRAIN))


def test_unexpectedness_needs_a_baseline():
    with pytest.raises(ValueError, match=r"Unexpectedness needs `baseline`"):
        rk.Unexpectedness(5)
    with pytest.raises(TypeError, match=r"`baseline` must be a DataFrame or a system name, got int"):
        rk.Unexpectedness(5, baseline=3)
    with pytest.raises(ValueError, match=r"`baseline` 'pop' names a system of compare\(\)"):
        rk.Unexpectedness(5, baseline="pop").perform(rk.Split(PRED, TRUTH))
    with pytest.raises(ValueError, match=r"`baseline` is missing column\(s\) \['item_id'\]"):
        rk.Unexpectedness(5, baseline=PRED.drop(columns="item_id"))


def test_names_directions_and_cutoffs():
    for m in [rk.Serendipity(), rk.Serendipity(10), rk.Surprisal(10)]:
        assert rk.parse_metric(str(m)) == m
    assert rk.Serendipity.higher_is_better and rk.Surprisal.higher_is_better and rk.Unexpectedness.higher_is_better
    split = rk.Split(PRED, TRUTH, train=TRAIN)
    res = rk.Serendipity(k=[1, 2]).perform(split)
    assert list(res.users.columns) == ["Serendipity@1", "Serendipity@2"]
    assert res.users.loc["u1", "Serendipity@1"] == _users(rk.Serendipity(1), split)["u1"]


# --------------------------------------------------------------------------- the baseline's layouts
def _baseline(seed, str_ids, layout):
    """A baseline of users evaluated and not, lists of 0-12 rows with repeated items and items
    nobody lists, tied scores; in list order ("ranked": grouped by user, scores descending),
    grouped by user only, or shuffled."""
    rng = np.random.default_rng(seed)
    users = [f"u{j:02d}" if str_ids else j for j in range(16)]  # the lists have 12 users
    items = [f"i{j:02d}" if str_ids else j for j in range(18)]  # the lists have 15 items
    rows = [(u, items[i], float(s)) for u in users if rng.random() < 0.8
            for i, s in zip(rng.integers(0, len(items), 12), rng.integers(0, 4, 12)) if rng.random() < 0.6]
    base = pd.DataFrame(rows, columns=["user_id", "item_id", "score"])
    if layout == "shuffled":
        return base.iloc[rng.permutation(len(base))]
    if layout == "ranked":
        base = base.sort_values("score", ascending=False, kind="stable")
    return base.sort_values("user_id", kind="stable", key=lambda c: c.map({u: i for i, u in enumerate(users)}))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**20), k=st.sampled_from([None, 1, 3, 10]), str_ids=st.booleans(),
       layout=st.sampled_from(["ranked", "grouped", "shuffled"]), arrow=st.booleans(),
       dense_width=st.sampled_from([32, 2, 0]))
def test_unexpectedness_on_every_layout_of_the_baseline(seed, k, str_ids, layout, arrow, dense_width):
    """Lists checked against a table of each user's items or against sorted keys (a narrow
    table forces the keys), a baseline in list order (read as it is), grouped by user only or
    shuffled (both sorted), object or Arrow ids: each user's value equals the plain loop to
    the bit."""
    from unittest import mock

    from rankeval.metrics.beyond import _unexpectedness

    pred, truth, _, _, _ = oracles.random_data(seed, str_ids=str_ids)
    base = _baseline(seed + 1, str_ids, layout)
    if arrow and str_ids:
        base = base.astype({"user_id": "string[pyarrow]", "item_id": "string[pyarrow]"})
    split = _split(pred, truth)
    with mock.patch.object(_unexpectedness, "DENSE_WIDTH", dense_width):
        for no_baseline in ("nan", "zero"):
            got = _users(rk.Unexpectedness(k, baseline=base, no_baseline=no_baseline), split)
            expected = oracles.unexpectedness(pred, truth, base, k, no_baseline)
            np.testing.assert_array_equal(got.reindex(expected.index).to_numpy(), expected.to_numpy())


def test_baseline_lists_in_order_or_not():
    """The public frame: users in order of first appearance, each list by score descending,
    ties in row order; the same whether the frame came in that order or not."""
    base = pd.DataFrame({"user_id": ["b", "b", "a", "b", "a"], "item_id": list("pqrst"),
                         "score": [1.0, 2.0, 5.0, 2.0, 5.0]})
    expected = pd.DataFrame({"user": ["b", "b", "b", "a", "a"], "item": list("qspr" + "t"),
                             "position": [1, 2, 3, 1, 2]})
    for frame in (base, base.iloc[[1, 3, 0, 2, 4]]):
        got = rk.metrics.beyond.baseline_lists(frame)
        pd.testing.assert_frame_equal(got.astype({"user": object, "item": object}),
                                      expected.astype({"user": object, "item": object}))


def test_unexpectedness_with_ids_of_another_type_finds_no_baseline():
    base = pd.DataFrame({"user_id": [1, 1], "item_id": ["c", "d"], "score": [2.0, 1.0]})  # PRED's users are text
    got = _users(rk.Unexpectedness(2, baseline=base), _split(PRED, TRUTH))
    assert got.isna().all() and len(got) == 2
    got = _users(rk.Unexpectedness(2, baseline=base, no_baseline="zero"), _split(PRED, TRUTH))
    assert (got == 0.0).all()
