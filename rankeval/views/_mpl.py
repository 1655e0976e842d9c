"""Figures draw the caller's names as they are written.

matplotlib reads text between two ``$`` as math: a system named ``a$\\frac$b`` would fail
to draw (after the whole comparison ran), and ``$x$`` would be drawn as an italic x. Every
function that draws a figure runs with math parsing off; rankeval's own labels use none.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["literal_text"]

F = TypeVar("F", bound=Callable[..., Any])


def literal_text(draw: F) -> F:
    """Run ``draw`` with matplotlib's ``text.parse_math`` off (texts keep the setting they were made with)."""
    @functools.wraps(draw)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            import matplotlib
        except ImportError:  # the drawing function says what to install
            return draw(*args, **kwargs)
        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)
    # the type: ignore below: functools.wraps keeps the signature at run time, which mypy cannot see
    return wrapper  # type: ignore[return-value]


def pyplot() -> Any:
    try:
        import matplotlib
        if matplotlib.get_backend().lower() not in ("agg",) and not _has_display():
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("plots need matplotlib: pip install 'matplotlib>=3.8' (the plot extra)") from exc
    return plt


def _has_display() -> bool:
    import os
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.name == "nt")
