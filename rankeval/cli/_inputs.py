"""The command line's inputs: metrics by name, the input files (read once each), split names,
systems, outputs checked before any work, and the stages shown while a long run works."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..data.internal import SCORE_ALIASES
from ..io import format_of
from ..io.internal import READ_FORMATS, TEXT_FORMATS
from ..metrics import RankingMetric, parse_metric
from ._metric_modules import load_metric_modules
from ._side_files import missing_column_hint, truth_id_columns
from ._text_files import check_numbers, read_table
from ._usage import UsageError

__all__ = ["parse_metrics", "Stages", "inner_progress", "Reader", "split_options", "split_names", "input_files",
           "check_output", "refuse_input", "parse_systems"]

#: the extension under which the readers take each text format (the first one they list):
#: standard input is copied to a file of that name
_TEXT_SUFFIXES = {fmt: ext for ext, fmt in reversed(READ_FORMATS.items()) if fmt in TEXT_FORMATS}


def parse_metrics(names: Sequence[str], threshold: float | None, modules: Sequence[str] | None = None
                  ) -> list[RankingMetric]:
    """The metrics named by ``-m``, each with ``--threshold`` when it has a relevance threshold,
    once the modules of ``--metric-module`` (the user's own metrics) have run."""
    load_metric_modules(modules)
    metrics = [parse_metric(name) for name in names]
    if threshold is None:
        return metrics
    out = []
    for m in metrics:
        params = m._params()
        if "relevant_threshold" in params:
            # rebuilt from the parameters the name set (k), so that a --convention still
            # fills in the others; the threshold is then an explicit choice that wins
            explicit = m.explicit_params
            m = type(m)(**{k: v for k, v in params.items() if k in explicit}, relevant_threshold=threshold)
        out.append(m)
    return out


class Stages:
    """One line on standard error naming the stage a long run is in (tqdm): reading each
    file, validating and joining each split, the metrics, the tests, writing. Off with
    ``--quiet``/``--no-progress`` and when standard error is not a terminal."""

    def __init__(self, args: argparse.Namespace, total: int) -> None:
        show = args.progress if args.progress is not None else sys.stderr.isatty()
        self.show = bool(show) and not args.quiet
        self.bar = None
        if self.show:
            from .._progress import progress_bar
            self.bar = progress_bar(total=total, desc="rankeval", unit="stage", leave=False,
                                    bar_format="{desc}: {n_fmt}/{total_fmt} stages [{elapsed}] {postfix}")

    def start(self, text: str) -> None:
        """Name the stage now running."""
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=True)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.update()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def inner_progress(args: argparse.Namespace) -> bool | None:
    """The API's own progress bars (metrics, resampling): off when quiet, else as asked."""
    return False if args.quiet else args.progress


