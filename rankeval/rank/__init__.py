"""Exact top-k lists from a model, in bounded memory: ``rankeval.rank``.

- ``_inputs``: vectors, ids, the tie order, the seen and allowed items as positions;
- ``_plan``: the memory model, and the largest blocks a budget allows;
- ``_kernel``: one block's exact top-k merged into each user's running top-k;
- ``_top_k``: the loop over blocks;
- ``_threads``: blocks of users on every core, one BLAS thread each;
- ``_sources``: where the blocks come from (two sets of vectors, or a scoring function);
- ``_vectors``: the ranking of two sets of vectors on one machine;
- ``_spark``: the same on a Spark DataFrame of user vectors, batch by batch;
- ``_result``: :class:`TopK`, the lists as codes, and their pred frame.

Every user's list equals a full sort of their row of the dense score matrix (higher score
first, ties by ``ties``, the excluded items left out), item for item; the dense matrix is
never made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data.internal import check_choice, is_local_frame, is_spark_frame
from ._inputs import SIMILARITIES, TIES, RankTies, ScoreFunction
from ._result import TopK
from ._sources import ScoreBlocks
from ._top_k import prepare, run
from ._vectors import rank_vectors

__all__ = ["top_k", "top_k_scores", "TopK", "TIES", "SIMILARITIES"]


def top_k(user_vectors: Any, item_vectors: Any, k: int, *, user_ids: Any = None, item_ids: Any = None,
          similarity: str = "dot", exclude: Any = None, candidates: Any = None, ties: RankTies = "row_order",
          memory: int | str = "1GiB", progress: bool | None = None, user_col: str = "user_id",
          item_col: str = "item_id", vector_col: str = "vector") -> Any:
    r"""Every user's exact top-``k`` items by the similarity of their vectors, in bounded memory.

    The score of user :math:`u` and item :math:`i` is :math:`s_{ui} = x_u \cdot y_i` (``dot``) or
    :math:`x_u \cdot y_i / (\lVert x_u \rVert \lVert y_i \rVert)` (``cosine``); each list holds the
    ``k`` highest scores among the items that may be listed, best first, tied scores in the
    order ``ties`` gives. The work goes in blocks of users x items (matrix products of the
    given float type) whose top-k are merged into running lists; the dense matrix is never made.

    Parameters
    ----------
    user_vectors : array-like
        One row per user (``n_users x d``): a NumPy array or a numeric frame; float32 and float64 are
        kept, other numbers become float64.
    item_vectors : array-like
        One row per item (``n_items x d``), as ``user_vectors``.
    k : int
        The length of every list (shorter when fewer items may be listed; see Warns).
    user_ids : array-like or None, default None
        The id of each row of ``user_vectors`` (array, Series, Index or Arrow array; unique); None: 0, 1, ... .
    item_ids : array-like or None, default None
        The id of each row of ``item_vectors``; None: 0, 1, ... .
    similarity : {"dot", "cosine"}
        The score of a user and an item.
    exclude : frame or None, default None
        (user, item) rows never listed (the training interactions): columns ``user_col`` and ``item_col``;
        rows of users or items that are not ranked are ignored.
    candidates : array-like, frame or None, default None
        The items that may be listed: item ids allowed for every user, or a frame of (user, item) rows
        (each user's allowed items; a user with none gets an empty list); None: every item.
    ties : {"row_order", "item_id", "item_id_desc"}
        How tied scores are ordered: the rows of ``item_vectors`` in order, or the item ids ascending
        or descending (the ``ties`` of :class:`~rankeval.Split`).
    memory : int or str, default "1GiB"
        The most memory the ranking adds, in bytes or as '1GiB', '512MB': the item vectors as ranked,
        the excluded pairs, the result arrays and one block of scores (docs/rank.md gives the model).
    progress : bool or None, default None
        Show a progress bar; None: for more than 10^10 scores.
    user_col : str, default "user_id"
        The user column of ``exclude`` and of a ``candidates`` frame.
    item_col : str, default "item_id"
        The item column of ``exclude`` and of a ``candidates`` frame.
    vector_col : str, default "vector"
        When ``user_vectors`` is a Spark DataFrame: its column of vectors (arrays); its ids are ``user_col``.

    Returns
    -------
    TopK or pyspark.sql.DataFrame
        The lists as codes; ``.to_frame()`` is the pred frame (user, item, score, rank). For a Spark
        DataFrame of user vectors (with ``exclude`` a Spark DataFrame or None), a persisted Spark
        DataFrame of those rows, the same lists: each batch of users is ranked by the same code.

    Raises
    ------
    ValueError
        Vectors of different dimensions, NaN or infinite values, missing or repeated ids, zero vectors
        under ``cosine``, scores that could overflow the float type, or a ``memory`` too small for one block
        (the message gives the smallest budget that works).

    Warns
    -----
    ShortListsWarning
        Users with fewer than ``k`` items that may be listed get shorter lists (counted).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from rankeval.rank import top_k
    >>> users = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> items = np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 2.0]])
    >>> seen = pd.DataFrame({"user_id": ["a"], "item_id": ["x"]})
    >>> lists = top_k(users, items, 2, user_ids=["a", "b"], item_ids=["x", "y", "z"], exclude=seen)
    >>> lists.to_frame(categorical=False).values.tolist()
    [['a', 'z', 2.0, 1], ['a', 'y', 1.0, 2], ['b', 'y', 2.0, 1], ['b', 'z', 2.0, 2]]
    """
    check_choice("similarity", similarity, SIMILARITIES)
    if is_spark_frame(user_vectors):
        if user_ids is not None or candidates is not None and is_local_frame(candidates):
            raise ValueError("`user_vectors` is a Spark DataFrame: its ids are its `user_col` column (pass no "
                             "`user_ids`), and `candidates` may only be item ids")
        from ._spark import top_k_spark
        return top_k_spark(user_vectors, item_vectors, k, item_ids=item_ids, exclude=exclude, user_col=user_col,
                           item_col=item_col, vector_col=vector_col, similarity=similarity, ties=ties,
                           memory=memory, candidates=candidates)
    return rank_vectors(user_vectors, item_vectors, k, user_ids=user_ids, item_ids=item_ids, similarity=similarity,
                        exclude=exclude, candidates=candidates, ties=ties, memory=memory, progress=progress,
                        user_col=user_col, item_col=item_col)


def top_k_scores(score: ScoreFunction, user_ids: Any, item_ids: Any, k: int, *, exclude: Any = None,
                 candidates: Any = None, ties: RankTies = "row_order", memory: int | str = "1GiB",
                 progress: bool | None = None, user_col: str = "user_id", item_col: str = "item_id",
                 threads: bool = False) -> TopK:
    r"""Every user's exact top-``k`` items by a scoring function called on blocks, in bounded memory.

    ``score(user_block, item_block)`` gets two arrays of ids (a block of ``user_ids`` and one of
    ``item_ids``) and returns their scores, ``len(user_block) x len(item_block)``: the model called
    on a block (EASE's :math:`X_u B`, a network's forward pass). The lists are those of
    :func:`top_k`: the ``k`` highest scores, best first, ties by ``ties``, ``exclude`` left out.

    Parameters
    ----------
    score : callable
        ``score(user_block, item_block) -> scores``: a 2-D array (float32 and float64 kept); ``-inf``
        marks an item that may not be listed; NaN and ``+inf`` are refused.
    user_ids : array-like
        The users to rank (unique ids).
    item_ids : array-like
        The items to rank (unique ids).
    k : int
        The length of every list (shorter when fewer items may be listed).
    exclude : frame or None, default None
        (user, item) rows never listed, as in :func:`top_k`.
    candidates : array-like, frame or None, default None
        The items that may be listed, as in :func:`top_k`.
    ties : {"row_order", "item_id", "item_id_desc"}
        How tied scores are ordered: ``item_ids`` in order, or ascending or descending.
    memory : int or str, default "1GiB"
        The most memory the ranking adds, the blocks ``score`` returns included.
    progress : bool or None, default None
        Show a progress bar; None: for more than 10^10 scores.
    user_col : str, default "user_id"
        The user column of ``exclude`` and of a ``candidates`` frame.
    item_col : str, default "item_id"
        The item column of ``exclude`` and of a ``candidates`` frame.
    threads : bool, default False
        Call ``score`` from one thread per core at once, each on its own blocks of users (as :func:`top_k`
        does for vectors, when threadpoolctl is installed): only for a thread-safe ``score`` (NumPy and
        SciPy code is; a model that keeps state between calls may not be). The BLAS runs on one thread
        meanwhile, and the lists are the same, bit for bit.

    Returns
    -------
    TopK
        The lists as codes; ``.to_frame()`` is the pred frame.

    Raises
    ------
    ValueError
        Missing or repeated ids, a block of the wrong shape or with NaN or ``+inf`` scores (the message
        names a user), or a ``memory`` too small for one block.

    Warns
    -----
    ShortListsWarning
        Users with fewer than ``k`` items that may be listed get shorter lists (counted).
    """
    if not callable(score):
        raise TypeError(f"`score` must be a function f(user_ids, item_ids) -> scores, got {type(score).__name__}")
    if not isinstance(threads, (bool, np.bool_)):
        raise ValueError(f"`threads` must be True or False, got {threads!r}")
    users, items = np.asarray(user_ids), np.asarray(item_ids)
    problem = prepare(len(users), len(items), k, users, items, exclude, candidates, ties, user_col, item_col)
    first = ScoreBlocks(score, problem)
    probe = first.call(0, 1, 0, min(1, len(problem.positions))) if len(problem.users) and len(
        problem.positions) else np.empty((0, 0))
    return run(problem, first.fill, probe.dtype, memory=memory, fixed=0, extra_per_cell=probe.dtype.itemsize,
               progress=progress, threads=bool(threads))
