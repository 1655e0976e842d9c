"""rankeval.rank at 1M items: a slice of users timed, to extrapolate a 1M users x 1M items run (docs/scaling.md).

``--users`` users (a slice) x ``--items`` items (1M), d = 64, float32, k = 100, each user
with 100 excluded items drawn at random; ``memory="1GiB"``. Alternating, ``--repeats``
times: the matrix products alone on rankeval's blocks, and ``top_k``. Prints the seconds
per user and per billion scores, and the peak memory top_k adds (tracemalloc).

    PYTHONPATH=. python benchmarks/rank_scaling.py [--users 2000] [--items 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np
import pandas as pd

from rankeval.rank import top_k
from rankeval.rank._plan import plan_blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    users = rng.standard_normal((args.users, 64)).astype(np.float32)
    items = rng.standard_normal((args.items, 64)).astype(np.float32)
    exclude = pd.DataFrame({"user_id": np.repeat(np.arange(args.users), 100),
                            "item_id": rng.integers(0, args.items, args.users * 100)}).drop_duplicates()
    plan = plan_blocks(args.users, args.items, 100, 4, budget=2**30, fixed=0, extra_per_cell=0, most_pairs=100)
    print(f"{args.users:,} users x {args.items:,} items; block {plan.rows} users x {plan.items:,} items")
    tracemalloc.start()
    top_k(users, items, 100, exclude=exclude)
    print(f"peak memory added: {tracemalloc.get_traced_memory()[1] / 2**20:.0f} MiB")
    tracemalloc.stop()
    block = np.empty((plan.rows, args.items), dtype=np.float32)
    times: dict[str, list[float]] = {"products": [], "rankeval": []}
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for first in range(0, args.users, plan.rows):
            part = users[first:first + plan.rows]
            np.matmul(part, items.T, out=block[:len(part)])
        times["products"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        top_k(users, items, 100, exclude=exclude)
        times["rankeval"].append(time.perf_counter() - t0)
    cells = args.users * args.items / 1e9
    for name, t in times.items():
        m = statistics.median(t)
        print(f"{name:9s} median {m:.2f} s ({', '.join(f'{x:.2f}' for x in t)}): {m / args.users * 1e3:.2f} ms a "
              f"user, {m / cells:.2f} s per 1e9 scores")


if __name__ == "__main__":
    main()
