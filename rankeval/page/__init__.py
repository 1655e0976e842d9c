"""The HTML page of an evaluation or a comparison: :func:`report` and :class:`Report`.

``_page`` holds :func:`report`, :class:`Report` and the run; ``_view`` what the page shows,
``_build`` the page section by section from the ``_tables``, ``_figures`` and ``_card``
modules; ``_figure_data`` the numbers each figure carries (``data-values``); ``templates/``
the Jinja2 template, its styles and its sorting script.
"""

from ._page import Report, report

__all__ = ["report", "Report"]
