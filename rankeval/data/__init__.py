"""The data model: frames in, one validated split, ranked lists joined to their truth, side data.

- ``_frames``: the frame kinds accepted (pandas, polars, Arrow, Spark) and their pandas view;
- ``_validation``: the checks that name the frame, column, rows and the fix;
- ``_keys``: ids to integer codes and rows to orders, fast on every id kind;
- ``_segments``: vectorized operations over users' segments of rows;
- ``_exact``: exactly rounded sums and means;
- ``_join``: ids of both frames as shared codes, and the join of listed rows to truth rows;
- ``_list_order``: the order of every list (rank, score and tie rule, or as listed);
- ``_mean_threshold``: each user's mean truth score as an exact relevance threshold;
- ``_columns``: the column names of both frames and the options that set them;
- ``_ranked``: :class:`RankedLists`, every user's list joined once to their truth;
- ``_truth_codes``: a truth's ids hashed once for the lists of several systems (``TruthCodes``);
- ``_item_features``: item features (vectors or category sets) validated and prepared;
- ``_side``: :class:`SideData`, what the recommender learned from and could recommend;
- ``_split``: :class:`Split`, one validated (pred, truth) pair.
"""

from ._columns import COLUMN_OPTIONS, Columns
from ._ranked import RankedLists
from ._side import SideData
from ._split import Split

__all__ = ["Split", "RankedLists", "SideData", "Columns", "COLUMN_OPTIONS"]
