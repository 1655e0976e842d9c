"""``top_k`` on a Spark DataFrame of user vectors: the same kernel on every batch of users.

The item vectors (and their ids) travel to the workers with the function ``mapInPandas``
runs (cloudpickle ships the closure once per task); each user's excluded items are
gathered into one list column by a join, so a batch carries everything its users need. A
batch of users is ranked by the pandas code (:func:`rankeval.rank.top_k`), whose lists do
not depend on which other users share the batch: the lists are those of pandas, bit for
bit, wherever the BLAS's products do not depend on the block's shape.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..data.internal import functions_of, quoted
from ..exceptions import ShortListsWarning
from ._inputs import id_index, vectors
from ._vectors import rank_vectors

__all__ = ["top_k_spark"]

_SEEN = "__rankeval_seen"


def _item_type(ids: pd.Index) -> Any:
    """The Spark type of the item ids: long for integers, string for text."""
    from pyspark.sql import types as T

    if pd.api.types.is_integer_dtype(ids.dtype):
        return T.LongType()
    if pd.api.types.is_string_dtype(ids.dtype) or ids.dtype == object:
        return T.StringType()
    raise ValueError(f"`item_ids` of dtype {ids.dtype} cannot be written to a Spark column here: pass integer or "
                     f"text ids")


def _batch_ranker(items: np.ndarray, item_ids: pd.Index, k: int, options: dict[str, Any], user_col: str,
                  item_col: str, vector_col: str) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """The function ``mapInPandas`` runs: each batch of users ranked by the pandas ``top_k``."""
    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            if not len(batch):
                continue
            users = np.stack(batch[vector_col].to_numpy())
            seen = batch[_SEEN].map(lambda s: [] if s is None else list(s))
            exclude = pd.DataFrame({user_col: np.repeat(batch[user_col].to_numpy(), seen.map(len).to_numpy()),
                                    item_col: np.array([i for s in seen for i in s], dtype=item_ids.dtype)})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ShortListsWarning)  # counted once, on the driver
                result = rank_vectors(users, items, k, user_ids=batch[user_col].to_numpy(), item_ids=item_ids,
                                      exclude=exclude if len(exclude) else None, progress=False, user_col=user_col,
                                      item_col=item_col, **options)
            yield result.to_frame(user_col=user_col, item_col=item_col, categorical=False)

    return run


def top_k_spark(users: Any, item_vectors: Any, k: int, *, item_ids: Any, exclude: Any, user_col: str,
                item_col: str, vector_col: str, **options: Any) -> Any:
    """Every user's top-k of a Spark frame of (``user_col``, ``vector_col``) rows: a Spark frame of lists.

    ``exclude`` is a Spark frame of (user, item) rows or None; ``options`` are ``top_k``'s
    (``similarity``, ``ties``, ``memory``; ``candidates`` as item ids). The result is persisted:
    its rows are counted to warn of short lists.
    """
    from pyspark.sql import types as T

    F = functions_of(users)
    for col in (user_col, vector_col):
        if col not in users.columns:
            raise ValueError(f"`user_vectors` (a Spark DataFrame) has no column {col!r}; its columns: "
                             f"{users.columns[:8]}: name them with user_col= and vector_col=")
    items = vectors(item_vectors, "item_vectors")
    ids = id_index(item_ids, len(items), "item_ids", "item_vectors")
    element = users.schema[vector_col].dataType
    if not isinstance(element, T.ArrayType):
        raise ValueError(f"`user_vectors` column {vector_col!r} must hold arrays of numbers, got {element}")
    dims = users.select(F.min(F.size(users[quoted(vector_col)])).alias("lo"),
                        F.max(F.size(users[quoted(vector_col)])).alias("hi"), F.count(F.lit(1)).alias("n")).first()
    if dims["n"] and (dims["lo"] != items.shape[1] or dims["hi"] != items.shape[1]):
        raise ValueError(f"`user_vectors` has vectors of {dims['lo']} to {dims['hi']} dimensions and `item_vectors` "
                         f"{items.shape[1]}: both must have the same number")
    single = isinstance(element.elementType, T.FloatType) and items.dtype == np.float32
    rows = users.select(users[quoted(user_col)], users[quoted(vector_col)])
    if exclude is None:
        rows = rows.withColumn(_SEEN, F.lit(None).cast(T.ArrayType(_item_type(ids))))
    else:
        seen = exclude.groupBy(exclude[quoted(user_col)]).agg(F.collect_list(exclude[quoted(item_col)]).alias(_SEEN))
        rows = rows.join(seen, on=user_col, how="left")
    schema = T.StructType([T.StructField(user_col, users.schema[user_col].dataType),
                           T.StructField(item_col, _item_type(ids)),
                           T.StructField("score", T.FloatType() if single else T.DoubleType()),
                           T.StructField("rank", T.LongType())])
    run = _batch_ranker(items, ids, k, options, user_col, item_col, vector_col)
    out = rows.mapInPandas(run, schema).persist()
    _warn_short(out, int(dims["n"]), k, user_col)
    return out


def _warn_short(out: Any, n_users: int, k: int, user_col: str) -> None:
    """One warning counting the users with fewer than ``k`` rows, as the pandas ``top_k`` gives."""
    counts = out.groupBy(out[quoted(user_col)]).count()
    full = counts.filter(counts["count"] == k).count()
    listed = out.count()
    if full < n_users:
        warnings.warn(f"{n_users - full:,} users have fewer than k={k} items that may be listed (their seen items "
                      f"excluded, or the catalog or their candidates smaller than k): their lists are shorter "
                      f"({n_users * k - listed:,} rows fewer than {n_users:,} x {k})", ShortListsWarning,
                      stacklevel=4)
