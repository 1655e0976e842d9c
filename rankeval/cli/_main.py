"""The ``rankeval`` command: evaluate and compare recommenders from the shell.

A thin argparse layer over the public API (:class:`~rankeval.EvalModel`,
:func:`~rankeval.compare`, :func:`~rankeval.parse_metric`, :mod:`rankeval.io`)::

    rankeval evaluate --pred run.csv --truth test.csv -m NDCG@10 -m MAP@10
    rankeval compare --system pop=pop.csv --system knn=knn.csv --truth test.csv -m NDCG@10

User errors (a missing file or column, a bad metric name, a bad option value) print one
line, ``rankeval: error: ...``, on stderr and exit with status 2; warnings print one line
each, ``rankeval: warning: ...``. See docs/cli.md.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import signal
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import pandas as pd

from .. import conventions
from .._version import __version__
from ..data._split import MISSING_USERS, TIES, Split
from ..evaluation._compare import compare
from ..evaluation._eval_model import EvalModel
from ..evaluation._result import ComparisonResult
from ..io._files import format_of, json_text, read_frame, write_frame
from ..metrics import RankingMetric, parse_metric
from ..views._tables import tex_escape
from ._side_files import SIDE_OPTIONS, add_side_arguments, read_side

__all__ = ["main"]

PROG = "rankeval"
FILE_FORMATS = ("auto", "csv", "tsv", "parquet", "trec")
TESTS = ("paired_t", "wilcoxon", "randomization")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
EVALUATE_FORMATS = ("table", "csv", "json", "latex", "markdown")
COMPARE_FORMATS = ("table", "csv", "json", "latex", "markdown")
POSTHOC = ("friedman", "nemenyi", "tukey")


#: the most decimals --digits may ask for (a float64 holds 17 significant digits)
MAX_DIGITS = 17


class UsageError(ValueError):
    """A problem with the command line itself (reported like any user error)."""


# ---------------------------------------------------------------------- parser
def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-m", "--metric", action="append", required=True, metavar="METRIC",
                   help="a metric by name, e.g. NDCG@10, MAP@10, MRR, P@10, R@10, HR@10, pearson@10; "
                        "repeat for several")
    p.add_argument("--truth", action="append", required=True, metavar="PATH",
                   help="held-out ratings (user, item, score); repeat for several splits, in order")
    p.add_argument("--threshold", type=float, default=None, metavar="X",
                   help="fixed relevance threshold (relevant = truth score >= X) for every metric that "
                        "has one; default: each user's mean truth score. Write --threshold=-inf for "
                        "negative values")
    p.add_argument("--missing-users", choices=MISSING_USERS, default=None,
                   help="truth users without recommendations: leave out with a warning (ignore, the "
                        "default), score 0 (zero) or fail (error); default: ignore, or the convention's")
    p.add_argument("--convention", choices=conventions.names(), default=None, metavar="NAME",
                   help=f"a peer's definitions for every metric, the tie rule and missing users: "
                        f"{', '.join(conventions.names())} (see docs/conventions.md); options given explicitly "
                        f"win over the preset")
    p.add_argument("--split-name", action="append", default=None, metavar="NAME",
                   help="name of a split in the results (repeat, one per split; default fold1, fold2, ...)")
    cols = p.add_argument_group("columns and file formats")
    cols.add_argument("--user-col", default="user_id", metavar="NAME", help="user id column (default user_id)")
    cols.add_argument("--item-col", default="item_id", metavar="NAME", help="item id column (default item_id)")
    cols.add_argument("--score-col", default="score", metavar="NAME",
                      help="predicted score / truth rating column (default score)")
    cols.add_argument("--rank-col", default="rank", metavar="NAME",
                      help="rank column of the recommendations, 1 = best (default rank; used when present)")
    cols.add_argument("--ignore-rank", action="store_true",
                      help="order the lists by score even when the recommendation files have a rank column "
                           "(as trec_eval does with TREC runs)")
    cols.add_argument("--pred-format", choices=FILE_FORMATS, default="auto",
                      help="format of the recommendation files (default: by extension; .run/.trec = TREC run)")
    cols.add_argument("--truth-format", choices=FILE_FORMATS, default="auto",
                      help="format of the truth files (default: by extension; .qrels/.trec = TREC qrels)")
    cols.add_argument("--sep", default=None, metavar="SEP",
                      help="field separator of delimited files (default: ',' for .csv, tab for .tsv), e.g. ';' "
                           "or '|'")
    cols.add_argument("--ties", choices=TIES, default=None,
                      help="order of tied scores: input row order (the default, or the convention's), item id "
                           "ascending, or item id descending as strings (trec_eval)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show the stages of the run (reading, validation and join, metrics, tests) and "
                        "progress bars (default: when standard error is a terminal)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress display (warnings and errors are still printed)")
    p.add_argument("--digits", type=int, default=None, metavar="N",
                   help="decimals shown by the table, latex and markdown formats (csv and json always keep "
                        "full precision)")
    add_side_arguments(p)


def _add_test_options(p: argparse.ArgumentParser) -> None:
    """The paired tests' options, shared by ``compare`` and ``report``."""
    p.add_argument("--test", choices=TESTS, default="paired_t", help="paired test (default paired_t)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-testing correction over every (metric, pair) test (default holm)")
    p.add_argument("--baseline", metavar="NAME", default=None,
                   help="compare every other system with this one (default: every pair)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--n-resamples", type=int, default=10_000, metavar="N",
                   help="resamples of the randomization test and of the bootstrap CI (default 10000)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of every random draw (default 0)")
    p.add_argument("--ci-method", choices=("bca", "percentile", "basic"), default="bca",
                   help="bootstrap interval of every difference, as scipy.stats.bootstrap (default bca)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Ranking metrics for recommender systems: evaluate recommendation lists "
                               "against held-out ratings, and compare systems with paired tests.",
        epilog="Files: .csv, .tsv/.tab, .parquet/.pq, TREC .run/.trec and .qrels (text files may be "
               ".gz/.bz2/.zip/.xz compressed). See docs/cli.md.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{evaluate,compare,report}")

    ev = sub.add_parser("evaluate", help="metrics of one system over one or more splits",
                        description="Compute metrics of one recommender over one or more splits. Prints the "
                                    "system table: one row per split and their mean, one column per metric.")
    ev.add_argument("--pred", action="append", required=True, metavar="PATH",
                    help="recommendation lists (user, item, score and/or rank); repeat for several splits, "
                         "in the order of --truth")
    _add_common(ev)
    ev.add_argument("--per-user", metavar="OUT",
                    help="also write the per-user values (split, user_id, one column per metric) to OUT "
                         "(.csv, .tsv, .parquet or .json)")
    ev.add_argument("--format", choices=EVALUATE_FORMATS, default="table", help="output format (default table)")
    ev.set_defaults(run=_evaluate)

    cp = sub.add_parser("compare", help="paired significance tests between systems",
                        description="Compare recommenders with paired tests over (split, user) units, "
                                    "corrected for multiple testing.")
    cp.add_argument("--system", action="append", required=True, metavar="NAME=PATH[,PATH...]",
                    help="a system and its recommendation file(s), one per split in the order of --truth; "
                         "repeat NAME=PATH for the next split, or give NAME=PATH1,PATH2")
    _add_common(cp)
    _add_test_options(cp)
    cp.add_argument("--plot", metavar="OUT", default=None,
                    help="save a figure of the per-user values and paired differences (e.g. OUT.png; "
                         "needs matplotlib)")
    cp.add_argument("--format", choices=COMPARE_FORMATS, default="table",
                    help="output format (default table; markdown and latex: the publication tables)")
    cp.add_argument("--posthoc", choices=POSTHOC, action="append", default=None,
                    help="many-system analysis after the pairwise tests, on the units where every system has a "
                         "value: friedman (Friedman's test, Iman-Davenport F, mean ranks), nemenyi (Nemenyi's "
                         "all-pairs test on the mean ranks), tukey (Tukey's HSD; ignores the pairing). Repeat "
                         "for several; printed after the comparison (--format table, markdown or latex)")
    cp.add_argument("--system-values", metavar="OUT", default=None,
                    help="also write the values of the metrics compared without a test (system-level ones such "
                         "as Coverage, Gini; micro averages), one row per system, to OUT (.csv, .tsv, .parquet "
                         "or .json)")
    cp.set_defaults(run=_compare)

    rp = sub.add_parser("report", help="one self-contained HTML page of a comparison (or of one system)",
                        description="Write one HTML page that opens offline: the summary tables (as compare "
                                    "--format markdown, sortable), metric@k curves with bootstrap bands, per-user "
                                    "distributions and paired differences, Friedman's test and critical-difference "
                                    "diagrams (3+ systems), system-level metrics and a metric card (conventions, "
                                    "users per split, versions, this command). See docs/report.md.")
    rp.add_argument("--system", action="append", required=True, metavar="NAME=PATH[,PATH...]",
                    help="a system and its recommendation file(s), one per split in the order of --truth (as "
                         "compare); one system gives the page of its evaluation, two or more compare them")
    rp.add_argument("--out", required=True, metavar="PATH",
                    help="the HTML file to write (e.g. report.html); its folder must exist")
    _add_common(rp)
    _add_test_options(rp)
    rp.add_argument("--title", default="rankeval report", help="title of the page (default 'rankeval report')")
    rp.add_argument("--kind", choices=("box", "violin"), default="box",
                    help="plots of the per-user distributions (default box)")
    rp.add_argument("--image-format", choices=("svg", "png"), default="svg",
                    help="figures as inline SVG (default) or PNG")
    rp.add_argument("--n-bootstrap", type=int, default=1000, metavar="N",
                    help="resamples of the bands of the metric@k curves (default 1000)")
    rp.set_defaults(run=_report_command)
    return parser


