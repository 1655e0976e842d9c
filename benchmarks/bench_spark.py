"""The Spark engine (local mode) against the pandas engine on the same seeded data.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids ``u0000042`` / ``i012345``); metrics NDCG@10, MAP@10, MRR@10.

Every step runs in its own fresh process, so that one engine's memory never counts
against the other and a size too large for one process still runs:

1. **pandas** child: builds the frames, then times
   ``rk.EvalModel(pred, truth, metrics, ties="item_id").fit()`` (one cold call: the
   construction validates and joins, ``fit`` computes the metrics). Memory: ``VmRSS``
   after the imports (``base``), ``VmRSS`` with the frames built (``before``) and the
   peak ``VmHWM`` of the call (reset after data generation through
   ``/proc/self/clear_refs``).
2. **write** child: builds the same frames and writes them to Parquet (pyarrow, one file
   per frame) in a temporary directory; the time of the write is reported. That is the
   starting point of a cluster user, whose data already sit in files; creating the Spark
   DataFrames with ``spark.createDataFrame(pandas_df)`` would ship every row through the
   driver and is not the engine's cost.
3. **spark** child: starts a ``local[N]`` SparkSession (``PYSPARK_PYTHON`` = this
   interpreter, Arrow on, UI off), runs a 50-user warm-up evaluation (starts the Python
   workers and their imports), defines ``pred`` and ``truth`` with ``spark.read.parquet``,
   then for each bucket count times ``EvalModel(pred, truth, metrics, n_buckets=b).fit()``
   (every fit scans the files; ``sys_result`` computed: the bucket job runs and its output
   is cached), then ``users_result.count()`` and ``users_result.write.parquet(...)``
   separately. The engine's default, ``max(defaultParallelism, ceil(pred rows /
   2,000,000))``, runs first (the first evaluation of the session) and again (warm); the
   others are that default times ``--bucket-factors``. The cache is cleared between runs.
   For each bucket count the report also shows how many buckets land in each of the
   ``spark.sql.shuffle.partitions`` tasks (the engine groups by the bucket number, which
   Spark hashes again to place it). Memory: the driver Python process's ``VmHWM``; the
   JVM's ``VmHWM`` (in local mode the executors are threads of the driver JVM); the
   Python workers (processes forked by ``pyspark.daemon``, where ``applyInPandas`` runs
   the pandas engine bucket by bucket) are sampled every 0.2 s and their ``VmHWM`` is
   reset at the start of each bucket count: the largest single worker's peak and the
   largest sum over workers seen at one time are reported.

The system rows of every Spark run must agree with the pandas engine to 1e-12 (absolute)
or the script exits with status 1 after writing its report.

    .venv/bin/python benchmarks/bench_spark.py                     # 100k and 1M users
    .venv/bin/python benchmarks/bench_spark.py --sizes 100000      # one size

Writes ``benchmarks/results/spark.md`` and ``benchmarks/results/spark.json`` (``--out``
changes the markdown path; the JSON goes next to it).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))


import pandas as pd  # noqa: E402

import rankeval as rk  # noqa: E402
from bench_core import machine_info  # noqa: E402
from synthetic import make_data  # noqa: E402

MB = 10**6
TOL = 1e-12
ROWS_PER_BUCKET = 2_000_000  # rankeval.engines._spark.DEFAULT_ROWS_PER_BUCKET


def metrics() -> list[Any]:
    return [rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRRAtK(10)]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- /proc
def _status_kb(key: str, pid: int | str = "self") -> int | None:
    try:
        m = re.search(rf"^{key}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) * 1024 if m else None


def _reset_hwm(pid: int | str = "self") -> bool:
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (ppid, comm, cmdline) of every visible process."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        out[int(d.name)] = (ppid, comm, cmd)
    return out


def _descendants(root: int, procs: dict[int, tuple[int, str, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def spark_processes() -> tuple[int | None, list[int]]:
    """The driver JVM and the Python worker processes (pyspark.daemon and its forks)."""
    procs = _processes()
    below = _descendants(os.getpid(), procs)
    jvm = next((p for p in below if procs[p][1] == "java"), None)
    workers = [p for p in below if "pyspark.daemon" in procs[p][2] or "pyspark.worker" in procs[p][2]]
    return jvm, workers


class WorkerSampler:
    """Samples the Python workers' VmHWM / VmRSS every ``interval`` seconds."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.max_single = 0
        self.max_sum_rss = 0
        self.n_workers = 0
        self.reset_ok = True
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> WorkerSampler:
        _, workers = spark_processes()
        for pid in workers:  # forget earlier runs: each bucket count gets its own peak
            self.reset_ok &= _reset_hwm(pid)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        _, workers = spark_processes()
        self.n_workers = max(self.n_workers, len(workers))
        total = 0
        for pid in workers:
            hwm, rss = _status_kb("VmHWM", pid), _status_kb("VmRSS", pid)
            self.max_single = max(self.max_single, hwm or 0)
            total += rss or 0
        self.max_sum_rss = max(self.max_sum_rss, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join()
        self._sample()


def system_values(sys_result: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {str(split): {str(k): float(v) for k, v in row.items()} for split, row in sys_result.iterrows()}


# ---------------------------------------------------------------------------- children
def child_pandas(n_users: int) -> dict[str, Any]:
    tiny_pred, tiny_truth = make_data(50)
    rk.EvalModel(tiny_pred, tiny_truth, metrics(), ties="item_id", progress=False).fit()  # lazy imports
    del tiny_pred, tiny_truth
    gc.collect()
    rss_base = _status_kb("VmRSS")
    pred, truth = make_data(n_users)
    gc.collect()
    reset = _reset_hwm()
    rss_before = _status_kb("VmRSS")
    t0 = time.perf_counter()
    model = rk.EvalModel(pred, truth, metrics(), ties="item_id", progress=False)
    t1 = time.perf_counter()
    sys_result, users = model.fit()
    t2 = time.perf_counter()
    return {
        "pred_rows": len(pred), "truth_rows": len(truth), "n_users_result": len(users),
        "construct_s": t1 - t0, "fit_s": t2 - t1, "total_s": t2 - t0,
        "rss_base": rss_base, "rss_before": rss_before, "peak_rss": _status_kb("VmHWM"),
        "peak_reset_after_data": reset, "system": system_values(sys_result),
    }


def child_write(n_users: int, directory: str) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    t0 = time.perf_counter()
    pred, truth = make_data(n_users)
    t1 = time.perf_counter()
    sizes = {}
    for name, df in (("pred", pred), ("truth", truth)):
        path = Path(directory) / f"{name}.parquet"
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
        sizes[name] = path.stat().st_size
    t2 = time.perf_counter()
    return {"generate_s": t1 - t0, "write_s": t2 - t1, "bytes": sizes, "pyarrow": pa.__version__,
            "pred_rows": len(pred), "truth_rows": len(truth)}


def child_spark(n_users: int, directory: str, factors: list[float], cores: int, driver_memory: str,
                shuffle_partitions: int) -> dict[str, Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    import pyspark
    from pyspark.sql import SparkSession

    t0 = time.perf_counter()
    spark = (SparkSession.builder.master(f"local[{cores}]").appName("rankeval-bench-spark")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", driver_memory)
             .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             .config("spark.local.dir", str(Path(directory) / "spark-local"))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    t1 = time.perf_counter()
    tiny_pred, tiny_truth = make_data(50)
    rk.EvalModel(spark.createDataFrame(tiny_pred), spark.createDataFrame(tiny_truth), metrics()).fit()[1].count()
    t2 = time.perf_counter()
    _, workers = spark_processes()
    idle_worker_rss = max((_status_kb("VmRSS", pid) or 0 for pid in workers), default=None)

    pred = spark.read.parquet(str(Path(directory) / "pred.parquet"))
    truth = spark.read.parquet(str(Path(directory) / "truth.parquet"))
    pred_rows = pred.count()
    parallelism = spark.sparkContext.defaultParallelism
    default = max(parallelism, math.ceil(pred_rows / ROWS_PER_BUCKET))
    # the default twice: first in a fresh JVM (a user's first call), then warm like the others
    counts = [None, None] + sorted({max(1, round(default * f)) for f in factors} - {default})

    runs = []
    for i, b in enumerate(counts):
        used = default if b is None else b
        log(f"[{n_users:,} users] spark, {used} buckets{' (default)' if b is None else ''}"
            f"{', first call in the session' if i == 0 else ''}")
        spark.catalog.clearCache()
        gc.collect()
        with WorkerSampler() as sampler:
            t_a = time.perf_counter()
            sys_result, users = rk.EvalModel(pred, truth, metrics(), n_buckets=b, progress=False).fit()
            t_b = time.perf_counter()
            n = users.count()
            t_c = time.perf_counter()
            users.write.parquet(str(Path(directory) / f"users_{used}.parquet"))
            t_d = time.perf_counter()
        shutil.rmtree(Path(directory) / f"users_{used}.parquet", ignore_errors=True)
        runs.append({
            "n_buckets": used, "default": b is None, "first": i == 0,
            "buckets_per_partition": buckets_per_partition(spark, used, shuffle_partitions),
            "fit_s": t_b - t_a, "count_s": t_c - t_b,
            "write_s": t_d - t_c, "n_users_result": n, "system": system_values(sys_result),
            "worker_peak_single": sampler.max_single, "worker_peak_sum_rss": sampler.max_sum_rss,
            "n_workers": sampler.n_workers, "worker_reset": sampler.reset_ok,
        })
    jvm, _ = spark_processes()
    out = {
        "pyspark": pyspark.__version__, "cores": cores, "driver_memory": driver_memory,
        "shuffle_partitions": shuffle_partitions, "default_parallelism": parallelism,
        "session_s": t1 - t0, "warmup_s": t2 - t1, "idle_worker_rss": idle_worker_rss, "pred_rows": pred_rows,
        "pred_partitions": pred.rdd.getNumPartitions(), "runs": runs,
        "driver_peak_rss": _status_kb("VmHWM"), "jvm_peak_rss": None if jvm is None else _status_kb("VmHWM", jvm),
        "java": _java_version(),
    }
    spark.stop()
    return out


def buckets_per_partition(spark: Any, n_buckets: int, partitions: int) -> list[int]:
    """How many bucket values land in each shuffle partition of the cogroup.

    The engine groups by the bucket number, so Spark hash-partitions those integers
    again (Murmur3, seed 42, like ``F.hash``) into ``spark.sql.shuffle.partitions``.
    """
    from pyspark.sql import functions as F
    rows = (spark.range(n_buckets).select(F.pmod(F.hash(F.col("id").cast("int")), F.lit(partitions)).alias("p"))
            .groupBy("p").count().collect())
    counts = dict((r["p"], r["count"]) for r in rows)
    return [int(counts.get(p, 0)) for p in range(partitions)]


def _java_version() -> str:
    try:
        err = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr
        return err.splitlines()[0].strip()
    except (OSError, IndexError):
        return "unknown"


def run_child(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child {args} failed with status {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- report
def max_diff(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> float:
    diffs = [abs(a[s][m] - b[s][m]) for s in a for m in a[s]]
    return max(diffs)


def _s(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _mb(x: float | None) -> str:
    return "n/a" if x is None else f"{x / MB:,.0f}"


def render(info: dict[str, Any], results: list[dict[str, Any]], command: str) -> str:
    first_spark = next((r["spark"] for r in results if "spark" in r), {})
    lines = [
        "# rankeval: the Spark engine (local mode) against the pandas engine",
        "",
        "Method: see the docstring of `benchmarks/bench_spark.py` and `docs/scaling.md`.",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['ram_bytes'] / 2**30:.1f} GiB RAM; {info['os']}; "
        f"Python {info['python']}, numpy {info['numpy']}, pandas {info['pandas']}, "
        f"pyspark {first_spark.get('pyspark', '?')}, {first_spark.get('java', 'java ?')}; "
        f"rankeval {info['rankeval']} ({info['commit']}).",
        f"Spark: `local[{first_spark.get('cores', '?')}]`, "
        f"spark.driver.memory={first_spark.get('driver_memory', '?')}, "
        f"spark.sql.shuffle.partitions={first_spark.get('shuffle_partitions', '?')}, Arrow on, "
        f"defaultParallelism={first_spark.get('default_parallelism', '?')}.",
        f"Run {info['date']}; load average (1, 5, 15 min) at start "
        f"{', '.join(f'{x:.2f}' for x in info['load_start'])}, at end {', '.join(f'{x:.2f}' for x in info['load_end'])}"
        f" (other work was running on the machine).",
        "Data: `benchmarks/synthetic.py`, string ids, 100 recommendations and 20 ratings per user; "
        "metrics NDCG@10, MAP@10, MRR@10. One run of each cell (wall-clock seconds).",
        f"Command: `{command}`",
        "",
        "Time (seconds):",
        "",
        "| users | pred rows | engine | buckets | rows / bucket | buckets per shuffle partition | evaluation | "
        "users_result .count() | users_result .write.parquet | max abs diff of system rows vs pandas |",
        "|---:|---:|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        n, rows = r["n_users"], r["pandas"]["pred_rows"] if "pandas" in r else r["write"]["pred_rows"]
        if "pandas" in r:
            p = r["pandas"]
            lines.append(f"| {n:,} | {rows:,} | pandas (`ties=\"item_id\"`) | | | | {_s(p['total_s'])} "
                         f"(construct {_s(p['construct_s'])} + fit {_s(p['fit_s'])}) | | | |")
        if "write" in r:
            w = r["write"]
            lines.append(f"| {n:,} | {rows:,} | write Parquet (pyarrow, once; not the engine) | | | "
                         f"| {_s(w['write_s'])} | | | |")
        for run in r.get("spark", {}).get("runs", []):
            diff = run.get("max_diff")
            label = ("Spark, default buckets, first call in the session" if run.get("first") else
                     "Spark, default buckets" if run["default"] else "Spark")
            bpp = run.get("buckets_per_partition")
            bpp = "" if bpp is None else "/".join(map(str, bpp)) if len(bpp) <= 8 else f"max {max(bpp)}"
            lines.append(
                f"| {n:,} | {rows:,} | {label} | {run['n_buckets']} | "
                f"{rows / run['n_buckets']:,.0f} | {bpp} | {_s(run['fit_s'])} | {_s(run['count_s'])} | "
                f"{_s(run['write_s'])} | {'n/a' if diff is None else f'{diff:.1e}'} |")
        if "error" in r:
            lines.append(f"| {n:,} | {rows:,} | failed: {r['error']} | | | | | | | |")
    lines += [
        "",
        "`evaluation`: pandas = `EvalModel(...)` (validation + join) + `.fit()`; Spark = `EvalModel(...).fit()` "
        "on DataFrames read with `spark.read.parquet` (the bucket job runs, `sys_result` is computed and the "
        "per-user output is cached). `.count()` and `.write.parquet` then run on that cached output. "
        "`buckets per shuffle partition`: the engine groups by the bucket number, which Spark hashes again "
        "into spark.sql.shuffle.partitions tasks; several buckets in one task run one after the other, so the "
        "largest number bounds the parallelism.",
        "",
        "Memory (MB = 10^6 bytes):",
        "",
        "| users | pandas engine: RSS of the imports | + input frames | peak RSS (VmHWM) | peak / listed row "
        "(over the imports) | Spark driver Python VmHWM | driver JVM VmHWM | buckets | largest Python worker "
        "VmHWM | (largest worker - idle worker) / listed rows per bucket | sum of worker RSS (max) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        p, s = r.get("pandas"), r.get("spark")
        pcells = (["n/a"] * 4 if p is None else
                  [_mb(p["rss_base"]), _mb(p["rss_before"]), _mb(p["peak_rss"]),
                   f"{(p['peak_rss'] - p['rss_base']) / p['pred_rows']:.0f} B"])
        for i, run in enumerate((s or {}).get("runs", []) or [None]):
            per_row = "n/a"
            if run is not None and s.get("idle_worker_rss"):
                rows_per_bucket = s["pred_rows"] / run["n_buckets"]
                per_row = f"{(run['worker_peak_single'] - s['idle_worker_rss']) / rows_per_bucket:.0f} B"
            scells = (["n/a"] * 6 if run is None else
                      [_mb(s["driver_peak_rss"]) if i == 0 else "", _mb(s["jvm_peak_rss"]) if i == 0 else "",
                       f"{run['n_buckets']}{' (first call)' if run.get('first') else ''}",
                       _mb(run["worker_peak_single"]), per_row,
                       _mb(run["worker_peak_sum_rss"])])
            lines.append("| " + " | ".join([f"{r['n_users']:,}" if i == 0 else "",
                                            *(pcells if i == 0 else [""] * 4), *scells]) + " |")
    lines += [
        "",
        "The pandas engine's columns come from its own process (peak reset after data generation, so it covers "
        "the inputs plus the call). The Spark driver Python process holds no data (it reads Parquet through the "
        "JVM); in local mode the executors are threads of the driver JVM (its VmHWM is cumulative over the "
        "whole run and is bounded by spark.driver.memory plus off-heap memory), and `applyInPandas` runs the "
        "pandas engine in separate Python worker processes, one bucket at a time per worker. Worker VmHWM is "
        "reset at the start of each bucket count and sampled every 0.2 s; an idle worker (after the warm-up, "
        "imports done) had an RSS of "
        + ", ".join(f"{_mb(r['spark'].get('idle_worker_rss'))} MB ({r['n_users']:,} users)"
                    for r in results if "spark" in r) + ". Rows per bucket are a mean: users are hashed, "
        "so buckets differ slightly.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--bucket-factors", type=float, nargs="*", default=[0.4, 4.0],
                        help="other bucket counts, as multiples of the default (default: 0.4 4)")
    parser.add_argument("--cores", type=int, default=2, help="local[N] (default 2)")
    parser.add_argument("--driver-memory", default="12g")
    parser.add_argument("--shuffle-partitions", type=int, default=4)
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "spark.md")
    parser.add_argument("--child", choices=["pandas", "write", "spark"], help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        n = args.sizes[0]
        if args.child == "pandas":
            result = child_pandas(n)
        elif args.child == "write":
            result = child_write(n, args.dir)
        else:
            result = child_spark(n, args.dir, args.bucket_factors, args.cores, args.driver_memory,
                                 args.shuffle_partitions)
        print(json.dumps(result))
        return

    info = machine_info()
    info["load_start"] = os.getloadavg()
    results: list[dict[str, Any]] = []
    ok = True
    common = ["--cores", str(args.cores), "--driver-memory", args.driver_memory,
              "--shuffle-partitions", str(args.shuffle_partitions), "--bucket-factors",
              *[str(f) for f in args.bucket_factors]]
    for n in args.sizes:
        r: dict[str, Any] = {"n_users": n, "load_before": os.getloadavg()}
        results.append(r)
        log(f"[{n:,} users] load average {', '.join(f'{x:.2f}' for x in r['load_before'])}")
        if not args.skip_pandas:
            log(f"[{n:,} users] pandas engine (fresh process)")
            r["pandas"] = run_child(["--child", "pandas", "--sizes", str(n)])
        directory = tempfile.mkdtemp(prefix="rankeval-bench-spark-")
        try:
            log(f"[{n:,} users] write Parquet to {directory}")
            r["write"] = run_child(["--child", "write", "--sizes", str(n), "--dir", directory])
            log(f"[{n:,} users] spark engine (fresh process)")
            try:
                r["spark"] = run_child(["--child", "spark", "--sizes", str(n), "--dir", directory, *common])
            except RuntimeError as exc:
                r["error"] = str(exc)
                ok = False
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        for run in r.get("spark", {}).get("runs", []):
            run["max_diff"] = None if "pandas" not in r else max_diff(r["pandas"]["system"], run["system"])
            if run["max_diff"] is not None and not run["max_diff"] <= TOL:
                log(f"[{n:,} users] system rows differ by {run['max_diff']:.3g} with {run['n_buckets']} buckets")
                ok = False
            if "pandas" in r and run["n_users_result"] != r["pandas"]["n_users_result"]:
                log(f"[{n:,} users] users_result has {run['n_users_result']} rows, pandas "
                    f"{r['pandas']['n_users_result']}")
                ok = False
        r["load_after"] = os.getloadavg()
    info["load_end"] = os.getloadavg()

    command = " ".join([".venv/bin/python", "benchmarks/bench_spark.py", *sys.argv[1:]])
    text = render(info, results, command)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps({"machine": info, "results": results}, indent=1))
    log(f"wrote {args.out} and {args.out.with_suffix('.json')}")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
