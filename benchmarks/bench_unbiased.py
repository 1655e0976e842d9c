"""Propensity-weighted metrics: the cost of the IPS and SNIPS forms next to the plain metric.

Lists: ``--users`` users, each a ranked list of ``--items`` items out of a catalogue of 1000
(integer ids, distinct random scores); truth: 10 held-out items per user, 5 of them relevant
(score 1, the others 0; ``relevant_threshold=1``). One ``Split`` is built first (validation
and the join are shared by every metric and not timed). Each run starts from the bare join:
the caches the metrics fill (rows and the propensity weights of the split) are cleared, so
a weighted run pays for its propensities. For R@10, NDCG@10, MAP@10 and MRR the script times,
alternating in this one process, ``--repeats`` times each (medians reported):

- ``plain``: ``EvalModel.from_splits([split], [metric]).fit()``;
- ``IPS`` and ``SNIPS``: the same with ``Unbiased(metric, Propensity.given(p), ...)``, ``p``
  a Series item -> propensity over the catalogue;
- ``plain+IPS``: the plain metric and its IPS form in one ``fit()`` (what a run reporting
  both pays; the IPS form then shares the listed rows' arrays the plain metric built).

The process's peak resident memory is printed after each stage, the load average at the start
and the end.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_unbiased.py [--users 1000000] [--items 100] [--repeats 5]
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
from rankeval.unbiased import Propensity, Unbiased

CATALOGUE = 1000
HELD_OUT = 10


def make_split(n_users: int, n_items: int) -> rk.Split:
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(n_users), n_items)
    # each list: n_items consecutive catalogue items from a random start (distinct within the list)
    start = rng.integers(0, CATALOGUE, n_users)
    items = (np.repeat(start, n_items) + np.tile(np.arange(n_items), n_users)) % CATALOGUE
    pred = pd.DataFrame({"user_id": users, "item_id": items, "score": rng.random(n_users * n_items)})
    offset = rng.integers(0, CATALOGUE, n_users)
    truth_items = (np.repeat(offset, HELD_OUT) + np.tile(np.arange(0, 3 * HELD_OUT, 3), n_users)) % CATALOGUE
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), HELD_OUT), "item_id": truth_items,
                          "score": np.tile([1.0, 0.0], n_users * HELD_OUT // 2)})
    print(f"data made: {peak()}")
    return rk.Split(pred, truth)


def peak() -> str:
    return f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GiB"


def timed(split: rk.Split, metric: rk.RankingMetric | list[rk.RankingMetric]) -> float:
    lists = split.ranked_lists()
    lists.rows_cache.clear()
    for key in [k for k in lists.split_cache if k.startswith("propensity-")]:
        del lists.split_cache[key]
    start = time.perf_counter()
    rk.EvalModel.from_splits([split], metric if isinstance(metric, list) else [metric], progress=False).fit()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    start = time.perf_counter()
    split = make_split(args.users, args.items)
    split.ranked_lists()
    print(f"{args.users} users x {args.items} listed items: data + split + join {time.perf_counter() - start:.1f} s, "
          f"{peak()}")
    p = pd.Series(np.random.default_rng(1).uniform(0.01, 1.0, CATALOGUE), index=np.arange(CATALOGUE))
    model = Propensity.given(p)
    for plain in (rk.RecallAtK(10, relevant_threshold=1), rk.NDCGAtK(10, gains="binary", relevant_threshold=1),
                  rk.MAPAtK(10, relevant_threshold=1), rk.MRR(relevant_threshold=1)):
        ips = Unbiased(plain, model, "ips")
        forms = {"plain": plain, "IPS": ips, "SNIPS": Unbiased(plain, model, "snips"), "plain+IPS": [plain, ips]}
        runs: dict[str, list[float]] = {name: [] for name in forms}  # one list per form, runs alternated
        for name, metric in forms.items():
            timed(split, metric)  # warm-up: imports, first allocations
        for _ in range(args.repeats):
            for name, metric in forms.items():
                runs[name].append(timed(split, metric))
        base = statistics.median(runs["plain"])
        text = "  ".join(f"{name} {statistics.median(t):6.3f} s ({statistics.median(t) / base:4.2f}x)"
                         for name, t in runs.items())
        detail = "; ".join(f"{name} {' '.join(f'{x:.3f}' for x in t)}" for name, t in runs.items())
        print(f"{plain!s:8s} {text}   (runs: {detail})")
    print(f"after the metrics: {peak()}; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
