"""compare() at scale: 10 systems x 5 metrics x 100k users, randomization test.

Data: benchmarks/synthetic.py's seeded truth (100k users, 20 ratings each, string ids);
system k re-scores each user's 100 candidate items with noise of its own strength and
lists its top 20, so systems differ by a little or a lot. Times (one run each, printed):
building the lists, compare() end to end, and inside it the evaluation of the 10
systems vs the statistics (45 pairs x 5 metrics = 225 tests, each with a 10,000-resample
randomization test and a 10,000-resample bootstrap CI).

    .venv/bin/python benchmarks/bench_compare.py [--users 100000] [--systems 10] [--resamples 10000]

``--marginal``: what each system beyond the first costs. Data: rankeval.datasets'
``make_ratings(50_000, 100, 40)`` (50,000 users x 100 items, 2 million ratings), its first
of 5 folds as train/test (400,000 truth rows), and 4 systems' top-20 lists
(``rankeval.datasets.recommend``: popularity, random, two noisy oracles; 1 million rows
each); two metrics (NDCG@10, Recall@10), paired t test with the baseline and the fewest
resamples (40), so that the evaluation dominates. Measured in one process, alternating:
one EvalModel of the random system (validate, join, fit), compare() of 2 systems and
compare() of 4; the cost of a system beyond the first is (compare(4) - compare(2)) / 2,
printed as a ratio of the EvalModel's, in CPU time of the process (steadier than wall
time on a shared machine) and in wall time.

    .venv/bin/python benchmarks/bench_compare.py --marginal [--users 50000] [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from synthetic import make_data  # noqa: E402

METRICS = [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRRAtK(10), rk.PrecisionAtK(10), rk.RecallAtK(10)]


def make_systems(pred: pd.DataFrame, n_systems: int, list_len: int = 20, seed: int = 1) -> dict[str, pd.DataFrame]:
    n_users = pred["user_id"].nunique()
    cand = len(pred) // n_users
    users = pred["user_id"].to_numpy().reshape(n_users, cand)
    items = pred["item_id"].to_numpy().reshape(n_users, cand)
    base = pred["score"].to_numpy().reshape(n_users, cand)
    rng = np.random.default_rng(seed)
    systems = {}
    for k in range(n_systems):
        noisy = base + rng.normal(0.0, 0.05 + 0.1 * k, base.shape)
        top = np.argsort(-noisy, axis=1)[:, :list_len]
        systems[f"sys{k}"] = pd.DataFrame({
            "user_id": np.take_along_axis(users, top, 1).ravel(),
            "item_id": np.take_along_axis(items, top, 1).ravel(),
            "score": np.take_along_axis(noisy, top, 1).ravel()})
    return systems


def marginal(n_users: int, runs: int) -> None:
    """The cost of each system beyond the first in compare(), as a ratio of one EvalModel's."""
    from rankeval.datasets import make_ratings, recommend, train_test_folds

    train, test = next(train_test_folds(make_ratings(n_users, 100, 40, seed=0), 5, seed=0))
    systems = {"pop": recommend(train, test, "popularity"), "random": recommend(train, test, "random", seed=1),
               "oracle1": recommend(train, test, "noisy_oracle", seed=2),
               "oracle2": recommend(train, test, "noisy_oracle", seed=3)}
    metrics = [rk.NDCGAtK(10), rk.RecallAtK(10)]
    two = dict(list(systems.items())[:2])

    def timed(call: Any) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        return time.process_time() - cpu, time.perf_counter() - wall

    def options() -> dict[str, Any]:
        return {"baseline": "pop", "n_resamples": 40, "progress": False}

    ratios: dict[str, list[float]] = {"cpu": [], "wall": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        for run in range(runs):
            one = timed(lambda: rk.EvalModel(systems["random"], test, metrics, progress=False).fit())
            c2 = timed(lambda: rk.compare(two, test, metrics, **options()))
            c4 = timed(lambda: rk.compare(systems, test, metrics, **options()))
            for i, kind in enumerate(("cpu", "wall")):
                ratios[kind].append((c4[i] - c2[i]) / 2 / one[i])
                print(f"run {run + 1} {kind:4}: EvalModel {one[i]:6.3f} s  compare(2) {c2[i]:6.3f} s  "
                      f"compare(4) {c4[i]:6.3f} s  per extra system {(c4[i] - c2[i]) / 2:6.3f} s = "
                      f"{ratios[kind][-1]:.2f} x EvalModel")
    for kind, values in ratios.items():
        print(f"median ratio ({kind} time) over {runs} runs: {float(np.median(values)):.2f} (target <= 0.8)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--marginal", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.marginal:
        marginal(50_000 if args.users == 100_000 else args.users, args.runs)
        return

    t0 = time.perf_counter()
    pred, truth = make_data(args.users)
    systems = make_systems(pred, args.systems)
    del pred
    t1 = time.perf_counter()
    # the evaluation alone, for the split of the time
    for frame in systems.values():
        rk.EvalModel(frame, truth, METRICS, progress=False).fit()
    t2 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", rk.RankevalWarning)
        res = rk.compare(systems, truth, METRICS, test="randomization", n_resamples=args.resamples, seed=0,
                         progress=False)
    t3 = time.perf_counter()
    n_tests = len(res.table)
    print(f"{args.users} users, {args.systems} systems x {len(METRICS)} metrics = {n_tests} tests, "
          f"{args.resamples} resamples (randomization p-values and bootstrap CIs)")
    print(f"data generation            {t1 - t0:7.1f} s")
    print(f"evaluation of the systems  {t2 - t1:7.1f} s   (EvalModel, all systems)")
    print(f"compare() end to end       {t3 - t2:7.1f} s   (evaluation + {n_tests} tests)")
    print(f"  of which statistics      {(t3 - t2) - (t2 - t1):7.1f} s   (approx.: end to end - evaluation)")
    print(f"warnings: {[str(w.message)[:80] for w in caught]}")
    print(res.table.head(3).to_string())


if __name__ == "__main__":
    main()