# ---------------------------------------------------------------------- inputs
def _metrics(names: Sequence[str], threshold: float | None) -> list[RankingMetric]:
    metrics = [parse_metric(name) for name in names]
    if threshold is None:
        return metrics
    out = []
    for m in metrics:
        params = m._params()
        if "relevant_threshold" in params:
            # rebuilt from the parameters the name set (k), so that a --convention still
            # fills in the others; the threshold is then an explicit choice that wins
            explicit = getattr(m, "_explicit", params)
            m = type(m)(**{k: v for k, v in params.items() if k in explicit}, relevant_threshold=threshold)
        out.append(m)
    return out


class _Stages:
    """One line on standard error naming the stage a long run is in (tqdm): reading each
    file, validating and joining each split, the metrics, the tests, writing. Off with
    ``--quiet``/``--no-progress`` and when standard error is not a terminal."""

    def __init__(self, args: argparse.Namespace, total: int) -> None:
        show = args.progress if args.progress is not None else sys.stderr.isatty()
        self.show = bool(show) and not args.quiet
        self.bar = None
        if self.show:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc="rankeval", unit="stage", leave=False,
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



def _inner_progress(args: argparse.Namespace) -> bool | None:
    """The API's own progress bars (metrics, resampling): off when quiet, else as asked."""
    return False if args.quiet else args.progress


