"""``rankeval power``: the minimum detectable effect and the users needed, from per-user values.

The per-user values come from ``rankeval evaluate --per-user`` (one file per system, given as
``--per-user NAME=PATH``) or from ``rankeval compare --per-user`` (one file, a ``system``
column). Every pair of systems (or every system against ``--baseline``) is paired on its
(split, user) units, and :func:`rankeval.stats.power_analysis` runs on the differences of
every metric: the MDE at these users, the power for the observed (or the asked) difference
and the users the paired t-test needs for it, at the level the correction implies.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import ComparisonResult
from ..exceptions import DroppedUnitsWarning
from ..io import read_frame
from ..stats import check_margin, power_analysis
from ._output import OUTPUT_FORMATS, render
from ._usage import UsageError

__all__ = ["add_power", "power_command", "units_long", "equivalence_margin", "render_equivalence"]

#: the columns that key a per-user row (besides the user column)
_KEYS = ("split", "system")


def units_long(res: ComparisonResult, user_col: str = "user_id") -> pd.DataFrame:
    """A comparison's per-user values, one row per (split, user, system), one column per metric.

    Parameters
    ----------
    res : ComparisonResult
        The comparison.
    user_col : str
        The name of the user column.
    """
    base = pd.DataFrame({"split": res.units[("split", "")].to_numpy(), user_col: res.units[("user_id", "")].to_numpy()})
    parts = [base.assign(system=s, **{m: res.units[(m, s)].to_numpy() for m in res.metrics}) for s in res.systems]
    return pd.concat(parts, ignore_index=True)


def add_power(sub: Any) -> None:
    """The ``power`` subcommand's parser."""
    pw = sub.add_parser("power", help="minimum detectable effect and users needed, from per-user values",
                        description="How large a difference could a comparison detect, and how many users would "
                                    "it need? From per-user values: evaluate's --per-user files (NAME=PATH, one "
                                    "per system) or compare's --per-user file (a system column).")
    pw.add_argument("--per-user", action="append", required=True, metavar="[NAME=]PATH",
                    help="per-user values: NAME=PATH from `rankeval evaluate --per-user` (repeat, one per system), "
                         "or one PATH from `rankeval compare --per-user` (its system column names the systems)")
    pw.add_argument("-m", "--metric", action="append", default=None, metavar="METRIC",
                    help="a metric column to analyse (repeat; default every metric column)")
    pw.add_argument("--baseline", metavar="NAME", default=None,
                    help="pair every other system with this one (default: every pair)")
    pw.add_argument("--alpha", type=float, default=0.05, help="significance level of the family (default 0.05)")
    pw.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
    pw.add_argument("--correction", choices=("holm", "bonferroni", "fdr_bh", "none"), default="holm",
                    help="the correction the comparison uses: each test at alpha / (tests) (default holm)")
    pw.add_argument("--alternative", choices=("two-sided", "one-sided"), default="two-sided",
                    help="two-sided (default, as compare's tests), or one-sided in the effect's direction")
    effect = pw.add_mutually_exclusive_group()
    effect.add_argument("--effect", type=float, default=None, metavar="X",
                        help="the mean difference to plan for, in the metric's units (default: the observed one)")
    effect.add_argument("--relative-effect", type=float, default=None, metavar="PERCENT",
                        help="the difference to plan for in %% of system a's mean, e.g. 1 for a 1%% improvement")
    pw.add_argument("--n", type=int, default=None, metavar="USERS",
                    help="the users the MDE and the power are for (default: each pair's paired users)")
    pw.add_argument("--user-col", default="user_id", metavar="NAME", help="the user column (default user_id)")
    pw.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help="output format (default table)")
    pw.add_argument("--digits", type=int, default=None, metavar="N", help="decimals shown (default: all)")
    pw.set_defaults(run=power_command)


