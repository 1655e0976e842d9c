"""The first and the second evaluation of sampled-candidate lists with a per-user ``n_items``.

MovieLens-100K-like: 943 users, each with 1 positive and 100 negatives (random scores),
``n_items`` = 1682 minus a training-set size drawn per user (19 to 736, log-normal, as
MovieLens-100K's users have): about 270 distinct sizes. Metrics HR@10, NDCG@10, MRR with
the bias-variance estimator: one table per (size, metric). Each run is a fresh process
(nothing in memory), timing ``EvalModel(...).fit()``:

- ``first``: an empty cache folder (every table computed and written);
- ``second``: the same folder (every table read back);
- ``no cache``: ``RANKEVAL_NO_CACHE=1``.

The per-user values of the three runs are compared byte for byte.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_sampled_cache.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

RUN = "run"


def one_run(out: str) -> None:
    import numpy as np
    import pandas as pd

    import rankeval as rk
    from rankeval.sampled import SampledCandidates

    rng = np.random.default_rng(0)
    n_users, m = 943, 100
    users = np.arange(1, n_users + 1)
    train_sizes = np.clip(rng.lognormal(4.3, 0.9, n_users).astype(int) + 19, 19, 736)
    n_items = pd.Series(1682 - train_sizes, index=users)
    pred = pd.DataFrame({"user_id": np.repeat(users, m + 1), "item_id": np.tile(np.arange(m + 1), n_users),
                         "score": rng.random(n_users * (m + 1))})
    truth = pd.DataFrame({"user_id": users, "item_id": 0, "score": 1.0})
    metrics = [rk.HitRateAtK(10), rk.NDCGAtK(10), rk.MRR()]
    model = rk.EvalModel(pred, truth, metrics, sampled=SampledCandidates(n_items, m), progress=False)
    start = time.perf_counter()
    _, per_user = model.fit()
    print(f"{time.perf_counter() - start:.3f} {n_items.nunique()}")
    per_user.to_pickle(out)


def timed(env: dict[str, str], out: str) -> tuple[float, int]:
    done = subprocess.run([sys.executable, __file__, RUN, out], env=env, check=True, capture_output=True, text=True)
    seconds, sizes = done.stdout.split()
    return float(seconds), int(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    import pandas as pd

    for repeat in range(options.repeats):
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "RANKEVAL_CACHE_DIR": os.path.join(folder, "cache")}
            env.pop("RANKEVAL_NO_CACHE", None)
            outs = [os.path.join(folder, f"{name}.pkl") for name in ("first", "second", "none")]
            first, sizes = timed(env, outs[0])
            second, _ = timed(env, outs[1])
            none, _ = timed({**env, "RANKEVAL_NO_CACHE": "1"}, outs[2])
            frames = [pd.read_pickle(p) for p in outs]
            same = all(f.to_numpy().tobytes() == frames[0].to_numpy().tobytes() for f in frames)
            print(f"run {repeat + 1}: {sizes} distinct n_items; first {first:.2f} s, second {second:.2f} s, "
                  f"no cache {none:.2f} s; per-user values bit-identical: {same}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == RUN:
        one_run(sys.argv[2])
    else:
        main()
