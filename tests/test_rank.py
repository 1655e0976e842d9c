"""rankeval.rank: the lists equal a full sort of the dense score matrix, item for item.

The reference sorts every row of the dense matrix by score descending, ties by the tie
order, with the excluded items at ``-inf`` and left out. Vectors hold small integers, so
every dot product is exact whatever order the BLAS sums in, and ties are many.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import EvalModel, NDCGAtK, RecallAtK, ShortListsWarning
from rankeval.rank import _kernel, _top_k, top_k, top_k_scores
from rankeval.rank._plan import plan_blocks


from ._require import require

REPO = Path(__file__).resolve().parents[1]


def dense_reference(scores: np.ndarray, k: int, tie_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` best (item row, score), ties by ``tie_key`` ascending; -inf never listed (-1)."""
    n_users, n_items = scores.shape
    out_items = np.full((n_users, k), -1)
    out_scores = np.full((n_users, k), -np.inf, dtype=scores.dtype)
    for u in range(n_users):
        order = sorted(range(n_items), key=lambda i: (-scores[u, i], tie_key[i]))
        kept = [i for i in order if scores[u, i] > -np.inf][:k]
        out_items[u, :len(kept)] = kept
        out_scores[u, :len(kept)] = scores[u, kept]
    return out_items, out_scores


def as_rows(result, item_ids) -> np.ndarray:
    """The result's codes as rows of the original item matrix (-1 kept)."""
    rows = pd.Index(item_ids).get_indexer(result.catalog)
    return np.where(result.items >= 0, rows[np.maximum(result.items, 0)], -1)


@st.composite
def problems(draw):
    n_users = draw(st.integers(1, 12))
    n_items = draw(st.integers(1, 40))
    d = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    users = rng.integers(-2, 3, (n_users, d)).astype(dtype)
    items = rng.integers(-2, 3, (n_items, d)).astype(dtype)
    seen = rng.random((n_users, n_items)) < draw(st.sampled_from([0.0, 0.2, 0.6]))
    if draw(st.booleans()):
        seen[0] = True  # a user who saw every item
    k = draw(st.integers(1, n_items + 3))
    ties = draw(st.sampled_from(["row_order", "item_id", "item_id_desc"]))
    memory = draw(st.sampled_from(["1GiB", 40_000, 20_000, 12_000]))
    return users, items, seen, k, ties, memory


def _item_ids(n: int) -> np.ndarray:
    """Item ids whose ascending order is not the row order: the tie rules differ."""
    return (np.arange(n) * 7919) % 10007 + 100


@settings(max_examples=150)
@given(problems())
def test_top_k_equals_the_dense_argsort(problem):
    check_against_dense(problem)


@settings(max_examples=60)
@given(problems(), st.integers(2, 3))
def test_blocks_on_several_threads_equal_the_dense_argsort(problem, cores):
    # every ranking on threads (none is large enough otherwise), 2 or 3 of them, unequal blocks
    require("threadpoolctl")
    with mock.patch.object(_top_k, "THREADS_MIN_CELLS", 0), mock.patch.object(_top_k, "n_cores", lambda: cores):
        check_against_dense(problem)


def _threads_problem(seed):
    """3,000 users x 2,500 items of small integers (every product exact whatever the blocks' shapes, ties by the
    thousand) and 30,000 excluded pairs: large enough to run on threads."""
    rng = np.random.default_rng(seed)
    users = rng.integers(-3, 4, (3000, 16)).astype(np.float32)
    items = rng.integers(-3, 4, (2500, 16)).astype(np.float32)
    exclude = pd.DataFrame({"user_id": rng.integers(0, 3000, 30000), "item_id": rng.integers(0, 2500, 30000)})
    return users, items, exclude


