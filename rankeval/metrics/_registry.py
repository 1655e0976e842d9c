"""Metric names as text: ``parse_metric("NDCG@10")`` is the inverse of ``str(metric)``."""

from __future__ import annotations

import re
from collections.abc import Callable

from ._average_precision import MAP, MAPAtK
from ._base import RankingMetric
from ._correlation import Correlation
from ._ndcg import DCG, NDCG, DCGAtK, NDCGAtK
from ._precision_recall import HitRateAtK, PrecisionAtK, RecallAtK
from ._reciprocal_rank import MRR, MRRAtK

__all__ = ["parse_metric", "register_metric", "metric_names"]

Factory = Callable[[int | None], RankingMetric]
# stem -> (factory taking k or None, whether "@k" is "required", "optional" or "forbidden")
_REGISTRY: dict[str, tuple[Factory, str]] = {}
_NAME = re.compile(r"^(?P<stem>[A-Za-z_][A-Za-z0-9_\-]*)(?:@(?P<k>[0-9]+))?$")


def register_metric(stem: str, factory: Factory, *, cutoff: str = "optional") -> None:
    """Make ``parse_metric`` (and the command line) know a metric by its stem.

    ``factory(k)`` builds the metric from the cutoff after ``@`` (None without one);
    ``cutoff`` says whether ``@k`` is ``"required"``, ``"optional"`` or ``"forbidden"``.

    >>> import numpy as np, rankeval as rk
    >>> class JudgedAtK(rk.RankingMetric):
    ...     stem = "Judged"
    ...     def per_user(self, lists):
    ...         return lists.segment_sum((lists.position <= self.k) & lists.judged) / self.k
    >>> rk.register_metric("Judged", lambda k: JudgedAtK(k=k), cutoff="required")
    >>> str(rk.parse_metric("Judged@5"))
    'Judged@5'
    """
    if not isinstance(stem, str) or not _NAME.match(stem) or "@" in stem:
        raise ValueError(f"`stem` must be a name without '@', got {stem!r}")
    if cutoff not in ("required", "optional", "forbidden"):
        raise ValueError(f"`cutoff` must be 'required', 'optional' or 'forbidden', got {cutoff!r}")
    if not callable(factory):
        raise ValueError(f"`factory` must be callable, got {factory!r}")
    _REGISTRY[stem] = (factory, cutoff)


def metric_names() -> list[str]:
    """The forms ``parse_metric`` accepts, e.g. ``["DCG", "DCG@k", ..., "P@k", ...]``."""
    forms = []
    for stem, (_, cutoff) in sorted(_REGISTRY.items(), key=lambda kv: kv[0].lower()):
        if cutoff != "required":
            forms.append(stem)
        if cutoff != "forbidden":
            forms.append(f"{stem}@k")
    return forms


def parse_metric(text: str) -> RankingMetric:
    """The metric whose ``str()`` is ``text``, with default parameters.

    ``parse_metric(str(m)) == m`` for every built-in metric ``m`` built with default
    parameters: ``NDCG``, ``NDCG@10``, ``DCG@5``, ``MAP``, ``MAP@10``, ``MRR``,
    ``MRR@3``, ``P@10``, ``R@10``, ``HR@10``, ``pearson``, ``kendall@10``, ...

    Raises
    ------
    ValueError
        For an unknown or malformed name; the message lists the valid forms.

    Examples
    --------
    >>> parse_metric("NDCG@10")
    NDCGAtK(k=10, gains='linear', discount_log=np.log2, ideal='truth', judged_only=False, relevant_threshold=None, discount='log2', no_relevant='nan', name=None)
    """
    if not isinstance(text, str):
        raise ValueError(f"a metric name must be a string such as 'NDCG@10', got {text!r}")
    match = _NAME.match(text.strip())
    valid = ", ".join(metric_names())
    if match is None:
        raise ValueError(f"malformed metric name {text!r}: write STEM or STEM@k with k an integer >= 1; "
                         f"valid: {valid}")
    stem, k = match["stem"], match["k"]
    if stem not in _REGISTRY:
        raise ValueError(f"unknown metric {text!r}; valid: {valid}")
    factory, cutoff = _REGISTRY[stem]
    if k is None and cutoff == "required":
        raise ValueError(f"metric {text!r} needs a cutoff: write {stem}@k, e.g. {stem}@10")
    if k is not None and cutoff == "forbidden":
        raise ValueError(f"metric {stem!r} takes no cutoff, got {text!r}")
    if k is not None and int(k) < 1:
        raise ValueError(f"the cutoff of {text!r} must be an integer >= 1")
    return factory(None if k is None else int(k))


def _whole_or_cut(whole: Callable[[], RankingMetric], cut: Callable[[int], RankingMetric]) -> Factory:
    return lambda k: whole() if k is None else cut(k)


register_metric("NDCG", _whole_or_cut(NDCG, NDCGAtK))
register_metric("DCG", _whole_or_cut(DCG, DCGAtK))
register_metric("MAP", _whole_or_cut(MAP, MAPAtK))
register_metric("MRR", _whole_or_cut(MRR, MRRAtK))
register_metric("P", lambda k: PrecisionAtK(k), cutoff="required")  # type: ignore[arg-type]
register_metric("R", lambda k: RecallAtK(k), cutoff="required")  # type: ignore[arg-type]
register_metric("HR", lambda k: HitRateAtK(k), cutoff="required")  # type: ignore[arg-type]
for _method in ("pearson", "spearman", "kendall"):
    register_metric(_method, lambda k, m=_method: Correlation(m, top_n=k))