def _read_systems(args: argparse.Namespace) -> dict[str, pd.DataFrame]:
    """Per system, its per-user frame indexed by (split, user)."""
    named = [spec.partition("=") for spec in args.per_user]
    frames: dict[str, pd.DataFrame] = {}
    if len(named) == 1 and not named[0][1]:
        path = named[0][0]
        frame = read_frame(path, id_columns=(args.user_col,))
        if "system" not in frame.columns:
            raise UsageError(f"--per-user {path}: one file needs a `system` column (as `rankeval compare --per-user` "
                             f"writes); give evaluate's files as NAME=PATH, one per system")
        for name, part in frame.groupby("system", sort=False):
            frames[str(name)] = part.drop(columns="system")
    else:
        for name, sep, path in named:
            if not sep or not name.strip() or not path.strip():
                raise UsageError(f"--per-user expects NAME=PATH for each of several files, got {name + sep + path!r}")
            if name.strip() in frames:
                raise UsageError(f"--per-user: system {name.strip()!r} is given twice")
            frames[name.strip()] = read_frame(path.strip(), id_columns=(args.user_col,))
    if len(frames) < 2:
        raise UsageError(f"power needs the per-user values of at least two systems, got {list(frames)}")
    out = {}
    for name, frame in frames.items():
        if args.user_col not in frame.columns:
            raise UsageError(f"--per-user of system {name!r}: no user column {args.user_col!r} (columns "
                             f"{list(frame.columns)}); name it with --user-col")
        keys = [c for c in ("split", args.user_col) if c in frame.columns]
        if frame.duplicated(keys).any():
            raise UsageError(f"--per-user of system {name!r}: {int(frame.duplicated(keys).sum())} repeated "
                             f"({', '.join(keys)}) row(s)")
        out[name] = frame.set_index(keys)
    return out


def _differences(args: argparse.Namespace, frames: dict[str, pd.DataFrame]) -> tuple[dict[Any, np.ndarray],
                                                                                     dict[Any, float]]:
    """Per (metric, a, b): the paired differences b - a, and system a's mean over them."""
    names = list(frames)
    if args.baseline is not None and args.baseline not in names:
        raise UsageError(f"--baseline {args.baseline!r} is not among the systems {names}")
    pairs = ([(args.baseline, n) for n in names if n != args.baseline] if args.baseline is not None
             else list(combinations(names, 2)))
    common = [c for c in frames[names[0]].columns if all(c in f.columns for f in frames.values())]
    metrics = args.metric or [c for c in common if pd.api.types.is_numeric_dtype(frames[names[0]][c])]
    missing = [m for m in metrics if m not in common]
    if missing or not metrics:
        raise UsageError(f"--metric {missing[0]!r} is not a column of every --per-user file (shared: {common})"
                         if missing else "the --per-user files share no metric column")
    diffs, means, dropped = {}, {}, 0
    for metric in metrics:
        for a, b in pairs:
            joined = pd.concat([frames[a][metric].rename("a"), frames[b][metric].rename("b")], axis=1, join="inner")
            paired = joined.dropna()
            dropped += len(joined) - len(paired)
            diffs[(metric, a, b)] = (paired["b"] - paired["a"]).to_numpy(dtype=np.float64)
            means[(metric, a, b)] = float(paired["a"].mean())
    if dropped:
        warnings.warn(DroppedUnitsWarning(f"{dropped} (split, user) unit(s) with a NaN value were left out of "
                                          f"the pairs' differences"), stacklevel=2)
    return diffs, means


def power_command(args: argparse.Namespace) -> int:
    """``rankeval power``: per (metric, pair), the MDE at these users and the users needed."""
    diffs, means = _differences(args, _read_systems(args))
    effect: Any = args.effect
    if args.relative_effect is not None:
        effect = {key: args.relative_effect / 100 * mean for key, mean in means.items()}
    result = power_analysis(diffs, effect=effect, n=args.n, alpha=args.alpha, power=args.power,
                            alternative=args.alternative, correction=None if args.correction == "none" else
                            args.correction, n_tests=len(diffs), index_names=["metric", "system_a", "system_b"])
    table = result.table.drop(columns=["power_se", "power_method"])
    sys.stdout.write(render(table, args.format, args.digits))
    if args.format in ("table", "markdown"):
        sys.stdout.write(f"\n{result.summary()}\n")
    return 0


def equivalence_margin(args: argparse.Namespace) -> Any:
    """compare's ``equivalence_margin`` from --equivalence-margin (``1%`` stays a share), checked."""
    text = args.equivalence_margin
    if text is None:
        return None
    if getattr(args, "format", "table") not in ("table", "markdown", "latex"):  # the report has no --format
        raise UsageError(f"--equivalence-margin prints a table after the comparison: use --format table, markdown "
                         f"or latex, not {args.format}")
    try:
        margin: Any = text.strip() if text.strip().endswith("%") else float(text)
        check_margin(margin)
    except ValueError:
        raise UsageError(f"--equivalence-margin must be a number > 0 (the metric's units) or a share of system "
                         f"a's mean such as 1%, got {text!r}") from None
    return margin


def render_equivalence(res: ComparisonResult, fmt: str, digits: int | None) -> str:
    """The equivalence table under a title, as ``--posthoc`` prints its tables."""
    title = f"equivalence within the margin (two one-sided tests at alpha = {res.alpha:g})"
    heading = {"markdown": f"**{title}**\n\n", "latex": f"% {title}\n"}.get(fmt, f"{title}:\n")
    return "\n" + heading + render(res.equivalence, fmt, digits)