def test_threads_give_the_lists_of_one_thread_bit_for_bit():
    require("threadpoolctl")
    users, items, exclude = _threads_problem(4)
    assert 3000 * 2500 >= _top_k.THREADS_MIN_CELLS  # this size runs on threads
    threaded = top_k(users, items, 50, exclude=exclude, memory=8 * 2**20)
    with mock.patch.object(_top_k, "THREADS_MIN_CELLS", 2**62):
        single = top_k(users, items, 50, exclude=exclude, memory=8 * 2**20)
    assert np.array_equal(threaded.items, single.items)
    assert np.array_equal(threaded.scores, single.scores)
    dense = users[:300] @ items.T
    mine = exclude[exclude.user_id < 300]
    dense[mine.user_id, mine.item_id] = -np.inf
    assert np.array_equal(threaded.items[:300], np.argsort(-dense, axis=1, kind="stable")[:, :50])


def check_against_dense(problem):
    """top_k on a drawn problem equals :func:`dense_reference` (a small budget raised to the smallest that works)."""
    users, items, seen, k, ties, memory = problem
    item_ids = _item_ids(len(items))
    user_ids = [f"u{i}" for i in range(len(users))]
    rows, cols = np.nonzero(seen)
    exclude = pd.DataFrame({"user_id": np.array(user_ids)[rows], "item_id": item_ids[cols]})
    if len(users) % 2:  # rows not grouped by user: the pairs are sorted by user (grouped ones are not)
        exclude = exclude.iloc[::-1]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ShortListsWarning)
            result = top_k(users, items, k, user_ids=user_ids, item_ids=item_ids, exclude=exclude, ties=ties,
                           memory=memory)
    except ValueError as exc:  # a small budget: the message names the smallest one, which must work
        smallest = int(str(exc).split("smallest budget that works is ")[1].split(" bytes")[0].replace(",", ""))
        assert smallest > memory
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ShortListsWarning)
            result = top_k(users, items, k, user_ids=user_ids, item_ids=item_ids, exclude=exclude, ties=ties,
                           memory=smallest)
    dense = users @ items.T
    dense[seen] = -np.inf
    tie_key = {"row_order": np.arange(len(items)), "item_id": item_ids, "item_id_desc": -item_ids}[ties]
    want_items, want_scores = dense_reference(dense, k, tie_key)
    width = min(k, len(items))  # no list is longer than the catalog
    assert (want_items[:, width:] == -1).all()
    assert np.array_equal(as_rows(result, item_ids), want_items[:, :width])
    assert np.array_equal(result.scores, want_scores[:, :width])
    assert result.scores.dtype == users.dtype
    assert np.array_equal(result.lengths, (want_items >= 0).sum(axis=1))


@settings(max_examples=80)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 30), st.integers(1, 35),
       st.sampled_from([None, 0.5, 0.9]), st.sampled_from(["1GiB", 20_000]), st.booleans())
