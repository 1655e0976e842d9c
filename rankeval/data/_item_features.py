"""Item features: what each item is, for the diversity metrics.

``item_features`` is a frame indexed by item id (or with an item column holding the ids):
numeric columns, one vector per item, compared by cosine distance; or exactly one column
whose values are sets of hashable categories, compared by Jaccard distance. These
functions validate it once (ValueErrors naming the column and the items) and prepare what
the kernels read: unit vectors, or a sparse item x category incidence matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ._frames import is_frame, to_pandas
from ._validation import reject_empty, reject_missing_ids, repeated_keys

__all__ = ["features_by_item", "holds_sets", "set_incidence", "unit_vectors"]


def features_by_item(features: Any, item_col: str) -> pd.DataFrame:
    """``features`` as a pandas frame indexed by item id, with one row per item and at least one column."""
    if not is_frame(features):
        raise TypeError(f"`item_features` must be a DataFrame indexed by {item_col}, "
                        f"got {type(features).__name__}")
    df = to_pandas(features, "item_features")
    if item_col in df.columns:
        reject_missing_ids(df, "item_features", item_col)
        df = df.set_index(item_col)
    reject_empty(df, "item_features")
    if df.shape[1] == 0:
        raise ValueError("`item_features` has no feature column: give numeric columns (a vector per item) or "
                         "one column of category sets")
    index = df.index
    missing = np.asarray(pd.isna(index))
    if missing.any():
        raise ValueError(f"`item_features` has {int(missing.sum())} missing item id(s) in its index at "
                         f"positions {np.flatnonzero(missing)[:5].tolist()}; every row needs an id")
    try:
        repeated = index.duplicated(keep=False)
    except TypeError as exc:
        raise ValueError(f"`item_features` index holds values that cannot be ids: {exc}; ids must be hashable "
                         f"scalars such as str or int") from exc
    if repeated.any():
        n_items, listing = repeated_keys(pd.DataFrame({"item": index[repeated]}, index=np.flatnonzero(repeated)),
                                         "item ids", place="positions")
        raise ValueError(f"`item_features` repeats {n_items} item id{'s' if n_items > 1 else ''} in "
                         f"{int(repeated.sum())} rows: {listing}; give one row per item")
    return df


def holds_sets(column: pd.Series) -> bool:
    if pd.api.types.is_string_dtype(column.dtype) and column.dtype != object:  # pandas 3's str dtype
        raise ValueError(f"`item_features`['{column.name}'] holds text, not category sets: split it first, "
                         f"e.g. item_features['{column.name}'].str.split('|').map(set)")
    if column.dtype != object:
        return False
    first = column.dropna()
    if len(first) == 0:
        return False
    if isinstance(first.iloc[0], str):
        raise ValueError(f"`item_features`['{column.name}'] holds text, not category sets: split it first, "
                         f"e.g. item_features['{column.name}'].str.split('|').map(set)")
    return isinstance(first.iloc[0], (set, frozenset, list, tuple))


def set_incidence(column: pd.Series) -> tuple[Any, NDArray[np.bool_], pd.Index]:
    """CSR incidence matrix (items x categories, int8 ones), which items have a non-empty set,
    and the category of each column."""
    from scipy import sparse

    values = column.to_numpy()
    bad = np.fromiter((not isinstance(v, (set, frozenset, list, tuple)) for v in values), dtype=bool,
                      count=len(values))
    if bad.any():
        kinds = sorted({type(v).__name__ for v in values[bad]})
        raise ValueError(f"`item_features`['{column.name}'] must hold a set of categories per item, got "
                         f"{', '.join(kinds)} for items {column.index[bad][:5].tolist()}")
    sets = [set(v) for v in values]  # a list with repeats counts each category once
    sizes = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
    flat = [c for s in sets for c in s]
    try:
        codes, labels = pd.factorize(pd.Series(flat, dtype=object))
    except TypeError as exc:
        raise ValueError(f"`item_features`['{column.name}'] holds categories that cannot be hashed: {exc}") from exc
    if len(codes) and codes.min() < 0:
        rows = np.repeat(np.arange(len(sets)), sizes)[codes < 0]
        raise ValueError(f"`item_features`['{column.name}'] has missing categories (NaN/None) in the sets of items "
                         f"{column.index[np.unique(rows)][:5].tolist()}")
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    n_cat = int(codes.max()) + 1 if len(codes) else 0
    matrix = sparse.csr_matrix((np.ones(len(codes), dtype=np.int32), codes.astype(np.int64), indptr),
                               shape=(len(sets), max(n_cat, 1)))
    return matrix, sizes > 0, pd.Index(labels, dtype=object)


def unit_vectors(df: pd.DataFrame) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Rows scaled to unit length, and which rows are not all zeros."""
    for col in df.columns:
        series = df[col]
        if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)) \
                or pd.api.types.is_complex_dtype(series):
            raise ValueError(f"`item_features`['{col}'] must be numeric (a vector per item), got dtype {series.dtype}; "
                             f"for categories give one column holding a set per item")
    values = df.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise ValueError(f"`item_features` has {int(bad.sum())} NaN or infinite value(s), e.g. in column "
                         f"{df.columns[cols[0]]!r} for items {df.index[np.unique(rows)][:5].tolist()}")
    scale = np.max(np.abs(values), axis=1) if values.shape[1] else np.zeros(len(values))
    valid = scale > 0
    scaled = np.zeros_like(values)
    scaled[valid] = values[valid] / scale[valid, None]  # no overflow in the norm of huge values
    norms = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    scaled[valid] /= norms[valid, None]
    return scaled, valid
