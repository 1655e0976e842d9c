"""What the other rankeval packages use from ``rankeval.evaluation`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.evaluation.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._protocol import splits_as_truth

__all__ = [
    "splits_as_truth",
]
