"""A 1M-user temporal split and its audit on Spark local[2], next to the same calls on pandas.

What is measured
----------------
``temporal_holdout(frame, n_last=1)`` (leave-last-one-out) and ``audit(train, test)`` of
that split (no ``pred``), on synthetic interactions of ``--users`` users (default 1M) and
``--rows`` rows (default 5M: 1 to 9 per user; the data of benchmarks/bench_split.py,
integer ids and times, shuffled).

- pandas: the frame in memory; the split's time includes cutting its train and test.
- Spark: the frame read from a Parquet file (written once, before timing) on a
  ``local[2]`` session; the split's time includes computing every row of train and test
  (written to Spark's ``noop`` sink: nothing collected). The audit runs on those two
  Spark frames (its jobs read them from the split's cache).

Timing: ``--reps`` runs of each (default 1), wall-clock, ``gc.collect()`` before each;
the machine's 2 cores are shared, so read the ratios more than the seconds.

Run: ``python benchmarks/bench_split_spark.py [--users 1000000 --rows 5000000 --reps 1 --json out.json]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_split import make_interactions  # noqa: E402

from rankeval import RankevalWarning  # noqa: E402
from rankeval.split import audit, temporal_holdout  # noqa: E402


def _session(memory: str):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("bench_split_spark")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", memory).config("spark.sql.shuffle.partitions", "8")
             .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _timed(call) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def _pandas_split(frame):
    splits = temporal_holdout(frame, n_last=1)
    for _ in splits:  # the pair cut
        pass
    return splits


def _spark_split(frame):
    splits = temporal_holdout(frame, n_last=1)
    for train, test in splits:
        train.write.format("noop").mode("overwrite").save()
        test.write.format("noop").mode("overwrite").save()
    return splits


def _time_pandas(frame, reps: int, results: dict[str, list[float]]) -> None:
    for _ in range(reps):
        seconds, splits = _timed(lambda: _pandas_split(frame))
        results["pandas split"].append(seconds)
        train, test = splits[0]
        results["pandas audit"].append(_timed(lambda: audit(train, test))[0])
        print({k: [round(x, 2) for x in v] for k, v in results.items()}, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--memory", default="6g", help="spark.driver.memory (local mode: the whole JVM)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RankevalWarning)
    warnings.simplefilter("ignore", FutureWarning)
    frame = make_interactions(args.rows, args.users)
    print(f"{len(frame):,} interactions of {frame['user_id'].nunique():,} users", flush=True)
    results: dict[str, list[float]] = {"pandas split": [], "pandas audit": [], "spark split": [], "spark audit": []}
    _time_pandas(frame, args.reps, results)
    spark = _session(args.memory)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "interactions.parquet")
        frame.to_parquet(path, index=False)
        del frame
        sdf = spark.read.parquet(path)
        for _ in range(args.reps):
            seconds, splits = _timed(lambda: _spark_split(sdf))
            results["spark split"].append(seconds)
            train, test = splits[0]
            results["spark audit"].append(_timed(lambda: audit(train, test))[0])
            train.unpersist()
            spark.catalog.clearCache()
            print({k: [round(x, 2) for x in v] for k, v in results.items()}, flush=True)
    spark.stop()
    if args.json:
        args.json.write_text(json.dumps({"users": args.users, "rows": args.rows, "seconds": results}, indent=2))


if __name__ == "__main__":
    main()
