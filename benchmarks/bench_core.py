"""Speed and memory of rankeval's core path against a lower bound measured in the same process.

What is measured
----------------
rankeval: ``rk.Split(pred, truth)`` (validation, id factorization, list ordering, the join
to truth scores, per-user truth data) followed by ``NDCGAtK(10)``, ``MAPAtK(10)`` and
``MRRAtK(10)`` ``.perform(split)`` (per-user values in a DataFrame plus the system mean).

Lower bound (:func:`lower_bound`): only the part that no evaluator can skip, done with the
fastest primitives we know, and nothing else:

1. a factorization of pred user ids and of pred item ids (one hash pass each);
2. the truth user and item ids looked up among those uniques (-1 for an id the lists
   never mention: such a rating cannot match any listed row and is dropped);
3. int64 keys ``user * n_items + item`` for both frames;
4. the packed sort-merge join of rankeval's ``_join``: ``key << row_bits | row`` in one
   int64, ``ndarray.sort()`` of the pred words and of the truth words, ``np.searchsorted``
   of the sorted truth keys among the sorted pred keys, truth scores scattered into a NaN
   array (one truth score per pred row).

The factorizations are ``rankeval.data._keys.factorize`` / ``codes_in`` (``pd.factorize`` and
``Index.get_indexer`` that hash each distinct *object* once; see that module): the fastest
exact id hashing we know. The bound uses them too, so that it stays a bound on rankeval's
own method rather than on an older, slower one.

No validation, no list ordering, no per-user data, no metric.

Why it is a lower bound: any evaluator of these metrics must (a) identify the ids of both
frames, i.e. decide for every truth row whether its user and item are the ones of some
listed row, and (b) find the rating of every listed item (NDCG, MAP and MRR all read the
relevance of each listed item). Steps 1-2 are (a) with a single hash pass per id column;
steps 3-4 are (b) with one sort of the listed rows and one binary search per rating. The
metrics themselves, validation, ordering and result frames are extra work on top, so the
ratio rankeval / lower bound is the price of everything rankeval does beyond the join.
When ``pred`` lists each user's rows together (as recommenders write them), users can be
found by comparing neighbouring rows instead of hashing every row, several times cheaper
than hashing the user column; rankeval does that, so the default lower bound does it too
(``--lb-users runs``: users from runs of equal neighbours when those runs have distinct
ids, ``pd.factorize`` otherwise). ``--lb-users factorize`` hashes the user column instead:
a looser bound, the one of evaluators that hash every id.

Timing
------
Data come from ``benchmarks/synthetic.py`` (seeded: 100 recommendations and 20 ratings per
user, half of them of listed items, string ids unless ``--int-ids``; ``pred`` grouped by
user and sorted by score). For each size, in one process: one warm-up run of each (the
first use of a string caches its hash) that also checks that both compute the same truth
score for every listed row, then ``reps`` rounds of lower bound, rankeval, each preceded by
``gc.collect()``. Medians of wall-clock time (``time.perf_counter``) are reported; the
ratio of the medians of CPU time (``time.process_time``) is reported too, as it is less
sensitive to other processes on the machine. rankeval's time is also split into ``Split``
(which builds the join) and each metric, in the order they run: the first metric pays for
the first-10-rows view that the others then share.

Memory
------
Peak extra memory over the input frames, in a fresh subprocess per size and per contender:
the child builds the data, warms the code path on tiny data, starts ``tracemalloc`` (numpy
and pandas report their buffers and hash tables to it), and reports the peak traced bytes
during the call minus the traced bytes just before it. For reference the child also
reports its RSS before the call and its peak RSS: ``VmHWM``, reset after the data are
built (``/proc/self/clear_refs``), so it covers the inputs plus the call rather than data
generation. (``ru_maxrss`` is not used where ``VmHWM`` exists: in a child process it also
counts the parent's RSS at fork time.)

Usage
-----
    .venv/bin/python benchmarks/bench_core.py                      # 10k, 100k, 1M users (make bench)
    .venv/bin/python benchmarks/bench_core.py --sizes 10000 100000 --reps 5
    .venv/bin/python benchmarks/bench_core.py --int-ids            # integer ids
    .venv/bin/python benchmarks/bench_core.py --lb-users factorize # looser bound: hash the user column

Writes ``benchmarks/results/core.md`` (``core_int_ids.md`` with ``--int-ids``, ``*_lb_factorize.md``
with ``--lb-users factorize``) and a JSON file with every run next to it, and updates the marked
results section of ``docs/performance.md`` (``--no-docs`` to leave it alone).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import rankeval as rk  # noqa: E402
from rankeval.data._keys import codes_in, factorize, runs, sorted_with_rows  # noqa: E402
from synthetic import make_data  # noqa: E402

DEFAULT_SIZES = (10_000, 100_000, 1_000_000)
K = 10
METRICS: tuple[tuple[str, Callable[[], Any]], ...] = (
    (f"NDCG@{K}", lambda: rk.NDCGAtK(K)),
    (f"MAP@{K}", lambda: rk.MAPAtK(K)),
    (f"MRR@{K}", lambda: rk.MRRAtK(K)),
)
DOC = ROOT / "docs" / "performance.md"
MB = 1e6


# ---------------------------------------------------------------------------- contenders
def lower_bound(pred: pd.DataFrame, truth: pd.DataFrame, find_users: str = "runs") -> np.ndarray:
    """Truth score of every pred row (NaN when unrated): id factorization plus one join, nothing else.

    ``find_users="runs"``: find pred users from runs of equal neighbouring ids (see the module docstring).
    """
    pcode, users = _user_codes(pred["user_id"].to_numpy(), find_users)
    picode, items = factorize(pred["item_id"].to_numpy())
    tcode = codes_in(pd.Index(users), truth["user_id"].to_numpy())[0]
    ticode = codes_in(pd.Index(items), truth["item_id"].to_numpy())[0]
    tscores = truth["score"].to_numpy(dtype=np.float64)
    known = (tcode >= 0) & (ticode >= 0)
    if not known.all():  # a rating of an unlisted user or item matches no row
        tcode, ticode, tscores = tcode[known], ticode[known], tscores[known]
    n_items = len(items)
    pkeys = pcode.astype(np.int64)
    pkeys *= n_items
    pkeys += picode
    del pcode, picode  # not needed any more: a smaller peak
    tkeys = tcode.astype(np.int64)
    tkeys *= n_items
    tkeys += ticode
    return _packed_join(pkeys, tkeys, tscores, len(users) * n_items)


def _user_codes(values: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    if how == "runs" and len(values):
        starts = runs(values)
        firsts = values[starts]
        if pd.Index(firsts).is_unique:  # each user's rows are together: one code per run
            lengths = np.diff(np.append(starts, len(values)))
            return np.repeat(np.arange(len(starts)), lengths), firsts
    return factorize(values)


def _packed_join(pkeys: np.ndarray, tkeys: np.ndarray, tscores: np.ndarray, key_space: int) -> np.ndarray:
    """rankeval's sort-merge join without its duplicate check; consumes ``pkeys``."""
    n = len(pkeys)
    out = np.full(n, np.nan)
    if n == 0 or len(tkeys) == 0:
        return out
    row_bits = n.bit_length()
    if key_space.bit_length() + row_bits <= 63:
        packed = pkeys
        packed <<= row_bits
        packed |= np.arange(n, dtype=np.int64)
        packed.sort()
        keys = packed >> row_bits
        tkeys, trows = sorted_with_rows(tkeys)
        tscores = tscores[trows]
        at = np.searchsorted(keys, tkeys)
        np.minimum(at, n - 1, out=at)
        found = keys[at] == tkeys
        del keys
        out[packed[at[found]] & ((1 << row_bits) - 1)] = tscores[found]
        return out
    order = np.argsort(pkeys)  # too many ids to pack (not the case at the sizes benchmarked)
    keys = pkeys[order]
    at = np.searchsorted(keys, tkeys)
    np.minimum(at, n - 1, out=at)
    found = keys[at] == tkeys
    out[order[at[found]]] = tscores[found]
    return out


