"""Every metric of the AUC, fairness, exposure, calibration and serendipity families at scale, next to NDCG@10.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings 1-5 per user, string ids, distinct scores, relevant = rating >= 4), the scores
divided by 1.01 so that LogLoss can read them as probabilities (the order, hence every
other metric, is unchanged). ``train`` is a second draw of the generator (20 interactions
per user, another seed); the catalog every item id the generator can make (49,999);
``item_features`` 1-3 of 18 genres per item (category sets: Miscalibration's genres and
feature Serendipity's cosine of 0/1 vectors); ``item_groups`` the items in 10 providers;
10 user groups for UserMAD; the baseline of Unexpectedness the first 10 items of a second
draw of the lists. One ``Split`` holds all of it and is built first (not timed).

Each metric is then timed alone, ``EvalModel.from_splits([split], [metric]).fit()``: a
first run (which fills the split's caches: the side data coded once, the users'
histories) and the median of ``--repeats`` further runs. The protocol check that an
evaluation with ``train`` runs (the same for every metric of the split) is switched off
in these runs and timed once on its own (`benchmarks/bench_protocol_checks.py` times it alone).

    .venv/bin/python benchmarks/bench_new_metrics.py [--users 1000000] [--repeats 3] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
import rankeval.engines._local as local_engine  # noqa: E402
from rankeval.engines._checks import protocol_findings  # noqa: E402
from synthetic import N_ITEMS, make_data  # noqa: E402


def metrics(user_groups: pd.Series, baseline: pd.DataFrame) -> dict[str, Callable[[], rk.RankingMetric]]:
    t = 4
    return {
        "NDCG@10 (reference)": lambda: rk.NDCGAtK(10),
        "NDCG (whole lists)": lambda: rk.NDCG(),
        "AUC (whole lists)": lambda: rk.AUC(relevant_threshold=t),
        "AUC@10": lambda: rk.AUC(10, relevant_threshold=t),
        "GAUC (whole lists)": lambda: rk.GAUC(relevant_threshold=t),
        "LAUC@10 (reads the whole list)": lambda: rk.LAUC(10, relevant_threshold=t),
        "LogLoss": lambda: rk.LogLoss(relevant_threshold=t),
        "ExposureGini@10": lambda: rk.ExposureGini(10),
        "ExposureGini (whole lists)": lambda: rk.ExposureGini(),
        "ACLT@10": lambda: rk.ACLT(10),
        "PopREO@10": lambda: rk.PopREO(10, relevant_threshold=t),
        "PopRSP@10": lambda: rk.PopRSP(10),
        "REO@10 (10 groups)": lambda: rk.REO(10, relevant_threshold=t),
        "RSP@10 (10 groups)": lambda: rk.RSP(10),
        "UserMAD[NDCG@10] (10 user groups)": lambda: rk.UserMAD(user_groups),
        "BiasDisparity@10 (one cell)": lambda: rk.BiasDisparity("p0", 10),
        "Miscalibration@10 (18 genres)": lambda: rk.Miscalibration(10),
        "Surprisal@10": lambda: rk.Surprisal(10),
        "Unexpectedness@10": lambda: rk.Unexpectedness(10, baseline=baseline),
        "Serendipity@10 (features: genres)": lambda: rk.Serendipity(10, similarity="features"),
        "Serendipity@10 (co-occurrence)": lambda: rk.Serendipity(10),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="labels (prefixes) to time besides NDCG@10")
    args = parser.parse_args()
    start = time.perf_counter()
    pred, truth = make_data(args.users)
    pred["score"] /= 1.01
    train, _ = make_data(args.users, list_len=20, n_truth=2, seed=1)
    baseline = make_data(args.users, list_len=10, n_truth=2, seed=4)[0]
    items = np.array([f"i{i:06d}" for i in range(N_ITEMS)], dtype=object)
    rng = np.random.default_rng(3)
    genre_names = [f"g{j:02d}" for j in range(18)]
    genres = pd.DataFrame({"genres": [set(rng.choice(genre_names, size=int(rng.integers(1, 4)), replace=False))
                                      for _ in range(N_ITEMS)]}, index=items)
    groups = pd.Series([f"p{i % 10}" for i in range(N_ITEMS)], index=items)
    users = pd.unique(pred["user_id"])
    user_groups = pd.Series([f"g{i % 10}" for i in range(len(users))], index=users)
    made = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        split = rk.Split(pred, truth, train=train[["user_id", "item_id"]], catalog=items, item_features=genres,
                         item_groups=groups)
    joined = time.perf_counter() - start
    start = time.perf_counter()
    protocol_findings([split], ["split"], ("seen", "overlap", "cold"))
    protocol = time.perf_counter() - start
    local_engine.protocol_findings = lambda *args: []  # timed once above: the same for every metric
    load = os.getloadavg()
    print(f"{args.users:,} users x 100 listed items ({len(pred):,} rows), train {len(train):,} rows, "
          f"{N_ITEMS:,} items; data {made:.1f} s, Split with side data {joined:.1f} s, protocol check "
          f"{protocol:.1f} s (not in the times below); first run and median of {args.repeats}; load average "
          f"at start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}", flush=True)
    print("| metric | first run (s) | median (s) | x NDCG@10 (median) | system value |")
    print("|---|---:|---:|---:|---:|", flush=True)
    reference = None
    for label, make in metrics(user_groups, baseline).items():
        if reference is not None and args.only and not any(label.startswith(o) for o in args.only):
            continue
        times, value = [], None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rk.RankevalWarning)
            for _ in range(args.repeats + 1):
                model = rk.EvalModel.from_splits([split], [make()], progress=False)
                t0 = time.perf_counter()
                sys_result, _ = model.fit()
                times.append(time.perf_counter() - t0)
                value = float(sys_result.iloc[0, 0])
        seconds = statistics.median(times[1:])
        reference = seconds if reference is None else reference
        print(f"| {label} | {times[0]:.2f} | {seconds:.2f} | {seconds / reference:.1f} | {value:.6g} |", flush=True)
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")


if __name__ == "__main__":
    main()
