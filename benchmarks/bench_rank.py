"""rankeval.rank on an ML-20M-sized problem, side by side with the matrix products alone, faiss and RecBole's scheme.

The problem: ``--users`` users x ``--items`` items (ML-20M: 138,493 x 26,744), ``d = 64``
float32 vectors (standard normal), ``k = 100``, each user's training items excluded. The
training set is synthetic with ML-20M's shape: at least 20 items a user, a long tail (20 +
a log-normal, mean about 144, at most 9,254), items drawn with a popularity skew; repeated
pairs dropped.

On the first ``--slice`` users (all of them by default), alternating, ``--repeats`` times
each (the median is reported):

- ``products``: the matrix products alone, numpy's BLAS on the same blocks as rankeval
  (the block plan rankeval picks), into one reused buffer: the physical limit;
- ``rankeval``: ``rankeval.rank.top_k(..., exclude=train, memory="1GiB")``;
- ``faiss``: faiss-cpu ``IndexFlatIP`` (exact), each batch of 4,096 users searched for
  ``k`` + the batch's most training items, the seen ones then filtered out (vectorized);
- ``recbole``: RecBole's full-sort scheme emulated in numpy: batches of
  ``max(eval_batch_size // n_items, 1)`` users (``--eval-batch-size``, RecBole's default
  4,096 gives one user a batch), a dense users x items score matrix, the history set to
  ``-inf``, then ``torch.topk``'s selection (``argpartition`` then a sort of the ``k``).

faiss and recbole run on ``--slow-slice`` users (their time is scaled to ``--slice``
users), as they take minutes on the full problem. Every method's lists are checked equal
to rankeval's where scores are not within 1e-4 of a neighbour. The peak memory rankeval
adds is measured with tracemalloc on its own run (the inputs excluded).

With ``--id-kinds``, only rankeval runs, once per kind of ids given (alternating, the median
reported): ``positions`` (no ids given: the rows' positions), ``int64`` (sparse integers, not
``0, 1, ...``), ``object`` (Python ``str`` in an object column), ``str-python`` and
``str-pyarrow`` (pandas' ``str`` dtype with either storage) and ``polars`` (a polars frame of
``pl.String`` columns): the ranking is the same, the coding of the ids and of the 18.4M
training pairs is what differs.

With ``--score-function``, only ``top_k_scores`` runs, on a scoring function that computes the
same dot products (``users[u] @ items[i].T``, NumPy), alternately with ``threads=False`` (its
default: the blocks one after the other) and ``threads=True`` (a thread per core), the
lists checked equal to ``top_k``'s.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank.py [--slice 138493] [--slow-slice 8192] [--repeats 3]
    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank.py --score-function
    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank.py --id-kinds positions int64 object str-pyarrow polars
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from typing import Any

import numpy as np
import pandas as pd

from rankeval.rank import top_k, top_k_scores
from rankeval.rank._plan import plan_blocks

K = 100
D = 64


def training_set(n_users: int, n_items: int, rng: np.random.Generator) -> pd.DataFrame:
    """ML-20M-shaped training pairs: >= 20 items a user, a log-normal tail, popular items drawn more."""
    counts = np.minimum(20 + rng.lognormal(np.log(48), 1.36, n_users).astype(np.int64), 9254)
    users = np.repeat(np.arange(n_users), counts)
    items = (n_items * rng.random(users.size) ** 2.5).astype(np.int64)
    frame = pd.DataFrame({"user_id": users, "item_id": items}).drop_duplicates()
    return frame.reset_index(drop=True)


def products(users: np.ndarray, items: np.ndarray, rows: int) -> None:
    """The matrix products of rankeval's blocks, nothing else."""
    block = np.empty((rows, len(items)), dtype=users.dtype)
    for first in range(0, len(users), rows):
        part = users[first:first + rows]
        np.matmul(part, items.T, out=block[:len(part)])


def ours(users: np.ndarray, items: np.ndarray, train: pd.DataFrame) -> np.ndarray:
    return top_k(users, items, K, exclude=train, memory="1GiB").items


def seen_mask(found: np.ndarray, first: int, starts: np.ndarray, seen_items: np.ndarray, n_items: int) -> np.ndarray:
    """Which found (user, item) pairs are training pairs: sorted pair keys, searched."""
    rows = np.arange(found.shape[0])[:, None] + first
    keys = rows.astype(np.int64) * n_items + found
    lo, hi = starts[first], starts[first + found.shape[0]]
    train_keys = np.repeat(np.arange(first, first + found.shape[0]), np.diff(starts[first:first + found.shape[0] + 1]))
    train_keys = np.sort(train_keys.astype(np.int64) * n_items + seen_items[lo:hi])
    at = np.minimum(np.searchsorted(train_keys, keys), max(len(train_keys) - 1, 0))
    return (train_keys[at] == keys) if len(train_keys) else np.zeros(found.shape, dtype=bool)