class _Reader:
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
            suffix = {"csv": ".csv", "tsv": ".tsv", "trec_run": ".run", "trec_qrels": ".qrels"}.get(fmt)
            if suffix is None:
                raise UsageError(f"--{role} -: standard input can be csv, tsv or trec, not {fmt}")
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
        options: dict[str, Any] = {}
        if fmt in ("csv", "tsv"):
            # ids as text: 0042 keeps its zero, and pred and truth ids always compare equal
            options["dtype"] = {a.user_col: str, a.item_col: str}
            if a.sep is not None:
                options["sep"] = a.sep
        frame = read_frame(path, format=fmt, id_columns=(a.user_col, a.item_col), **options)
        if fmt in ("trec_run", "trec_qrels"):
            frame = frame.rename(columns={"user_id": a.user_col, "item_id": a.item_col,
                                          "score": a.score_col, "rank": a.rank_col})
        if role == "pred" and a.ignore_rank and a.rank_col in frame.columns:
            if a.score_col not in frame.columns:
                raise ValueError(f"--ignore-rank: --pred file '{path}' has no {a.score_col!r} column to order "
                                 f"its lists by")
            frame = frame.drop(columns=[a.rank_col])
        required = [a.user_col, a.item_col] + ([a.score_col] if role == "truth" else [])
        missing = [c for c in required if c not in frame.columns]
        if missing:
            hint = "name the columns with --user-col, --item-col, --score-col"
            if len(frame.columns) == 1 and any(sep in str(frame.columns[0]) for sep in ",\t;|"):
                hint = f"the file has one column {str(frame.columns[0])!r}: check its separator " \
                       f"(--{role}-format csv or tsv)"
            raise ValueError(f"--{role} file '{path}' has no column {', '.join(repr(c) for c in missing)} "
                             f"(its columns: {[str(c) for c in frame.columns]}); {hint}")
        if role == "pred" and a.score_col not in frame.columns and a.rank_col not in frame.columns:
            warnings.warn(f"--pred file '{path}' has neither a {a.score_col!r} nor a {a.rank_col!r} column: "
                          f"its lists are taken in row order", UserWarning, stacklevel=2)
        return frame


