"""Calibration, serendipity, unexpectedness and surprisal at scale: the cost of each next to NDCG@10's.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids); ``train`` is a second draw of the same generator (20
interactions per user, another seed), the catalog every item id the generator can make
(49,999), ``item_features`` 32 seeded normal dimensions per catalog item (for the
feature similarity) and, for calibration, 1-3 of 18 genres per item; the baseline of
Unexpectedness is a second draw of the lists (another seed). One ``Split``
with that side data is built first (not timed: the join and the side data's validation
are shared by every metric). Each metric is then timed alone, ``EvalModel.from_splits(
[split], [metric]).fit()``, median of ``--repeats`` runs.

    .venv/bin/python benchmarks/bench_calibration.py [--users 1000000] [--repeats 3] [--skip-cooccurrence]
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

BASELINE: list[pd.DataFrame] = []
METRICS = {
    "NDCG@10 (reference)": lambda: rk.NDCGAtK(10),
    "Miscalibration@10 (genres)": lambda: rk.Miscalibration(10),
    "Surprisal@10": lambda: rk.Surprisal(10),
    "Unexpectedness@10": lambda: rk.Unexpectedness(10, baseline=BASELINE[0]),
    "Serendipity@10 (features, 32-dim)": lambda: rk.Serendipity(10, similarity="features"),
    "Serendipity@10 (co-occurrence)": lambda: rk.Serendipity(10),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-cooccurrence", action="store_true")
    args = parser.parse_args()
    if args.skip_cooccurrence:
        METRICS.pop("Serendipity@10 (co-occurrence)")
    start = time.perf_counter()
    pred, truth = make_data(args.users)
    train, _ = make_data(args.users, list_len=20, n_truth=2, seed=1)
    items = np.array([f"i{i:06d}" for i in range(N_ITEMS)], dtype=object)
    features = pd.DataFrame(np.random.default_rng(2).normal(size=(N_ITEMS, 32)), index=items,
                            columns=[f"f{j}" for j in range(32)])
    rng = np.random.default_rng(3)
    genre_names = [f"g{j:02d}" for j in range(18)]
    genres = pd.DataFrame({"genres": [set(rng.choice(genre_names, size=int(rng.integers(1, 4)), replace=False))
                                      for _ in range(N_ITEMS)]}, index=items)
    BASELINE.append(make_data(args.users, seed=4)[0])
    made = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        split = rk.Split(pred, truth, train=train[["user_id", "item_id"]], catalog=items, item_features=features)
        genre_split = rk.Split(pred, truth, train=train[["user_id", "item_id"]], catalog=items, item_features=genres)
    joined = time.perf_counter() - start
    load = os.getloadavg()
    print(f"{args.users:,} users x 100 listed items ({len(pred):,} rows), train {len(train):,} rows, "
          f"catalog {N_ITEMS:,} items x 32 features; data {made:.1f} s, Split with side data {joined:.1f} s; "
          f"median of {args.repeats}; load average at start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")
    print("| metric | seconds | x NDCG@10 | system value |")
    print("|---|---:|---:|---:|")
    reference = None
    for label, make in METRICS.items():
        times, value = [], None
        for _ in range(args.repeats):
            metric = make()
            t0 = time.perf_counter()
            on = genre_split if "genres" in label else split
            sys_result, _ = rk.EvalModel.from_splits([on], [metric], progress=False).fit()
            times.append(time.perf_counter() - t0)
            value = float(sys_result.iloc[0, 0])
        seconds = statistics.median(times)
        reference = seconds if reference is None else reference
        print(f"| {label} | {seconds:.2f} | {seconds / reference:.1f} | {value:.6g} |")
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


if __name__ == "__main__":
    main()