def test_scoring_function_with_candidates_equals_the_dense_argsort(seed, n_users, n_items, k, share, memory,
                                                                   threads):
    # with threads, every ranking runs on 2 threads (none is large enough otherwise)
    if threads:
        require("threadpoolctl")
    rng = np.random.default_rng(seed)
    dense = rng.integers(-3, 3, (n_users, n_items)).astype(np.float64)
    dense[rng.random(dense.shape) < 0.2] = -np.inf  # the function's own "never list"
    item_ids = np.arange(n_items) * 10

    def score(u, i):
        return dense[np.ix_(u, i // 10)]

    candidates = None
    allowed = np.ones(dense.shape, dtype=bool)
    if share is not None:
        allowed = rng.random(dense.shape) < share
        rows, cols = np.nonzero(allowed)
        candidates = pd.DataFrame({"user_id": rows, "item_id": item_ids[cols]})
    with warnings.catch_warnings(), mock.patch.object(_top_k, "THREADS_MIN_CELLS", 0 if threads else 2**62), \
            mock.patch.object(_top_k, "n_cores", lambda: 2):
        warnings.simplefilter("ignore", ShortListsWarning)
        try:
            result = top_k_scores(score, np.arange(n_users), item_ids, k, candidates=candidates, memory=memory,
                                  threads=threads)
        except ValueError as exc:
            assert "the smallest budget that works is" in str(exc)
            return
    want = np.where(allowed, dense, -np.inf)
    want_items, want_scores = dense_reference(want, k, np.arange(n_items))
    width = min(k, n_items)
    assert np.array_equal(as_rows(result, item_ids), want_items[:, :width])
    assert np.array_equal(result.scores, want_scores[:, :width])


# float32 candidates are merged as keys, float64 ones by a stable sort; each budget leaves blocks of 5,120 items
@pytest.mark.parametrize(("dtype", "memory"), [(np.float32, 250_000), (np.float64, 360_000)])
def test_item_blocks_merge_exactly(dtype, memory):
    rng = np.random.default_rng(3)
    users = rng.integers(-3, 4, (50, 6)).astype(dtype)
    items = rng.integers(-3, 4, (20_000, 6)).astype(dtype)
    seen = rng.random((50, 20_000)) < 0.02
    rows, cols = np.nonzero(seen)
    exclude = pd.DataFrame({"user_id": rows, "item_id": cols})
    whole = top_k(users, items, 20, exclude=exclude)
    plans = []
    with mock.patch.object(_top_k, "plan_blocks", lambda *a, **kw: plans.append(plan_blocks(*a, **kw)) or plans[-1]):
        blocked = top_k(users, items, 20, exclude=exclude, memory=memory)
    assert plans[0].items < 20_000  # the running lists are merged with later blocks of items
    dense = users @ items.T
    dense[seen] = -np.inf
    want_items, want_scores = dense_reference(dense, 20, np.arange(20_000))
    assert np.array_equal(whole.items, want_items)
    assert np.array_equal(blocked.items, want_items)
    assert np.array_equal(blocked.scores, want_scores)


@given(st.lists(st.floats(width=32, allow_nan=False), min_size=1, max_size=60))
def test_float32_keys_order_as_scores_descending_and_decode_back(values):
    # every float32 but NaN (+-inf, +-0.0, subnormals): the merge's keys sort as the scores do, descending
    scores = np.array(values, dtype=np.float32)
    bits = _kernel._descending_bits(scores)
    assert np.array_equal(np.argsort(bits, kind="stable"), np.argsort(-scores, kind="stable"))
    assert np.array_equal(_kernel._scores_of(bits), scores)


def test_short_lists_are_counted():
    users = np.ones((3, 2))
    items = np.arange(8, dtype=float).reshape(4, 2)
    exclude = pd.DataFrame({"user_id": [0, 0, 0, 0, 1], "item_id": [0, 1, 2, 3, 0]})
    with pytest.warns(ShortListsWarning, match=r"2 users have fewer than k=4 .* \(5 rows fewer than 3 x 4\)"):
        result = top_k(users, items, 4, exclude=exclude)
    assert result.lengths.tolist() == [0, 3, 4]
    assert result.to_frame().groupby("user_id").size().to_dict() == {1: 3, 2: 4}
    assert result.to_frame()["item_id"].tolist() == [3, 2, 1, 3, 2, 1, 0]


def test_candidates_global_and_per_user():
    rng = np.random.default_rng(5)
    users = rng.integers(-2, 3, (6, 3)).astype(float)
    items = rng.integers(-2, 3, (30, 3)).astype(float)
    ids = np.arange(30) + 1000
    allowed = ids[::3]
    result = top_k(users, items, 4, item_ids=ids, candidates=allowed, ties="item_id")
    dense = users @ items.T
    dense[:, np.setdiff1d(np.arange(30), np.arange(0, 30, 3))] = -np.inf
    assert np.array_equal(as_rows(result, ids), dense_reference(dense, 4, ids)[0])
    per_user = pd.DataFrame({"user_id": np.repeat(np.arange(6), 5), "item_id": ids[rng.integers(0, 30, 30)]})
    result = top_k(users, items, 3, item_ids=ids, candidates=per_user)
    dense = np.full((6, 30), -np.inf)
    r, c = per_user["user_id"].to_numpy(), per_user["item_id"].to_numpy() - 1000
    dense[r, c] = (users @ items.T)[r, c]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShortListsWarning)
        assert np.array_equal(as_rows(result, ids), dense_reference(dense, 3, np.arange(30))[0])


def test_cosine_equals_dot_of_unit_vectors():
    rng = np.random.default_rng(2)
    # each vector is a power of two times a signed unit axis: its norm and its division are exact
    users = np.eye(4)[rng.integers(0, 4, 20)] * 2.0 ** rng.integers(-3, 4, (20, 1)) * rng.choice([-1, 1], (20, 1))
    items = np.eye(4)[rng.integers(0, 4, 50)] * 2.0 ** rng.integers(-3, 4, (50, 1)) * rng.choice([-1, 1], (50, 1))
    unit_users = users / np.linalg.norm(users, axis=1, keepdims=True)
    unit_items = items / np.linalg.norm(items, axis=1, keepdims=True)
    cosine = top_k(users, items, 5, similarity="cosine")
    assert np.array_equal(cosine.items, dense_reference(unit_users @ unit_items.T, 5, np.arange(50))[0])


def test_scoring_function_equals_vectors():
    rng = np.random.default_rng(4)
    users = rng.integers(-2, 3, (40, 3)).astype(np.float32)
    items = rng.integers(-2, 3, (25, 3)).astype(np.float32)
    user_ids, item_ids = np.arange(40) * 2, np.arange(25) + 7
    calls = []

    def score(u, i):
        calls.append((len(u), len(i)))
        return users[u // 2] @ items[i - 7].T

    exclude = pd.DataFrame({"user_id": [0, 2, 2], "item_id": [7, 8, 31]})
    by_function = top_k_scores(score, user_ids, item_ids, 6, exclude=exclude)
    by_vectors = top_k(users, items, 6, user_ids=user_ids, item_ids=item_ids, exclude=exclude)
    assert by_function.scores.dtype == np.float32
    assert np.array_equal(by_function.items, by_vectors.items)
    assert np.array_equal(by_function.scores, by_vectors.scores)
    assert 31 not in by_function.to_frame().query("user_id == 2")["item_id"].tolist()


def test_scoring_function_on_threads_gives_the_lists_of_one_thread_bit_for_bit():
    # every block of users scored by the function on one of two threads at once
    require("threadpoolctl")
    users, items, exclude = _threads_problem(8)
    threads_seen = set()

    def score(u, i):
        threads_seen.add(threading.get_ident())
        return users[u] @ items[i].T

    ids = (np.arange(3000), np.arange(2500))
    with mock.patch.object(_top_k, "n_cores", lambda: 2):
        threaded = top_k_scores(score, *ids, 50, exclude=exclude, memory=8 * 2**20, threads=True)
    assert len(threads_seen) == 3  # the probe's (this thread) and two workers'
    threads_seen.clear()
    single = top_k_scores(score, *ids, 50, exclude=exclude, memory=8 * 2**20)
    assert len(threads_seen) == 1
    assert np.array_equal(threaded.items, single.items) and np.array_equal(threaded.scores, single.scores)
    assert np.array_equal(threaded.items, top_k(users, items, 50, exclude=exclude).items)


def test_pred_frame_evaluates_like_plain_ids():
    rng = np.random.default_rng(6)
    users, items = rng.standard_normal((30, 4)), rng.standard_normal((80, 4))
    user_ids = [f"user{i}" for i in range(30)]
    item_ids = [f"item{i}" for i in range(80)]
    result = top_k(users, items, 10, user_ids=user_ids, item_ids=item_ids)
    truth = pd.DataFrame({"user_id": np.repeat(user_ids, 3), "item_id": np.array(item_ids)[rng.integers(0, 80, 90)],
                          "score": 1.0}).drop_duplicates(["user_id", "item_id"])
    coded = result.to_frame()
    assert isinstance(coded["item_id"].dtype, pd.CategoricalDtype)
    plain = result.to_frame(categorical=False)
    assert not isinstance(plain["item_id"].dtype, pd.CategoricalDtype)
    metrics = [NDCGAtK(10), RecallAtK(10)]
    a = EvalModel(coded, truth, metrics).fit()[1]
    b = EvalModel(plain, truth, metrics).fit()[1]
    pd.testing.assert_frame_equal(a, b)
    listed = plain.groupby("user_id")["item_id"].apply(list)
    for u in (0, 17):
        s = users[u] @ items.T
        assert listed[f"user{u}"] == [f"item{i}" for i in np.argsort(-s, kind="stable")[:10]]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: top_k(np.ones((2, 3)), np.ones((4, 2)), 2), r"`user_vectors` has 3 dimensions and `item_vectors` 2"),
    (lambda: top_k(np.array([[1.0, np.nan]]), np.ones((4, 2)), 2), r"`user_vectors` has 1 rows with NaN"),
    (lambda: top_k(np.ones((2, 2)), np.array([[1.0, np.inf]]), 2), r"`item_vectors` has 1 rows with NaN or inf"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, item_ids=["a", "b", "a"]), r"`item_ids` repeats 1 ids \(\['a'\]\)"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, user_ids=["a"]), r"`user_ids` has 1 ids for 2 rows"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 0), r"`k`"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, similarity="l2"), r"`similarity` must be one of"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, ties="random"), r"`ties` must be one of"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, memory="lots"), r"`memory` must be a positive number"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, memory=100),
     r"`memory` of 100 bytes is too small: .* the smallest budget that works is"),
    (lambda: top_k(np.zeros((2, 2)), np.ones((3, 2)), 2, similarity="cosine"), r"`user_vectors` has 2 zero vectors"),
    (lambda: top_k(np.full((2, 2), 1e30, np.float32), np.full((3, 2), 1e30, np.float32), 2), r"could overflow float32"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, exclude=pd.DataFrame({"user_id": ["x"], "item_id": ["y"]})),
     r"`exclude`: none of its 1 rows names a known user and item"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, candidates=[0, 9]), r"`candidates` names 1 items with no"),
    (lambda: top_k(np.ones((2, 2)), np.ones((0, 2)), 2), r"no item to rank: `item_vectors` has no rows"),
    (lambda: top_k(np.ones((2, 2)), np.ones((3, 2)), 2, candidates=[]), r"no item to rank: `candidates` names no"),
    (lambda: top_k_scores(lambda u, i: np.ones((len(u), 1)), [1, 2], [1, 2, 3], 2), r"`score` returned a block of shape"),
    (lambda: top_k_scores(lambda u, i: np.full((len(u), len(i)), np.nan), [1, 2], [1, 2, 3], 2),
     r"`score` returned 1 NaN or \+inf scores, e.g. for user 1"),
    (lambda: top_k_scores(lambda u, i: np.where(u[:, None] == 2, np.inf, -np.inf) * np.ones(len(i)), [1, 2],
                          [1, 2, 3], 2), r"`score` returned 3 NaN or \+inf scores, e.g. for user 2"),
    (lambda: top_k_scores(lambda u, i: np.ones((len(u), len(i))), [1, 2], [1, 2, 3], 2, threads="yes"),
     r"`threads` must be True or False, got 'yes'"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_inputs_are_not_mutated():
    users = np.arange(6, dtype=np.float32).reshape(3, 2)
    items = np.arange(8, dtype=np.float32).reshape(4, 2)[::-1]
    exclude = pd.DataFrame({"user_id": [0], "item_id": [1]})
    before = (users.copy(), items.copy(), exclude.copy())
    top_k(users, items, 2, exclude=exclude, similarity="cosine", ties="item_id_desc")
    assert np.array_equal(users, before[0]) and np.array_equal(items, before[1])
    pd.testing.assert_frame_equal(exclude, before[2])


def test_faiss_flat_ip_with_over_fetch():
    faiss = require("faiss")
    rng = np.random.default_rng(8)
    users = rng.standard_normal((200, 16)).astype(np.float32)
    items = rng.standard_normal((3000, 16)).astype(np.float32)
    seen = rng.random((200, 3000)) < 0.02
    rows, cols = np.nonzero(seen)
    k = 20
    ours = top_k(users, items, k, exclude=pd.DataFrame({"user_id": rows, "item_id": cols}))
    index = faiss.IndexFlatIP(16)
    index.add(items)
    fetch = k + int(seen.sum(axis=1).max())
    scores, found = index.search(users, fetch)
    theirs = np.empty((200, k), dtype=np.int64)
    their_scores = np.empty((200, k), dtype=np.float32)
    for u in range(200):  # faiss's own way: over-fetch by the most seen items, then drop the seen ones
        keep = ~seen[u, found[u]]
        theirs[u], their_scores[u] = found[u][keep][:k], scores[u][keep][:k]
    np.testing.assert_allclose(ours.scores, their_scores, rtol=1e-5, atol=1e-5)
    # where two neighbouring scores are closer than the two libraries' rounding, their order is a tie
    gaps = np.diff(their_scores, axis=1)
    clear = np.ones((200, k), dtype=bool)
    clear[:, 1:] &= gaps < -1e-4
    clear[:, :-1] &= gaps < -1e-4
    assert clear.mean() > 0.9
    assert np.array_equal(ours.items[clear], theirs[clear])


PEAK = """
import tracemalloc, numpy as np, pandas as pd
from rankeval.rank import top_k
rng = np.random.default_rng(0)
users = rng.standard_normal((20000, 32)); items = rng.standard_normal((6000, 32))
exclude = pd.DataFrame({"user_id": rng.integers(0, 20000, 200000), "item_id": rng.integers(0, 6000, 200000)})
tracemalloc.start()
result = top_k(users, items, 50, exclude=exclude, memory=BUDGET)
print(tracemalloc.get_traced_memory()[1])
"""


@pytest.mark.parametrize("budget", [48 * 2**20, 96 * 2**20])
def test_peak_memory_holds_the_budget(budget):
    # the dense matrix would be 960 MB; the budget holds within 10% (tracemalloc sees NumPy's allocations)
    out = subprocess.run([sys.executable, "-c", PEAK.replace("BUDGET", str(budget))], capture_output=True,
                         text=True, check=True, cwd=REPO)
    peak = int(out.stdout.split()[-1])
    assert peak <= 1.1 * budget, (peak, budget)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spark_lists_equal_pandas_bit_for_bit(spark, dtype):
    rng = np.random.default_rng(9)
    users = rng.standard_normal((300, 8)).astype(dtype)
    items = rng.standard_normal((500, 8)).astype(dtype)
    user_ids = np.arange(300) * 3
    seen = rng.random((300, 500)) < 0.1
    seen[5] = True  # a user who saw every item: no list
    rows, cols = np.nonzero(seen)
    exclude = pd.DataFrame({"user_id": user_ids[rows], "item_id": cols + 10})
    with pytest.warns(ShortListsWarning, match="1 users have fewer than k=20"):
        local = top_k(users, items, 20, user_ids=user_ids, item_ids=np.arange(500) + 10, exclude=exclude,
                      memory=2_000_000).to_frame()
    from pyspark.sql import types as T
    element = T.FloatType() if dtype == np.float32 else T.DoubleType()
    schema = T.StructType([T.StructField("user_id", T.LongType()), T.StructField("vector", T.ArrayType(element))])
    frame = spark.createDataFrame([(int(u), [float(x) for x in v]) for u, v in zip(user_ids, users)], schema)
    with pytest.warns(ShortListsWarning, match="1 users have fewer than k=20"):
        out = top_k(frame.repartition(3), items, 20, item_ids=np.arange(500) + 10,
                    exclude=spark.createDataFrame(exclude))
    remote = out.toPandas().sort_values(["user_id", "rank"], ignore_index=True)
    out.unpersist()
    assert remote["item_id"].tolist() == local["item_id"].tolist()
    assert remote["user_id"].tolist() == local["user_id"].tolist()
    assert remote["rank"].tolist() == local["rank"].tolist()
    if int(np.__version__.split(".")[0]) >= 2:
        assert np.array_equal(remote["score"].to_numpy(), local["score"].to_numpy())
    else:  # NumPy 1.26's OpenBLAS picks its kernel by the block's shape: a score may move by one ulp
        np.testing.assert_allclose(remote["score"].to_numpy(), local["score"].to_numpy(), rtol=4e-16, atol=0)


@given(st.lists(st.integers(-50, 50), unique=True, max_size=40),
       st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-60, 60), max_size=60),
       st.sampled_from(["int64", "int32", "uint8", "uint64"]))
