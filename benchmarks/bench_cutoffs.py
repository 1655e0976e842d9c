"""Metrics at many cutoffs: one pass for ten cutoffs against ten single-cutoff metrics.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids). One ``Split`` is built first (validation and the join are
shared by every metric and not timed). For each metric family the script times, in one
process, alternating, ``--repeats`` times each (the median is reported):

- ``one``: ``EvalModel.from_splits([split], [Metric(10)]).fit()``;
- ``ten separate``: ``[Metric(k) for k in CUTOFFS]``;
- ``one pass``: ``[Metric(CUTOFFS)]`` (``k=[1, 2, 3, 5, 10, 15, 20, 30, 50, 100]``).

Every value of the one-pass run is checked to equal the separate metrics' bit for bit.

    .venv/bin/python benchmarks/bench_cutoffs.py [--users 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from synthetic import make_data  # noqa: E402

CUTOFFS = [1, 2, 3, 5, 10, 15, 20, 30, 50, 100]
FAMILIES = {"NDCG@k": rk.NDCGAtK, "MAP@k": rk.MAPAtK, "MRR@k": rk.MRRAtK, "P@k": rk.PrecisionAtK,
            "R@k": rk.RecallAtK}


def timed(split: rk.Split, metrics: list) -> tuple[float, object]:
    start = time.perf_counter()
    out = rk.EvalModel.from_splits([split], metrics, progress=False).fit()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pred, truth = make_data(args.users)
    split = rk.Split(pred, truth)
    load = os.getloadavg()
    print(f"{args.users} users x 100 listed items, cutoffs {CUTOFFS}; median of {args.repeats} runs; "
          f"load average at start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")
    print("| metric | one cutoff (s) | ten separate (s) | ten in one pass (s) | one pass / one cutoff | "
          "separate / one pass |")
    print("|---|---:|---:|---:|---:|---:|")
    for family, cls in FAMILIES.items():
        timed(split, [cls(10)])  # warm the split's shared caches (head, relevance) for every variant
        one, separate, grouped = [], [], []
        for _ in range(args.repeats):
            one.append(timed(split, [cls(10)])[0])
            t, (sep_sys, sep_users) = timed(split, [cls(k) for k in CUTOFFS])
            separate.append(t)
            t, (grp_sys, grp_users) = timed(split, [cls(CUTOFFS)])
            grouped.append(t)
        for column in sep_users.columns:
            assert np.array_equal(sep_users[column].to_numpy(), grp_users[column].to_numpy(), equal_nan=True), column
        o, s, g = (statistics.median(x) for x in (one, separate, grouped))
        print(f"| {family} | {o:.3f} | {s:.3f} | {g:.3f} | {g / o:.1f}x | {s / g:.1f}x |")
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


if __name__ == "__main__":
    main()
