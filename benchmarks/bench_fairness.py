"""Fairness and popularity-bias metrics at scale: the cost of each next to NDCG@10's.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids); ``train`` is a second draw of the same generator (20
interactions per user, another seed); ``item_groups`` puts every item id the generator can
make (49,999) in one of 10 providers (``p{i % 10}``), and the users in 10 user groups (UserMAD). One ``Split`` with that side data is
built first (not timed: the join and the side data's validation are shared by every
metric). Each metric is then timed alone, ``EvalModel.from_splits([split], [metric]).fit()``:
the first run (which also builds what the split caches for every later metric: the short
head, the truth rows' groups) and the median of ``--repeats`` runs.

    .venv/bin/python benchmarks/bench_fairness.py [--users 1000000] [--repeats 3] [--only ItemMAD]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from synthetic import N_ITEMS, make_data  # noqa: E402

METRICS = {
    "NDCG@10 (reference)": lambda: rk.NDCGAtK(10),
    "ACLT@10": lambda: rk.ACLT(10),
    "PopRSP@10": lambda: rk.PopRSP(10),
    "PopREO@10": lambda: rk.PopREO(10),
    "RSP@10 (10 groups)": lambda: rk.RSP(10),
    "REO@10 (10 groups)": lambda: rk.REO(10),
    "BiasDisparity@10 (one cell)": lambda: rk.BiasDisparity("p0", 10),
    "ItemMAD@10 (10 groups)": lambda: rk.ItemMAD(10),
    "ItemMAD@10 (10 groups, score gains)": lambda: rk.ItemMAD(10, gains="score"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, metavar="TEXT",
                        help="time only the metrics whose label contains TEXT (NDCG@10 is always timed)")
    args = parser.parse_args()
    start = time.perf_counter()
    pred, truth = make_data(args.users)
    train, _ = make_data(args.users, list_len=20, n_truth=2, seed=1)
    items = np.array([f"i{i:06d}" for i in range(N_ITEMS)], dtype=object)
    groups = pd.Series([f"p{i % 10}" for i in range(N_ITEMS)], index=items)
    users = pd.unique(pred["user_id"])
    user_groups = pd.Series([f"g{i % 10}" for i in range(len(users))], index=users)
    METRICS["UserMAD[NDCG@10] (10 user groups)"] = lambda: rk.UserMAD(user_groups)
    made = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        split = rk.Split(pred, truth, train=train[["user_id", "item_id"]], item_groups=groups)
    joined = time.perf_counter() - start
    load = os.getloadavg()
    print(f"{args.users:,} users x 100 listed items ({len(pred):,} rows), train {len(train):,} rows, "
          f"{N_ITEMS:,} items in 10 groups; data {made:.1f} s, Split with side data {joined:.1f} s; "
          f"first run and median of {args.repeats}; load average at start {load[0]:.2f}, {load[1]:.2f}, "
          f"{load[2]:.2f}")
    print("| metric | first run (s) | median (s) | x NDCG@10 (median) | system value |")
    print("|---|---:|---:|---:|---:|")
    reference = None
    for label, make in METRICS.items():
        if args.only is not None and reference is not None and args.only not in label:
            continue
        times, value = [], None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rk.RankevalWarning)
            for _ in range(args.repeats + 1):
                metric = make()
                t0 = time.perf_counter()
                sys_result, _ = rk.EvalModel.from_splits([split], [metric], progress=False).fit()
                times.append(time.perf_counter() - t0)
                value = float(sys_result.iloc[0, 0])
        seconds = statistics.median(times[1:])
        reference = seconds if reference is None else reference
        print(f"| {label} | {times[0]:.2f} | {seconds:.2f} | {seconds / reference:.1f} | {value:.6g} |")
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


if __name__ == "__main__":
    main()
