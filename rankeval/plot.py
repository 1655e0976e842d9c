"""Figures (optional: needs matplotlib, ``pip install 'matplotlib>=3.8'``).

- :func:`comparison_figure`: a comparison's per-user values and paired differences;
- popularity bias: :func:`long_tail`, :func:`profile_vs_recommendation_popularity` and
  :func:`popularity_vs_frequency` (ClayRS's ``LongTailDistr``, ``PopProfileVsRecs`` and
  ``PopRecsCorrelation``).

Each returns the matplotlib Figure and saves it when ``path`` is given.
"""

from .views import (
                    comparison_figure,
                    long_tail,
                    popularity_vs_frequency,
                    profile_vs_recommendation_popularity,
                    top_k_lists,
)

__all__ = ["comparison_figure", "long_tail", "profile_vs_recommendation_popularity", "popularity_vs_frequency",
           "top_k_lists"]
