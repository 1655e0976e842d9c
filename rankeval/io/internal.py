"""What the other rankeval packages use from ``rankeval.io`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.io.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._atomic import atomic_path, save_figure
from ._files import (
    FORMAT_NAMES,
    READ_FORMATS,
    SEPARATORS,
    TEXT_FORMATS,
    DelimitedTextError,
    header_separator,
    json_text,
)
from ._recbole import numeric_problem

__all__ = [
    "DelimitedTextError", "FORMAT_NAMES", "READ_FORMATS", "SEPARATORS", "TEXT_FORMATS", "atomic_path",
    "header_separator", "json_text", "numeric_problem", "save_figure",
]
