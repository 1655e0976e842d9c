"""How the evaluated lists were made: splits as the truth, and the cheap protocol checks.

An evaluation given a :class:`~rankeval.split.Splits` object takes its test frames as the
truth, its train frames as the ``train=`` side data and its names as the split names. An
evaluation that has ``train`` (from a Splits object or given directly) runs the audit's
cheap checks on every split and warns, with counts, about what makes its numbers
untrustworthy: items the user already had in train recommended again, (user, item) pairs in
both train and test, and test users training never saw.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ..data import Columns, Split
from ..data.internal import ids_under_truth_names, is_spark_frame
from ..exceptions import ProtocolWarning
from ..split import Splits, cheap_checks
from ..split.internal import CHEAP_CHECKS, split_cheap_counts

__all__ = ["splits_as_truth", "protocol_findings", "warn_protocol", "spark_trains", "spark_findings"]

#: what each cheap check counts, as a warning says it (count key, whole key, text): split's one definition
_CHECKS = {name: (check.count, check.whole, check.text) for name, check in CHEAP_CHECKS.items()}


def splits_as_truth(truth: Any, train: Any, split_names: Sequence[str] | None,
                    split_options: Mapping[str, Any]) -> tuple[Any, Any, Sequence[str] | None, dict[str, Any]]:
    """``(truth, train, split_names, split_options)`` with a Splits object unpacked.

    A Splits object's tests become the truth, its trains the ``train`` side data, its names
    the split names (unless given), its user and item columns the default column names of
    both pred and truth (``truth_user_col``, ``truth_item_col``) and its score column the
    default ``truth_score_col``.
    Anything else passes through unchanged.
    """
    options = dict(split_options)
    if not isinstance(truth, Splits):
        return truth, train, split_names, options
    if train is not None:
        raise ValueError("`train` is given twice: the truth is a Splits object, whose train frames are the "
                         "`train` side data; pass the Splits object alone, or its tests (`splits.tests`) "
                         "with your own `train`")
    for key in ("user_col", "item_col"):
        if key in truth.params:
            # the interactions' names are the truth's; pred keeps them unless told otherwise
            options.setdefault(key, truth.params[key])
            options.setdefault(f"truth_{key}", truth.params[key])
    if "score_col" in truth.params:  # the interactions' rating column is the truth's score
        options.setdefault("truth_score_col", truth.params["score_col"])
    return truth.tests, truth.trains, (truth.names if split_names is None else split_names), options


def spark_trains(train: Any) -> tuple[Any, list[Any] | None]:
    """``(train, None)``, or ``(None, trains)`` when ``train`` lists Spark frames (a Splits made on Spark).

    Side data is local (shipped to every bucket of the Spark engine), so the train frames of
    a Splits made on Spark are kept apart: the cheap checks read them on Spark, and a
    metric that needs ``train`` side data asks for it (a local frame) by name.
    """
    if isinstance(train, (list, tuple)) and train and all(is_spark_frame(t) for t in train):
        return None, list(train)
    return train, None


def _found(counts: Mapping[str, Any], name: str, checks: Sequence[str]) -> list[str]:
    found = []
    for check in checks:
        count_key, whole_key, text = _CHECKS[check]
        count, whole = counts[count_key], counts[whole_key]
        if count and whole:
            found.append(f"split {name!r}: {count:,} of {whole:,} {text} ({count / whole:.2%})")
    return found


def protocol_findings(splits: Sequence[Split], names: Sequence[str], checks: Sequence[str]) -> list[str]:
    """Per split with ``train`` side data, the non-zero ``checks`` (keys of ``_CHECKS``) as text."""
    found = []
    for split, name in zip(splits, names):
        side = split.side
        if side is None or side.train is None:
            continue
        found += _found(split_cheap_counts(split, checks), name, checks)
    return found


def spark_findings(trains: Sequence[Any], frames: Sequence[tuple[Any, Any]], names: Sequence[str],
                   checks: Sequence[str], c: Columns) -> list[str]:
    """:func:`protocol_findings` of Spark frames: ``trains`` beside the ``(pred, truth)`` of every
    split, every frame read under the truth's column names."""
    found = []
    for train, (pred, truth), name in zip(trains, frames, names):
        lists = ids_under_truth_names(pred, c) if "seen" in checks else None
        counts = cheap_checks(train, truth, lists, user_col=c.truth_user, item_col=c.truth_item)
        found += _found(counts, name, checks)
    return found


def warn_protocol(findings: list[str], stacklevel: int) -> None:
    """One :class:`~rankeval.exceptions.ProtocolWarning` listing ``findings`` (none: no warning)."""
    if not findings:
        return
    shown = "; ".join(findings[:12]) + (f"; ... ({len(findings) - 12} more)" if len(findings) > 12 else "")
    warnings.warn(ProtocolWarning(
        f"the evaluation protocol may make these numbers wrong: {shown}. rankeval.audit(train, test, pred) "
        f"shows every check"), stacklevel=stacklevel + 1)
