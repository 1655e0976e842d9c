"""Sampled-candidate lists on the command line: ``--sampled``, ``--sampled-n-items``, ``--estimator``, ``--gamma``.

- ``--sampled N_ITEMS:N_NEGATIVES``: one catalogue size for every user;
- ``--sampled N_NEGATIVES --sampled-n-items FILE``: a size per user, from a CSV/TSV/Parquet
  file with a header: the user column (``--user-col``, else ``--truth-user-col``, else the
  first column) and ``n_items`` (else the file's other column, when it has two). Ids of
  CSV/TSV files are read as text, as those of ``--pred`` and ``--truth``. The same file
  serves every split, as ``SampledCandidates(n_items=Series)`` does in Python.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..io import format_of, read_frame
from ..metrics.sampled import DEFAULT_GAMMA, ESTIMATORS, SampledCandidates
from ._usage import UsageError

__all__ = ["add_sampled_arguments", "sampled_design", "sampled_options", "check_sizes_cover", "N_ITEMS_COLUMN"]

#: the column of --sampled-n-items holding each user's number of items
N_ITEMS_COLUMN = "n_items"


def add_sampled_arguments(p: argparse.ArgumentParser) -> None:
    """The sampled-candidate options of ``evaluate``, ``compare`` and ``report``."""
    p.add_argument("--sampled", default=None, metavar="N_ITEMS:N_NEGATIVES",
                   help="the lists are sampled candidates (one positive + N_NEGATIVES uniform negatives out of "
                        "N_ITEMS items): every metric is reported as its corrected estimate of the full-catalog "
                        "value and as METRIC-naive (see docs/sampled.md); with --sampled-n-items, only "
                        "N_NEGATIVES")
    p.add_argument("--sampled-n-items", default=None, metavar="PATH",
                   help=f"each user's N_ITEMS: a CSV/TSV/Parquet file with the user column (--user-col) and "
                        f"{N_ITEMS_COLUMN!r}; then --sampled gives N_NEGATIVES alone")
    p.add_argument("--estimator", choices=ESTIMATORS, default="bias_variance",
                   help="with --sampled: the estimator of the full-catalog metric (default: bias_variance)")
    p.add_argument("--gamma", type=float, default=None, metavar="X",
                   help=f"with --sampled and --estimator bias_variance: the weight of the variance, in [0, 1] "
                        f"(default {DEFAULT_GAMMA})")


def _whole(text: str) -> bool:
    return text.strip().isdigit()


def sampled_design(args: argparse.Namespace) -> SampledCandidates | None:
    """The sampling design of --sampled (and --sampled-n-items); None without --sampled."""
    spec = args.sampled
    if spec is None:
        for flag, given in (("--sampled-n-items", args.sampled_n_items is not None),
                            ("--gamma", args.gamma is not None),
                            ("--estimator", args.estimator != "bias_variance")):
            if given:
                raise UsageError(f"{flag} needs --sampled: pass --sampled N_ITEMS:N_NEGATIVES (or --sampled "
                                 f"N_NEGATIVES with --sampled-n-items FILE)")
        return None
    if args.gamma is not None and args.estimator != "bias_variance":
        raise UsageError(f"--gamma weighs the variance of --estimator bias_variance only, not of {args.estimator}: "
                         f"drop --gamma or pass --estimator bias_variance")
    if args.gamma is not None and not 0.0 <= args.gamma <= 1.0:
        raise UsageError(f"--gamma must be a number in [0, 1], got {args.gamma}")
    parts = str(spec).split(":")
    if args.sampled_n_items is not None:
        if len(parts) != 1 or not _whole(parts[0]):
            raise UsageError(f"--sampled {spec!r}: with --sampled-n-items give N_NEGATIVES alone, a whole "
                             f"number, e.g. --sampled 100 (each user's N_ITEMS comes from the file)")
        n_items: int | pd.Series = read_n_items(args, args.sampled_n_items)
        n_negatives = int(parts[0])
    else:
        if len(parts) != 2 or not all(_whole(p) for p in parts):
            raise UsageError(f"--sampled {spec!r} must be N_ITEMS:N_NEGATIVES, two whole numbers, e.g. 1682:100 "
                             f"(or N_NEGATIVES with --sampled-n-items FILE for a size per user)")
        n_items, n_negatives = int(parts[0]), int(parts[1])
    try:
        return SampledCandidates(n_items, n_negatives)
    except ValueError as exc:
        source = f"--sampled-n-items {args.sampled_n_items}" if args.sampled_n_items else f"--sampled {spec!r}"
        raise UsageError(f"{source}: {exc}") from exc


def sampled_options(args: argparse.Namespace) -> dict[str, Any]:
    """``sampled``, ``estimator`` and ``gamma`` for EvalModel, compare and report ({} without --sampled)."""
    design = sampled_design(args)
    if design is None:
        return {}
    return {"sampled": design, "estimator": args.estimator, "gamma": args.gamma}


def read_n_items(args: argparse.Namespace, path: str) -> pd.Series:
    """Each user's number of items from the file of --sampled-n-items, indexed by user id."""
    try:
        fmt, _ = format_of(path)
    except ValueError as exc:
        raise UsageError(f"--sampled-n-items: {exc}") from exc
    if fmt not in ("csv", "tsv", "parquet"):
        raise UsageError(f"--sampled-n-items file '{path}' must be CSV, TSV or Parquet with a header, not {fmt}")
    options: dict[str, Any] = {}
    if fmt != "parquet" and args.sep is not None:
        options["sep"] = args.sep
    frame = read_frame(path, id_columns=(args.user_col,), **options)
    user_col = next((c for c in (args.user_col, args.truth_user_col) if c is not None and c in frame.columns),
                    str(frame.columns[0]) if len(frame.columns) else None)
    others = [c for c in frame.columns if c != user_col]
    n_col = N_ITEMS_COLUMN if N_ITEMS_COLUMN in others else (others[0] if len(others) == 1 else None)
    if user_col is None or n_col is None:
        raise UsageError(f"--sampled-n-items file '{path}' needs a user column ({args.user_col!r}) and an "
                         f"{N_ITEMS_COLUMN!r} column; its columns: {[str(c) for c in frame.columns]}")
    if fmt != "parquet":  # ids as text, as --pred and --truth read them
        frame = read_frame(path, id_columns=(user_col,), dtype={user_col: str}, **options)
    if frame[user_col].isna().any():
        rows = frame.index[frame[user_col].isna().to_numpy()][:5].tolist()
        raise UsageError(f"--sampled-n-items file '{path}' has missing user ids in column {user_col!r} at rows "
                         f"{rows}")
    return pd.Series(frame[n_col].to_numpy(), index=pd.Index(frame[user_col], name=user_col), name=N_ITEMS_COLUMN)


def check_sizes_cover(args: argparse.Namespace, options: dict[str, Any],
                      pairs: Iterable[tuple[pd.DataFrame, pd.DataFrame]]) -> None:
    """Every user with a list and truth in a split (``pairs``: pred and truth frames) has a row in
    --sampled-n-items, else a UsageError naming the file (the API's message would name ``n_items``)."""
    design = options.get("sampled")
    if design is None or not isinstance(design.n_items, pd.Series):
        return
    truth_user_col = args.truth_user_col or args.user_col
    for pred, truth in pairs:
        users = pd.Index(pd.unique(pred[args.user_col])).intersection(pd.Index(pd.unique(truth[truth_user_col])))
        missing = users.difference(design.n_items.index)
        if len(missing):
            raise UsageError(f"--sampled-n-items file '{args.sampled_n_items}' has no {N_ITEMS_COLUMN} for "
                             f"{len(missing)} user(s) with a list and truth, e.g. {missing[:5].tolist()}: give "
                             f"one row per evaluated user")
