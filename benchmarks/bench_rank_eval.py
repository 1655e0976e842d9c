"""Evaluating a TopK of rankeval.rank: handed to EvalModel as it is, or through its pred frame.

The lists: ``--users`` users x ``k = 100`` items (10M listed rows at 100,000 users) over a catalog of
26,744 text item ids (``"item123"``), text user ids; the scores descending, the items of a list
distinct (a synthetic TopK: the ranking itself is not timed, it is the same for every method). The
truth: 10 rated items a user, 5 of them from the user's list, scores 1-5. Metrics: NDCG@10,
Recall@100, MRR.

Methods, alternated in one process, ``--repeats`` times each (medians):

- ``topk``: ``EvalModel(lists, truth, metrics).fit()``: the TopK read as codes;
- ``topk_ranked``: the same with ``ties="item_id"``, a tie rule that would reorder tied scores, so
  the TopK's frame carries a rank column (8 bytes a row) that pins each list's order;
- ``to_frame``: ``EvalModel(lists.to_frame(), truth, metrics).fit()``: the pred frame made first (its
  id columns Categoricals over the TopK's ids, the default for text ids), then evaluated;
- ``plain``: ``EvalModel(lists.to_frame(categorical=False), truth, metrics).fit()``: a pred frame of
  the caller's ids, one per row (what writing the lists out and reading them back gives).

The time is the whole call (the frame made, the evaluation built and fitted). Then each method
once under tracemalloc (which sees NumPy's and Python's allocations, not Arrow's memory pool):
the peak memory the call adds to the TopK and the truth.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank_eval.py [--users 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

import rankeval as rk
from rankeval.rank import TopK

K = 100
N_ITEMS = 26_744
METRICS = [rk.NDCGAtK(10), rk.RecallAtK(100), rk.MRR()]


def lists_and_truth(n_users: int, seed: int = 0) -> tuple[TopK, pd.DataFrame]:
    """A synthetic TopK (distinct items a list, scores descending) and a truth half inside the lists."""
    rng = np.random.default_rng(seed)
    first = rng.integers(0, N_ITEMS, size=(n_users, 1))
    items = ((first + np.arange(K) * 7) % N_ITEMS).astype(np.int32)  # 7 and 26,744 coprime: distinct
    scores = -np.sort(-rng.random((n_users, K), dtype=np.float32), axis=1)
    users = pd.Index([f"user{i}" for i in range(n_users)])
    catalog = pd.Index([f"item{i}" for i in range(N_ITEMS)])
    lists = TopK(users, catalog, items, scores, np.full(n_users, K, dtype=np.int64))
    inside = items[np.arange(n_users)[:, None], rng.integers(0, K, size=(n_users, 5))]
    outside = rng.integers(0, N_ITEMS, size=(n_users, 5))
    codes = np.concatenate([inside, outside], axis=1).ravel()
    truth = pd.DataFrame({"user_id": np.repeat(users.to_numpy(), 10), "item_id": catalog.to_numpy()[codes],
                          "score": rng.integers(1, 6, codes.size).astype(np.float64)})
    return lists, truth.drop_duplicates(["user_id", "item_id"], ignore_index=True)


def evaluate(method: str, lists: TopK, truth: pd.DataFrame) -> pd.DataFrame:
    options = {"ties": "item_id"} if method == "topk_ranked" else {}
    if method.startswith("topk"):
        pred = lists
    else:
        pred = lists.to_frame(categorical=None if method == "to_frame" else False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return rk.EvalModel(pred, truth, METRICS, **options).fit()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lists, truth = lists_and_truth(args.users)
    print(f"{args.users:,} users x k={K}: {len(lists):,} listed rows, {N_ITEMS:,} text item ids; "
          f"truth {len(truth):,} rows; load {os.getloadavg()}")
    methods = ["topk", "topk_ranked", "to_frame", "plain"]
    times: dict[str, list[float]] = {m: [] for m in methods}
    results = {}
    for _ in range(args.repeats):
        for method in methods:
            gc.collect()
            start = time.perf_counter()
            results[method] = evaluate(method, lists, truth)
            times[method].append(time.perf_counter() - start)
    for method in methods[1:]:
        pd.testing.assert_frame_equal(results[method], results["topk"], check_exact=True)
    print("system values equal to the bit:", results["topk"].loc["mean"].to_dict())
    for method in methods:
        gc.collect()
        tracemalloc.start()
        evaluate(method, lists, truth)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        runs = ", ".join(f"{t:.2f}" for t in times[method])
        print(f"{method:11s} median {statistics.median(times[method]):6.2f} s (runs {runs}); "
              f"peak extra memory {peak / 2**20:7.1f} MiB")
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
