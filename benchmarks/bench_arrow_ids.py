"""Id hashing on Arrow-backed text ids (pandas 3's default ``str``, polars, Arrow) against the object path.

What is measured, on N string ids (100 rows per distinct id, in runs, as a recommender
writes its lists; ``--shuffled`` for ids in random order):

- ``object path``: what rankeval did before it read Arrow columns directly: the column
  as a numpy array of Python strings (``Series.to_numpy()``, which for an Arrow-backed
  column builds one Python object per row) and ``rankeval.data._keys.factorize`` on it;
- ``of which to_numpy``: that conversion alone;
- ``Arrow path``: ``_keys.factorize(_keys.id_values(column))``, what rankeval does now:
  the Arrow array is hashed by pandas' Arrow kernel (Arrow's dictionary encoding),
  no Python object per row;
- ``object ids read from CSV``: the same ids as an object column whose equal ids share one
  object (what ``read_csv`` gives on pandas 2), through ``_keys.factorize``;
- ``Split, pandas 3 str`` / ``Split, polars`` / ``Split, object``: a whole ``rk.Split``
  (validation, ids, order, join) on 100k users x 100 listed items, truth 20 per user.

Each figure is the median of ``--reps`` runs (after one warm-up) in one process, wall clock.
Writes the table between the ``bench_arrow_ids`` markers of docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rankeval as rk  # noqa: E402
from rankeval.data import _keys  # noqa: E402
from bench_core import machine_info, write_marked  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def ids(n_rows: int, per_id: int, shuffled: bool, seed: int = 0) -> np.ndarray:
    distinct = np.array([f"user_{i:08d}" for i in range(n_rows // per_id)], dtype=object)
    values = np.repeat(distinct, per_id)
    if shuffled:
        values = values[np.random.default_rng(seed).permutation(len(values))]
    return values


def split_frames(n_users: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    users = np.array([f"u{i:07d}" for i in range(n_users)], dtype=object)
    items = np.array([f"i{i:06d}" for i in range(20_000)], dtype=object)
    pred = pd.DataFrame({"user_id": np.repeat(users, 100),
                         "item_id": items[rng.integers(0, 20_000, n_users * 100)],
                         "score": np.tile(np.linspace(1, 0, 100), n_users)})
    pred = pred.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    truth = pred.groupby("user_id", sort=False).head(10)[["user_id", "item_id"]]  # 10 judged per user
    truth = truth.assign(score=rng.integers(1, 6, len(truth)).astype(float))
    return pred, truth


def id_rows(n_rows: int, shuffled: bool, reps: int) -> list[tuple[str, float]]:
    """The id paths' rows of the table (their ids freed on return)."""
    values = ids(n_rows, 100, shuffled)
    as_str = pd.Series(values, dtype=pd.StringDtype("pyarrow", na_value=np.nan)
                       if pd.__version__ >= "3" else pd.StringDtype("pyarrow"))
    return [("object path (to_numpy + factorize)", timed(lambda: _keys.factorize(as_str.to_numpy()), reps)),
            ("of which to_numpy", timed(lambda: as_str.to_numpy(), reps)),
            ("Arrow path (id_values + factorize)", timed(lambda: _keys.factorize(_keys.id_values(as_str)), reps)),
            ("object ids read from CSV (shared objects)", timed(lambda: _keys.factorize(values), reps))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--users", type=int, default=100_000, help="users of the whole-Split rows")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--shuffled", action="store_true")
    ap.add_argument("--no-docs", action="store_true")
    args = ap.parse_args()
    info = machine_info()

    rows = id_rows(args.rows, args.shuffled, args.reps)
    gc.collect()  # the ids of id_rows are gone before the Split frames are built

    pred, truth = split_frames(args.users)
    str_dtype = "str" if pd.__version__ >= "3" else pd.StringDtype("pyarrow")
    pred3 = pred.astype({"user_id": str_dtype, "item_id": str_dtype})
    truth3 = truth.astype({"user_id": str_dtype, "item_id": str_dtype})
    rows.append((f"Split, object ids ({len(pred):,} listed rows)", timed(lambda: rk.Split(pred, truth), args.reps)))
    rows.append(("Split, pandas 3 `str` ids", timed(lambda: rk.Split(pred3, truth3), args.reps)))
    try:
        import polars as pl
        ppred, ptruth = pl.from_pandas(pred), pl.from_pandas(truth)
        rows.append(("Split, polars frames (conversion included)",
                     timed(lambda: rk.Split(ppred, ptruth), args.reps)))
    except ImportError:
        pass

    order = "shuffled" if args.shuffled else "in runs of 100"
    lines = [f"{args.rows:,} string ids ({order}, {args.rows // 100:,} distinct), median of {args.reps} runs; "
             f"pandas {info['pandas']}, numpy {info['numpy']}, {info['cpu']} ({info['cores']} cores), "
             f"{info['date']}, load at start {info['load_start'][0]:.2f}.",
             "", "| what | time (s) |", "|---|---:|"]
    lines += [f"| {name} | {t:.3f} |" for name, t in rows]
    block = "\n".join(lines) + "\n"
    print(block)
    if not args.no_docs:
        write_marked(ROOT / "docs" / "performance.md", "bench_arrow_ids", block)


if __name__ == "__main__":
    main()