def run_rankeval(pred: pd.DataFrame, truth: pd.DataFrame,
                 clocks: dict[str, list[float]] | None = None) -> tuple[rk.Split, dict[str, float]]:
    """Split + every metric of METRICS; appends (wall, cpu) marks to ``clocks`` when given."""
    def mark() -> None:
        if clocks is not None:
            clocks["wall"].append(time.perf_counter())
            clocks["cpu"].append(time.process_time())

    mark()
    split = rk.Split(pred, truth)
    mark()
    systems = {}
    for name, make in METRICS:
        systems[name] = float(make().perform(split).system.iloc[0, 0])
        mark()
    return split, systems


# ---------------------------------------------------------------------------- timing
def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    result = fn()
    w, c = time.perf_counter() - w, time.process_time() - c
    del result
    return w, c


def time_size(n_users: int, reps: int, str_ids: bool, lb_users: str) -> dict[str, Any]:
    log(f"[{n_users:,} users] generating data")
    pred, truth = make_data(n_users, str_ids=str_ids)
    log(f"[{n_users:,} users] warm-up and cross-check")
    with warnings.catch_warnings():
        warnings.simplefilter("error", rk.RankevalWarning)  # the synthetic data must not trigger any
        lb = lower_bound(pred, truth, lb_users)
        split, systems = run_rankeval(pred, truth)
    lists = split.ranked_lists()
    if lists.n_rows != len(pred) or not np.array_equal(lb, lists.truth_score, equal_nan=True):
        raise AssertionError("lower_bound and rankeval disagree on the truth score of the listed rows")
    n_judged = int(np.count_nonzero(~np.isnan(lb)))
    del lb, split, lists

    runs: dict[str, list[float]] = {key: [] for key in
                                    ("lb_wall", "lb_cpu", "rk_wall", "rk_cpu", "Split", *(m for m, _ in METRICS))}
    for rep in range(reps):
        w, c = _timed(lambda: lower_bound(pred, truth, lb_users))
        runs["lb_wall"].append(w)
        runs["lb_cpu"].append(c)
        clocks: dict[str, list[float]] = {"wall": [], "cpu": []}
        gc.collect()
        result = run_rankeval(pred, truth, clocks)
        del result
        wall, cpu = clocks["wall"], clocks["cpu"]
        runs["rk_wall"].append(wall[-1] - wall[0])
        runs["rk_cpu"].append(cpu[-1] - cpu[0])
        for i, part in enumerate(("Split", *(m for m, _ in METRICS))):
            runs[part].append(wall[i + 1] - wall[i])
        log(f"[{n_users:,} users] rep {rep + 1}/{reps}: lower bound {runs['lb_wall'][-1]:.3f} s, "
            f"rankeval {runs['rk_wall'][-1]:.3f} s")
    med = {key: statistics.median(values) for key, values in runs.items()}
    return {
        "n_users": n_users, "pred_rows": len(pred), "truth_rows": len(truth), "judged_rows": n_judged,
        "input_bytes": int(pred.memory_usage(index=False).sum() + truth.memory_usage(index=False).sum()),
        "reps": reps, "runs": runs, "median": med,
        "ratio_wall": med["rk_wall"] / med["lb_wall"], "ratio_cpu": med["rk_cpu"] / med["lb_cpu"],
        "system": systems,
    }


