"""Cost of the join vs the metrics in EvalModel: 1, 5 and 10 metrics on one split.

Each metric count runs in the same process on the same seeded data (benchmarks/synthetic.py,
string ids, 100 recommendations and 20 ratings per user). Reported: the median over
``--reps`` runs of the Split construction (validation + the one join) and of
``EvalModel.fit()`` minus that join (all metrics plus result frames).

    .venv/bin/python benchmarks/bench_evalmodel.py --users 100000 --reps 3
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from synthetic import make_data  # noqa: E402

TEN = [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRRAtK(10), rk.PrecisionAtK(10), rk.RecallAtK(10),
       rk.HitRateAtK(10), rk.NDCG(), rk.MAP(), rk.DCGAtK(10), rk.Correlation("pearson", top_n=10)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    pred, truth = make_data(args.users)
    rk.Split(pred, truth)  # warm-up: string hashes are cached on first use
    rows = []
    for n in (1, 5, 10):
        joins, fits = [], []
        for _ in range(args.reps):
            gc.collect()
            t0 = time.perf_counter()
            model = rk.EvalModel(pred, truth, TEN[:n], progress=False)  # builds the split: the join
            t1 = time.perf_counter()
            model.fit()
            t2 = time.perf_counter()
            joins.append(t1 - t0)
            fits.append(t2 - t1)
        join, fit = statistics.median(joins), statistics.median(fits)
        rows.append((n, join, fit, fit / join))
    print(f"{args.users} users x 100 recommendations, {len(truth)} ratings; median of {args.reps} runs\n")
    print("| metrics | join (Split) s | metrics + frames s | metrics / join |")
    print("|---:|---:|---:|---:|")
    for n, join, fit, ratio in rows:
        print(f"| {n} | {join:.3f} | {fit:.3f} | {ratio:.2f} |")
    print("\nmetrics:", ", ".join(str(m) for m in TEN))


if __name__ == "__main__":
    main()
