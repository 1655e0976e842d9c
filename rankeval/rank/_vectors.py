"""The ranking of two sets of vectors on one machine: checked, normalized, scored in blocks."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._inputs import vectors
from ._result import TopK
from ._sources import VectorBlocks, check_overflow, norms
from ._top_k import prepare, run

__all__ = ["rank_vectors"]


def rank_vectors(user_vectors: Any, item_vectors: Any, k: Any, *, user_ids: Any, item_ids: Any, similarity: str,
                 exclude: Any, candidates: Any, ties: str, memory: Any, progress: bool | None, user_col: str,
                 item_col: str) -> TopK:
    """:func:`rankeval.rank.top_k` on local vectors (its parameters, checked here but ``similarity``)."""
    users = vectors(user_vectors, "user_vectors")
    items = vectors(item_vectors, "item_vectors")
    if users.shape[1] != items.shape[1]:
        raise ValueError(f"`user_vectors` has {users.shape[1]} dimensions and `item_vectors` {items.shape[1]}: "
                         f"both must have the same number of columns")
    dtype = np.result_type(users, items)
    users, items = users.astype(dtype, copy=False), items.astype(dtype, copy=False)
    problem = prepare(len(users), len(items), k, user_ids, item_ids, exclude, candidates, ties, user_col, item_col)
    ranked = items if problem.order is None else items[problem.order]
    user_scale = None
    if similarity == "cosine":
        user_scale = 1.0 / norms(users, "user_vectors", problem.users)
        ranked = ranked / norms(ranked, "item_vectors", problem.positions)[:, None]
    if similarity == "dot":
        check_overflow(users, ranked)
    fixed = (ranked.nbytes if ranked is not items else 0) + (users.nbytes if users is not user_vectors else 0)
    blocks = VectorBlocks(users, ranked, user_scale)
    return run(problem, blocks.fill, dtype, memory=memory, fixed=fixed + blocks.padding_bytes(len(ranked), problem.k),
               extra_per_cell=0, progress=progress, on_plan=blocks.plan, threads=True)
