"""What the other rankeval packages use from ``rankeval.data`` (its internal face).

Not part of the user-facing API: the names users call are in ``rankeval.data.__all__``
(and ``rankeval.__all__``); the names here are shared helpers for rankeval's own packages
and may change without notice. A package takes another package's helpers from here (or from
its ``__init__``), never from its private (``_name``) modules: docs/architecture.md.
"""

from ._columns import SCORE_ORDERS, ids_under_truth_names
from ._exact import ExactSum, exact_mean
from ._frames import FRAME_KINDS, is_frame, is_local_frame, is_spark_frame, to_pandas
from ._id_hints import IdColumn, IdKindError, id_kind_error, spark_id_kind_error
from ._join import rows_in_sets
from ._keys import (
    codes_in,
    descending_float_key,
    factorize,
    factorize_together,
    id_values,
    lexsort,
    long_runs,
    plain,
    same_id_dtype,
    sorted_unique,
)
from ._list_order import MIN_LONG_LISTS, rank_like_count
from ._segments import (
    concat_ranges,
    rank_within,
    segment_argsort,
    segment_cumsum,
    segment_first,
    segment_ids,
    segment_lengths,
    segment_max,
    segment_min,
    segment_positions,
    segment_sum,
)
from ._side import (
    CHUNK_ROWS,
    BoundSide,
    argsort_ids,
    catalog_index,
    popularity_order,
    require_side,
    row_item_codes,
    side_of,
    union_index,
    warn_featureless,
)
from ._sides import check_metrics_side, sides_per_split
from ._spark import collect, functions_of, is_connect, parallelism, quoted
from ._split import MISSING_USERS, TIES, MissingUsers, low_overlap_message, overlap_counts, rank_like_message
from ._truth_codes import TruthCodes
from ._truth_items import TRUTH_ITEMS, select_truth
from ._validation import (
    ID_ALIASES,
    LOCATE_BY_PAIRS,
    SCORE_ALIASES,
    check_choice,
    check_cutoff,
    check_cutoffs,
    check_group_shares,
    check_id_kinds,
    check_integer,
    check_number,
    check_share,
    check_threshold,
    id_kind,
    reject_empty,
    reject_missing_ids,
    reject_mixed_ids,
    require_columns,
    require_dataframe,
    require_numeric,
    show,
    where,
)

__all__ = [
    "BoundSide", "CHUNK_ROWS", "ExactSum", "FRAME_KINDS", "ID_ALIASES", "IdColumn", "IdKindError",
    "LOCATE_BY_PAIRS", "MIN_LONG_LISTS", "MISSING_USERS", "MissingUsers", "SCORE_ALIASES", "SCORE_ORDERS",
    "TIES", "TRUTH_ITEMS", "TruthCodes", "argsort_ids", "catalog_index", "check_choice", "check_cutoff",
    "check_cutoffs",
    "check_group_shares", "check_id_kinds", "check_integer", "check_metrics_side", "check_number",
    "check_share", "check_threshold", "codes_in", "collect", "concat_ranges", "descending_float_key",
    "exact_mean", "factorize", "factorize_together", "functions_of", "id_kind", "id_kind_error", "id_values",
    "ids_under_truth_names", "is_connect", "is_frame", "is_local_frame", "is_spark_frame", "lexsort",
    "long_runs", "low_overlap_message", "overlap_counts", "parallelism", "plain", "popularity_order",
    "quoted", "rank_like_count", "rank_like_message", "rank_within", "reject_empty", "reject_missing_ids",
    "reject_mixed_ids", "require_columns", "require_dataframe", "require_numeric", "require_side",
    "row_item_codes", "rows_in_sets", "same_id_dtype", "segment_argsort", "segment_cumsum", "segment_first",
    "segment_ids", "segment_lengths", "segment_max", "segment_min", "segment_positions", "segment_sum",
    "select_truth", "show", "side_of", "sides_per_split", "sorted_unique", "spark_id_kind_error", "to_pandas",
    "union_index", "warn_featureless", "where",
]