def test_the_pairs_indexer_of_integer_ids_equals_pandas(ids, values, dtype):
    """The table lookup that codes a training set's integer ids gives pandas' ``get_indexer`` (ids absent,
    negative, far outside the span, unsigned)."""
    from rankeval.rank._inputs import indexer

    info = np.iinfo(dtype)
    values = pd.Series([v for v in values if info.min <= v <= info.max], dtype=dtype)
    index = pd.Index(np.asarray(ids, dtype=np.int64))
    for idx in (index, pd.RangeIndex(len(ids)), pd.RangeIndex(5, 5 + 3 * len(ids), 3)):
        np.testing.assert_array_equal(indexer(idx, values), idx.get_indexer(values))


@given(st.lists(st.tuples(st.integers(-2, 12), st.integers(-2, 9)), max_size=80), st.booleans(),
       st.sampled_from(["range", "shuffled", "text", "string[pyarrow]", "string[python]", "category"]))
def test_the_pairs_of_a_frame_are_each_users_items_in_frame_order(rows, grouped, ids):
    """``pairs_by_user`` (its fast paths: ids that are their own positions, rows already grouped) equals a plain
    loop: each known user's known items, in the frame's order; unknown ids left out."""
    from rankeval.rank._inputs import pairs_by_user

    rows = sorted(rows, key=lambda row: row[0]) if grouped else rows
    text = ids not in ("range", "shuffled")
    users = pd.RangeIndex(10) if ids == "range" else pd.Index(np.arange(10)[::-1]) if ids == "shuffled" else \
        pd.Index([f"u{i}" for i in range(10)])
    positions = pd.RangeIndex(8)
    user_col = [f"u{u}" if text else u for u, _ in rows]
    frame = pd.DataFrame({"user_id": pd.Series(user_col, dtype=(object if ids == "text" else ids) if text else np.int64),
                          "item_id": pd.Series([i for _, i in rows], dtype=np.int64)})
    known = [(users.get_loc(u), i) for u, (_, i) in zip(user_col, rows) if u in users and 0 <= i < 8]
    if rows and not known:
        with pytest.raises(ValueError, match="none of its"):
            pairs_by_user(frame, "exclude", users, positions, "user_id", "item_id")
        return
    pairs = pairs_by_user(frame, "exclude", users, positions, "user_id", "item_id")
    for user in range(10):
        want = [i for u, i in known if u == user]
        start, stop = pairs.starts[user], pairs.starts[user + 1]
        assert pairs.items[start:stop].tolist() == want