# ---------------------------------------------------------------------------- memory
def _status_kb(key: str) -> int | None:
    try:
        m = re.search(rf"^{key}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def traced_call(fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """Run ``fn(*args)`` once, measuring the peak traced memory it adds and the peak RSS.

    The peak RSS (VmHWM) is reset first, so it covers the inputs plus the call, not the
    data generation before it. Shared by the benchmarks' memory children.
    """
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset peak RSS: forget data generation
        rss_reset = True
    except OSError:
        rss_reset = False
    rss_before = _status_kb("VmRSS")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    result = fn(*args)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return {"peak_extra_bytes": peak - before, "retained_bytes": current - before,
            "rss_before_kb": rss_before, "hwm_kb": _status_kb("VmHWM"), "rss_reset": rss_reset}


def memory_child(which: str, n_users: int, str_ids: bool, lb_users: str) -> dict[str, Any]:
    """Run in a fresh process: traced peak of one call over the traced bytes before it."""
    def fn(pred: pd.DataFrame, truth: pd.DataFrame) -> Any:
        return lower_bound(pred, truth, lb_users) if which == "lower_bound" else run_rankeval(pred, truth)

    tiny_pred, tiny_truth = make_data(50, str_ids=str_ids)
    fn(tiny_pred, tiny_truth)  # lazy imports and one-off caches are not the call's memory
    del tiny_pred, tiny_truth
    pred, truth = make_data(n_users, str_ids=str_ids)
    m = traced_call(fn, pred, truth)
    rss_before, hwm, rss_reset = m["rss_before_kb"], m["hwm_kb"], m["rss_reset"]
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "which": which, "n_users": n_users, "peak_extra_bytes": m["peak_extra_bytes"],
        "retained_bytes": m["retained_bytes"],
        "rss_before_bytes": None if rss_before is None else rss_before * 1024,
        # ru_maxrss of a child also counts the parent's RSS at fork time (kept across exec);
        # VmHWM is this process's own peak, reset above after data generation
        "peak_rss_bytes": maxrss if hwm is None else hwm * 1024,
        "ru_maxrss_bytes": maxrss,
        "peak_rss_reset_after_data": rss_reset and hwm is not None,
    }


def measure_memory(which: str, n_users: int, str_ids: bool, lb_users: str) -> dict[str, Any]:
    log(f"[{n_users:,} users] memory of {which} (fresh process)")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-child", which, "--sizes", str(n_users),
           "--lb-users", lb_users]
    if not str_ids:
        cmd.append("--int-ids")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"memory child {which} at {n_users} users failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- report
def machine_info() -> dict[str, Any]:
    cpu = "unknown"
    try:
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = m.group(1).strip() if m else platform.processor() or "unknown"
    except OSError:
        cpu = platform.processor() or "unknown"
    ram = None
    try:
        m = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
        ram = int(m.group(1)) * 1024 if m else None
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "cpu": cpu, "cores": os.cpu_count(), "ram_bytes": ram, "os": platform.platform(),
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "rankeval": rk.__version__, "commit": commit,
        "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "load_start": os.getloadavg(),
    }


def _fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _fmt_mb(x: float | None) -> str:
    return "n/a" if x is None else f"{x / MB:,.0f}" if x >= 10 * MB else f"{x / MB:,.1f}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render(info: dict[str, Any], timing: dict[int, dict[str, Any]], memory: dict[int, dict[str, Any]],
           sizes: list[int], str_ids: bool, lb_users: str, command: str) -> str:
    ids = "string ids (`u0000042`, `i012345`)" if str_ids else "integer ids"
    shown = sorted(set(sizes) | set(DEFAULT_SIZES))
    metric_names = [m for m, _ in METRICS]
    ram = "n/a" if info["ram_bytes"] is None else f"{info['ram_bytes'] / 2**30:.1f} GiB"
    lines = [
        f"Machine: {info['cpu']}, {info['cores']} cores, {ram} RAM; {info['os']}; "
        f"Python {info['python']}, numpy {info['numpy']}, pandas {info['pandas']}, "
        f"rankeval {info['rankeval']} ({info['commit']}).",
        f"Run {info['date']}; load average (1, 5, 15 min) at start "
        f"{', '.join(f'{x:.2f}' for x in info['load_start'])}, at end "
        f"{', '.join(f'{x:.2f}' for x in info['load_end'])}.",
        f"Data: `benchmarks/synthetic.py`, {ids}, 100 recommendations and 20 ratings per user.",
        "Lower bound: pred users coded by " + ("`pd.factorize`." if lb_users == "factorize" else
                                               "runs of equal neighbours (`--lb-users runs`)."),
        f"Command: `{command}`",
        "",
        "Time (seconds, median of the runs; ratio = rankeval / lower bound):",
        "",
        "| users | pred rows | lower bound | rankeval | ratio | ratio (CPU time) | Split | "
        + " | ".join(metric_names) + " | runs |",
        "|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(metric_names) + "---:|",
    ]
    for n in shown:
        if n not in timing:
            lines.append(_row([f"{n:,}", f"{n * 100:,}", "to be run", "to be run", "", "", "",
                               *[""] * len(metric_names), f"0 (`--sizes {n}`)"]))
            continue
        t = timing[n]
        med = t["median"]
        lines.append(
            f"| {n:,} | {t['pred_rows']:,} | {_fmt_s(med['lb_wall'])} | {_fmt_s(med['rk_wall'])} | "
            f"{t['ratio_wall']:.2f} | {t['ratio_cpu']:.2f} | {_fmt_s(med['Split'])} | "
            + " | ".join(_fmt_s(med[m]) for m in metric_names) + f" | {t['reps']} |")
    lines += [
        "",
        "Memory (MB = 10^6 bytes; peak traced bytes during the call minus traced bytes before it, "
        "one fresh process per cell; RSS for reference):",
        "",
        "| users | input columns | lower bound peak extra | rankeval peak extra | ratio | "
        "RSS before call | peak RSS, lower bound | peak RSS, rankeval |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in shown:
        if n not in memory:
            lines.append(_row([f"{n:,}", "", "to be run", "to be run", "", "", "", ""]))
            continue
        lb, rkm = memory[n]["lower_bound"], memory[n]["rankeval"]
        inputs = timing[n]["input_bytes"] if n in timing else None
        lines.append(
            f"| {n:,} | {_fmt_mb(inputs)} | {_fmt_mb(lb['peak_extra_bytes'])} | "
            f"{_fmt_mb(rkm['peak_extra_bytes'])} | {rkm['peak_extra_bytes'] / lb['peak_extra_bytes']:.2f} | "
            f"{_fmt_mb(rkm['rss_before_bytes'])} | {_fmt_mb(lb['peak_rss_bytes'])} | "
            f"{_fmt_mb(rkm['peak_rss_bytes'])} |")
    reset = all(m[w]["peak_rss_reset_after_data"] for m in memory.values() for w in m)
    lines += [
        "",
        "`input columns`: the frames' column buffers (8 bytes a cell; string objects are extra and "
        "shared). `RSS before call`: the rankeval child with its inputs built. Peak RSS "
        + ("(VmHWM) covers the inputs plus the call (reset after data generation)." if reset or not memory else
           "(ru_maxrss) includes data generation and the parent's RSS (it could not be reset)."),
        "Split is validation plus the join; metrics run in the order shown and the first one also "
        f"builds the first-{K}-rows view the others share.",
    ]
    return "\n".join(lines) + "\n"


def write_marked(doc: Path, tag: str, block: str) -> bool:
    """Replace what lies between ``<!-- tag:begin -->`` and ``<!-- tag:end -->`` in ``doc``; False if absent."""
    begin, end = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"
    if not doc.exists():
        return False
    text = doc.read_text()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return False
    doc.write_text(text[:i + len(begin)] + "\n" + block + text[j:])
    return True


def update_doc(block: str, str_ids: bool) -> bool:
    return write_marked(DOC, "bench_core" if str_ids else "bench_core_int_ids", block)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="numbers of users")
    ap.add_argument("--reps", type=int, default=None,
                    help="timed runs per size (default: 5 below 1M users, 3 from 1M)")
    ap.add_argument("--int-ids", action="store_true", help="integer instead of string ids")
    ap.add_argument("--skip-memory", action="store_true", help="time only")
    ap.add_argument("--no-docs", action="store_true",
                    help="do not update docs/performance.md (never updated with --out or --lb-users runs)")
    ap.add_argument("--out", type=Path, default=None,
                    help="markdown output (default benchmarks/results/core.md; core_int_ids.md with "
                         "--int-ids, *_lb_runs.md with --lb-users runs)")
    ap.add_argument("--lb-users", choices=("factorize", "runs"), default="runs",
                    help="how the lower bound codes pred users: pd.factorize (default) or, when each "
                         "user's rows are together, runs of equal neighbours as rankeval does")
    ap.add_argument("--memory-child", choices=("lower_bound", "rankeval"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    str_ids = not args.int_ids

    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.sizes[0], str_ids, args.lb_users)))
        return

    info = machine_info()
    timing: dict[int, dict[str, Any]] = {}
    memory: dict[int, dict[str, Any]] = {}
    for n in args.sizes:
        reps = args.reps if args.reps is not None else (3 if n >= 1_000_000 else 5)
        timing[n] = time_size(n, reps, str_ids, args.lb_users)
        gc.collect()
        if not args.skip_memory:
            memory[n] = {w: measure_memory(w, n, str_ids, args.lb_users) for w in ("lower_bound", "rankeval")}
    info["load_end"] = os.getloadavg()

    command = " ".join([".venv/bin/python", "benchmarks/bench_core.py", *sys.argv[1:]])
    block = render(info, timing, memory, args.sizes, str_ids, args.lb_users, command)
    stem = "core" + ("" if str_ids else "_int_ids") + ("" if args.lb_users == "runs" else "_lb_factorize")
    out = args.out or HERE / "results" / f"{stem}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    title = "# rankeval core benchmark: Split + NDCG@10 + MAP@10 + MRR@10 against a lower bound\n\n"
    out.write_text(title + "Method: see `docs/performance.md` and the docstring of "
                   "`benchmarks/bench_core.py`.\n\n" + block)
    out.with_suffix(".json").write_text(json.dumps(
        {"machine": info, "command": command, "str_ids": str_ids,
         "timing": {str(k): v for k, v in timing.items()},
         "memory": {str(k): v for k, v in memory.items()}}, indent=1, default=float) + "\n")
    print(block)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    if not args.no_docs and args.out is None and args.lb_users == "runs":
        if update_doc(block, str_ids):
            log(f"updated {DOC}")
        else:
            log(f"{DOC} has no <!-- bench_core ... :begin/:end --> markers; left unchanged")


if __name__ == "__main__":
    main()
