"""Speed of rankeval.split's splitters and audit against one pandas groupby + sort_values pass.

What is measured
----------------
Each splitter of :mod:`rankeval.split` (``random_holdout``, ``temporal_holdout``
leave-last-one-out, ``global_temporal`` at test_size=0.2, ``kfold`` with 5 folds,
``bootstrap``) and ``audit`` (of the leave-last-one-out split, with a 10-item list per
test user as ``pred``) on synthetic interactions: ``--rows`` interactions (default 10M)
of ``--users`` users (default 100k), each user's count drawn around the mean (1 to 3 times
it), items distinct within a user, integer times, a shuffled row order. Every splitter's
time includes cutting all its frames (a ``Splits`` cuts a pair when first used); one more
line times ``kfold`` alone, its five pairs not yet cut.

Reference: one ``frame.sort_values([user, timestamp])`` followed by
``groupby(user).cumcount()`` on the sorted frame: the pass a pandas user writes to rank
each user's interactions in time, which every per-user split needs in some form. The issue
asks each call to stay under 5 s on a 2-core machine and within 2x this pass.

Timing: one warm-up call of each, then ``--reps`` rounds (default 3), each contender in
turn, ``gc.collect()`` before each call; medians of wall-clock time and of CPU time
(``time.process_time``: user and system time of this process, so the kernel's work of
backing fresh memory counts, the other jobs on the machine do not). The machine is
shared: read the ratios more than the seconds.

Run: ``python benchmarks/bench_split.py [--rows 10000000 --users 100000 --reps 3]``
(``--json out.json`` saves the numbers).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rankeval.split import audit, bootstrap, global_temporal, kfold, random_holdout, temporal_holdout  # noqa: E402

N_ITEMS = 49_999  # prime: (a_u + j * b_u) mod N_ITEMS are distinct for j < N_ITEMS


def make_interactions(n_rows: int, n_users: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = rng.uniform(1.0, 3.0, n_users)
    counts = np.maximum(1, np.floor(weights / weights.sum() * n_rows)).astype(np.int64)
    counts[: n_rows - counts.sum()] += 1 if n_rows > counts.sum() else 0
    user = np.repeat(np.arange(n_users, dtype=np.int64), counts)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    j = np.arange(len(user)) - offsets[user]
    a = rng.integers(0, N_ITEMS, n_users)
    b = rng.integers(1, N_ITEMS, n_users)
    item = (a[user] + j * b[user]) % N_ITEMS
    start = rng.integers(8.7e8, 8.9e8, n_users)
    timestamp = start[user] + np.cumsum(rng.integers(0, 3600, len(user))) - np.repeat(
        np.cumsum(rng.integers(0, 3600, len(user)))[offsets[:-1]], counts)
    frame = pd.DataFrame({"user_id": user, "item_id": item, "score": rng.integers(1, 6, len(user)).astype(float),
                          "timestamp": timestamp})
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


def reference(frame: pd.DataFrame) -> object:
    ordered = frame.sort_values(["user_id", "timestamp"])
    return ordered.groupby("user_id").cumcount()


def cut(splits) -> object:
    """Every pair's frames cut (a splitter's pairs are cut when first used)."""
    for _ in splits:
        pass
    return splits


def contenders(frame: pd.DataFrame) -> dict[str, object]:
    loo = temporal_holdout(frame)
    train, test = loo[0]
    users = test["user_id"].unique()
    popular = train["item_id"].value_counts().index[:10].to_numpy()
    pred = pd.DataFrame({"user_id": np.repeat(users, 10), "item_id": np.tile(popular, len(users)),
                         "score": np.tile(np.arange(10, 0, -1.0), len(users))})
    return {
        "groupby+sort_values (reference)": lambda: reference(frame),
        "random_holdout(test_size=0.2)": lambda: cut(random_holdout(frame, 0.2)),
        "temporal_holdout(n_last=1)": lambda: cut(temporal_holdout(frame)),
        "temporal_holdout(test_size=0.2)": lambda: cut(temporal_holdout(frame, 0.2)),
        "global_temporal(test_size=0.2)": lambda: cut(global_temporal(frame, test_size=0.2)),
        "kfold(n_splits=5)": lambda: cut(kfold(frame, 5)),
        "kfold(n_splits=5), pairs not cut": lambda: kfold(frame, 5),
        "bootstrap()": lambda: cut(bootstrap(frame)),
        "audit(train, test, pred)": lambda: audit(train, test, pred),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="names (prefixes) of the contenders to run")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--alone", help="time this one contender once, right after the data is made (a fresh "
                                        "process per call, as a user calls it): wall, user and system seconds")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # counted warnings of users kept whole: expected here
    frame = make_interactions(args.rows, args.users)
    calls = contenders(frame)
    if args.alone:
        before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        calls[args.alone]()
        after = resource.getrusage(resource.RUSAGE_SELF)
        print(f"{args.alone}: wall {time.perf_counter() - start:.2f} s, user {after.ru_utime - before.ru_utime:.2f} "
              f"s, system {after.ru_stime - before.ru_stime:.2f} s")
        return
    if args.only:
        calls = {k: v for k, v in calls.items() if k.startswith("groupby") or any(k.startswith(o) for o in args.only)}
    times: dict[str, list[float]] = {name: [] for name in calls}
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    for name, call in calls.items():  # warm-up
        call()
    for _ in range(args.reps):
        for name, call in calls.items():
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    ref = statistics.median(times["groupby+sort_values (reference)"])
    ref_cpu = statistics.median(cpu["groupby+sort_values (reference)"])
    print(f"{len(frame):,} interactions, {frame['user_id'].nunique():,} users, {args.reps} rounds (median s)")
    print(f"{'call':36s} {'median s':>9s} {'x ref':>7s} {'CPU s':>7s} {'x ref':>7s}  runs (wall s)")
    rows = []
    for name, values in times.items():
        med, med_cpu = statistics.median(values), statistics.median(cpu[name])
        rows.append({"call": name, "median_s": med, "ratio": med / ref, "runs": values, "median_cpu_s": med_cpu,
                     "cpu_ratio": med_cpu / ref_cpu, "cpu_runs": cpu[name]})
        print(f"{name:36s} {med:9.2f} {med / ref:7.2f} {med_cpu:7.2f} {med_cpu / ref_cpu:7.2f}  "
              f"{', '.join(f'{v:.2f}' for v in values)}")
    if args.json:
        args.json.write_text(json.dumps({"rows": len(frame), "users": args.users, "results": rows}, indent=2))


if __name__ == "__main__":
    main()
