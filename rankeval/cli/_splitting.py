"""``rankeval split`` and ``rankeval audit``: a split of an interactions file written as folders of
files, and the audit of a split (and of lists made from it) printed as a table and a verdict.

Both read their files as the other commands do (by extension; CSV, TSV and atomic ids as text,
so ``0042`` keeps its zero; each file's own separator) and call the API: :mod:`rankeval.split`'s splitters and
:meth:`~rankeval.split.Splits.to_dir`, :func:`rankeval.split.audit`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ..io import format_of, read_frame
from ..io.internal import numeric_problem
from ..split import Audit, Splits, audit, bootstrap, global_temporal, kfold, random_holdout, temporal_holdout
from ._inputs import parse_systems, refuse_input
from ._output import render
from ._side_files import missing_column_hint, read_catalog
from ._text_files import TABLE_FORMATS, check_numbers, read_table
from ._usage import UsageError

__all__ = ["split_command", "audit_command", "METHODS", "SPLIT_FORMATS", "AUDIT_FORMATS"]

#: --method: the splitter of each name
METHODS: dict[str, Callable[..., Splits]] = {"random": random_holdout, "temporal": temporal_holdout,
                                             "global": global_temporal, "kfold": kfold, "bootstrap": bootstrap}
#: the options each method takes (beyond the columns, --min-interactions and --drop-cold-items)
_TAKES = {"random": {"test_size", "by", "seed"}, "temporal": {"test_size", "n_last", "by", "rounding"},
          "global": {"test_size", "cutoff"}, "kfold": {"n_splits", "by", "seed"}, "bootstrap": {"seed"}}
#: --out-format of split: the formats Splits.to_dir writes
SPLIT_FORMATS = ("csv", "tsv", "parquet")
#: --format of audit
AUDIT_FORMATS = ("table", "csv", "json", "markdown")


def interaction_columns(args: argparse.Namespace, option: str) -> tuple[str, str]:
    """The user and item columns of the file given to ``option``: for --train and --truth, the
    --truth-*-col ones (audit's, as evaluate's), else --user-col and --item-col."""
    if option in ("--train", "--truth"):
        return (getattr(args, "truth_user_col", None) or args.user_col,
                getattr(args, "truth_item_col", None) or args.item_col)
    return args.user_col, args.item_col


def read_interactions(path: str, option: str, args: argparse.Namespace) -> pd.DataFrame:
    """A file of interactions: ids as text in CSV, TSV and atomic files, a time column of ISO text read as datetimes."""
    try:
        fmt, _ = format_of(path)
    except ValueError as exc:
        raise ValueError(f"{option} {path}: {exc}") from exc
    user_col, item_col = interaction_columns(args, option)
    lists = option in ("--pred", "--system")
    if fmt == "trec_run" and lists:  # a TREC run: its columns under the command's names
        frame = read_frame(path, format=fmt)
        return frame.rename(columns={"user_id": user_col, "item_id": item_col})
    if fmt not in TABLE_FORMATS:
        raise UsageError(f"{option} {path}: interactions are read from .csv, .tsv, .parquet or RecBole atomic "
                         f"(.inter) files{' (lists also from TREC runs)' if lists else ''}, not {fmt}")
    frame = read_table(args, path, fmt, (user_col, item_col))
    time_col = args.time_col
    if time_col in frame.columns and (frame[time_col].dtype == object or pd.api.types.is_string_dtype(
            frame[time_col].dtype)):
        problem = numeric_problem(frame[time_col])
        if problem is not None and "decimal=" in problem:
            raise ValueError(f"{option} file '{path}': column '{time_col}' {problem}")
        try:  # text times (2024-05-01T12:00:00Z) are instants; the splitters and the audit order datetimes
            frame[time_col] = pd.to_datetime(frame[time_col], format="ISO8601")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{option} file '{path}': column '{time_col}' holds text that is not an ISO 8601 time "
                             f"({' '.join(str(exc).split())[:120]}); write numbers or ISO times, or name another "
                             f"column with --time-col") from None
    return frame


def _untyped(args: argparse.Namespace, frame: pd.DataFrame, what: str) -> None:
    """A ValueError when a column option names a RecBole field with its ``:type`` (``--user-col user_id:token``)
    that the file has without it: the readers drop the suffix."""
    for flag in ("--user-col", "--item-col", "--score-col", "--time-col", "--truth-user-col", "--truth-item-col",
                 "--truth-score-col"):
        name = getattr(args, flag[2:].replace("-", "_"), None)
        bare = str(name).rpartition(":")[0]
        if name is not None and name not in frame.columns and bare in frame.columns:
            raise ValueError(f"{what}: {flag} {name}: RecBole atomic files are read without the ':type' suffix of "
                             f"their columns; pass {flag} {bare}")


def _audited(args: argparse.Namespace, path: str, option: str) -> pd.DataFrame:
    """A file of ``audit``, its id columns checked; a --train or --truth file's named as the lists'
    (rk.audit takes one name for each)."""
    frame = read_interactions(path, option, args)
    _untyped(args, frame, f"{option} file '{path}'")
    user_col, item_col = interaction_columns(args, option)
    named = {"user": user_col, "item": item_col}
    missing = [c for c in named.values() if c not in frame.columns]
    truth = option in ("--train", "--truth")
    if missing:
        hint = missing_column_hint(frame, "truth" if truth else "pred", missing, named, args.sep)
        if truth and hint.startswith("name the columns"):
            hint = "name the columns with --truth-user-col, --truth-item-col (default --user-col, --item-col)"
        raise ValueError(f"{option} file '{path}' has no column {', '.join(repr(c) for c in missing)} (its columns: "
                         f"{[str(c) for c in frame.columns]}); {hint}")
    if option == "--truth":  # its scores decide the relevant items of the test-set shape
        check_numbers(frame, f"--truth file '{path}'", {_truth_score(args): "--truth-score-col"})
    rename = {old: new for old, new in ((user_col, args.user_col), (item_col, args.item_col)) if old != new}
    clash = [new for new in rename.values() if new in frame.columns]
    if clash:
        raise ValueError(f"{option} file '{path}' has a column {clash[0]!r} besides its id columns {user_col!r}, "
                         f"{item_col!r} (--truth-user-col, --truth-item-col): rename or drop it, as the lists' "
                         f"--user-col, --item-col name it")
    return frame.rename(columns=rename) if rename else frame


def _truth_score(args: argparse.Namespace) -> str:
    return getattr(args, "truth_score_col", None) or args.score_col


def _cutoff(text: str) -> Any:
    """--cutoff: a number when it reads as one (for numeric time columns), else the text (an ISO time)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _split_options(args: argparse.Namespace) -> dict[str, Any]:
    """The splitter's keyword arguments; an option the method does not take is a UsageError."""
    given = {name: getattr(args, name) for name in ("test_size", "n_last", "cutoff", "n_splits", "by", "seed",
                                                    "rounding")
             if getattr(args, name) is not None}
    unused = sorted(set(given) - _TAKES[args.method])
    if unused:
        flags = ", ".join("--" + name.replace("_", "-") for name in unused)
        raise UsageError(f"{flags} do(es) not apply to --method {args.method}; it takes "
                         f"{', '.join('--' + n.replace('_', '-') for n in sorted(_TAKES[args.method]))}")
    if "rounding" in given and "test_size" not in given:
        raise UsageError(f"--rounding {given['rounding']} rounds --test-size F x n_u: give --test-size, or leave "
                         f"--rounding out (--n-last is a count)")
    if "cutoff" in given:
        given["cutoff"] = _cutoff(given["cutoff"])
    return {**given, "min_interactions": args.min_interactions, "drop_cold_items": args.drop_cold_items,
            "user_col": args.user_col, "item_col": args.item_col, "score_col": args.score_col,
            "time_col": args.time_col}


