"""``rankeval rank``: every user's top-k from two files of vectors, the training items excluded; written,
or evaluated against a truth file as they are (no pred file)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
import pandas as pd

from ..data.internal import MISSING_USERS
from ..evaluation import EvalModel
from ..io import format_of, read_frame, write_frame
from ..rank import SIMILARITIES, TIES, top_k
from ._inputs import parse_metrics
from ._output import OUTPUT_FORMATS, render
from ._usage import UsageError, check_option_integer

__all__ = ["add_rank", "rank_command", "read_vectors"]


def add_rank(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``rank`` subcommand and its options."""
    rk = sub.add_parser("rank", help="every user's exact top-k items from user and item vectors",
                        description="Score every user against every item (dot product or cosine of their vectors), "
                                    "in blocks within --memory, and write each user's k best items, the items of "
                                    "--exclude (the training interactions) left out: the pred file of `rankeval "
                                    "evaluate` (user, item, score, rank). See docs/rank.md.")
    rk.add_argument("--users", required=True, metavar="PATH",
                    help="user vectors (.parquet, .csv, .tsv): an id column and either one list column (Arrow "
                         "lists) or one numeric column per dimension, in order")
    rk.add_argument("--items", required=True, metavar="PATH", help="item vectors, laid out as --users")
    rk.add_argument("-k", type=int, required=True, metavar="K", help="the length of every list")
    rk.add_argument("--exclude", default=None, metavar="PATH",
                    help="(user, item) rows never listed: the training interactions (.csv, .tsv, .parquet)")
    rk.add_argument("--out", default=None, metavar="PATH",
                    help="the lists written (.csv, .tsv, .parquet, .json); optional with --truth")
    rk.add_argument("--similarity", choices=SIMILARITIES, default="dot", help="dot (default) or cosine")
    rk.add_argument("--ties", choices=TIES, default="row_order",
                    help="tied scores: the --items file's row order (default), or item ids ascending or descending")
    rk.add_argument("--memory", default="1GiB", metavar="SIZE",
                    help="the most memory the ranking adds (default 1GiB; '512MiB', '4GB' or bytes)")
    rk.add_argument("--user-col", default="user_id", metavar="NAME",
                    help="the user id column of --users and --exclude, and of the output (default user_id)")
    rk.add_argument("--item-col", default="item_id", metavar="NAME",
                    help="the item id column of --items and --exclude, and of the output (default item_id)")
    rk.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                    help="show a progress bar (default: for long runs on a terminal)")
    ev = rk.add_argument_group("evaluating the lists directly (no pred file)")
    ev.add_argument("--truth", default=None, metavar="PATH",
                    help="held-out ratings (user, item, score): evaluate the lists with the -m metrics and print "
                         "the system table, as `rankeval evaluate` on the written lists would")
    ev.add_argument("-m", "--metric", action="append", default=None, metavar="METRIC",
                    help="with --truth: a metric by name, e.g. NDCG@10, R@100; repeat for several")
    ev.add_argument("--threshold", type=float, default=None, metavar="X",
                    help="with --truth: fixed relevance threshold (default: each user's mean truth score)")
    ev.add_argument("--truth-score-col", default="score", metavar="NAME",
                    help="with --truth: the truth file's rating column (default score)")
    ev.add_argument("--missing-users", choices=MISSING_USERS, default=None,
                    help="with --truth: truth users without a list: ignore (default, with a warning), zero or error")
    ev.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help="with --truth: output format")
    ev.add_argument("--digits", type=int, default=None, metavar="N",
                    help="with --truth: decimals shown by the table, latex and markdown formats")
    rk.set_defaults(run=rank_command)


def read_vectors(path: str, option: str, id_col: str) -> tuple[pd.Index, np.ndarray]:
    """(ids, vectors) of a vectors file: one list column, or every other column numeric, one per dimension."""
    try:
        fmt, _ = format_of(path)
    except ValueError as exc:
        raise UsageError(f"{option} {path}: {exc}") from exc
    if fmt not in ("csv", "tsv", "parquet"):
        raise UsageError(f"{option} {path}: vectors are read from .csv, .tsv or .parquet files, not {fmt}")
    frame = read_frame(path, format=fmt, id_columns=(id_col,))
    if id_col not in frame.columns:
        raise ValueError(f"{option} file '{path}' has no column {id_col!r} (its columns: {list(frame.columns)[:8]}); "
                         f"name the id column with --{'user' if option == '--users' else 'item'}-col")
    rest = [c for c in frame.columns if c != id_col]
    lists = [c for c in rest if frame[c].dtype == object and len(frame) and
             isinstance(frame[c].iloc[0], (list, tuple, np.ndarray))]
    if len(lists) == 1 and len(rest) == 1:
        return pd.Index(frame[id_col]), _stack(frame[lists[0]], option, path)
    text = [c for c in rest if not pd.api.types.is_numeric_dtype(frame[c])]
    if text or not rest:
        raise ValueError(f"{option} file '{path}': the vectors must be one list column or numeric columns besides "
                         f"{id_col!r}; {'columns ' + str(text[:5]) + ' are not numbers' if text else 'none found'}")
    return pd.Index(frame[id_col]), frame[rest].to_numpy()


