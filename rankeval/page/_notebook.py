"""What a notebook shows of a result (``_repr_html_``): the page's summary tables, rendered by the
page's own table builders (``_tables``) and table macro (``templates/_table.html.j2``).

:class:`~rankeval.ComparisonResult` and :class:`~rankeval.MetricResult` sit below the page in the
package's layers, so they cannot import it: they ask ``rankeval._html`` for a
renderer, which this module registers when ``rankeval.page`` is imported (``import rankeval`` does).
"""

from __future__ import annotations

from typing import Any

from .._html import register_html_renderer
from ..evaluation import ComparisonResult
from ..metrics import MetricResult
from ._tables import frame_table, summary_tables

__all__ = ["comparison_html", "metric_result_html"]

DIGITS = 4


def _render(tables: list[dict[str, Any]]) -> str:
    # Jinja2 comes with the report extra; without it, _repr_html_ falls back to the plain repr
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("rankeval.page", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return str(env.get_template("notebook.html.j2").render(tables=tables))


def comparison_html(res: ComparisonResult) -> str:
    """The means (best in bold, the systems each one significantly beats as superscripts), the
    paired differences and the line of the tests' settings: the report's summary section."""
    means, diffs, note = summary_tables(res, DIGITS)
    tables = [{"table": means, "caption": "Mean per system", "note": note}]
    if diffs is not None:
        tables.append({"table": diffs, "caption": "Paired differences",
                       "note": "* significant after correction. Difference = mean of b − a over the paired "
                               "(split, user) units; wins / ties / losses count the units where b is better, "
                               "equal, worse."})
    return _render(tables)


def metric_result_html(res: MetricResult) -> str:
    """The system value and a summary of the per-user values of one metric."""
    column = res.users.columns[0] if len(res.users.columns) else None
    tables = [{"table": frame_table("system", res.system, DIGITS), "caption": "System", "note": ""}]
    if column is not None:
        values = res.users[column]
        note = (f"{len(values)} users; {int(values.isna().sum())} undefined (NaN, left out of the mean). "
                f"Per-user values: the result's .users frame.")
        # describe()'s count is the note's number of defined users: left out of the table
        stats = values.describe().drop("count").to_frame().T.rename_axis("metric")
        tables.append({"table": frame_table("users", stats, DIGITS), "caption": "Per user", "note": note})
    return _render(tables)


register_html_renderer(ComparisonResult, comparison_html)
register_html_renderer(MetricResult, metric_result_html)
