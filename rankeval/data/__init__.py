"""The data model: frames in, one validated split, ranked lists joined to their truth, side data.

- ``_frames``: the frame kinds accepted (pandas, polars, Arrow, Spark) and their pandas view;
- ``_validation``: the checks that name the frame, column, rows and the fix;
- ``_keys``: ids to integer codes and rows to orders, fast on every id kind;
- ``_segments``: vectorized operations over users' segments of rows;
- ``_exact``: exactly rounded sums and means;
- ``_ranked``: :class:`RankedLists`, every user's list joined once to their truth;
- ``_side``: :class:`SideData`, what the recommender learned from and could recommend;
- ``_split``: :class:`Split`, one validated (pred, truth) pair.
"""

from ._ranked import Columns, RankedLists
from ._side import SideData
from ._split import Split

__all__ = ["Split", "RankedLists", "SideData", "Columns"]
