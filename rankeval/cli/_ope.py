"""``rankeval ope``: a new system's expected reward from a log of another system's shown lists."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from ..io import format_of
from ..ope import ESTIMATORS, off_policy_value
from ._output import OUTPUT_FORMATS, render
from ._text_files import read_table
from ._usage import UsageError

__all__ = ["add_ope"]

_KINDS = ("pscore", "pscore_item_position", "pscore_cascade")


def add_ope(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``ope`` subcommand's arguments."""
    op = sub.add_parser("ope", help="a new system's expected reward from logged feedback (off-policy estimation)",
                        description="Estimate what a new system's lists would have earned on the traffic of a log "
                                    "of shown lists (rankeval.ope.off_policy_value; see docs/ope.md). Prints one "
                                    "row per estimator: the estimate, its bootstrap interval, the units, the "
                                    "weights' effective sample size and largest weight.")
    op.add_argument("--log", required=True, metavar="PATH",
                    help="one row per shown item: slate, position, item, reward and the logging probabilities")
    op.add_argument("--policy", required=True, metavar="PATH",
                    help="the new system: its lists (slate, position, item) or its probabilities of the logged "
                         "rows (slate, position and columns named pscore, pscore_item_position, pscore_cascade)")
    op.add_argument("-e", "--estimator", action="append", default=None, choices=list(ESTIMATORS),
                    help="an estimator (repeat for several; default every one the columns allow)")
    op.add_argument("--logging", action="append", default=None, metavar="KIND=COLUMN",
                    help=f"the log's column of one kind of logging probability, KIND among {', '.join(_KINDS)} "
                         "(repeat; default: the log's columns of those names)")
    op.add_argument("--reward-model", nargs=2, default=None, metavar=("LOGGED", "TARGET"),
                    help="for the dr estimator: the log's columns of the reward model's estimate for the shown "
                         "item and of its expectation under the new policy")
    for flag, default, what in (("--slate-col", "slate_id", "slate (one shown list)"),
                                ("--position-col", "position", "position"), ("--item-col", "item_id", "item"),
                                ("--reward-col", "reward", "reward")):
        op.add_argument(flag, default=default, metavar="NAME", help=f"column of the {what} (default {default})")
    op.add_argument("--alpha", type=float, default=0.05, metavar="A", help="intervals at 1 - A (default 0.05)")
    op.add_argument("--n-resamples", type=int, default=1000, metavar="N",
                    help="bootstrap resamples of the slates (default 1000; 0: no interval)")
    op.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the bootstrap (default 0)")
    op.add_argument("--sep", default=None, metavar="SEP", help="separator of text files (default: from each header)")
    op.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help="output format (default table)")
    op.add_argument("--digits", type=int, default=None, metavar="N",
                    help="decimals shown by the table, latex and markdown formats")
    op.set_defaults(run=ope_command)


def _logging(specs: list[str] | None) -> dict[str, str] | None:
    if specs is None:
        return None
    out = {}
    for spec in specs:
        kind, sep, column = spec.partition("=")
        if not sep or kind not in _KINDS or not column:
            raise UsageError(f"--logging takes KIND=COLUMN with KIND among {', '.join(_KINDS)}, got {spec!r}")
        out[kind] = column
    return out


def _read(args: argparse.Namespace, path: str, flag: str) -> pd.DataFrame:
    fmt, _ = format_of(path)
    ids = [args.slate_col, args.item_col]
    try:
        return read_table(args, path, fmt, ids)
    except FileNotFoundError as exc:
        raise UsageError(f"{flag} file '{path}' does not exist") from exc


def ope_command(args: argparse.Namespace) -> int:
    """``rankeval ope``: the estimates table of a log and a new system."""
    log, policy = _read(args, args.log, "--log"), _read(args, args.policy, "--policy")
    reward_model = None if args.reward_model is None else dict(zip(("logged", "target"), args.reward_model))
    result = off_policy_value(log, policy, estimators=args.estimator, slate_col=args.slate_col,
                              position_col=args.position_col, item_col=args.item_col, reward_col=args.reward_col,
                              logging=_logging(args.logging), reward_model=reward_model, alpha=args.alpha,
                              n_resamples=args.n_resamples, seed=args.seed)
    sys.stdout.write(render(result.table, args.format, args.digits))
    return 0
