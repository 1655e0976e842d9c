"""What the other rankeval packages use from ``rankeval.metrics`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.metrics.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._parts import SystemParts, merge_parts

__all__ = [
    "SystemParts", "merge_parts",
]