def _targets(out_dir: str, n_splits: int, fmt: str) -> list[str]:
    """Every file the split writes under ``out_dir``."""
    names = [f"fold{i}" for i in range(1, n_splits + 1)]
    return [os.path.join(out_dir, name, f"{part}.{fmt}") for name in names for part in ("train", "test")] + \
        [os.path.join(out_dir, "params.json")]


def _check_out_dir(args: argparse.Namespace) -> None:
    """Before any work: the output folder is a folder (or can be one), and no file it would get is the input."""
    out = args.out_dir
    inputs = [("--in", args.input)]
    if os.path.exists(out) and not os.path.isdir(out):
        refuse_input(out, "--out-dir", inputs)
        raise UsageError(f"--out-dir {out}: is a file, not a folder")
    n_splits = args.n_splits if args.method == "kfold" and args.n_splits is not None else 5
    for target in _targets(out, n_splits if args.method == "kfold" else 1, args.out_format):
        refuse_input(target, "--out-dir", inputs)
    existing = Path(out).resolve()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise UsageError(f"--out-dir {out}: the folder '{existing}' is not writable")


def split_command(args: argparse.Namespace) -> int:
    """``rankeval split``: the split of one interactions file, written as ``fold1/train.csv``, ... ``params.json``."""
    if args.method not in METHODS:  # checked here, not by argparse, for the one-line error of every user error
        raise UsageError(f"--method must be one of {', '.join(METHODS)}, got {args.method!r}")
    options = _split_options(args)
    _check_out_dir(args)
    frame = read_interactions(args.input, "--in", args)
    _untyped(args, frame, f"--in {args.input}")
    try:
        splits = METHODS[args.method](frame, **options)
    except ValueError as exc:  # the API names `frame`: say which file (main names the options)
        raise ValueError(f"--in {args.input}: {str(exc).replace('`frame`', 'the file')}") from None
    splits.params["source"] = os.path.abspath(args.input)
    root = splits.to_dir(args.out_dir, format=args.out_format)
    for name, (train, test) in zip(splits.names, splits):
        sys.stdout.write(f"{name}: train {len(train):,} / test {len(test):,} rows -> "
                         f"{root / name / f'train.{args.out_format}'}, {root / name / f'test.{args.out_format}'}\n")
    sys.stdout.write(f"parameters -> {root / 'params.json'}\n")
    return 0


