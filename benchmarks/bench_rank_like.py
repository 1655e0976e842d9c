"""The ranks-as-scores check (RanksAsScoresWarning) next to NDCG@10, in one process.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids; 10,000 users = 1M listed rows). Three ``pred`` frames:

- **best first**: as made (each user's rows together, scores descending): the join needs no
  sort, and the check is skipped (rows written best first hold scores);
- **shuffled**: the same rows in a seeded random order: the check stops at the last row of
  the sorted lists (a real-valued score is no 1);
- **ranks**: the scores replaced by each list's ranks 1..100, rank 1 first: the whole check
  runs, finds every user's 1..n_u and warns.

For each, ``--repeats`` times: the check alone (``rank_like_users`` on the join's own ordered
arrays, as ``RankedLists.build`` calls it), and ``Split(pred, truth)`` followed by
``NDCGAtK(10).perform`` (the evaluation the check is part of). Medians are printed.

    .venv/bin/python benchmarks/bench_rank_like.py [--users 10000] [--repeats 5]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rankeval as rk  # noqa: E402
from rankeval.data._columns import Columns  # noqa: E402
from rankeval.data._join import factorize_grouped  # noqa: E402
from rankeval.data._keys import id_values  # noqa: E402
from rankeval.data._list_order import list_order, rank_like_users  # noqa: E402
from synthetic import make_data  # noqa: E402


def _check_inputs(pred):
    """The arrays RankedLists.build hands the check: the list order, the users and scores in it."""
    c = Columns()
    codes, users, grouped, _ = factorize_grouped(id_values(pred[c.user]))
    items, item_codes = np.unique(pred[c.item].to_numpy(), return_inverse=True)
    order = list_order(pred, c.user, c.rank, c.score, "row_order", codes, item_codes, items, grouped)
    score = pred[c.score].to_numpy(dtype=np.float64)
    return c, len(users), order, (codes if order is None else codes[order]), (score if order is None else score[order])


def _time(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    pred, truth = make_data(args.users)
    ranks = pred.assign(score=(pred.groupby("user_id", sort=False).cumcount() + 1).astype(np.float64))
    frames = {"best first": pred, "shuffled": pred.sample(frac=1.0, random_state=0), "ranks": ranks}
    print(f"{args.users:,} users, {len(pred):,} listed rows, {len(truth):,} truth rows; {args.repeats} repeats, "
          f"medians; load average {os.getloadavg()[0]:.1f}")
    print("| pred | check alone (ms) | Split + NDCG@10 (ms) | check / evaluation | warns |")
    print("|---|---|---|---|---|")
    for name, frame in frames.items():
        c, n_users, order, user_codes, score = _check_inputs(frame)
        found = rank_like_users(frame, c, n_users, order, user_codes, score)
        check = _time(lambda: rank_like_users(frame, c, n_users, order, user_codes, score), max(args.repeats, 20))
        evaluation = _time(lambda: rk.NDCGAtK(10).perform(rk.Split(frame, truth)), args.repeats)
        print(f"| {name} | {1e3 * check:.3f} | {1e3 * evaluation:.0f} | {check / evaluation:.2%} | "
              f"{'yes, ' + format(found, ',') + ' users' if found else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