@pytest.mark.parametrize("storage", ["object", "string[python]", "string[pyarrow]", "category"])
@pytest.mark.parametrize("grouped", [True, False])
def test_long_text_pairs_are_those_of_their_integer_codes(storage, grouped):
    """A long training set of text ids (factorized, Arrow-hashed, runs looked up once) gives the pairs of the same
    set as integer positions; a few rows name unknown users and items (left out)."""
    from rankeval.rank._inputs import pairs_by_user

    rng = np.random.default_rng(5)
    users, items = rng.integers(0, 3000, 200_000), rng.integers(0, 900, 200_000)
    users[::997], items[::1009] = 3000, 900  # unknown ids
    if grouped:
        order = np.argsort(users, kind="stable")
        users, items = users[order], items[order]
    user_ids, item_ids = pd.Index([f"user {i}" for i in range(3000)]), pd.Index([f"item {i}" for i in range(900)])
    text = pd.DataFrame({"user_id": np.array([f"user {i}" for i in range(3001)], dtype=object)[users],
                         "item_id": np.array([f"item {i}" for i in range(901)], dtype=object)[items]}).astype(storage)
    numbers = pd.DataFrame({"user_id": users, "item_id": items})
    got = pairs_by_user(text, "exclude", user_ids, item_ids, "user_id", "item_id")
    want = pairs_by_user(numbers, "exclude", pd.RangeIndex(3000), pd.RangeIndex(900), "user_id", "item_id")
    assert np.array_equal(got.starts, want.starts) and np.array_equal(got.items, want.items)
    assert got.starts[-1] == ((users < 3000) & (items < 900)).sum()