def _pred(args: argparse.Namespace) -> Any:
    """The lists: one frame (--pred), a mapping name -> frame (--system), or None."""
    if args.pred is not None and args.system:
        raise UsageError("give the lists with --pred PATH (one system) or --system NAME=PATH (one or more), not both")
    if args.pred is not None:
        return _audited(args, args.pred, "--pred")
    if not args.system:
        return None
    systems = parse_systems(args.system)
    several = [name for name, paths in systems.items() if len(paths) != 1]
    if several:
        raise UsageError(f"audit takes one list file per system; {several} got more (audit one split at a time)")
    return {name: _audited(args, paths[0], "--system") for name, paths in systems.items()}


def _audit_json(result: Audit) -> str:
    rows = json.loads(render(result.table, "json", None))
    return json.dumps({"verdict": result.verdict, "skipped": result.skipped, "checks": rows}, indent=1) + "\n"


def _audit_text(result: Audit, fmt: str, digits: int | None) -> str:
    """The table (shares as percentages) then the verdict, as text or Markdown."""
    places = 2 if digits is None else digits
    shown = result.table.astype(object).where(result.table.notna(), "")
    shown["share"] = [f"{v:.{places}%}" if v != "" else "" for v in shown["share"]]
    if fmt == "markdown":
        flat = shown.reset_index()
        lines = ["| " + " | ".join(str(c) for c in flat.columns) + " |",
                 "|:---|---:|---:|---:|---:|:---|"]
        lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in flat.itertuples(index=False)]
        return "\n".join(lines) + f"\n\n**Verdict:** {result.verdict}\n"
    with pd.option_context("display.max_colwidth", 200, "display.width", 250):
        table = shown.to_string()
    return f"{table}\n\nverdict: {result.verdict}\n"


def audit_command(args: argparse.Namespace) -> int:
    """``rankeval audit``: the audit table of a split (and of lists made from it), and its verdict."""
    pred = _pred(args)
    train = _audited(args, args.train, "--train")
    test = _audited(args, args.truth, "--truth")
    catalog = None if args.catalog is None else read_catalog(args, args.catalog)
    try:
        result = audit(train, test, pred, user_col=args.user_col, item_col=args.item_col,
                       score_col=_truth_score(args), time_col=args.time_col, relevant_threshold=args.threshold,
                       catalog=catalog, session_gap=args.session_gap)
    except ValueError as exc:  # the API's option names, as the command spells them
        raise ValueError(str(exc).replace("`session_gap`", "--session-gap")) from None
    if args.format == "json":
        sys.stdout.write(_audit_json(result))
    elif args.format == "csv":
        sys.stdout.write(render(result.table, "csv", None))
    else:
        sys.stdout.write(_audit_text(result, args.format, args.digits))
    return 0
