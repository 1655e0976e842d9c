"""The cheap protocol checks an engine counts: what the lists recommend from train, and how
each split's test relates to its train (test pairs in train, test users without train).

An evaluation with ``train`` side data warns, with counts, about what makes its numbers
untrustworthy (:class:`~rankeval.ProtocolWarning`); ``rankeval.audit`` shows every check.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ..data import Columns, Split
from ..data.internal import ids_under_truth_names
from ..exceptions import ProtocolWarning
from ..split import cheap_checks
from ..split.internal import CHEAP_CHECKS, split_cheap_counts

__all__ = ["protocol_findings", "spark_findings", "warn_protocol"]

#: what each cheap check counts, as a warning says it (count key, whole key, text): split's one definition
_CHECKS = {name: (check.count, check.whole, check.text) for name, check in CHEAP_CHECKS.items()}


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
