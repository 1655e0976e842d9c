"""Propensity-weighted metrics on the command line: ``--propensity``, ``--propensity-power``, clipping.

A metric named ``METRIC-IPS`` or ``METRIC-SNIPS`` (``-m R@10-IPS``) weighs each relevant held-out
item by 1/propensity; the propensities come from ``--propensity FILE`` (an item column and a
``propensity`` column, plus the user column for one per (user, item) pair) or from ``--train``
by the normalised popularity ``(n_i / max n)^X`` of ``--propensity-power X`` (0.5 without
either flag). See docs/unbiased.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..data import SideData
from ..io import format_of, read_frame
from ..metrics.unbiased import Propensity, Unbiased, stratified
from ._usage import UsageError

__all__ = ["add_propensity_arguments", "propensity_metrics", "add_strata_argument", "report_strata"]


def add_propensity_arguments(p: argparse.ArgumentParser) -> None:
    """The propensity options of ``evaluate``, ``compare`` and ``report``."""
    p.add_argument("--propensity", default=None, metavar="PATH",
                   help="propensities of the metrics named METRIC-IPS / METRIC-SNIPS: a CSV/TSV/Parquet file "
                        "with the item column (--item-col), 'propensity' in (0, 1] and optionally the user column "
                        "(one per (user, item) pair); see docs/unbiased.md")
    p.add_argument("--propensity-power", type=float, default=None, metavar="X",
                   help="propensities of METRIC-IPS / METRIC-SNIPS estimated from --train as the normalised "
                        "popularity (n_i / max n)^X (default when --propensity is not given: X = 0.5)")
    p.add_argument("--propensity-floor", type=float, default=None, metavar="X",
                   help="raise propensities below X to X (clipped rows are counted in a warning)")
    p.add_argument("--propensity-cap", type=float, default=None, metavar="X",
                   help="lower weights 1/propensity above X to X (clipped rows are counted in a warning)")


def _model(args: argparse.Namespace) -> Propensity | None:
    given = {flag: value for flag, value in (("--propensity", args.propensity),
                                              ("--propensity-power", args.propensity_power),
                                              ("--propensity-floor", args.propensity_floor),
                                              ("--propensity-cap", args.propensity_cap)) if value is not None}
    if not given:
        return None
    if args.propensity is not None and args.propensity_power is not None:
        raise UsageError("--propensity FILE and --propensity-power X are two propensity models: give one")
    clip = {"floor": args.propensity_floor, "cap": args.propensity_cap}
    try:
        if args.propensity is None:
            power = 0.5 if args.propensity_power is None else args.propensity_power
            return Propensity.popularity(power, **clip)
        return Propensity.given(_read(args, args.propensity), user_col=args.user_col, item_col=args.item_col, **clip)
    except ValueError as exc:
        flag = next(iter(given)) if args.propensity is None else "--propensity"
        raise UsageError(f"{flag}: {exc}") from exc


def _read(args: argparse.Namespace, path: str) -> Any:
    try:
        fmt, _ = format_of(path)
    except ValueError as exc:
        raise UsageError(f"--propensity: {exc}") from exc
    if fmt not in ("csv", "tsv", "parquet"):
        raise UsageError(f"--propensity file '{path}' must be CSV, TSV or Parquet with a header, not {fmt}")
    options: dict[str, Any] = {}
    if fmt != "parquet":
        options["dtype"] = {args.user_col: str, args.item_col: str}  # ids as text, as --pred and --truth read them
        if args.sep is not None:
            options["sep"] = args.sep
    frame = read_frame(path, id_columns=(args.user_col, args.item_col), **options)
    if args.item_col not in frame.columns or "propensity" not in frame.columns:
        raise UsageError(f"--propensity file '{path}' needs the item column ({args.item_col!r}) and 'propensity'; "
                         f"its columns: {[str(c) for c in frame.columns]}")
    return frame


def propensity_metrics(args: argparse.Namespace, metrics: list[Any]) -> list[Any]:
    """``metrics`` with the propensity model of the flags and ``--threshold`` in every weighted one."""
    model = _model(args)
    weighted = [m for m in metrics if isinstance(m, Unbiased)]
    if model is not None and not weighted:
        raise UsageError("--propensity / --propensity-power weigh the metrics named METRIC-IPS or METRIC-SNIPS: "
                         "add one with -m, e.g. -m R@10-IPS")
    out = []
    for m in metrics:
        if isinstance(m, Unbiased):
            inner = m.metric
            params = inner._params()
            if args.threshold is not None and "relevant_threshold" in params:
                explicit = inner.explicit_params
                inner = type(inner)(**{k: v for k, v in params.items() if k in explicit},
                                    relevant_threshold=args.threshold)
            m = Unbiased(inner, model or m.propensity, m.estimator, name=m.name)
        out.append(m)
    return out


def add_strata_argument(p: argparse.ArgumentParser) -> None:
    """``report --strata Q``."""
    p.add_argument("--strata", type=int, default=None, metavar="Q",
                   help="add the popularity strata of every system: the truth cut into Q equal-width propensity "
                        "strata (the propensity of --propensity / --propensity-power, else the normalised "
                        "popularity of --train with power 0.5), every metric per stratum and their weighted sum "
                        "(one split only; see docs/unbiased.md)")


def report_strata(args: argparse.Namespace, frames: dict[str, list[Any]], truths: list[Any],
                  sides: list[SideData | None], metrics: list[Any]) -> dict[str, Any] | None:
    """Each system's :func:`~rankeval.unbiased.stratified` frame for ``report --strata Q`` (None without it)."""
    if args.strata is None:
        return None
    if len(truths) != 1:
        raise UsageError(f"--strata evaluates one split, got {len(truths)} --truth files: give one")
    if args.strata < 1:
        raise UsageError(f"--strata must be an integer >= 1, got {args.strata}")
    model = _model(args) or Propensity.popularity(0.5)
    side = sides[0]
    train = None
    if side is not None and side.train is not None:
        train = side.train.rename(columns={side.user_col: args.user_col, side.item_col: args.item_col})
    truth = truths[0].rename(columns={args.truth_user_col or args.user_col: args.user_col,
                                      args.truth_item_col or args.item_col: args.item_col})
    options = {"score_col": args.score_col, "rank_col": args.rank_col, "score_order": args.score_order}
    if args.truth_score_col is not None:
        options["truth_score_col"] = args.truth_score_col
    if args.ties is not None:
        options["ties"] = args.ties
    plain = [m for m in metrics if m.system_is_user_mean and not isinstance(m, Unbiased)]  # strata weigh by counts
    try:
        return {name: stratified(preds[0], truth, plain, model, args.strata, train=train, user_col=args.user_col,
                                 item_col=args.item_col, **options) for name, preds in frames.items()}
    except ValueError as exc:
        raise ValueError(f"--strata: {exc}") from exc
