"""The Spark engine (local mode) against the pandas engine, side by side, on the same seeded data.

Data: ``benchmarks/synthetic.py`` (``make_data(n_users)``: 100 recommendations and 20
ratings per user, string ids ``u0000042`` / ``i012345``); metrics NDCG@10, MAP@10, MRR@10;
``ties="item_id"`` on pandas (what Spark does, see docs/scaling.md "Ties").

Both engines are timed from the same two starting points, each in its own fresh process
(one engine's memory never counts against the other):

- **in memory**: pandas gets the frames ``make_data`` built; Spark gets DataFrames read
  from the same data in Parquet and cached (``.cache()`` then ``.count()``, before the
  clock starts): the data already sit in each engine's memory.
- **from Parquet**: the data sit in Parquet files (pyarrow, one file per frame, written
  once by a ``write`` child). pandas times ``pd.read_parquet`` of both files plus the
  evaluation; Spark times ``EvalModel(spark.read.parquet(...), ...).fit()``, whose bucket
  job scans the files.

A timed call is ``EvalModel(pred, truth, metrics).fit()`` with the engine's defaults (on
Spark: the default bucket count, ``sys_result`` computed and the per-user output cached),
run ``--repeats`` times in the same process; the report shows the median and every run.
Between Spark runs every cache is dropped (``spark.catalog.clearCache()``: the engine
caches its output, which a second call on the same frames would reuse) and the in-memory
inputs are cached again before the clock starts.

**Breakdown** (Spark, each starting point, once): the bucket job without the pandas
engine, cut after each of its steps, each a Spark job of its own:

1. *scan*: read ``pred`` and ``truth`` (the columns the engine uses) into rows, then
   drop them (Spark's ``noop`` sink);
2. *+ shuffle*: the same rows, repartitioned by user into the buckets (written to and read
   from Spark's shuffle files), dropped;
3. *+ Arrow to Python*: the buckets sent to Python workers as Arrow batches (the engine's
   batch size), which only count the rows;
4. *engine*: the whole evaluation.

For each: wall-clock seconds and the CPU seconds of the JVM (in local mode it runs the
driver and the executors) and of the Python workers, from ``/proc``. Peak memory of the
Python workers (sampled every 0.2 s) and of the JVM is reported for the engine runs.

The system rows of every Spark run must agree with the pandas engine to 1e-12 (absolute),
with the same number of per-user rows, or the script exits with status 1 after writing
its report.

    python benchmarks/bench_spark.py                      # 1M users, 2 repeats
    python benchmarks/bench_spark.py --sizes 100000       # a quick look

Writes ``benchmarks/results/spark.md`` and ``benchmarks/results/spark.json`` (``--out``
changes the markdown path; the JSON goes next to it).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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
HZ = os.sysconf("SC_CLK_TCK")


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


def _processes() -> dict[int, tuple[int, str, str, float]]:
    """pid -> (ppid, comm, cmdline, CPU seconds) of every visible process."""
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
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(d.name)] = (int(fields[1]), comm, cmd, (int(fields[11]) + int(fields[12])) / HZ)
    return out


def _descendants(root: int, procs: dict[int, tuple[int, str, str, float]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_) in procs.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def spark_processes() -> tuple[int | None, list[int], dict[int, tuple[int, str, str, float]]]:
    """The driver JVM, the Python worker processes (pyspark.daemon and its forks), and the table."""
    procs = _processes()
    below = _descendants(os.getpid(), procs)
    jvm = next((p for p in below if procs[p][1] == "java"), None)
    workers = [p for p in below if "pyspark.daemon" in procs[p][2] or "pyspark.worker" in procs[p][2]]
    return jvm, workers, procs


class CpuMeter:
    """CPU seconds of the JVM and of the Python workers over a block.

    Workers are reused between tasks, but one that exits takes its CPU time with it: the
    meter samples every 0.2 s and keeps the last value seen of every worker pid. It also
    keeps the workers' peak memory (VmHWM, reset on entry).
    """

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.jvm0 = self.jvm1 = 0.0
        self.worker_start: dict[int, float] = {}
        self.worker_last: dict[int, float] = {}
        self.max_single = 0
        self.max_sum_rss = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> float:
        jvm, workers, procs = spark_processes()
        total = 0
        for pid in workers:
            self.worker_start.setdefault(pid, 0.0)
            self.worker_last[pid] = procs[pid][3]
            self.max_single = max(self.max_single, _status_kb("VmHWM", pid) or 0)
            total += _status_kb("VmRSS", pid) or 0
        self.max_sum_rss = max(self.max_sum_rss, total)
        return procs[jvm][3] if jvm in procs else 0.0

    def __enter__(self) -> CpuMeter:
        jvm, workers, procs = spark_processes()
        self.jvm0 = procs[jvm][3] if jvm in procs else 0.0
        for pid in workers:
            self.worker_start[pid] = self.worker_last[pid] = procs[pid][3]
            _reset_hwm(pid)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join()
        self.jvm1 = self._sample()

    @property
    def jvm_cpu(self) -> float:
        return self.jvm1 - self.jvm0

    @property
    def python_cpu(self) -> float:
        return sum(self.worker_last[p] - self.worker_start[p] for p in self.worker_last)


def system_values(sys_result: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {str(split): {str(k): float(v) for k, v in row.items()} for split, row in sys_result.iterrows()}


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


# ---------------------------------------------------------------------------- children
def child_pandas(n_users: int, source: str, directory: str, repeats: int) -> dict[str, Any]:
    tiny_pred, tiny_truth = make_data(50)
    rk.EvalModel(tiny_pred, tiny_truth, metrics(), ties="item_id", progress=False).fit()  # lazy imports
    del tiny_pred, tiny_truth
    gc.collect()
    rss_base = _status_kb("VmRSS")
    if source == "memory":
        pred, truth = make_data(n_users)
        gc.collect()

    def call() -> tuple[pd.DataFrame, pd.DataFrame]:
        if source == "memory":
            p, t = pred, truth
        else:
            p = pd.read_parquet(Path(directory) / "pred.parquet")
            t = pd.read_parquet(Path(directory) / "truth.parquet")
        return rk.EvalModel(p, t, metrics(), ties="item_id", progress=False).fit()

    _reset_hwm()
    runs = []
    for _ in range(repeats):
        seconds, (sys_result, users) = _timed(call)
        runs.append(seconds)
        n_users_result = len(users)
        del users
        gc.collect()
    return {"runs_s": runs, "system": system_values(sys_result), "n_users_result": n_users_result,
            "rss_base": rss_base, "peak_rss": _status_kb("VmHWM")}


def child_write(n_users: int, directory: str) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    pred, truth = make_data(n_users)
    t0 = time.perf_counter()
    sizes = {}
    for name, df in (("pred", pred), ("truth", truth)):
        path = Path(directory) / f"{name}.parquet"
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
        sizes[name] = path.stat().st_size
    return {"write_s": time.perf_counter() - t0, "bytes": sizes, "pyarrow": pa.__version__,
            "pred_rows": len(pred), "truth_rows": len(truth)}


def _count_rows(batches: Any) -> Any:
    import pyarrow as pa
    n = 0
    for batch in batches:
        n += batch.num_rows
    yield pa.RecordBatch.from_pydict({"n": [n]})


def child_spark(n_users: int, directory: str, cores: int, driver_memory: str, repeats: int,
                sources: list[str]) -> dict[str, Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    import pyspark
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from rankeval.engines import _spark as engine

    spark = (SparkSession.builder.master(f"local[{cores}]").appName("rankeval-bench-spark")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", driver_memory)
             .config("spark.local.dir", str(Path(directory) / "spark-local"))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    tiny_pred, tiny_truth = make_data(50)  # starts the Python workers and their imports
    rk.EvalModel(spark.createDataFrame(tiny_pred), spark.createDataFrame(tiny_truth), metrics()).fit()[1].count()
    _, workers, _ = spark_processes()
    idle_worker_rss = max((_status_kb("VmRSS", pid) or 0 for pid in workers), default=None)

    out: dict[str, Any] = {"pyspark": pyspark.__version__, "cores": cores, "driver_memory": driver_memory,
                           "idle_worker_rss": idle_worker_rss, "java": _java_version(),
                           "arrow_batch_rows": engine.ARROW_BATCH_ROWS}
    for source in sources:
        pred = spark.read.parquet(str(Path(directory) / "pred.parquet"))
        truth = spark.read.parquet(str(Path(directory) / "truth.parquet"))
        res: dict[str, Any] = {}
        if source == "memory":
            pred, truth = pred.cache(), truth.cache()
            res["cache_s"], _ = _timed(lambda: (pred.count(), truth.count()))
        n_rows = pred.count()
        n_buckets = engine.default_buckets(n_rows, engine.parallelism(spark))
        res.update(pred_rows=n_rows, n_buckets=n_buckets)
        log(f"[{n_users:,} users, Spark, {source}] {n_buckets} buckets (default)")

        rows = (pred.select("user_id", "item_id", "score", F.lit(False).alias("t"))
                .unionByName(truth.select("user_id", "item_id", "score", F.lit(True).alias("t"))))
        buckets = rows.repartition(n_buckets, "user_id")
        steps = {
            "scan": lambda: rows.write.format("noop").mode("overwrite").save(),
            "+ shuffle": lambda: buckets.write.format("noop").mode("overwrite").save(),
            "+ Arrow to Python": lambda: buckets.mapInArrow(_count_rows, "n long").agg(F.sum("n")).collect(),
        }
        breakdown = []
        for step, fn in steps.items():
            with engine._engine_arrow_batches(spark), CpuMeter() as meter:
                seconds, _ = _timed(fn)
            breakdown.append({"step": step, "wall_s": seconds, "jvm_cpu_s": meter.jvm_cpu,
                              "python_cpu_s": meter.python_cpu})
            log(f"[{n_users:,} users, Spark, {source}] {step}: {seconds:.1f} s")
        runs = []
        for i in range(repeats):
            # the engine caches its output, which a second call on the same frames would reuse:
            # drop every cache, then cache the inputs again (untimed) for the in-memory runs
            spark.catalog.clearCache()
            if source == "memory":
                pred.cache().count(), truth.cache().count()
            gc.collect()
            with CpuMeter() as meter:
                seconds, (sys_result, users) = _timed(
                    lambda: rk.EvalModel(pred, truth, metrics(), progress=False).fit())
            n_users_result = users.count()
            runs.append({"wall_s": seconds, "jvm_cpu_s": meter.jvm_cpu, "python_cpu_s": meter.python_cpu,
                         "worker_peak": meter.max_single, "worker_sum_rss": meter.max_sum_rss,
                         "system": system_values(sys_result), "n_users_result": n_users_result})
            log(f"[{n_users:,} users, Spark, {source}] engine run {i + 1}: {seconds:.1f} s")
        breakdown.append({"step": "engine (median run)", "wall_s": statistics.median(r["wall_s"] for r in runs),
                          "jvm_cpu_s": statistics.median(r["jvm_cpu_s"] for r in runs),
                          "python_cpu_s": statistics.median(r["python_cpu_s"] for r in runs)})
        res.update(runs=runs, breakdown=breakdown)
        out[source] = res
        spark.catalog.clearCache()
    jvm, _, _ = spark_processes()
    out["jvm_peak_rss"] = None if jvm is None else _status_kb("VmHWM", jvm)
    out["driver_peak_rss"] = _status_kb("VmHWM")
    spark.stop()
    return out


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
    return max(abs(a[s][m] - b[s][m]) for s in a for m in a[s])


def _s(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _mb(x: float | None) -> str:
    return "n/a" if x is None else f"{x / MB:,.0f}"


SOURCE_LABEL = {"memory": "in memory", "parquet": "from Parquet"}


def render(info: dict[str, Any], results: list[dict[str, Any]], command: str) -> str:
    spark = next((r["spark"] for r in results if "spark" in r), {})
    lines = [
        "# rankeval: the Spark engine (local mode) against the pandas engine",
        "",
        "Method: the docstring of `benchmarks/bench_spark.py`; discussion in `docs/performance.md` (Spark).",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['ram_bytes'] / 2**30:.1f} GiB RAM; {info['os']}; "
        f"Python {info['python']}, numpy {info['numpy']}, pandas {info['pandas']}, "
        f"pyspark {spark.get('pyspark', '?')}, {spark.get('java', 'java ?')}; "
        f"rankeval {info['rankeval']} ({info['commit']}).",
        f"Spark: `local[{spark.get('cores', '?')}]`, spark.driver.memory={spark.get('driver_memory', '?')}, "
        f"every other setting at its default; the engine's Arrow batches: {spark.get('arrow_batch_rows', '?'):,} rows.",
        f"Run {info['date']}; load average (1, 5, 15 min) at start "
        f"{', '.join(f'{x:.2f}' for x in info['load_start'])}, at end "
        f"{', '.join(f'{x:.2f}' for x in info['load_end'])}.",
        "Data: `benchmarks/synthetic.py`, string ids, 100 recommendations and 20 ratings per user; "
        "metrics NDCG@10, MAP@10, MRR@10.",
        f"Command: `{command}`",
        "",
        "## Side by side (wall-clock seconds; median of the runs, every run in brackets)",
        "",
        "| users | pred rows | starting point | pandas engine | Spark engine | buckets | Spark / pandas | "
        "system rows, max abs diff |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for source in r["sources"]:
            p, s = r.get(f"pandas_{source}"), r.get("spark", {}).get(source)
            if p is None or s is None:
                lines.append(f"| {r['n_users']:,} | | {SOURCE_LABEL[source]} | failed: {r.get('error', '?')} "
                             "| | | | |")
                continue
            pm = statistics.median(p["runs_s"])
            sm = statistics.median(x["wall_s"] for x in s["runs"])
            diff = max(max_diff(p["system"], x["system"]) for x in s["runs"])
            lines.append(
                f"| {r['n_users']:,} | {s['pred_rows']:,} | {SOURCE_LABEL[source]} | {_s(pm)} "
                f"({', '.join(_s(x) for x in p['runs_s'])}) | {_s(sm)} "
                f"({', '.join(_s(x['wall_s']) for x in s['runs'])}) | {s['n_buckets']} | "
                f"**{sm / pm:.2f}×** | {diff:.1e} |")
    lines += [
        "",
        "pandas *in memory*: `EvalModel(pred, truth, ...).fit()` on the frames `make_data` built; *from Parquet*: "
        "`pd.read_parquet` of both files plus that call. Spark *in memory*: the same call on DataFrames read "
        "from the Parquet files and cached before the clock starts; *from Parquet*: on `spark.read.parquet` "
        "DataFrames. Each Spark call runs the bucket job, computes `sys_result` and caches the per-user output.",
        "",
        "## Where the Spark engine's time goes",
        "",
        "| users | starting point | step | wall s | JVM CPU s | Python workers CPU s |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for r in results:
        for source in r["sources"]:
            s = r.get("spark", {}).get(source)
            for b in (s or {}).get("breakdown", []):
                lines.append(f"| {r['n_users']:,} | {SOURCE_LABEL[source]} | {b['step']} | {_s(b['wall_s'])} | "
                             f"{b['jvm_cpu_s']:.1f} | {b['python_cpu_s']:.1f} |")
    lines += [
        "",
        "Each step is a Spark job of its own that stops after that step (see the docstring); the steps are "
        "cumulative. CPU seconds are summed over threads (2 cores: up to 2 CPU seconds per wall second).",
        "",
        "## Memory (MB = 10^6 bytes)",
        "",
        "| users | pandas engine peak RSS (in memory / from Parquet) | Spark: largest Python worker VmHWM "
        "(in memory / from Parquet) | idle worker RSS | JVM VmHWM (whole run) |",
        "|---:|---|---|---:|---:|",
    ]
    for r in results:
        s = r.get("spark", {})
        pan = " / ".join(_mb(r[f"pandas_{x}"]["peak_rss"]) if f"pandas_{x}" in r else "n/a" for x in r["sources"])
        wk = " / ".join(_mb(max(x["worker_peak"] for x in s[src]["runs"])) if src in s else "n/a"
                        for src in r["sources"])
        lines.append(f"| {r['n_users']:,} | {pan} | {wk} | {_mb(s.get('idle_worker_rss'))} | "
                     f"{_mb(s.get('jvm_peak_rss'))} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--sources", nargs="+", choices=["memory", "parquet"], default=["memory", "parquet"])
    parser.add_argument("--cores", type=int, default=2, help="local[N] (default 2)")
    parser.add_argument("--driver-memory", default="12g")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "spark.md")
    parser.add_argument("--child", choices=["pandas", "write", "spark"], help=argparse.SUPPRESS)
    parser.add_argument("--source", choices=["memory", "parquet"], help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        n = args.sizes[0]
        if args.child == "pandas":
            result = child_pandas(n, args.source, args.dir, args.repeats)
        elif args.child == "write":
            result = child_write(n, args.dir)
        else:
            result = child_spark(n, args.dir, args.cores, args.driver_memory, args.repeats, args.sources)
        print(json.dumps(result))
        return

    info = machine_info()
    results: list[dict[str, Any]] = []
    ok = True
    for n in args.sizes:
        r: dict[str, Any] = {"n_users": n, "sources": args.sources}
        results.append(r)
        directory = tempfile.mkdtemp(prefix="rankeval-bench-spark-")
        try:
            log(f"[{n:,} users] write Parquet to {directory}")
            r["write"] = run_child(["--child", "write", "--sizes", str(n), "--dir", directory])
            for source in args.sources:
                log(f"[{n:,} users] pandas engine, {SOURCE_LABEL[source]} (fresh process)")
                r[f"pandas_{source}"] = run_child(["--child", "pandas", "--source", source, "--sizes", str(n),
                                                   "--dir", directory, "--repeats", str(args.repeats)])
            log(f"[{n:,} users] Spark engine (fresh process)")
            try:
                r["spark"] = run_child(["--child", "spark", "--sizes", str(n), "--dir", directory,
                                        "--repeats", str(args.repeats), "--cores", str(args.cores),
                                        "--driver-memory", args.driver_memory, "--sources", *args.sources])
            except RuntimeError as exc:
                r["error"] = str(exc)
                ok = False
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        for source in args.sources:
            reference = r[f"pandas_{source}"]
            for run in r.get("spark", {}).get(source, {}).get("runs", []):
                diff = max_diff(reference["system"], run["system"])
                if not diff <= TOL or run["n_users_result"] != reference["n_users_result"]:
                    log(f"[{n:,} users] Spark ({source}) differs from pandas: system rows by {diff:.3g}, "
                        f"{run['n_users_result']} per-user rows against {reference['n_users_result']}")
                    ok = False
    info["load_end"] = os.getloadavg()

    command = " ".join(["python", "benchmarks/bench_spark.py", *sys.argv[1:]])
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