class Reader:
    """Reads the input files once each, with the command's column names and formats."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.cache: dict[tuple[str, str], pd.DataFrame] = {}
        self.stdin: str | None = None

    def __call__(self, path: str, role: str) -> pd.DataFrame:
        key = (path, role)
        if key not in self.cache:
            self.cache[key] = self._read(path, role)
        return self.cache[key]

    def _read(self, path: str, role: str) -> pd.DataFrame:
        a = self.args
        choice = a.pred_format if role == "pred" else a.truth_format
        trec = "trec_run" if role == "pred" else "trec_qrels"
        if path == "-":  # standard input, once: its text goes through the file readers
            if self.stdin is None:
                self.stdin = sys.stdin.read()
            fmt = {"auto": "csv", "trec": trec}.get(choice, choice)
            suffix = _TEXT_SUFFIXES.get(fmt)
            if suffix is None:
                raise UsageError(f"--{role} -: standard input can be csv, tsv, atomic or trec, not {fmt}")
            with tempfile.TemporaryDirectory() as folder:
                copy = os.path.join(folder, "stdin" + suffix)
                with open(copy, "w", encoding="utf-8") as handle:
                    handle.write(self.stdin)
                return self._read(copy, role)
        if choice == "auto" and a.sep is not None and not _known_extension(path):
            fmt = "csv"  # an explicit separator says what the file is: delimited text (p.txt, data.dat)
        elif choice == "auto":
            try:
                fmt, _ = format_of(path)
            except ValueError as exc:
                raise ValueError(f"{exc}; for delimited text under another name pass --{role}-format csv or tsv, "
                                 f"or --sep") from exc
            if fmt in ("trec_run", "trec_qrels"):
                fmt = trec  # .run, .trec and .qrels: the role decides which TREC layout
        else:
            fmt = trec if choice == "trec" else choice
        user_col, item_col = (truth_id_columns(a) if role == "truth" else (a.user_col, a.item_col))
        # ids as text: 0042 keeps its zero, and pred and truth ids always compare equal
        frame = read_table(a, path, fmt, (user_col, item_col))
        score_col = (a.truth_score_col or a.score_col) if role == "truth" else a.score_col
        if fmt in ("trec_run", "trec_qrels"):
            frame = frame.rename(columns={"user_id": user_col, "item_id": item_col,
                                          "score": score_col, "rank": a.rank_col})
        if role == "pred" and a.ignore_rank and a.rank_col in frame.columns:
            if a.score_col not in frame.columns:
                raise ValueError(f"--ignore-rank: --pred file '{path}' has no {a.score_col!r} column to order "
                                 f"its lists by")
            frame = frame.drop(columns=[a.rank_col])
        named = {"user": user_col, "item": item_col, **({"score": score_col} if role == "truth" else {})}
        missing = [c for c in named.values() if c not in frame.columns]
        if missing:
            hint = missing_column_hint(frame, role, missing, named, a.sep)
            raise ValueError(f"--{role} file '{path}' has no column {', '.join(repr(c) for c in missing)} "
                             f"(its columns: {[str(c) for c in frame.columns]}); {hint}")
        # the grades, or the scores (Split wants them numeric even beside a rank column)
        option = "--truth-score-col" if role == "truth" else "--score-col"
        check_numbers(frame, f"--{role} file '{path}'", {score_col: option})
        if role == "pred" and a.score_col not in frame.columns and a.rank_col not in frame.columns:
            aliases = [c for c in SCORE_ALIASES if c in frame.columns]
            hint = f" (its scores are in {aliases[0]!r}? pass --score-col {aliases[0]})" if len(aliases) == 1 else ""
            warnings.warn(f"--pred file '{path}' has neither a {a.score_col!r} nor a {a.rank_col!r} column: "
                          f"its lists are taken in row order{hint}", UserWarning, stacklevel=2)
        return frame


def _known_extension(path: str) -> bool:
    try:
        format_of(path)
    except ValueError:
        return False
    return True


def split_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {"user_col": args.user_col, "item_col": args.item_col, "score_col": args.score_col,
               "rank_col": args.rank_col, "score_order": args.score_order}
    for option in ("truth_score_col", "truth_user_col", "truth_item_col"):
        if getattr(args, option) is not None:
            options[option] = getattr(args, option)
    if args.ties is not None:  # else the default, or the convention's
        options["ties"] = args.ties
    return options


def split_names(names: Sequence[str] | None, n_splits: int) -> list[str]:
    if names is None:
        return [f"fold{i + 1}" for i in range(n_splits)]
    if len(names) != n_splits:
        raise UsageError(f"--split-name is given {len(names)} time(s) for {n_splits} split(s): name every split "
                         f"or none")
    if len(set(names)) != len(names) or "mean" in names:
        raise UsageError(f"--split-name values must be distinct and not 'mean' (the row of their mean), got {names}")
    return list(names)


def input_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every file the command reads, as (option, path)."""
    found = []
    for option in ("pred", "truth", "train", "catalog", "item_features", "item_groups"):
        for path in getattr(args, option, None) or []:
            found.append(("--" + option.replace("_", "-"), path))
    for spec in getattr(args, "system", None) or []:
        found += [("--system", path.strip()) for path in spec.partition("=")[2].split(",") if path.strip()]
    return found


def refuse_input(path: str, flag: str, inputs: Sequence[tuple[str, str]]) -> None:
    """A UsageError when ``path`` is one of the input files (by inode: another spelling of the path,
    a link, is the same file), whose write would destroy it."""
    for option, source in inputs:
        if os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise UsageError(f"{flag} {path} is the file given to {option} ({source}): writing it would destroy "
                             f"that input; choose another output path")


def check_output(path: str | None, flag: str = "--per-user", *, formats: bool = True,
                  inputs: Sequence[tuple[str, str]] = ()) -> None:
    """Fail before any work on an output the run could not write (after minutes of work, it would),
    or that is one of its input files (by inode: another spelling of the path is the same file)."""
    if path is None:
        return
    refuse_input(path, flag, inputs)
    if formats:
        format_of(path, write=True)  # an unknown extension
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {path}: the folder '{folder}' does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable")
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a folder, not a file")


def parse_systems(specs: Sequence[str]) -> dict[str, list[str]]:
    systems: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, paths = spec.partition("=")
        name = name.strip()
        if not sep or not name or not paths.strip():
            raise UsageError(f"--system expects NAME=PATH (or NAME=PATH1,PATH2 for several splits), got {spec!r}")
        systems.setdefault(name, []).extend(p.strip() for p in paths.split(",") if p.strip())
    return systems
