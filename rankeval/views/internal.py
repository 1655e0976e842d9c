"""What the other rankeval packages use from ``rankeval.views`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.views.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._mpl import literal_text
from ._tables import (
    describe_tests,
    difference_rows,
    effect_rows,
    format_p,
    friedman_rows,
    is_p_column,
    listed_metrics,
    listed_note,
    system_letters,
    tex_escape,
    wins_over,
)

__all__ = [
    "describe_tests", "difference_rows", "effect_rows", "format_p", "friedman_rows", "is_p_column", "listed_metrics",
    "listed_note", "literal_text", "system_letters", "tex_escape", "wins_over",
]
