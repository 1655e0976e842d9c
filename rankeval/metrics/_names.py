"""The table of metric names: what ``parse_metric`` builds for each stem.

Two writers fill it. A metric class declares its own names (``names``, ``name_patterns``,
``aliases``: :class:`~rankeval.RankingMetric`), and the base class enters them here when
the class is defined, so the list of names is the classes themselves; a user may also
register a factory by hand with :func:`register_metric`. This module imports no metric:
the base class imports it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

__all__ = ["register_metric", "unregister_metric", "register_class", "CUTOFF_RULES"]

#: builds a metric from the cutoff after "@" (an int, a list for "@1,5,10", or None)
Factory = Callable[[Any], Any]
#: whether a name takes "@k"
CUTOFF_RULES = ("optional", "required", "forbidden")
#: stem -> (factory taking k or None, whether "@k" is "required", "optional" or "forbidden")
REGISTRY: dict[str, tuple[Factory, str]] = {}
#: stems with a parameter in them: (pattern, the form metric_names shows, factory(match, k), cutoff)
FAMILIES: list[tuple[re.Pattern[str], str, Callable[[re.Match[str], Any], Any], str]] = []
#: other tools' names of our metrics (RecBole, ranx, trec_eval), lower case -> our stem: offered by
#: "did you mean", never taken in their place (one name per metric: the column's)
ALIASES: dict[str, str] = {}
#: per stem (or family form) registered by classes: the class building it without "@k" and the
#: one building it with "@k" (NDCG and NDCGAtK share "NDCG")
_SIDES: dict[str, dict[str, Any]] = {}
_STEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def register_metric(stem: str, factory: Factory, *, cutoff: str = "optional") -> None:
    """Make ``parse_metric`` (and the command line) know a metric by its stem.

    A metric class can instead declare its names itself (``names = ("Judged",)``, see
    :class:`~rankeval.RankingMetric`): they are then registered when the class is defined.

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
    if cutoff not in CUTOFF_RULES:
        raise ValueError(f"`cutoff` must be 'required', 'optional' or 'forbidden', got {cutoff!r}")
    if not callable(factory):
        raise ValueError(f"`factory` must be callable, got {factory!r}")
    _SIDES.pop(stem, None)  # a factory by hand replaces whatever classes built this stem
    REGISTRY[stem] = (factory, cutoff)


def unregister_metric(stem: str) -> None:
    """Forget a stem that :func:`register_metric` or a metric class's ``names`` added (a
    ValueError for an unknown stem).

    Parameters
    ----------
    stem : str
        The stem given to :func:`register_metric`.
    """
    if stem not in REGISTRY:
        raise ValueError(f"no metric is registered under the stem {stem!r}")
    del REGISTRY[stem]
    _SIDES.pop(stem, None)


def class_cutoff(cls: Any) -> str:
    """Whether ``cls``'s names take ``@k``: its ``name_cutoff``, else read from its constructor
    (no ``k`` parameter: "forbidden"; ``k`` without a default: "required"; else "optional")."""
    if cls.name_cutoff is not None:
        return str(cls.name_cutoff)
    k = inspect.signature(cls.__init__).parameters.get("k")
    if k is None:
        return "forbidden"
    return "required" if k.default is inspect.Parameter.empty else "optional"


def register_class(cls: Any) -> None:
    """Enter the names a metric class declares (called by the base class when it is defined).

    A stem is built by at most one class without ``@k`` and one with it: a class whose
    names take no cutoff and one whose names need one share the stem (``NDCG``,
    ``NDCGAtK``); a class taking both, or a later class for the same forms, replaces the
    earlier one.
    """
    cutoff = class_cutoff(cls)
    if cutoff not in CUTOFF_RULES:
        raise ValueError(f"{cls.__name__}.name_cutoff must be one of {list(CUTOFF_RULES)}, got {cutoff!r}")
    bad = [stem for stem in cls.names if not isinstance(stem, str) or not _STEM.match(stem)]
    if bad:  # checked before any name is entered: a class is registered whole or not at all
        raise ValueError(f"{cls.__name__}.names holds {bad[0]!r}: a name must be a stem without '@'")
    patterns = {form: re.compile(pattern) for form, pattern in dict(cls.name_patterns).items()}
    for stem in cls.names:
        factory, merged = _merge(stem, cutoff, lambda k, c=cls, s=stem: c.from_name(s, k))
        REGISTRY[stem] = (factory, merged)
    for form, compiled in patterns.items():
        make, merged = _merge(form, cutoff, lambda m, k, c=cls: c.from_name(m.group(0), k))
        FAMILIES[:] = [f for f in FAMILIES if f[1] != form] + [(compiled, form, make, merged)]
    target = cls.names[0] if cls.names else next(iter(cls.name_patterns), "")
    for alias in cls.aliases:
        ALIASES[alias.lower()] = target


def _merge(key: str, cutoff: str, build: Callable[..., Any]) -> tuple[Callable[..., Any], str]:
    """The factory and cutoff rule of ``key`` once a class builds its forms with ``build``
    (the factory's last argument is the cutoff, None without "@k")."""
    sides = _SIDES.setdefault(key, {})
    if cutoff != "required":
        sides["whole"] = build
    if cutoff != "forbidden":
        sides["cut"] = build
    whole: Callable[..., Any] | None = sides.get("whole")
    cut: Callable[..., Any] | None = sides.get("cut")
    if whole is None:
        return build, "required"  # only the class just registered builds it
    if cut is None:
        return whole, "forbidden"
    if whole is cut:
        return whole, "optional"
    return (lambda *args: (whole if args[-1] is None else cut)(*args)), "optional"


def declared(cls: Any) -> bool:
    """Whether ``cls`` declares names of its own (inherited ones belong to its parent)."""
    return any(attr in vars(cls) for attr in ("names", "name_patterns"))
