"""The protocol checks an evaluation with ``train`` runs, next to NDCG@10, in one process.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids), ``train`` a second draw (20 interactions per user). One
``Split`` with ``train`` is built (not timed). Then, ``--repeats`` times alternated:

- **checks**: the three counts an evaluation warns about (seen items recommended, overlap,
  cold users) from the split's codes, with the split's kept counts cleared first (a
  ``fit()`` of a new split pays this once);
- **NDCG@10**: ``EvalModel.from_splits([split], [NDCGAtK(10)]).fit()`` (its checks kept);
- with ``--audit-coding``: ``rankeval.split.cheap_checks`` on the frames (the audit's own
  coding of every row, which evaluations used before), once, and both counts compared.

    .venv/bin/python benchmarks/bench_protocol_checks.py [--users 1000000] [--repeats 3] [--audit-coding]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from rankeval.split import cheap_checks  # noqa: E402
from rankeval.split._split_checks import split_cheap_counts  # noqa: E402
from synthetic import make_data  # noqa: E402

CHECKS = ("seen", "overlap", "cold")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--audit-coding", action="store_true", help="also time cheap_checks on the frames")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    pred, truth = make_data(args.users)
    train, _ = make_data(args.users, list_len=20, n_truth=2, seed=1)
    made = time.perf_counter() - start
    start = time.perf_counter()
    split = rk.Split(pred, truth, train=train)
    built = time.perf_counter() - start
    print(f"{args.users:,} users, {len(pred):,} listed rows, {len(truth):,} truth rows, {len(train):,} train rows; "
          f"data {made:.1f} s, Split {built:.1f} s; load average {os.getloadavg()[0]:.1f}", flush=True)
    cache = split.ranked_lists().split_cache
    checks, ndcg = [], []
    for _ in range(args.repeats):
        for key in [k for k in cache if str(k).startswith("protocol check")]:
            del cache[key]
        cache["side"] = type(cache["side"])(cache["side"].side, split.ranked_lists())  # its training pairs by user
        start = time.perf_counter()
        counts = split_cheap_counts(split, CHECKS)
        checks.append(time.perf_counter() - start)
        start = time.perf_counter()
        rk.EvalModel.from_splits([split], [rk.NDCGAtK(10)]).fit()
        ndcg.append(time.perf_counter() - start)
        print(f"checks {checks[-1]:.2f} s, NDCG@10 {ndcg[-1]:.2f} s", flush=True)
    print(f"medians: checks {statistics.median(checks):.2f} s, NDCG@10 {statistics.median(ndcg):.2f} s, "
          f"ratio {statistics.median(checks) / statistics.median(ndcg):.2f}; counts {counts}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.audit_coding:
        start = time.perf_counter()
        audit_counts = cheap_checks(train, truth, pred)
        print(f"cheap_checks on the frames: {time.perf_counter() - start:.2f} s; equal counts: "
              f"{audit_counts == counts}")


if __name__ == "__main__":
    main()
