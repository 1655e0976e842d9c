"""How a result shows itself in a notebook (``_repr_html_``), without importing the page.

The results (:class:`~rankeval.ComparisonResult`, :class:`~rankeval.MetricResult`) sit below
the HTML page in the package's layers; the page registers here, for each result class, the
function that renders it with the report's tables (``rankeval.page._notebook``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["register_html_renderer", "html_of"]

_RENDERERS: dict[type, Callable[[Any], str]] = {}


def register_html_renderer(cls: type, render: Callable[[Any], str]) -> None:
    """Show instances of ``cls`` in a notebook with ``render(instance) -> str`` (HTML)."""
    _RENDERERS[cls] = render


def html_of(obj: Any) -> str | None:
    """The registered HTML of ``obj``, or None (Jupyter then shows its ``repr``): no renderer
    registered, or Jinja2 (the ``report`` extra) not installed."""
    render = _RENDERERS.get(type(obj))
    if render is None:
        return None
    try:
        return render(obj)
    except ImportError:
        return None
