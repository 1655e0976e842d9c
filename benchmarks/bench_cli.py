"""Time of `rankeval evaluate` on the 100k-user benchmark files: reading vs evaluating.

The seeded data of benchmarks/synthetic.py (``make_data(users)``: 100 recommendations and
20 ratings per user, string ids) is written once to CSV and to Parquet in a temporary
directory. For each format, ``--reps`` rounds of:

- read: ``rankeval.io.read_frame`` of the pred and the truth file, in-process, with the
  options the command uses (CSV ids read as text);
- evaluate: ``EvalModel(pred, truth, [NDCG@10, MAP@10, MRR@10]).fit()`` on the frames just
  read (validation, the join, the metrics; fresh strings, as in the command);
- command: the wall time of ``python -m rankeval evaluate --pred P --truth T -m NDCG@10
  -m MAP@10 -m MRR@10 --format csv`` in a subprocess (interpreter start, imports, read,
  evaluate, print).

Reported: the median of each, the interpreter start + imports alone (``python -m rankeval
--version``), and, for reference, the CSV read with pandas' pyarrow engine (multi-threaded;
not what rankeval uses). A markdown table is printed and written to
benchmarks/results/cli.md.

    .venv/bin/python benchmarks/bench_cli.py --users 100000 --reps 3
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import rankeval as rk  # noqa: E402
from rankeval.io import read_frame, write_frame  # noqa: E402
from synthetic import make_data  # noqa: E402

METRICS = ["NDCG@10", "MAP@10", "MRR@10"]
CSV_OPTIONS = {"dtype": {"user_id": str, "item_id": str}}  # what `rankeval evaluate` passes for CSV


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores; {platform.platform()}; Python {platform.python_version()}, "
            f"numpy {np.__version__}, pandas {pd.__version__}, rankeval {rk.__version__}")


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command(pred: Path, truth: Path) -> tuple[float, float, str]:
    """Wall and CPU time (user + system) of the command, and its stdout."""
    args = [sys.executable, "-m", "rankeval", "evaluate", "--pred", str(pred), "--truth", str(truth),
            *[a for m in METRICS for a in ("-m", m)], "--format", "csv", "--no-progress"]
    cpu0, t0 = _children_cpu(), time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, _children_cpu() - cpu0, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "cli.md")
    args = parser.parse_args()

    load_start = _load()
    started = datetime.now(timezone.utc)
    metrics = [rk.parse_metric(m) for m in METRICS]
    pred, truth = make_data(args.users)
    rows = []
    with tempfile.TemporaryDirectory(prefix="rankeval-bench-cli-") as tmp:
        files = {}
        for fmt, ext in (("CSV", "csv"), ("Parquet", "parquet")):
            p, t = Path(tmp) / f"pred.{ext}", Path(tmp) / f"truth.{ext}"
            t0 = time.perf_counter()
            write_frame(pred, p)
            write_frame(truth, t)
            files[fmt] = (p, t, time.perf_counter() - t0)
        del pred, truth
        startups, startups_cpu = [], []
        for _ in range(args.reps):
            cpu0, t0 = _children_cpu(), time.perf_counter()
            subprocess.run([sys.executable, "-m", "rankeval", "--version"], capture_output=True, check=True)
            startups.append(time.perf_counter() - t0)
            startups_cpu.append(_children_cpu() - cpu0)
        startup, startup_cpu = _median(startups), _median(startups_cpu)
        outputs = {}
        for fmt, (p, t, write_time) in files.items():
            options = CSV_OPTIONS if fmt == "CSV" else {}
            reads_p, reads_t, evals, commands, arrow = [], [], [], [], []
            reads_cpu, evals_cpu, commands_cpu = [], [], []
            for _ in range(args.reps):
                gc.collect()
                c0, t0 = time.process_time(), time.perf_counter()
                pf = read_frame(p, **options)
                t1 = time.perf_counter()
                tf = read_frame(t, **options)
                c2, t2 = time.process_time(), time.perf_counter()
                sys_result, _ = rk.EvalModel(pf, tf, metrics, progress=False).fit()
                c3, t3 = time.process_time(), time.perf_counter()
                reads_p.append(t1 - t0)
                reads_t.append(t2 - t1)
                evals.append(t3 - t2)
                reads_cpu.append(c2 - c0)
                evals_cpu.append(c3 - c2)
                del pf, tf
                gc.collect()
                if fmt == "CSV":
                    t0 = time.perf_counter()
                    pd.read_csv(p, engine="pyarrow", **options)
                    pd.read_csv(t, engine="pyarrow", **options)
                    arrow.append(time.perf_counter() - t0)
                elapsed, cpu, stdout = _command(p, t)
                commands.append(elapsed)
                commands_cpu.append(cpu)
                outputs[fmt] = (stdout, sys_result)
            rows.append({"format": fmt, "pred MB": p.stat().st_size / 1e6, "truth MB": t.stat().st_size / 1e6,
                         "write": write_time, "read pred": _median(reads_p), "read truth": _median(reads_t),
                         "evaluate": _median(evals), "command": _median(commands),
                         "read cpu": _median(reads_cpu), "evaluate cpu": _median(evals_cpu),
                         "command cpu": _median(commands_cpu), "arrow": _median(arrow) if arrow else None})
        # the command printed what the API computed, to the last bit, for both formats
        for fmt, (stdout, sys_result) in outputs.items():
            from io import StringIO
            got = pd.read_csv(StringIO(stdout), index_col="split", float_precision="round_trip")
            assert np.array_equal(got.to_numpy(), sys_result.to_numpy()), fmt
    load_end = _load()

    lines = [
        "# `rankeval evaluate` on files: reading vs evaluating",
        "",
        f"Machine: {_machine()}.",
        f"Run {started:%Y-%m-%d %H:%M} UTC; load average (1, 5, 15 min) at start {load_start}, at end {load_end} "
        f"(other work shares this machine).",
        f"Data: `benchmarks/synthetic.py` `make_data({args.users})`: {args.users:,} users, "
        f"{100 * args.users:,} pred rows (user_id, item_id, score), {20 * args.users:,} truth rows, string ids.",
        f"Command: `rankeval evaluate --pred P --truth T {' '.join('-m ' + m for m in METRICS)} --format csv`; "
        f"`.venv/bin/python benchmarks/bench_cli.py --users {args.users} --reps {args.reps}`.",
        "",
        f"Seconds, median of {args.reps} runs. read = `rankeval.io.read_frame` of both files (in-process, CSV ids "
        "as text, as the command reads them); evaluate = `EvalModel(...).fit()` on the frames just read "
        "(validation, the join, 3 metrics); command = the subprocess (interpreter start, imports, read, evaluate, "
        f"print); start = `python -m rankeval --version` (interpreter + imports): {startup:.2f} s wall, "
        f"{startup_cpu:.2f} s CPU. Wall-clock time first, then CPU time (user + system, all threads: less "
        "sensitive to other load on the machine, and above the wall time when pyarrow reads with 2 threads).",
        "",
        "| format | pred / truth MB | read pred | read truth | evaluate | read share | command | "
        "CPU: read | CPU: evaluate | CPU: read share | CPU: command | CPU: command − start − read − evaluate |",
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        read = r["read pred"] + r["read truth"]
        total = read + r["evaluate"]
        cpu_total = r["read cpu"] + r["evaluate cpu"]
        lines.append(f"| {r['format']} | {r['pred MB']:.0f} / {r['truth MB']:.0f} | {r['read pred']:.2f} | "
                     f"{r['read truth']:.2f} | {r['evaluate']:.2f} | {read / total:.0%} | {r['command']:.2f} | "
                     f"{r['read cpu']:.2f} | {r['evaluate cpu']:.2f} | {r['read cpu'] / cpu_total:.0%} | "
                     f"{r['command cpu']:.2f} | {r['command cpu'] - startup_cpu - cpu_total:.2f} |")
    arrow = next(r["arrow"] for r in rows if r["format"] == "CSV")
    csv_read = next(r["read pred"] + r["read truth"] for r in rows if r["format"] == "CSV")
    lines += [
        "",
        f"For reference: the same two CSV files read with `pandas.read_csv(engine=\"pyarrow\")` (multi-threaded, "
        f"also exact): {arrow:.2f} s, against {csv_read:.2f} s for `read_frame` (the C parser with "
        "`float_precision=\"round_trip\"`, which rankeval uses because the C parser's default reads about a "
        "quarter of 17-digit floats one unit in the last place off). "
        f"Writing the files with `write_frame`: CSV {rows[0]['write']:.1f} s, Parquet {rows[1]['write']:.1f} s.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
