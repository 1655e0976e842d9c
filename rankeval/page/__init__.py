"""The HTML page of an evaluation or a comparison: :func:`report` and :class:`Report`."""

from ._page import Report, report

__all__ = ["report", "Report"]