def first_k(scores: np.ndarray, found: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """Each row's first ``K`` kept items (rows keep their order)."""
    keep = ~drop
    slot = np.cumsum(keep, axis=1) - 1
    out = np.full((found.shape[0], K), -1)
    rows, cols = np.nonzero(keep & (slot < K))
    out[rows, slot[rows, cols]] = found[rows, cols]
    return out


def faiss_lists(users: np.ndarray, items: np.ndarray, starts: np.ndarray, seen_items: np.ndarray) -> np.ndarray:
    import faiss

    index = faiss.IndexFlatIP(items.shape[1])
    index.add(items)
    out = []
    for first in range(0, len(users), 4096):
        part = users[first:first + 4096]
        fetch = K + int(np.diff(starts[first:first + len(part) + 1]).max())
        scores, found = index.search(part, min(fetch, len(items)))
        out.append(first_k(scores, found, seen_mask(found, first, starts, seen_items, len(items))))
    return np.concatenate(out)


def recbole_lists(users: np.ndarray, items: np.ndarray, starts: np.ndarray, seen_items: np.ndarray,
                  eval_batch_size: int) -> np.ndarray:
    batch = max(eval_batch_size // len(items), 1)
    out = np.empty((len(users), K), dtype=np.int64)
    for first in range(0, len(users), batch):
        part = users[first:first + batch]
        scores = part @ items.T
        lo, hi = starts[first], starts[first + len(part)]
        rows = np.repeat(np.arange(len(part)), np.diff(starts[first:first + len(part) + 1]))
        scores[rows, seen_items[lo:hi]] = -np.inf
        best = np.argpartition(scores, len(items) - K, axis=1)[:, len(items) - K:]
        order = np.argsort(-np.take_along_axis(scores, best, axis=1), axis=1, kind="stable")
        out[first:first + len(part)] = np.take_along_axis(best, order, axis=1)
    return out


ID_KINDS = ("positions", "int64", "object", "str-python", "str-pyarrow", "polars")


def with_ids(kind: str, n_users: int, n_items: int, train: pd.DataFrame) -> tuple[Any, Any, Any]:
    """``user_ids``, ``item_ids`` and the training pairs with ids of ``kind`` (see the module's docstring)."""
    if kind == "positions":
        return None, None, train
    if kind == "int64":  # sparse: a lookup table would not span them densely
        user_ids, item_ids = np.arange(n_users) * 1_000_003 + 17, np.arange(n_items) * 7_919 + 5
    else:
        user_ids = np.array([f"user{i}" for i in range(n_users)], dtype=object)
        item_ids = np.array([f"item{i}" for i in range(n_items)], dtype=object)
    frame = pd.DataFrame({"user_id": user_ids[train["user_id"].to_numpy()],
                          "item_id": item_ids[train["item_id"].to_numpy()]})
    if kind in ("str-python", "str-pyarrow"):
        frame = frame.astype(pd.StringDtype(kind.split("-")[1]))
    elif kind == "polars":
        import polars as pl
        frame = pl.from_pandas(frame)
    elif kind == "object":
        frame = frame.astype(object)
    return user_ids, item_ids, frame


def time_id_kinds(kinds: list[str], users: np.ndarray, items: np.ndarray, train: pd.DataFrame, repeats: int) -> None:
    """rankeval's time with ids of each kind (the same lists every time)."""
    inputs = {kind: with_ids(kind, len(users), len(items), train) for kind in kinds}
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    first = None
    for _ in range(repeats):
        for kind, (user_ids, item_ids, frame) in inputs.items():
            t0 = time.perf_counter()
            lists = top_k(users, items, K, user_ids=user_ids, item_ids=item_ids, exclude=frame, memory="1GiB")
            times[kind].append(time.perf_counter() - t0)
            first = lists.items if first is None else first
            assert np.array_equal(lists.items, first), kind
    base = statistics.median(times[kinds[0]])
    for kind, t in times.items():
        print(f"{kind:12s} {statistics.median(t):6.2f} s  {statistics.median(t) - base:+6.2f} s against {kinds[0]}"
              "   runs: " + ", ".join(f"{x:.2f}" for x in t))


def time_score_function(users: np.ndarray, items: np.ndarray, train: pd.DataFrame, repeats: int) -> None:
    """``top_k_scores`` on one thread and on a thread per core, a NumPy scoring function."""
    def score(u: np.ndarray, i: np.ndarray) -> np.ndarray:
        return users[u] @ items[i].T

    ids = (np.arange(len(users)), np.arange(len(items)))
    times: dict[bool, list[float]] = {False: [], True: []}
    reference = top_k(users, items, K, exclude=train, memory="1GiB").items
    for _ in range(repeats):
        for threads in times:
            t0 = time.perf_counter()
            lists = top_k_scores(score, *ids, K, exclude=train, memory="1GiB", threads=threads)
            times[threads].append(time.perf_counter() - t0)
            assert np.array_equal(lists.items, reference), threads
    for threads, t in times.items():
        print(f"top_k_scores threads={threads!s:5s} {statistics.median(t):6.2f} s   runs: "
              + ", ".join(f"{x:.2f}" for x in t))


def agree(a: np.ndarray, b: np.ndarray, scores: np.ndarray) -> float:
    """Share of list places where two methods agree, among places with no near-tie."""
    gaps = np.abs(np.diff(scores, axis=1)) > 1e-4
    clear = np.ones(scores.shape, dtype=bool)
    clear[:, 1:] &= gaps
    clear[:, :-1] &= gaps
    return float((a[clear] == b[clear]).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=138_493)
    parser.add_argument("--items", type=int, default=26_744)
    parser.add_argument("--slice", type=int, default=None, help="users timed for products and rankeval")
    parser.add_argument("--slow-slice", type=int, default=8192, help="users timed for faiss and recbole")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eval-batch-size", type=int, default=4096)
    parser.add_argument("--id-kinds", nargs="+", choices=ID_KINDS, help="time rankeval alone with these ids")
    parser.add_argument("--score-function", action="store_true", help="time top_k_scores, threads off and on")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    users = rng.standard_normal((args.users, D)).astype(np.float32)
    items = rng.standard_normal((args.items, D)).astype(np.float32)
    train = training_set(args.users, args.items, rng)
    n = args.slice or args.users
    users, train = users[:n], train[train["user_id"] < n]
    counts = np.bincount(train["user_id"].to_numpy(), minlength=n)
    starts = np.r_[0, np.cumsum(counts)]
    seen_items = train["item_id"].to_numpy()  # sorted by user already (drawn user by user)
    print(f"{n:,} users x {args.items:,} items, d={D}, k={K}; {len(train):,} training pairs "
          f"(mean {counts.mean():.0f}, median {np.median(counts):.0f}, max {counts.max():,} a user)")
    plan = plan_blocks(n, args.items, K, 4, budget=2**30, fixed=0, extra_per_cell=0, most_pairs=int(counts.max()))
    print(f"block: {plan.rows} users x {plan.items:,} items")
    if args.id_kinds:
        time_id_kinds(args.id_kinds, users, items, train, args.repeats)
        return
    if args.score_function:
        time_score_function(users, items, train, args.repeats)
        return

    tracemalloc.start()
    reference = top_k(users, items, K, exclude=train, memory="1GiB")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"rankeval peak extra memory (tracemalloc): {peak / 2**20:.0f} MiB; the dense matrix: "
          f"{n * args.items * 4 / 1e9:.1f} GB")

    slow = min(args.slow_slice, n)
    runs = {"products": lambda: products(users, items, plan.rows),
            "rankeval": lambda: ours(users, items, train)}
    slow_runs = {"faiss": lambda: faiss_lists(users[:slow], items, starts, seen_items),
                 "recbole": lambda: recbole_lists(users[:slow], items, starts, seen_items, args.eval_batch_size)}
    times: dict[str, list[float]] = {name: [] for name in [*runs, *slow_runs]}
    lists = {}
    for _ in range(args.repeats):
        for name, fn in [*runs.items(), *slow_runs.items()]:
            t0 = time.perf_counter()
            lists[name] = fn()
            times[name].append(time.perf_counter() - t0)
    scores = reference.scores[:slow]
    for name in slow_runs:
        print(f"{name} agrees with rankeval at {agree(lists[name], reference.items[:slow], scores):.4%} of "
              f"the places with no near-tie")
    median = {name: statistics.median(t) * (n / slow if name in slow_runs else 1) for name, t in times.items()}
    base = median["rankeval"]
    for name, t in median.items():
        scaled = " (scaled from {:,} users)".format(slow) if name in slow_runs else ""
        print(f"{name:9s} {t:8.2f} s{scaled}   {t / base:5.2f}x rankeval's time   runs: "
              + ", ".join(f"{x:.2f}" for x in times[name]))


if __name__ == "__main__":
    main()
