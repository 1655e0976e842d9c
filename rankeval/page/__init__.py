"""The HTML page of an evaluation or a comparison: :func:`report` and :class:`Report`.

``_page`` holds :func:`report`, :class:`Report` and the run; ``_view`` what the page shows,
``_build`` the page section by section from the ``_tables``, ``_figures`` and ``_card``
modules; ``_figure_data`` the numbers each figure carries (``data-values``); ``_notebook``
the notebook view of the results (``_repr_html_``, with the same tables); ``templates/``
the Jinja2 templates, their styles and the sorting script.
"""

from . import _notebook  # noqa: F401  (registers the notebook view of the results)
from ._page import Report, report

__all__ = ["report", "Report"]
