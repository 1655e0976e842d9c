"""Metric names as text: ``parse_metric("NDCG@10")`` is the inverse of ``str(metric)``."""

from __future__ import annotations

import difflib
import re

from ._base import RankingMetric
from ._names import ALIASES as _ALIASES
from ._names import FAMILIES as _FAMILIES
from ._names import REGISTRY as _REGISTRY
from ._names import Factory, register_metric, unregister_metric

__all__ = ["parse_metric", "register_metric", "unregister_metric", "metric_names"]

#: where a message about a name sends the reader for every name
_EVERY_NAME = "every name: rankeval.metric_names(), or docs/cli.md#metric-names"
#: STEM, STEM@k, and either of them with a non-default average: "P@10-micro", "MAE-micro", "num_ret-macro"
_NAME = re.compile(r"^(?P<stem>[A-Za-z_][A-Za-z0-9_.+\-]*?)"
                   r"(?:@(?P<k>[0-9]+(?:,[0-9]+)*))?(?:-(?P<average>micro|macro|sum))?"
                   r"(?:-(?P<estimator>(?i:ips|snips)))?$")


def metric_names() -> list[str]:
    """The forms ``parse_metric`` accepts, e.g. ``["DCG", "DCG@k", ..., "P@k", ...]``.

    Any of them may end in ``-micro`` (or ``-macro`` for the counts, whose default is the sum) for a metric with
    that ``average``.
    """
    forms = []
    entries = [(stem, cutoff) for stem, (_, cutoff) in _REGISTRY.items()]
    entries += [(form, cutoff) for _, form, _, cutoff in _FAMILIES]
    for stem, cutoff in sorted(entries, key=lambda kv: kv[0].lower()):
        if cutoff != "required":
            forms.append(stem)
        if cutoff != "forbidden":
            forms.append(f"{stem}@k")
    return forms


def _lookup(stem: str) -> tuple[Factory, str] | None:
    """The factory of ``stem``: a registered stem, or one of the families with a parameter."""
    if stem in _REGISTRY:
        return _REGISTRY[stem]
    for pattern, _, make, cutoff in _FAMILIES:
        match = pattern.fullmatch(stem)
        if match is not None:
            return (lambda k, m=match, f=make: f(m, k)), cutoff
    return None


def _family_spellings(stem: str) -> list[str]:
    """``stem`` spelled as a family with a parameter spells it (``f2`` -> ``F2``, ``rbp.95`` -> ``RBP.95``)."""
    found = []
    for pattern, form, _, _ in _FAMILIES:
        letters = form.rstrip("0123456789.")  # the form's letters: "F1" -> "F", "RBP" -> "RBP"
        if stem[:len(letters)].lower() == letters.lower():
            spelled = letters + stem[len(letters):]
            if pattern.fullmatch(spelled):
                found.append(spelled)
    return found


def _resolve(stem: str) -> tuple[str, tuple[Factory, str]] | None:
    """The stem as registered and its factory: ``stem`` itself, else the one stem that differs
    from it only by case (``ndcg`` -> ``NDCG``); None when no stem does, a ValueError when two do."""
    found = _lookup(stem)
    if found is not None:
        return stem, found
    same = sorted({s for s in _REGISTRY if s.lower() == stem.lower()} | set(_family_spellings(stem)))
    if len(same) > 1:
        raise ValueError(f"metric name {stem!r} is ambiguous: {' and '.join(same)} differ only by case; write "
                         f"one of them exactly")
    found = _lookup(same[0]) if same else None
    return None if found is None else (same[0], found)


def _spelled(stem: str, k: str | None, average: str | None) -> str:
    """A suggestion: ``stem`` with the cutoffs and average the user typed, where the stem takes them."""
    found = _lookup(stem)
    cutoff = "optional" if found is None else found[1]
    at = "" if cutoff == "forbidden" else f"@{k}" if k is not None else "@k" if cutoff == "required" else ""
    return f"{stem}{at}{'' if average is None else '-' + average}"


def _valid(stem: str, k: str | None, average: str | None) -> str:
    """:func:`_spelled`, without the average when the metric has no such average (``kendall@10-micro``)."""
    spelled = _spelled(stem, k, average)
    if average is not None and not spelled.endswith("@k"):
        try:
            parse_metric(spelled)
        except ValueError:
            return _spelled(stem, k, None)
    return spelled


def _unknown(text: str, stem: str, k: str | None, average: str | None) -> ValueError:
    """The error for a name no stem has: the three nearest names (difflib, case-insensitive, on
    the stem without @k), with the cutoffs typed; no list of every name, which says nothing."""
    names: dict[str, str] = {}  # lower-case spelling -> the stem suggested
    for spelling in [*_REGISTRY, *(form for _, form, _, _ in _FAMILIES)]:
        names.setdefault(spelling.lower(), spelling)
    for alias, target in _ALIASES.items():
        if target in _REGISTRY or any(form == target for _, form, _, _ in _FAMILIES):
            names.setdefault(alias, target)
    close = difflib.get_close_matches(stem.lower(), list(names), n=len(names), cutoff=0.6)
    stems = list(dict.fromkeys(names[c] for c in close))[:3]
    if not stems:
        return ValueError(f"unknown metric {text!r}: no metric has a name close to {stem!r} ({_EVERY_NAME})")
    shown = [_valid(s, k, average) for s in stems]
    options = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return ValueError(f"unknown metric {text!r}; did you mean {options}? ({_EVERY_NAME})")


