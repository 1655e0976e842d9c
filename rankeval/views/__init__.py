"""Views of a comparison: publication tables, many-system tables, figures.

They read a comparison by its shape (:class:`Comparison`), so they sit below
:class:`~rankeval.ComparisonResult`, whose methods call them. Figures need matplotlib
(``pip install 'matplotlib>=3.8'``, the ``plot`` extra), imported when a figure is drawn.
"""

from ._cd_diagram import critical_difference_diagram, critical_difference_figure
from ._comparison import Comparison
from ._comparison_figure import comparison_figure
from ._popularity_figures import long_tail, popularity_vs_frequency, profile_vs_recommendation_popularity, top_k_lists
from ._posthoc_tables import friedman_table, mean_ranks_table, nemenyi_table, tukey_table
from ._tables import latex, markdown

__all__ = ["Comparison", "markdown", "latex", "friedman_table", "mean_ranks_table", "nemenyi_table", "tukey_table",
           "comparison_figure", "critical_difference_diagram", "critical_difference_figure", "long_tail",
           "popularity_vs_frequency", "profile_vs_recommendation_popularity", "top_k_lists"]
