"""Metric names as text: ``parse_metric("NDCG@10")`` is the inverse of ``str(metric)``."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from ._base import RankingMetric
from .beyond import (
    AveragePopularity,
    CatalogCoverage,
    ExposureGini,
    GiniIndex,
    IntraListDiversity,
    Miscalibration,
    Novelty,
    Serendipity,
    ShannonEntropy,
    Surprisal,
    TailShare,
)
from .errors import MAE, MSE, RMSE, LogLoss
from .fairness import ACLT, REO, RSP, ItemMAD, PopREO, PopRSP
from .ranking import (
    AUC,
    DCG,
    GAUC,
    LAUC,
    MAP,
    MRR,
    NDCG,
    RBP,
    BPref,
    Correlation,
    DCGAtK,
    ERRAtK,
    HitRateAtK,
    MAPAtK,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
)
from .sets import FMeasure, FMeasureAtK, NumRel, NumRelRet, NumRet, Precision, Recall, RPrecision
from .unbiased import AOA, Unbiased

__all__ = ["parse_metric", "register_metric", "unregister_metric", "metric_names"]

Factory = Callable[[int | None], RankingMetric]
# stem -> (factory taking k or None, whether "@k" is "required", "optional" or "forbidden")
_REGISTRY: dict[str, tuple[Factory, str]] = {}
#: stems with a parameter in them: (pattern, the form metric_names shows, factory(match, k), cutoff)
_FAMILIES: list[tuple[re.Pattern[str], str, Callable[[re.Match[str], int | None], RankingMetric], str]] = []
#: STEM, STEM@k, and either of them with a non-default average: "P@10-micro", "MAE-micro", "num_ret-macro"
#: other tools' names of our metrics (RecBole, ranx, trec_eval), lower case -> our stem: offered by
#: "did you mean", never taken in their place (one name per metric: the column's; docs/decisions.md)
_ALIASES = {"recall": "R", "precision": "P", "hit": "HR", "hitrate": "HR", "hit_rate": "HR", "hits": "HR",
            "recip_rank": "MRR", "rr": "MRR", "r-precision": "RPrec", "itemcoverage": "Coverage",
            "giniindex": "Gini", "averagepopularity": "ARP", "shannonentropy": "Entropy",
            "tailpercentage": "TailShare", "ndcg_cut": "NDCG", "map_cut": "MAP"}
#: where a message about a name sends the reader for every name
_EVERY_NAME = "every name: rankeval.metric_names(), or docs/cli.md#metric-names"
_NAME = re.compile(r"^(?P<stem>[A-Za-z_][A-Za-z0-9_.+\-]*?)"
                   r"(?:@(?P<k>[0-9]+(?:,[0-9]+)*))?(?:-(?P<average>micro|macro|sum))?"
                   r"(?:-(?P<estimator>(?i:ips|snips)))?$")


def register_metric(stem: str, factory: Factory, *, cutoff: str = "optional") -> None:
    """Make ``parse_metric`` (and the command line) know a metric by its stem.

    Parameters
    ----------
    stem : str
        The name before ``@`` (letters, digits, ``_`` and ``-``); a stem already known is
        replaced.
    factory : callable
        ``factory(k)`` builds the metric from the cutoff after ``@`` (None without one).
    cutoff : {"optional", "required", "forbidden"}
        Whether the name takes ``@k``.

    Examples
    --------
    >>> import numpy as np, rankeval as rk
    >>> class JudgedAtK(rk.RankingMetric):
    ...     stem = "Judged"
    ...     def per_user(self, lists):
    ...         return lists.segment_sum((lists.position <= self.k) & lists.judged) / self.k
    >>> rk.register_metric("Judged", lambda k: JudgedAtK(k=k), cutoff="required")
    >>> str(rk.parse_metric("Judged@5"))
    'Judged@5'
    >>> rk.unregister_metric("Judged")
    """
    if not isinstance(stem, str) or not _STEM.match(stem):
        raise ValueError(f"`stem` must be a name without '@', got {stem!r}")
    if cutoff not in ("required", "optional", "forbidden"):
        raise ValueError(f"`cutoff` must be 'required', 'optional' or 'forbidden', got {cutoff!r}")
    if not callable(factory):
        raise ValueError(f"`factory` must be callable, got {factory!r}")
    _REGISTRY[stem] = (factory, cutoff)


def unregister_metric(stem: str) -> None:
    """Forget a stem that :func:`register_metric` added (a ValueError for an unknown stem).

    Parameters
    ----------
    stem : str
        The stem given to :func:`register_metric`.
    """
    if stem not in _REGISTRY:
        raise ValueError(f"no metric is registered under the stem {stem!r}")
    del _REGISTRY[stem]


_STEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


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
                         else cutoffs)  # type: ignore[arg-type]  # k=[...]: every constructor takes a list (_base)
    except ValueError as exc:  # a parameter in the name out of range, e.g. "RBP.0" or "F0"
        raise ValueError(f"metric {text!r}: {exc}") from exc
    if average is not None:
        choices = getattr(metric, "averages", ())
        if average not in choices:
            what = f"takes average={list(choices)}" if choices else "has no `average` (its system value is the mean)"
            raise ValueError(f"metric {text!r}: {type(metric).__name__} {what}, not {average!r}")
        # rebuilt from what the name set, so that a convention still fills in the rest
        explicit: frozenset[str] = getattr(metric, "_explicit", frozenset())
        options = {k: v for k, v in metric._params().items() if k in explicit}
        options["average"] = average
        metric = type(metric)(**options)
    return metric


def _weighted(text: str, estimator: str, metric: RankingMetric) -> RankingMetric:
    try:
        return Unbiased(metric, estimator=estimator)
    except ValueError as exc:
        raise ValueError(f"metric {text!r}: {exc}") from exc


def _whole_or_cut(whole: Callable[[], RankingMetric], cut: Callable[[int], RankingMetric]) -> Factory:
    return lambda k: whole() if k is None else cut(k)


register_metric("NDCG", _whole_or_cut(NDCG, NDCGAtK))
register_metric("DCG", _whole_or_cut(DCG, DCGAtK))
register_metric("MAP", _whole_or_cut(MAP, MAPAtK))
register_metric("MRR", _whole_or_cut(MRR, MRRAtK))
register_metric("P", _whole_or_cut(Precision, PrecisionAtK))
register_metric("R", _whole_or_cut(Recall, RecallAtK))
register_metric("RPrec", lambda k: RPrecision(), cutoff="forbidden")
register_metric("MAE", lambda k: MAE(), cutoff="forbidden")
register_metric("MSE", lambda k: MSE(), cutoff="forbidden")
register_metric("RMSE", lambda k: RMSE(), cutoff="forbidden")
register_metric("BPref", lambda k: BPref(), cutoff="forbidden")
# the type: ignore below: the cutoff is required, so k is never None here
register_metric("ERR", lambda k: ERRAtK(k), cutoff="required")  # type: ignore[arg-type]
register_metric("num_ret", lambda k: NumRet(), cutoff="forbidden")
register_metric("num_rel", lambda k: NumRel(), cutoff="forbidden")
register_metric("num_rel_ret", lambda k: NumRelRet(), cutoff="forbidden")
_FAMILIES.append((re.compile(r"F(?P<beta>[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)"), "F1",
                  lambda m, k: FMeasure(float(m["beta"])) if k is None else FMeasureAtK(k, float(m["beta"])),
                  "optional"))
_FAMILIES.append((re.compile(r"RBP(?P<p>\.[0-9]+)?"), "RBP",
                  lambda m, k: RBP() if m["p"] is None else RBP(float("0" + m["p"])), "forbidden"))
# the type: ignore below: the cutoff is required, so k is never None here
register_metric("HR", lambda k: HitRateAtK(k), cutoff="required")  # type: ignore[arg-type]


def _correlation(method: str) -> Factory:
    return lambda k: Correlation(method, top_n=k)


for _method in ("pearson", "spearman", "kendall"):
    register_metric(_method, _correlation(_method))
# beyond accuracy (docs/beyond_accuracy.md): k optional, whole lists without it; DeltaGap needs groups
register_metric("Coverage", lambda k: CatalogCoverage(k))
register_metric("Gini", lambda k: GiniIndex(k))
register_metric("Entropy", lambda k: ShannonEntropy(k))
register_metric("ARP", lambda k: AveragePopularity(k))
register_metric("TailShare", lambda k: TailShare(k))
register_metric("Novelty", lambda k: Novelty(k))
register_metric("EPC", lambda k: Novelty(k, definition="epc"))
register_metric("ILD", lambda k: IntraListDiversity(k))
# fairness and popularity bias (docs/beyond_accuracy.md): REO, RSP and ItemMAD need item_groups=
register_metric("ACLT", lambda k: ACLT(k))
register_metric("PopREO", lambda k: PopREO(k))
register_metric("PopRSP", lambda k: PopRSP(k))
register_metric("REO", lambda k: REO(k))
register_metric("RSP", lambda k: RSP(k))
register_metric("ItemMAD", lambda k: ItemMAD(k))
register_metric("Miscalibration", lambda k: Miscalibration(k))
register_metric("Serendipity", lambda k: Serendipity(k))
register_metric("Surprisal", lambda k: Surprisal(k))
# Unexpectedness has no name here: it needs the baseline's lists (a frame, or a system of compare)
# the AUC family (docs/metrics.md): AUC and GAUC take an optional cutoff, LAUC needs one
register_metric("AUC", lambda k: AUC(k))
register_metric("GAUC", lambda k: GAUC(k))
# the type: ignore below: the cutoff is required, so k is never None here
register_metric("LAUC", lambda k: LAUC(k), cutoff="required")  # type: ignore[arg-type]
register_metric("LogLoss", lambda k: LogLoss(), cutoff="forbidden")
register_metric("ExposureGini", lambda k: ExposureGini(k))
register_metric("AOA", lambda k: AOA(), cutoff="forbidden")
