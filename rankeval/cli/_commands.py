"""The three commands: ``evaluate``, ``compare`` and ``report``, each from its parsed arguments
to its output (printed tables, written files); each returns the exit status."""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys
import warnings
from typing import Any

import pandas as pd

from .. import conventions
from ..data import Split
from ..evaluation import EvalModel, compare
from ..io import write_frame
from ..metrics.sampled import DEFAULT_GAMMA, sampled_columns
from ._inputs import (
    Reader,
    Stages,
    check_output,
    inner_progress,
    input_files,
    parse_metrics,
    parse_systems,
    split_names,
    split_options,
)
from ._output import DATA_FORMATS, render, render_comparison, render_posthoc
from ._power import equivalence_margin, render_equivalence, units_long
from ._propensity import propensity_metrics, report_strata
from ._sampled import check_sizes_cover, sampled_options
from ._seeds import group_seeds, render_seeds, seed_base
from ._side_files import read_side
from ._usage import PROG, UsageError, check_option_integer

__all__ = ["evaluate_command", "compare_command", "report_command"]

#: the fewest resamples --n-bootstrap takes (report() refuses fewer)
MIN_BOOTSTRAP = 10


def _correction(args: argparse.Namespace) -> str | None:
    """compare()'s ``correction`` from --correction (where None is spelled "none")."""
    return None if args.correction == "none" else str(args.correction)


def evaluate_command(args: argparse.Namespace) -> int:
    """``rankeval evaluate``: one system's metrics per split and their mean (and per user with --per-user)."""
    if len(args.pred) != len(args.truth):
        raise UsageError(f"--pred is given {len(args.pred)} time(s) but --truth {len(args.truth)}: "
                         f"give one --pred and one --truth per split, in the same order")
    names = split_names(args.split_name, len(args.truth))
    check_output(args.per_user, inputs=input_files(args))
    metrics = propensity_metrics(args, parse_metrics(args.metric, args.threshold, args.metric_module))
    options = split_options(args)
    missing_users = args.missing_users
    if args.convention is not None:  # as EvalModel(..., convention=) does, split by split (below)
        preset = conventions.get_convention(args.convention)
        metrics = [m.with_convention(args.convention) for m in metrics]
        options = {"ties": preset.ties, **options}
        missing_users = missing_users or preset.missing_users
    sampled = sampled_options(args)
    if sampled:
        metrics = sampled_columns(metrics, sampled["sampled"], sampled["estimator"],
                                  DEFAULT_GAMMA if args.gamma is None else args.gamma)
    read = Reader(args)
    sides = read_side(args, len(names))
    stages = Stages(args, total=3 * len(names) + 1 + bool(args.per_user))
    try:
        splits = []
        for pred_path, truth_path, name, split_side in zip(args.pred, args.truth, names, sides):
            stages.start(f"reading {pred_path}")
            pred = read(pred_path, "pred")
            stages.done()
            stages.start(f"reading {truth_path}")
            truth = read(truth_path, "truth")
            stages.done()
            stages.start(f"validating and joining split {name!r}")
            try:
                splits.append(Split(pred, truth, name=name, missing_users=missing_users or "ignore", side=split_side,
                                    **options))
            except ValueError as exc:  # say which files: a message about `pred` could be any of them
                raise ValueError(f"split {name!r} (--pred {pred_path}, --truth {truth_path}): {exc}") from exc
            stages.done()
        check_sizes_cover(args, sampled, ((s.pred, s.truth) for s in splits))
        stages.start(f"{len(metrics)} metric(s) on {len(splits)} split(s)")
        sys_result, users_result = EvalModel.from_splits(splits, metrics, progress=inner_progress(args),
                                                         convention=args.convention).fit()
        stages.done()
        if args.per_user:
            stages.start(f"writing {args.per_user}")
            write_frame(users_result, args.per_user)
            stages.done()
    finally:
        stages.close()
    sys.stdout.write(render(sys_result, args.format, args.digits))
    return 0


def _check_systems(args: argparse.Namespace, systems: dict[str, list[str]]) -> int:
    """One file per split for every system, valid split names and baseline; the number of splits."""
    n_splits = len(args.truth)
    for name, paths in systems.items():
        if len(paths) != n_splits:
            raise UsageError(f"system {name!r} has {len(paths)} file(s) but --truth is given {n_splits} "
                             f"time(s): give every system one file per split, in the order of --truth")
    split_names(args.split_name, n_splits)
    if args.baseline is not None and args.baseline not in {seed_base(n) for n in systems}:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the systems {list(systems)}")
    return n_splits


def _read_systems(args: argparse.Namespace, systems: dict[str, list[str]], read: Reader, stages: Stages
                  ) -> tuple[list[pd.DataFrame], dict[str, list[pd.DataFrame]]]:
    """Every --truth file, then every system's files, one stage each."""
    truths = []
    for path in args.truth:
        stages.start(f"reading {path}")
        truths.append(read(path, "truth"))
        stages.done()
    frames: dict[str, list[pd.DataFrame]] = {}
    for name, paths in systems.items():
        frames[name] = []
        for path in paths:
            stages.start(f"reading {path}")
            frames[name].append(read(path, "pred"))
            stages.done()
    return truths, frames


