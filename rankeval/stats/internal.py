"""What the other rankeval packages use from ``rankeval.stats`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.stats.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._unpaired import UNPAIRED_TESTS, unpaired_test

__all__ = [
    "UNPAIRED_TESTS", "unpaired_test",
]
