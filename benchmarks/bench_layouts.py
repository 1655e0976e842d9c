"""rankeval's core path on the same data in three row layouts, optionally against another checkout.

The core benchmark feeds ``pred`` grouped by user and sorted by score, as recommenders
write it. Files met in practice are not always like that: ratings split at random come in
random order, and a ``pred`` frame that went through a merge, a shuffle or Spark has its
rows in any order. This script times ``rk.Split(pred, truth, ties=...)`` plus NDCGAtK(10),
MAPAtK(10) and MRRAtK(10) on the synthetic data of ``benchmarks/synthetic.py`` in three
layouts of the same rows:

- ``grouped``: as generated (pred grouped by user, sorted by score; truth grouped by user);
- ``truth shuffled``: truth rows in random order;
- ``both shuffled``: pred rows in random order too (every list must be re-sorted).

With ``--before PATH`` the same runs are made, alternating, with the ``rankeval`` package
found in PATH (e.g. a ``git worktree`` of an older commit), each in its own child process:
this is how the "before" column of ``docs/performance.md`` was measured.

Usage::

    .venv/bin/python benchmarks/bench_layouts.py --users 100000 --reps 5
    git worktree add /tmp/before <commit> && \\
    .venv/bin/python benchmarks/bench_layouts.py --before /tmp/before

Writes ``benchmarks/results/layouts.md`` and ``.json``; with ``--before`` at 100,000 users it also
rewrites the marked table in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LAYOUTS = ("grouped", "truth shuffled", "both shuffled")


def child(n_users: int, reps: int, ties: str) -> dict[str, Any]:
    """Runs in a child whose sys.path starts with the rankeval under test."""
    import gc
    import time
    import warnings

    import rankeval as rk
    from synthetic import make_data

    pred, truth = make_data(n_users, seed=0)
    frames = {
        "grouped": (pred, truth),
        "truth shuffled": (pred, truth.sample(frac=1.0, random_state=0).reset_index(drop=True)),
        "both shuffled": (pred.sample(frac=1.0, random_state=1).reset_index(drop=True),
                          truth.sample(frac=1.0, random_state=0).reset_index(drop=True)),
    }

    def run(p: Any, t: Any) -> tuple[float, float, dict[str, float]]:
        gc.collect()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            split = rk.Split(p, t, ties=ties)
            built = time.perf_counter()
            means = {str(m): float(m.perform(split).system.iloc[0, 0])
                     for m in (rk.NDCGAtK(10), rk.MAPAtK(10), rk.MRRAtK(10))}
        end = time.perf_counter()
        return built - start, end - start, means

    out: dict[str, Any] = {"rankeval": rk.__file__}
    for layout, (p, t) in frames.items():
        run(p, t)  # warm-up: string hashes cached, first-touch memory faulted in
        runs = [run(p, t) for _ in range(reps)]
        out[layout] = {"split": [r[0] for r in runs], "total": [r[1] for r in runs], "means": runs[0][2]}
    return out


def spawn(path: Path, n_users: int, reps: int, ties: str) -> dict[str, Any]:
    code = (f"import sys, json; sys.path[:0] = [{str(path)!r}, {str(HERE)!r}]; "
            f"from bench_layouts import child; print(json.dumps(child({n_users}, {reps}, {ties!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ties", default="row_order", choices=("row_order", "item_id", "item_id_desc"))
    ap.add_argument("--before", type=Path, help="a checkout whose rankeval is compared with this one")
    ap.add_argument("--rounds", type=int, default=2, help="child processes per checkout, alternating")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "layouts.md")
    ap.add_argument("--no-docs", action="store_true", help="leave docs/performance.md alone")
    args = ap.parse_args()

    sys.path.insert(0, str(HERE))
    from bench_core import machine_info, write_marked

    checkouts = {"now": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for _ in range(args.rounds):
        for name, path in checkouts.items():
            results[name].append(spawn(path, args.users, args.reps, args.ties))
            print(f"{name}: done a child", file=sys.stderr, flush=True)

    def median(name: str, layout: str, key: str) -> float:
        return statistics.median(x for r in results[name] for x in r[layout][key])

    for layout in LAYOUTS:  # same answers whatever the layout and the checkout
        for name in checkouts:
            means = results[name][0][layout]["means"]
            reference = results["now"][0]["grouped"]["means"]
            assert all(abs(means[k] - reference[k]) <= 1e-12 for k in reference), (name, layout, means)

    info = machine_info()
    n_runs = args.rounds * args.reps
    lines = [f"rankeval on {args.users:,} users x 100 recommendations, string ids, ties={args.ties!r}: "
             f"`Split` + NDCG@10 + MAP@10 + MRR@10, median of {n_runs} runs ({args.rounds} child processes "
             f"x {args.reps}{', alternating with the other checkout' if args.before else ''}). "
             f"{info['cpu']}, {info['cores']} cores, commit {info['commit']}; load averages at the start "
             f"{', '.join(f'{x:.2f}' for x in info['load_start'])}.", ""]
    header = ["layout", "Split (s)", "total (s)"]
    if args.before:
        header += ["before: Split (s)", "before: total (s)", "speed-up (total)"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for layout in LAYOUTS:
        row = [layout, f"{median('now', layout, 'split'):.3f}", f"{median('now', layout, 'total'):.3f}"]
        if args.before:
            row += [f"{median('before', layout, 'split'):.3f}", f"{median('before', layout, 'total'):.3f}",
                    f"{median('before', layout, 'total') / median('now', layout, 'total'):.1f}x"]
        lines.append("| " + " | ".join(row) + " |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    if args.before and args.users == 100_000 and not args.no_docs:
        write_marked(ROOT / "docs" / "performance.md", "bench_layouts", text)
    args.out.with_suffix(".json").write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                                         "machine": info, "results": results}, indent=1))
    print(text)


if __name__ == "__main__":
    main()