def parse_metric(text: str) -> RankingMetric:
    """The metric whose ``str()`` is ``text``, with default parameters.

    ``parse_metric(str(m)) == m`` for every built-in metric ``m`` built with default
    parameters: ``NDCG``, ``NDCG@10``, ``DCG@5``, ``MAP``, ``MAP@10``, ``MRR``,
    ``MRR@3``, ``P``, ``P@10``, ``R``, ``R@10``, ``HR@10``, ``F1``, ``F1@10``, ``RPrec``,
    ``MAE``, ``MSE``, ``RMSE``, ``BPref``, ``RBP``, ``ERR@10``, ``num_ret``, ``num_rel``,
    ``num_rel_ret``, ``pearson``, ``kendall@10``, ... Several cutoffs, ``NDCG@1,5,10``,
    give one metric computing all of them in one pass. A suffix sets a non-default
    ``average``: ``P@10-micro``, ``F1-micro``, ``MAE-micro``, ``num_ret-macro``. Families
    with a parameter in the stem: ``F2``, ``F0.5@10`` (``beta``), ``RBP.95`` (``p``).

    Stems are matched regardless of case when only one stem is so spelled (``ndcg@10`` is
    ``NDCG@10``, ``map`` is ``MAP``); when two registered stems differ only by case, a
    spelling matching neither exactly is an error naming both.

    Parameters
    ----------
    text : str
        A metric name, as :func:`metric_names` lists the forms.

    Raises
    ------
    ValueError
        For an unknown or malformed name: an unknown one gets "did you mean" with the
        three nearest names (other tools' names too, ``Recall@20`` -> ``R@20``), keeping
        the cutoffs typed.

    Examples
    --------
    >>> parse_metric("NDCG@10")  # doctest: +NORMALIZE_WHITESPACE
    NDCGAtK(k=10, gains='linear', discount_log=np.log2, ideal='truth', judged_only=False,
            relevant_threshold=None, discount='log2', negative_grades='keep', no_relevant='nan', name=None)
    """
    if not isinstance(text, str):
        raise ValueError(f"a metric name must be a string such as 'NDCG@10', got {text!r}")
    match = _NAME.match(text.strip())
    if match is None:
        raise ValueError(f"malformed metric name {text!r}: write STEM, STEM@k or STEM@k1,k2,... with integers k >= 1 "
                         f"({_EVERY_NAME})")
    stem, k, average = match["stem"], match["k"], match["average"]
    if match["estimator"] is not None:  # "R@10-IPS": the propensity-weighted form (docs/unbiased.md)
        return _weighted(text, match["estimator"].lower(), parse_metric(text.strip()[:match.start("estimator") - 1]))
    resolved = _resolve(stem)
    if resolved is None:
        raise _unknown(text, stem, k, average)
    stem, (factory, cutoff) = resolved
    if k is None and cutoff == "required":
        raise ValueError(f"metric {text!r} needs a cutoff: write {stem}@k, e.g. {stem}@10")
    if k is not None and cutoff == "forbidden":
        raise ValueError(f"metric {stem!r} takes no cutoff, got {text!r}")
    cutoffs = None if k is None else [int(c) for c in k.split(",")]
    if cutoffs is not None and min(cutoffs) < 1:
        raise ValueError(f"the cutoff of {text!r} must be an integer >= 1")
    try:
        # "NDCG@1,5,10": one metric computing the three cutoffs in one pass
        metric = factory(None if cutoffs is None else cutoffs[0] if len(cutoffs) == 1
                         else cutoffs)  # k=[...]: every constructor takes a list (_base)
    except ValueError as exc:  # a parameter in the name out of range, e.g. "RBP.0" or "F0"
        raise ValueError(f"metric {text!r}: {exc}") from exc
    if average is not None:
        choices = metric.averages
        if average not in choices:
            what = f"takes average={list(choices)}" if choices else "has no `average` (its system value is the mean)"
            raise ValueError(f"metric {text!r}: {type(metric).__name__} {what}, not {average!r}")
        # rebuilt from what the name set, so that a convention still fills in the rest
        options = {k: v for k, v in metric._params().items() if k in metric.explicit_params}
        options["average"] = average
        metric = type(metric)(**options)
    return metric


def _weighted(text: str, estimator: str, metric: RankingMetric) -> RankingMetric:
    # imported here: the registry knows no metric family at import time (each registers itself)
    from .unbiased import Unbiased

    try:
        return Unbiased(metric, estimator=estimator)
    except ValueError as exc:
        raise ValueError(f"metric {text!r}: {exc}") from exc
