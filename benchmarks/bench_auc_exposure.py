"""The AUC family, LogLoss and ExposureGini at scale: the cost of each next to NDCG@10's.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings 1-5 per user, string ids, distinct scores). Relevant = rating >= 4. One ``Split`` is
built first (not timed: the join is shared by every metric); LogLoss reads the same lists
with their scores divided by 1.01 (in [0, 1]) in a second Split (not timed either). Each
metric is then timed alone, ``EvalModel.from_splits([split], [metric]).fit()``, median of
``--repeats`` runs.

    .venv/bin/python benchmarks/bench_auc_exposure.py [--users 1000000] [--repeats 3]
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
from synthetic import make_data  # noqa: E402

METRICS = {
    "NDCG@10 (reference)": (lambda: rk.NDCGAtK(10), "split"),
    "NDCG (whole lists, reads all 100 rows as AUC does)": (lambda: rk.NDCG(), "split"),
    "AUC": (lambda: rk.AUC(relevant_threshold=4), "split"),
    "AUC@10": (lambda: rk.AUC(10, relevant_threshold=4), "split"),
    "GAUC": (lambda: rk.GAUC(relevant_threshold=4), "split"),
    "LAUC@10": (lambda: rk.LAUC(10, relevant_threshold=4), "split"),
    "LogLoss": (lambda: rk.LogLoss(relevant_threshold=4), "probabilities"),
    "ExposureGini@10": (lambda: rk.ExposureGini(10), "split"),
    "ExposureGini (whole lists)": (lambda: rk.ExposureGini(), "split"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    pred, truth = make_data(args.users)
    made = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        splits = {"split": rk.Split(pred, truth),
                  "probabilities": rk.Split(pred.assign(score=pred["score"] / 1.01), truth)}
    joined = time.perf_counter() - start
    load = os.getloadavg()
    print(f"{args.users:,} users x 100 listed items ({len(pred):,} rows), 20 ratings each; data {made:.1f} s, "
          f"two Splits {joined:.1f} s; median of {args.repeats}; load average at start "
          f"{load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")
    print("| metric | seconds | x NDCG@10 | system value |")
    print("|---|---:|---:|---:|")
    reference = None
    for label, (make, which) in METRICS.items():
        times, value = [], None
        for _ in range(args.repeats):
            metric = make()
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rk.RankevalWarning)
                sys_result, _ = rk.EvalModel.from_splits([splits[which]], [metric], progress=False).fit()
            times.append(time.perf_counter() - t0)
            value = float(sys_result.iloc[0, 0])
        seconds = statistics.median(times)
        reference = seconds if reference is None else reference
        print(f"| {label} | {seconds:.2f} | {seconds / reference:.1f} | {value:.6g} |", flush=True)
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


if __name__ == "__main__":
    main()
