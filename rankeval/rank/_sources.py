"""Where the blocks of scores come from: two sets of vectors, or a scoring function."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import show
from ._inputs import ScoreFunction
from ._kernel import block_layout
from ._plan import Plan
from ._top_k import Problem

__all__ = ["VectorBlocks", "ScoreBlocks", "norms", "check_overflow"]


def norms(x: NDArray[np.floating], name: str, ids: pd.Index) -> NDArray[np.floating]:
    """The Euclidean norm of every row of ``x``; a zero vector has no cosine and is refused."""
    out = np.linalg.norm(x, axis=1)
    zero = out == 0
    if zero.any():
        raise ValueError(f"`{name}` has {int(zero.sum()):,} zero vectors (ids {show(list(ids[zero][:5]))}): "
                         f"their cosine is undefined; use similarity='dot' or drop them")
    return out


def check_overflow(users: NDArray[np.floating], items: NDArray[np.floating]) -> None:
    """Refuse vectors whose dot products could overflow: ``|x . y| <= |x| |y|`` (Cauchy-Schwarz) must stay
    below half the float type's largest value (the other half absorbs the rounding of the sums)."""
    if not len(users) or not len(items):
        return
    top = _largest_norm(users) * _largest_norm(items)
    if not top < float(np.finfo(users.dtype).max) / 2:
        raise ValueError(f"`user_vectors` and `item_vectors` are so large that their dot products could overflow "
                         f"{users.dtype} (up to {top:.3g}): rescale them, or pass float64 vectors")


def _largest_norm(x: NDArray[np.floating]) -> float:
    """The largest Euclidean norm of ``x``'s rows, summed in float64 row by row (no float64 copy of ``x``:
    for 1M x 64 float32 item vectors 0.06 s instead of 1.3 s)."""
    return float(np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64).max()))


class VectorBlocks:
    """Blocks of ``users @ items.T``: the items padded with zeros to the plan's width, once, and laid out
    dimension by dimension (``d x width``, contiguous), which the BLAS packs a few percent faster."""

    def __init__(self, users: NDArray[np.floating], items: NDArray[np.floating],
                 user_scale: NDArray[np.floating] | None) -> None:
        self.users, self.items, self.user_scale = users, items, user_scale
        self.padded: NDArray[np.floating] | None = None

    def padding_bytes(self, n_items: int, k: int) -> int:
        """The bytes of the padded copy of the items (the whole catalog, to the width of a row of groups), or
        when no padding is needed, of a block's product when the catalog takes several blocks."""
        width = block_layout(n_items, min(k, n_items))[1]
        rows = width if width > n_items else min(n_items, 4096)
        return rows * self.items.shape[1] * self.items.dtype.itemsize

    def plan(self, plan: Plan) -> None:
        """Pad the items once when a block holds the whole catalog."""
        if plan.items == len(self.items) and plan.width > len(self.items):
            self.padded = np.zeros((self.items.shape[1], plan.width), dtype=self.items.dtype)
            self.padded[:, :len(self.items)] = self.items.T

    def fill(self, out: NDArray[np.floating], first: int, stop: int, start: int, end: int) -> None:
        """``out[:, :end - start]`` = the scores of users ``first:stop`` and items ``start:end``."""
        users = self.users[first:stop]
        if self.user_scale is not None:
            users = users * self.user_scale[first:stop, None]
        if self.padded is not None:
            np.matmul(users, self.padded, out=out)
        elif end - start == out.shape[1]:
            np.matmul(users, self.items[start:end].T, out=out)
        else:
            out[:, :end - start] = users @ self.items[start:end].T


class ScoreBlocks:
    """Blocks from a scoring function ``score(user_ids, item_ids)``, each checked."""

    def __init__(self, score: ScoreFunction, problem: Problem) -> None:
        self.score, self.problem = score, problem
        self.user_ids = problem.users.to_numpy()
        self.item_ids = problem.positions.to_numpy()

    def call(self, first: int, stop: int, start: int, end: int) -> NDArray[np.floating]:
        """The function's block for users ``first:stop`` and items ``start:end``, checked."""
        block = np.asarray(self.score(self.user_ids[first:stop], self.item_ids[start:end]))
        if block.shape != (stop - first, end - start):
            raise ValueError(f"`score` returned a block of shape {block.shape} for {stop - first} users and "
                             f"{end - start} items: it must be users x items")
        if block.dtype not in (np.float32, np.float64):
            if not np.issubdtype(block.dtype, np.number) or np.iscomplexobj(block):
                raise ValueError(f"`score` must return real numbers, got dtype {block.dtype}")
            block = block.astype(np.float64)
        # one pass: the maximum is NaN when any score is (NaN propagates), +inf when one is
        if block.size and not block.max() < np.inf:
            bad = np.isnan(block) | np.isposinf(block)
            row = int(np.flatnonzero(bad.any(axis=1))[0])
            raise ValueError(f"`score` returned {int(bad.sum()):,} NaN or +inf scores, e.g. for user "
                             f"{show(self.user_ids[first + row])}: scores must be finite (-inf: never listed)")
        return block

    def fill(self, out: NDArray[np.floating], first: int, stop: int, start: int, end: int) -> None:
        """``out[:, :end - start]`` = the function's block."""
        out[:, :end - start] = self.call(first, stop, start, end)
