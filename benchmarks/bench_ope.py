"""Off-policy estimators on 10M logged rows (2M slates of 5 positions): seconds, not minutes.

Run: ``python benchmarks/bench_ope.py [n_rows]``. Prints the time of every slate
estimator at once (the log read, checked, sorted and weighed once per call), without
and with a 200-resample bootstrap interval.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from rankeval.ope import off_policy_value


def synthetic_log(n_rows: int, length: int = 5, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_slates = n_rows // length
    slate = np.repeat(np.arange(n_slates), length)
    position = np.tile(np.arange(length), n_slates)
    pb = rng.uniform(0.05, 1.0, n_slates * length)
    pe = rng.uniform(0.0, 1.0, n_slates * length)
    cascade_b = np.cumprod(pb.reshape(-1, length), axis=1).ravel()
    cascade_e = np.cumprod(pe.reshape(-1, length), axis=1).ravel()
    log = pd.DataFrame({"slate_id": slate, "position": position, "reward": (rng.random(len(slate)) < 0.1) * 1.0,
                        "pscore_item_position": pb, "pscore_cascade": cascade_b,
                        "pscore": np.repeat(cascade_b[length - 1::length], length)})
    policy = pd.DataFrame({"slate_id": slate, "position": position, "pscore_item_position": pe,
                           "pscore_cascade": cascade_e, "pscore": np.repeat(cascade_e[length - 1::length], length)})
    return log, policy


def main() -> None:
    n_rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    log, policy = synthetic_log(n_rows)
    names = ["sips", "iips", "rips", "snsips", "sniips", "snrips"]
    for n_resamples in (0, 200):
        start = time.perf_counter()
        result = off_policy_value(log, policy, estimators=names, n_resamples=n_resamples)
        print(f"{n_rows:,} rows, {len(names)} estimators, {n_resamples} resamples: "
              f"{time.perf_counter() - start:.1f} s")
    print(result)


if __name__ == "__main__":
    main()