def _known_extension(path: str) -> bool:
    try:
        format_of(path)
    except ValueError:
        return False
    return True


def _split_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {"user_col": args.user_col, "item_col": args.item_col, "score_col": args.score_col,
               "rank_col": args.rank_col}
    if args.ties is not None:  # else the default, or the convention's
        options["ties"] = args.ties
    return options


def _split_names(names: Sequence[str] | None, n_splits: int) -> list[str]:
    if names is None:
        return [f"fold{i + 1}" for i in range(n_splits)]
    if len(names) != n_splits:
        raise UsageError(f"--split-name is given {len(names)} time(s) for {n_splits} split(s): name every split "
                         f"or none")
    if len(set(names)) != len(names) or "mean" in names:
        raise UsageError(f"--split-name values must be distinct and not 'mean' (the row of their mean), got {names}")
    return list(names)


def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every file the command reads, as (option, path)."""
    found = []
    for option in ("pred", "truth", "train", "catalog", "item_features"):
        for path in getattr(args, option, None) or []:
            found.append(("--" + option.replace("_", "-"), path))
    for spec in getattr(args, "system", None) or []:
        found += [("--system", path.strip()) for path in spec.partition("=")[2].split(",") if path.strip()]
    return found


def _check_output(path: str | None, flag: str = "--per-user", *, formats: bool = True,
                  inputs: Sequence[tuple[str, str]] = ()) -> None:
    """Fail before any work on an output the run could not write (after minutes of work, it would),
    or that is one of its input files (by inode: another spelling of the path is the same file)."""
    if path is None:
        return
    for option, source in inputs:
        if os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise UsageError(f"{flag} {path} is the file given to {option} ({source}): writing it would destroy "
                             f"that input; choose another output path")
    if formats:
        format_of(path, write=True)  # an unknown extension
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {path}: the folder '{folder}' does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable")
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a folder, not a file")


def _systems(specs: Sequence[str]) -> dict[str, list[str]]:
    systems: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, paths = spec.partition("=")
        name = name.strip()
        if not sep or not name or not paths.strip():
            raise UsageError(f"--system expects NAME=PATH (or NAME=PATH1,PATH2 for several splits), got {spec!r}")
        systems.setdefault(name, []).extend(p.strip() for p in paths.split(",") if p.strip())
    return systems


# ---------------------------------------------------------------------- outputs
def _fmt(digits: int | None) -> Any:
    return None if digits is None else (lambda x: f"{x:.{digits}f}")


def _text_table(df: pd.DataFrame, digits: int | None) -> str:
    return df.to_string(float_format=_fmt(digits)) + "\n"


def _csv(df: pd.DataFrame) -> str:
    return str(df.reset_index().to_csv(index=False))


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:.{digits}f}"
    return str(value)


def _markdown_frame(df: pd.DataFrame, digits: int) -> str:
    flat = df.reset_index()
    head = [str(c) for c in flat.columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(":---" if not pd.api.types.is_float_dtype(flat[c]) else "---:" for c in flat.columns)
             + "|"]
    for row in flat.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _latex_frame(df: pd.DataFrame, digits: int) -> str:
    flat = df.reset_index()
    cols = "".join("r" if pd.api.types.is_float_dtype(flat[c]) else "l" for c in flat.columns)
    out = [rf"\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(tex_escape(str(c)) for c in flat.columns) + r" \\",
           r"\midrule"]
    for row in flat.itertuples(index=False):
        if row[0] == "mean" and df.index.name == "split":
            out.append(r"\midrule")
        out.append(" & ".join(tex_escape(_cell(v, digits)) for v in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def _render(df: pd.DataFrame, fmt: str, digits: int | None) -> str:
    if fmt == "csv":
        return _csv(df)
    if fmt == "json":
        return json_text(df)
    if fmt == "latex":
        return _latex_frame(df, 4 if digits is None else digits)
    if fmt == "markdown":
        return _markdown_frame(df, 4 if digits is None else digits)
    return _text_table(df, digits)


def _render_posthoc(res: ComparisonResult, kinds: Sequence[str], fmt: str, digits: int | None) -> str:
    """The many-system tables asked for with --posthoc, each under a title."""
    sections = {"friedman": [("Friedman's test per metric (complete units)", res.friedman),
                             ("mean rank per system (1 = best)", res.mean_ranks)],
                "nemenyi": [("Nemenyi's all-pairs test on the mean ranks", res.nemenyi)],
                "tukey": [("Tukey's HSD (independent groups: ignores the pairing)", res.tukey_hsd)]}
    out = []
    for kind in POSTHOC:
        if kind not in kinds:
            continue
        for title, table in sections[kind]:
            heading = {"markdown": f"**{title}**\n\n", "latex": f"% {title}\n"}.get(fmt, f"{title}:\n")
            out.append("\n" + heading + _render(table(), fmt, digits))
    return "".join(out)


def _render_comparison(res: ComparisonResult, fmt: str, digits: int | None) -> str:
    if fmt == "markdown":
        return res.to_markdown() if digits is None else res.to_markdown(digits)
    if fmt == "latex":
        return res.to_latex() if digits is None else res.to_latex(digits)
    if fmt == "table" and len(res.system_values.columns):  # listed per system, without a test
        tested = _render(res.table, fmt, digits) + "\n" if len(res.table) else ""
        return tested + "no test (no per-user value; mean over splits):\n" + _render(res.system_values, fmt, digits)
    return _render(res.table, fmt, digits)


# ---------------------------------------------------------------------- commands
def _evaluate(args: argparse.Namespace) -> int:
    if len(args.pred) != len(args.truth):
        raise UsageError(f"--pred is given {len(args.pred)} time(s) but --truth {len(args.truth)}: "
                         f"give one --pred and one --truth per split, in the same order")
    names = _split_names(args.split_name, len(args.truth))
    _check_output(args.per_user, inputs=_inputs(args))
    metrics = _metrics(args.metric, args.threshold)
    options = _split_options(args)
    missing_users = args.missing_users
    if args.convention is not None:  # as EvalModel(..., convention=) does, split by split (below)
        preset = conventions.get_convention(args.convention)
        metrics = [m.with_convention(args.convention) for m in metrics]
        options = {"ties": preset.ties, **options}
        missing_users = missing_users or preset.missing_users
    read = _Reader(args)
    sides = read_side(args, len(names))
    stages = _Stages(args, total=3 * len(names) + 1 + bool(args.per_user))
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
        stages.start(f"{len(metrics)} metric(s) on {len(splits)} split(s)")
        sys_result, users_result = EvalModel.from_splits(splits, metrics, progress=_inner_progress(args),
                                                         convention=args.convention).fit()
        stages.done()
        if args.per_user:
            stages.start(f"writing {args.per_user}")
            write_frame(users_result, args.per_user)
            stages.done()
    finally:
        stages.close()
    sys.stdout.write(_render(sys_result, args.format, args.digits))
    return 0


def _check_systems(args: argparse.Namespace, systems: dict[str, list[str]]) -> int:
    """One file per split for every system, valid split names and baseline; the number of splits."""
    n_splits = len(args.truth)
    for name, paths in systems.items():
        if len(paths) != n_splits:
            raise UsageError(f"system {name!r} has {len(paths)} file(s) but --truth is given {n_splits} "
                             f"time(s): give every system one file per split, in the order of --truth")
    _split_names(args.split_name, n_splits)
    if args.baseline is not None and args.baseline not in systems:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the systems {list(systems)}")
    return n_splits


def _read_systems(args: argparse.Namespace, systems: dict[str, list[str]], read: _Reader, stages: _Stages
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


def _compare(args: argparse.Namespace) -> int:
    systems = _systems(args.system)
    if len(systems) < 2:
        raise UsageError(f"compare needs at least two systems (--system NAME=PATH), got {list(systems)}")
    n_splits = _check_systems(args, systems)
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ImportError("--plot needs matplotlib, which is not installed: pip install 'rankeval[plot]'")
    inputs = _inputs(args)
    _check_output(args.plot, "--plot", formats=False, inputs=inputs)
    _check_output(args.system_values, "--system-values", inputs=inputs)
    if args.posthoc and args.format in ("csv", "json"):
        raise UsageError(f"--posthoc prints tables after the comparison: use --format table, markdown or latex, "
                         f"not {args.format}")
    metrics = _metrics(args.metric, args.threshold)
    read = _Reader(args)
    sides = read_side(args, n_splits)
    n_files = n_splits * (1 + len(systems))
    stages = _Stages(args, total=n_files + 1 + bool(args.plot))
    try:
        truths, frames = _read_systems(args, systems, read, stages)
        stages.start(f"evaluating {len(systems)} systems and testing every pair")
        res = compare(frames, truths, metrics, test=args.test,
                      correction=None if args.correction == "none" else args.correction, baseline=args.baseline,
                      alpha=args.alpha, n_resamples=args.n_resamples, seed=args.seed, ci_method=args.ci_method,
                      missing_users=args.missing_users, split_names=args.split_name,
                      progress=_inner_progress(args), convention=args.convention,
                      side=sides if any(s is not None for s in sides) else None, **_split_options(args))
        stages.done()
        if args.plot:
            stages.start(f"drawing {args.plot}")
            figure = res.plot(args.plot)
            import matplotlib.pyplot as plt
            plt.close(figure)
            stages.done()
    finally:
        stages.close()
    if args.system_values:
        write_frame(res.system_values, args.system_values)
    elif len(res.system_values.columns) and args.format in ("csv", "json"):
        warnings.warn(f"{list(res.system_values.columns)} have no per-user value to test and are not in the "
                      f"{args.format} output: write them with --system-values OUT", UserWarning, stacklevel=2)
    sys.stdout.write(_render_comparison(res, args.format, args.digits))
    if args.posthoc:
        sys.stdout.write(_render_posthoc(res, args.posthoc, args.format, args.digits))
    return 0


def _report_command(args: argparse.Namespace) -> int:
    import shlex

    systems = _systems(args.system)
    n_splits = _check_systems(args, systems)
    for module in ("jinja2", "matplotlib"):
        if importlib.util.find_spec(module) is None:
            raise ImportError(f"report needs {module}, which is not installed: pip install 'rankeval[report]'")
    from ..page._page import MAX_BOOTSTRAP

    if not 10 <= args.n_bootstrap <= MAX_BOOTSTRAP:
        raise UsageError(f"--n-bootstrap must be an integer from 10 to {MAX_BOOTSTRAP:,}, got {args.n_bootstrap}")
    _check_output(args.out, "--out", formats=False, inputs=_inputs(args))
    metrics = _metrics(args.metric, args.threshold)
    read = _Reader(args)
    sides = read_side(args, n_splits)
    stages = _Stages(args, total=n_splits * (1 + len(systems)))
    try:
        truths, frames = _read_systems(args, systems, read, stages)
    finally:
        stages.close()
    from ..page._page import report

    options: dict[str, Any] = {"missing_users": args.missing_users, "split_names": args.split_name,
                               "convention": args.convention, **_split_options(args)}
    if any(s is not None for s in sides):
        options["side"] = sides
    if len(systems) > 1:
        options.update(test=args.test, correction=None if args.correction == "none" else args.correction,
                       baseline=args.baseline, alpha=args.alpha, n_resamples=args.n_resamples, ci_method=args.ci_method)
    argv = getattr(args, "argv", None)
    command = shlex.join([PROG, *argv]) if argv is not None else None
    report(systems=frames, truth=truths, metrics=metrics, path=args.out, title=args.title,
           digits=4 if args.digits is None else args.digits, n_bootstrap=args.n_bootstrap, seed=args.seed,
           kind=args.kind, image_format=args.image_format, command=command, progress=_inner_progress(args),
           **options)
    sys.stdout.write(f"report written to {args.out}\n")
    return 0


# ---------------------------------------------------------------------- main
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


#: API parameter names in rankeval's messages -> the options that set them
_OPTIONS = {"alpha": "--alpha", "n_resamples": "--n-resamples", "seed": "--seed", "split_names": "--split-name",
            "missing_users": "--missing-users", "relevant_threshold": "--threshold", "ties": "--ties",
            "baseline": "--baseline", "test": "--test", "correction": "--correction", "convention": "--convention",
            "ci_method": "--ci-method"}
_OPTIONS.update(SIDE_OPTIONS)
_PARAM = re.compile(r"`([a-z_]+)`")


def _cli_words(text: str) -> str:
    """Name the option rather than the Python parameter: "`alpha` must be" -> "--alpha must be"."""
    return _PARAM.sub(lambda m: _OPTIONS.get(m[1], m[0]), text)


def _say(kind: str, message: Any, stream: TextIO | None = None) -> None:
    print(f"{PROG}: {kind}: {_one_line(str(message))}", file=stream or sys.stderr, flush=True)


class _Terminated(BaseException):
    """SIGTERM, raised where the run stands, so that outputs being written are cleaned up as on Ctrl-C."""


@contextlib.contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While the command runs, SIGTERM unwinds it (status 143) instead of killing it mid-write."""
    def terminate(signum: int, frame: Any) -> None:
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankeval`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success; 2 for a user error (one ``rankeval: error: ...`` line on stderr) or
        a bad command line (argparse's usage message); 130 when interrupted (Ctrl-C,
        SIGINT), 143 when terminated (SIGTERM). An output being written when the run stops
        is left as it was before (outputs are written under a temporary name, then renamed).
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or argparse's usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, shown by `report`
    if args.digits is not None and not 0 <= args.digits <= MAX_DIGITS:
        _say("error", f"--digits must be an integer from 0 to {MAX_DIGITS}, got {args.digits}")
        return 2
    seen: set[str] = set()

    def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        text = _one_line(str(message))
        if text not in seen:
            seen.add(text)
            _say("warning", text)

    with warnings.catch_warnings(), _terminate_as_exception():
        warnings.simplefilter("always", UserWarning)  # every rankeval warning, once per message (above)
        warnings.showwarning = show
        try:
            return int(args.run(args))
        except KeyboardInterrupt:
            _say("error", "interrupted")
            return 130
        except _Terminated:
            _say("error", "terminated")
            return 143
        except (ValueError, TypeError, OSError, ImportError) as exc:
            message = str(exc)
            if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
                message = f"{exc.strerror}: '{exc.filename}'"
            _say("error", _cli_words(message) or type(exc).__name__)
            return 2