def _stack(column: pd.Series, option: str, path: str) -> np.ndarray:
    """A list column as a 2-D array; lists of different lengths refused."""
    lengths = column.map(len).to_numpy()
    if len(lengths) and (lengths != lengths[0]).any():
        row = int(np.flatnonzero(lengths != lengths[0])[0])
        raise ValueError(f"{option} file '{path}': vectors of different lengths ({lengths[0]} in row 0, "
                         f"{lengths[row]} in row {row}): every vector needs the same dimensions")
    return np.stack(column.to_numpy()) if len(column) else np.empty((0, 0))


def _as_text_if(ids: pd.Index, other: Any) -> pd.Index:
    """Ids compared as text when the --exclude file holds them as text (CSV and TSV ids are read as written)."""
    textual = pd.api.types.is_string_dtype(other) or other is np.dtype(object)
    return ids.astype(str) if textual and pd.api.types.is_numeric_dtype(ids.dtype) else ids


def rank_command(args: argparse.Namespace) -> int:
    """Read the vectors and the excluded rows, rank, write the lists and/or evaluate them against --truth."""
    k = check_option_integer("-k", args.k, 1, 2**31 - 1)
    if args.out is None and args.truth is None:
        raise UsageError("rank needs --out (write the lists) or --truth with -m (evaluate them), or both")
    if (args.truth is None) != (args.metric is None):
        raise UsageError("--truth and -m go together: the lists are evaluated with the -m metrics on --truth")
    metrics = None if args.metric is None else parse_metrics(args.metric, args.threshold)
    user_ids, users = read_vectors(args.users, "--users", args.user_col)
    item_ids, items = read_vectors(args.items, "--items", args.item_col)
    exclude = None if args.exclude is None else _read_pairs(args.exclude, "--exclude", args)
    truth = None if args.truth is None else _read_pairs(args.truth, "--truth", args)
    for frame in (exclude, truth):
        if frame is not None:  # CSV and TSV ids are text: numeric vector ids are compared as text then
            user_ids = _as_text_if(user_ids, frame[args.user_col].dtype)
            item_ids = _as_text_if(item_ids, frame[args.item_col].dtype)
    result = top_k(users, items, k, user_ids=user_ids, item_ids=item_ids, exclude=exclude,
                   similarity=args.similarity, ties=args.ties, memory=args.memory, progress=args.progress,
                   user_col=args.user_col, item_col=args.item_col)
    if args.out is not None:
        write_frame(result.to_frame(user_col=args.user_col, item_col=args.item_col, categorical=False), args.out)
        # beside a table on stdout, the line goes to stderr: stdout stays one table (csv, json)
        done = sys.stdout if truth is None else sys.stderr
        done.write(f"{len(result):,} rows ({len(result.users):,} users, k={k}) -> {args.out}\n")
    if truth is not None and metrics is not None:
        sys_result, _ = EvalModel(result, truth, metrics, missing_users=args.missing_users, user_col=args.user_col,
                                  item_col=args.item_col, truth_score_col=args.truth_score_col).fit()
        sys.stdout.write(render(sys_result, args.format, args.digits))
    return 0


def _read_pairs(path: str, option: str, args: argparse.Namespace) -> pd.DataFrame:
    """An --exclude or --truth file, its ids as written (CSV and TSV ids as text), with the two id columns."""
    fmt, _ = format_of(path)
    frame = read_frame(path, format=fmt, id_columns=(args.user_col, args.item_col))
    for col in (args.user_col, args.item_col):
        if col not in frame.columns:
            raise ValueError(f"{option} file '{path}' has no column {col!r}: name the columns with "
                             f"--user-col and --item-col")
    return frame
