"""Sampled-candidate estimates: their cost next to the naive metric, and the table construction.

Lists: ``--users`` users, each with 1 positive and 100 negatives (integer ids, distinct
random scores), one ``Split`` built first (validation and the join are shared by every
metric and not timed; the caches the metrics fill are cleared before every run). For HR@10 and NDCG@10, the script times, alternating, ``--repeats``
times each (the median is reported):

- ``naive metric``: ``EvalModel.from_splits([split], [metric]).fit()``;
- ``corrected``: the same with ``SampledMetric(metric, design, "bias_variance")``;

with one ``n_items`` for every user (the table is built once before timing) and with a
per-user ``n_items`` (200 distinct values; tables built before timing). Then the time of
one bias-variance table (NDCG@10, and MRR, whose sum runs over every rank) for ``n_items``
in 1e4..1e6 and ``n_negatives`` in 100, 1000 (every cache cleared, best of 3 runs). The
process's peak resident memory is printed after each stage.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_sampled.py [--users 1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

import numpy as np
import pandas as pd

import rankeval as rk
from rankeval.metrics.sampled import RankValue, estimator_table
from rankeval.metrics.sampled import _tables
from rankeval.sampled import SampledCandidates, SampledMetric

M = 100
# the tables are timed as computed, not as read back from the disk cache
os.environ["RANKEVAL_NO_CACHE"] = "1"


def make_split(n_users: int) -> rk.Split:
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(n_users), M + 1)
    items = (np.arange(n_users * (M + 1)) % (M + 1)).astype(np.int64) + 1
    scores = rng.random(n_users * (M + 1))
    pred = pd.DataFrame({"user_id": users, "item_id": items, "score": scores})
    truth = pd.DataFrame({"user_id": np.arange(n_users), "item_id": rng.integers(1, M + 2, n_users),
                          "score": 1.0})
    print(f"data made: {peak()}")
    # one judged row in M + 1 is the design: the split is told, so it does not warn of a low overlap
    return rk.Split(pred, truth, sampled_candidates=True)


def peak() -> str:
    return f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GiB"


def timed(split: rk.Split, metrics: list) -> float:
    # every run starts from the bare join: positions, head views and the sampled ranks are
    # recomputed, as on a fresh split
    split.ranked_lists().rows_cache.clear()
    start = time.perf_counter()
    rk.EvalModel.from_splits([split], metrics, progress=False).fit()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    split = make_split(args.users)
    split.ranked_lists()
    print(f"{args.users} users x {M + 1} rows: data + split + join {time.perf_counter() - start:.1f} s, {peak()}")
    per_user = pd.Series(np.random.default_rng(1).integers(10_000, 10_200, args.users))
    for design_name, design in (("one n_items", SampledCandidates(1_000_000, M)),
                                ("per-user n_items", SampledCandidates(per_user, M))):
        for metric in (rk.HitRateAtK(10), rk.NDCGAtK(10)):
            corrected = SampledMetric(metric, design)
            timed(split, [corrected])  # builds (and caches) the tables
            naive, fixed = [], []
            for _ in range(args.repeats):
                naive.append(timed(split, [metric]))
                fixed.append(timed(split, [corrected]))
            a, b = statistics.median(naive), statistics.median(fixed)
            print(f"{design_name:17s} {metric!s:8s} naive {a:6.2f} s  corrected {b:6.2f} s  ratio {b / a:4.2f}  "
                  f"(runs: naive {' '.join(f'{t:.2f}' for t in naive)}; corrected {' '.join(f'{t:.2f}' for t in fixed)})")
    print(f"after the metrics: {peak()}")
    for m in (100, 1000):
        for n in (3 * (m + 1) - 1, 3 * (m + 1), 10_000, 100_000, 1_000_000):
            for name, value in (("NDCG@10", RankValue("dcg", 10)), ("MRR", RankValue("rr", None))):
                runs = []
                for _ in range(3):
                    for cached in (estimator_table, _tables.gram_terms, _tables._chebyshev_quadrature):
                        cached.cache_clear()
                    start = time.perf_counter()
                    estimator_table(n, m, value, "bias_variance", 0.1)
                    runs.append(time.perf_counter() - start)
                print(f"table {name:7s} n_items={n:>9,} n_negatives={m:>5}: {min(runs):.3f} s (best of 3)")


if __name__ == "__main__":
    main()