@pytest.mark.parametrize(("ids", "values"), [
    (["a", "b", "c"], pd.Series([], dtype=object)),
    (["a", "b", "c"], pd.Series(["a", None, "c", "zz", np.nan], dtype=object)),
    (["a", "b", "c"], pd.Series([1, "a", 2.5, "c"], dtype=object)),
    ([1, 2, 3], pd.Series([1, 2, "3", 3.0, None], dtype=object)),
    ([1, 2, 3], pd.Series([1.0, 2.5, np.nan])),
    ([1.5, 2.5], pd.Series([1.5, 2, 2.5])),
    (["a", "b"], pd.Series(["a", "b", None], dtype="string[pyarrow]")),
    (["a", "b"], pd.Series(["a", "b", None], dtype="string[python]")),
    (["a", "b"], pd.Series(["b", "x"], dtype="category")),
    ([10, 20], pd.Series([10, None, 20], dtype="Int64")),
    (["a", "b"], pd.Series([b"a", "b"], dtype=object)),
    (["a", "b", "c"], pd.Series(np.repeat(np.array(["a", "b", "zz", "c"], dtype=object), 20_000))),
])
def test_the_pairs_indexer_of_other_ids_equals_pandas(ids, values):
    """Ids that are not plain integers (text of every storage, missing, mixed, numbers in an object column,
    floats, categoricals, nullable integers, a long column in runs) are coded as pandas' ``get_indexer`` codes
    them: numbers and text never match, ``1.0`` matches ``1``."""
    from rankeval.rank._inputs import indexer

    index = pd.Index(ids)
    np.testing.assert_array_equal(indexer(index, values), index.get_indexer(values))


def test_a_bad_block_on_a_worker_thread_is_raised_naming_its_user():
    require("threadpoolctl")

    def score(u, i):
        block = np.zeros((len(u), len(i)))
        block[u == 2500] = np.nan
        return block

    with mock.patch.object(_top_k, "n_cores", lambda: 2), \
            pytest.raises(ValueError, match=r"`score` returned 2,000 NaN or \+inf scores, e.g. for user 2500"):
        top_k_scores(score, np.arange(3000), np.arange(2000), 10, threads=True, memory=8 * 2**20)
