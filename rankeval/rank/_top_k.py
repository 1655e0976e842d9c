"""The ranking loop: blocks of users x items, scored, masked and merged into each user's top-k."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._progress import progress_bar
from ..data.internal import check_cutoff, is_local_frame, show
from ..exceptions import ShortListsWarning
from ._inputs import (
    Pairs,
    global_candidates,
    id_index,
    pairs_by_user,
    parse_memory,
    tie_order,
)
from ._kernel import Running, merge_block
from ._plan import Plan, plan_blocks
from ._result import TopK
from ._threads import blas_controller, in_threads, n_cores

__all__ = ["Problem", "prepare", "run", "PROGRESS_MIN_CELLS", "THREADS_MIN_CELLS"]

#: scores past which a progress bar is shown by default (on a terminal)
PROGRESS_MIN_CELLS = 10**10

#: scores past which the blocks run on every core (below, starting the threads costs more than they save)
THREADS_MIN_CELLS = 2**22

#: fills one block of scores: ``fill(out, first_user, stop_user, first_item, stop_item)``
Fill = Callable[[NDArray[np.floating], int, int, int, int], None]


@dataclass
class Problem:
    """A checked ranking: users, items in tie order (``positions``), seen and allowed pairs, the cutoff."""

    users: pd.Index
    positions: pd.Index
    order: NDArray[np.intp] | None
    k: int
    exclude: Pairs | None
    allowed: Pairs | None


def prepare(n_users: int, n_items: int, k: Any, user_ids: Any, item_ids: Any, exclude: Any, candidates: Any,
            ties: str, user_col: str, item_col: str) -> Problem:
    """The ids, the tie order and the pairs of a ranking of ``n_users`` x ``n_items``, all checked."""
    k = check_cutoff(k, required=True)
    users = id_index(user_ids, n_users, "user_ids", "user_vectors")
    items = id_index(item_ids, n_items, "item_ids", "item_vectors")
    rows = None
    if candidates is not None and not is_local_frame(candidates):
        rows = global_candidates(candidates, items)
    local = tie_order(items if rows is None else items.take(rows), ties)
    order = rows if local is None else local if rows is None else rows[local]
    positions = items if order is None else items.take(order)
    if not len(positions):
        raise ValueError("there is no item to rank: `item_vectors` has no rows" if rows is None else
                         "there is no item to rank: `candidates` names no item")
    exclude_pairs = None if exclude is None else pairs_by_user(exclude, "exclude", users, positions, user_col,
                                                               item_col)
    allowed = None
    if candidates is not None and is_local_frame(candidates):
        allowed = pairs_by_user(candidates, "candidates", users, positions, user_col, item_col)
    return Problem(users, positions, order, k, exclude_pairs, allowed)


def run(problem: Problem, fill: Fill, dtype: np.dtype, *, memory: Any, fixed: int, extra_per_cell: int,
        progress: bool | None, on_plan: Callable[[Plan], None] | None = None, threads: bool = False) -> TopK:
    """Every user's top-k from the blocks ``fill`` writes, within ``memory`` bytes.

    With ``threads`` (``fill`` may be called from several threads at once), a large ranking
    runs its blocks of users on every core, each core's blocks a share of the budget's rows.
    """
    budget = parse_memory(memory)
    n_users, n_items = len(problem.users), len(problem.positions)
    k = min(problem.k, n_items)  # no list is longer than the catalog: no wider arrays
    pairs = [p for p in (problem.exclude, problem.allowed) if p is not None]
    most = max((int(p.counts().max(initial=0)) for p in pairs), default=0)
    # item codes in int32 when they fit: half the memory of a long result
    code_type = np.dtype(np.int32 if n_items < 2**31 - 1 else np.int64)
    fixed += sum(p.items.nbytes + p.starts.nbytes for p in pairs) + n_users * k * (dtype.itemsize + code_type.itemsize)
    plan = plan_blocks(n_users, n_items, k, dtype.itemsize, budget=budget, fixed=fixed,
                       extra_per_cell=extra_per_cell + (1 if problem.allowed is not None else 0), most_pairs=most)
    if on_plan is not None:
        on_plan(plan)
    scores = np.empty((n_users, k), dtype=dtype)
    items = np.empty((n_users, k), dtype=code_type)
    controller = blas_controller() if threads and n_users * n_items >= THREADS_MIN_CELLS else None
    workers = min(n_cores(), plan.rows) if controller is not None else 1
    rows = plan.rows // workers  # the workers' blocks share the budget of one
    blocks = [(first, min(first + rows, n_users)) for first in range(0, n_users, rows)]
    buffers = [np.empty((rows, plan.width), dtype=dtype) for _ in range(workers)]
    shown = progress if progress is not None else n_users * n_items > PROGRESS_MIN_CELLS
    with progress_bar(enabled=bool(shown), total=n_users, unit="users", desc="rank") as bar:
        lock = threading.Lock()

        def user_block(span: tuple[int, int], worker: int) -> None:
            first, stop = span
            block = buffers[worker][:stop - first]
            running = Running.empty(stop - first, k, dtype)
            for start in range(0, n_items, plan.items):
                end = min(start + plan.items, n_items)
                _score_block(block, problem, fill, (first, stop, start, end), plan)
                merge_block(running, block, start, plan.n_groups)
            scores[first:stop], items[first:stop] = running.scores, running.items
            with lock:
                bar.update(stop - first)

        if workers > 1:
            in_threads(blocks, user_block, workers, controller)
        else:
            for span in blocks:
                user_block(span, 0)
    lengths = (items >= 0).sum(axis=1).astype(np.int64)
    _warn_short(problem, lengths)
    return TopK(problem.users, problem.positions, items, scores, lengths)


def _score_block(out: NDArray[np.floating], problem: Problem, fill: Fill, span: tuple[int, int, int, int],
                 plan: Plan) -> None:
    """One block of scores, with ``-inf`` at the padding, the seen items and the items not allowed."""
    first, stop, start, end = span
    fill(out, first, stop, start, end)
    if end - start < out.shape[1]:
        out[:, end - start:] = -np.inf
    width = out.shape[1]
    if problem.allowed is not None:
        rows, cols = _in_span(problem.allowed, first, stop, start, end, len(problem.positions))
        keep = np.zeros(out.shape, dtype=bool)
        keep.ravel()[rows * width + cols] = True
        np.copyto(out, -np.inf, where=~keep)
    if problem.exclude is not None:
        rows, cols = _in_span(problem.exclude, first, stop, start, end, len(problem.positions))
        out.ravel()[rows * width + cols] = -np.inf


def _in_span(pairs: Pairs, first: int, stop: int, start: int, end: int,
             n_items: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(row, column) in the block of the pairs of users ``first:stop`` and items ``start:end``."""
    rows, positions = pairs.block(first, stop)
    if end - start == n_items:  # one block holds every item: no pair falls outside
        return rows, positions.astype(np.int64)
    inside = (positions >= start) & (positions < end)
    return rows[inside], positions[inside].astype(np.int64) - start


def _warn_short(problem: Problem, lengths: NDArray[np.int64]) -> None:
    """Count the users whose lists are shorter than ``k``: too few items left once seen ones are taken out."""
    short = lengths < problem.k
    if short.any():
        missing = int((problem.k - lengths[short]).sum())
        users = list(problem.users[short][:3])
        warnings.warn(f"{int(short.sum()):,} users have fewer than k={problem.k} items that may be listed "
                      f"(their seen items excluded, or the catalog or their candidates smaller than k), e.g. "
                      f"users {show(users)}: their lists are shorter ({missing:,} rows fewer than "
                      f"{len(problem.users):,} x {problem.k})", ShortListsWarning, stacklevel=4)
