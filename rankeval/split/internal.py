"""What the other rankeval packages use from ``rankeval.split`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.split.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._checks import CHEAP_CHECKS
from ._rules import BY, ROUNDING
from ._split_checks import catalog_findings, split_cheap_counts

__all__ = [
    "BY", "CHEAP_CHECKS", "ROUNDING", "catalog_findings", "split_cheap_counts",
]