def compare_command(args: argparse.Namespace) -> int:
    """``rankeval compare``: paired tests between two or more systems (and the post-hoc tables)."""
    systems = parse_systems(args.system)
    if len(systems) < 2:
        raise UsageError(f"compare needs at least two systems (--system NAME=PATH), got {list(systems)}")
    n_splits = _check_systems(args, systems)
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ImportError("--plot needs matplotlib, which is not installed: "
                          "pip install 'matplotlib>=3.8' (the plot extra)")
    inputs = input_files(args)
    check_output(args.plot, "--plot", formats=False, inputs=inputs)
    check_output(args.system_values, "--system-values", inputs=inputs)
    check_output(args.per_user, inputs=inputs)
    if args.posthoc and args.format in DATA_FORMATS:
        raise UsageError(f"--posthoc prints tables after the comparison: use --format table, markdown or latex, "
                         f"not {args.format}")
    margin = equivalence_margin(args)
    metrics = propensity_metrics(args, parse_metrics(args.metric, args.threshold, args.metric_module))
    read = Reader(args)
    sides = read_side(args, n_splits)
    n_files = n_splits * (1 + len(systems))
    stages = Stages(args, total=n_files + 1 + bool(args.plot))
    try:
        truths, frames = _read_systems(args, systems, read, stages)
        sampled = sampled_options(args)
        check_sizes_cover(args, sampled, ((p, t) for preds in frames.values() for p, t in zip(preds, truths)))
        stages.start(f"evaluating {len(systems)} systems and testing every pair")
        res = compare(group_seeds(frames), truths, metrics, test=args.test, correction=_correction(args),
                      baseline=args.baseline, alpha=args.alpha, n_resamples=args.n_resamples, seed=args.seed,
                      ci_method=args.ci_method, missing_users=args.missing_users, split_names=args.split_name,
                      progress=inner_progress(args), convention=args.convention,
                      side=sides if any(s is not None for s in sides) else None, equivalence_margin=margin,
                      **sampled, **split_options(args))
        stages.done()
        if args.plot:
            stages.start(f"drawing {args.plot}")
            figure = res.plot(args.plot)
            import matplotlib.pyplot as plt
            plt.close(figure)
            stages.done()
    finally:
        stages.close()
    if args.per_user:
        write_frame(units_long(res, args.user_col or "user_id"), args.per_user)
    if args.system_values:
        write_frame(res.system_values, args.system_values)
    elif len(res.system_values.columns) and args.format in DATA_FORMATS:
        warnings.warn(f"{list(res.system_values.columns)} have no per-user value to test and are not in the "
                      f"{args.format} output: write them with --system-values OUT", UserWarning, stacklevel=2)
    sys.stdout.write(render_comparison(res, args.format, args.digits))
    if args.posthoc:
        sys.stdout.write(render_posthoc(res, args.posthoc, args.format, args.digits))
    if res.equivalence is not None:
        sys.stdout.write(render_equivalence(res, args.format, args.digits))
    if args.format not in DATA_FORMATS:
        sys.stdout.write(render_seeds(res, args.format, args.digits))
    return 0


def report_command(args: argparse.Namespace) -> int:
    """``rankeval report``: one HTML page of the evaluation of one system, or of a comparison."""
    systems = parse_systems(args.system)
    n_splits = _check_systems(args, systems)
    for module in ("jinja2", "matplotlib"):
        if importlib.util.find_spec(module) is None:
            raise ImportError(f"report needs {module}, which is not installed: "
                              "pip install 'jinja2>=3.1' 'matplotlib>=3.8' (the report extra)")
    from ..page.internal import MAX_BOOTSTRAP

    check_option_integer("--n-bootstrap", args.n_bootstrap, MIN_BOOTSTRAP, MAX_BOOTSTRAP)
    check_output(args.out, "--out", formats=False, inputs=input_files(args))
    metrics = propensity_metrics(args, parse_metrics(args.metric, args.threshold, args.metric_module))
    read = Reader(args)
    sides = read_side(args, n_splits)
    stages = Stages(args, total=n_splits * (1 + len(systems)))
    try:
        truths, frames = _read_systems(args, systems, read, stages)
    finally:
        stages.close()
    from ..page import report

    options: dict[str, Any] = {"missing_users": args.missing_users, "split_names": args.split_name,
                               "convention": args.convention, **split_options(args)}
    if any(s is not None for s in sides):
        options["side"] = sides
    options.update(sampled_options(args))
    check_sizes_cover(args, options, ((p, t) for preds in frames.values() for p, t in zip(preds, truths)))
    if len(systems) > 1:
        options.update(test=args.test, correction=_correction(args), baseline=args.baseline, alpha=args.alpha,
                       n_resamples=args.n_resamples, ci_method=args.ci_method,
                       equivalence_margin=equivalence_margin(args))
    argv = getattr(args, "argv", None)
    command = shlex.join([PROG, *argv]) if argv is not None else None
    strata = report_strata(args, frames, truths, sides, metrics)
    if strata is not None:
        options["strata"] = strata
    report(systems=frames, truth=truths, metrics=metrics, path=args.out, title=args.title,
           digits=4 if args.digits is None else args.digits, n_bootstrap=args.n_bootstrap, seed=args.seed,
           kind=args.kind, image_format=args.image_format, command=command, progress=inner_progress(args),
           **options)
    sys.stdout.write(f"report written to {args.out}\n")
    return 0
