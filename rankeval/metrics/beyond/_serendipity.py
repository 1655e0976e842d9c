r"""Serendipity (MS Recommenders): relevant recommendations unlike what the user had before.

:math:`L_u` the first k items of user u's list, :math:`H_u` the user's distinct items in
``train``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ...data.internal import CHUNK_ROWS, check_choice, row_item_codes
from .._side_metric import SideMetric
from ._calibration import canonical_columns
from ._history import History, evaluated_history, id_ranks, train_history

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Serendipity"]

#: cells of the co-occurrence buffer of one block of items (8 MiB in float64: it stays in
#: the processor's cache; measured at 2^19-2^21, 2^20 the fastest at 200k-1M users)
BUFFER_CELLS = 1 << 20
#: dense blocks when the listed items' cells are at most this many times their co-occurrence
#: pairs: zeroing a cached cell costs ~0.4 ns, a pair counted into a slot rather than a dense
#: block ~10 ns more (measured: dense faster at 31 and 6 cells per pair, 200k and 1M users)
DENSE_CELLS_PER_PAIR = 32
#: cells of the slot buffer of one block of items otherwise (int32: 16 MiB; the slots are
#: few, and larger blocks mean fewer passes for wide catalogs)
SLOT_CELLS = 1 << 22


class Serendipity(SideMetric):
    r"""Serendipity: relevance times dissimilarity to the user's history (MS Recommenders).

    .. math::

        Serendipity_u = \frac{1}{|L_u|} \sum_{i \in L_u} rel_u(i)
        \Bigl(1 - \frac{1}{|H_u|} \sum_{h \in H_u} sim(i, h)\Bigr)

    (Zhang et al., "Auralist", WSDM 2012, as MS Recommenders' ``user_serendipity``).
    ``similarity="cooccurrence"`` (default): the cosine of the items' training users,

    .. math:: sim(i, h) = \frac{|U_i \cap U_h|}{\sqrt{|U_i|\,|U_h|}}

    (:math:`U_i` the training users who had i; 0 for an item not in ``train``);
    ``similarity="features"``: the cosine of the items' ``item_features`` (numeric
    vectors; category sets as 0/1 vectors, :math:`|A_i \cap A_h| / \sqrt{|A_i||A_h|}`),
    0 with an item without features.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists (MS Recommenders scores the whole list it is given).
    similarity : {"cooccurrence", "features"}
        How items are compared.
    relevance : {"binary", "none"}
        :math:`rel_u(i)`: 1 if the truth score is relevant (``relevant_threshold``), else
        0 (default; MS Recommenders' ``col_relevance``); or 1 for every item (MS
        Recommenders without ``col_relevance``: the list's unexpectedness).
    relevant_threshold : float, optional
        A truth score ``>=`` this is relevant; None: each user's mean truth score.
    name : str, optional
        Overrides the name ``"Serendipity"``.

    Notes
    -----
    Needs ``train=`` (and ``item_features=`` for ``similarity="features"``). Undefined:
    NaN for a user not in ``train`` (MS Recommenders drops them). A recommended item
    already in the history counts its similarity 1 with itself (MS Recommenders refuses
    such lists). MS Recommenders counts each ``train`` row (it assumes no repeated
    pairs); here a repeated pair counts once. Its feature similarity is the cosine of
    its ``features`` vectors, equal to ``similarity="features"`` with the same vectors.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 2, 3], "item_id": ["a", "a", "b", "b"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["b", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 1], "item_id": ["b", "c"], "score": [1.0, 1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(f"{rk.Serendipity().perform(split).users.iloc[0, 0]:.4f}")  # (1 - 1/2 + 1 - 0) / 2
    0.7500
    """

    stem = "Serendipity"
    needs_side: tuple[str, ...] = ("train",)
    names = ("Serendipity",)

    def __init__(self, k: int | None = None, similarity: str = "cooccurrence", relevance: str = "binary",
                 relevant_threshold: float | None = None, *, name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)
        self.similarity = check_choice("similarity", similarity, ("cooccurrence", "features"))
        self.relevance = check_choice("relevance", relevance, ("binary", "none"))
        if self.similarity == "features":
            self.needs_side = ("train", "item_features")

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        hist = evaluated_history(lists, side)
        rows = self._rows(lists)
        if self.similarity == "cooccurrence":
            sim_sum = _cooccurrence_sums(lists, side, hist, rows)
        else:
            sim_sum = _feature_sums(lists, side, hist, rows)
        size = hist.size.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            unexpected = 1.0 - sim_sum / size[lists.user_of_row]
        rel = lists.relevant.astype(np.float64) if self.relevance == "binary" else 1.0
        values = self._per_user_mean(lists, np.where(rows, rel * unexpected, 0.0))
        return np.where(size > 0, values, np.nan)


class _Incidence(NamedTuple):
    """``train`` as the co-occurrence kernels read it (cached per split).

    Columns are training items in id order, so that every sum over a history runs in id
    order whatever the order of ``train``'s rows.
    """

    x: Any  #: users x items (CSR, int8 ones)
    xt: Any  #: items (train positions) x users (CSR)
    history: Any  #: evaluated users x items (CSR): w_h at each history item h
    w: NDArray[np.float64]  #: per train position: 1 / sqrt(popularity)
    work: NDArray[np.int64]  #: per train position: its co-occurrence pairs (sum of its users' history lengths)


def _cooccurrence_sums(lists: RankedLists, side: Any, hist: History, rows: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Per listed row (u, i) within the cutoff: the sum over h in H_u of sim(i, h); 0 elsewhere.

    The rows are grouped into blocks of items; each block counts its items' co-occurrences
    with every training item (:func:`_dense_block` or :func:`_slot_block`) and each row
    then takes, in one compiled pass, ``1/sqrt|U_i| * sum_h w_h |U_i & U_h|`` over its
    user's history in id order: the same bits whatever the blocks, the row order or
    which other rows are evaluated. The co-occurrence matrix is never held.
    """
    todo = np.flatnonzero(rows)
    item = _train_positions(lists, side)[row_item_codes(lists)[todo]]
    user = lists.user_of_row[todo]
    keep = (item >= 0) & (hist.size[user] > 0)
    todo, item, user = todo[keep], item[keep], user[keep]
    out = np.zeros(lists.n_rows)
    if len(todo) == 0:
        return out
    inc = _incidence(lists, side, hist)
    n_items = inc.x.shape[1]
    listed = np.flatnonzero(np.bincount(item, minlength=len(inc.work)))
    # dense blocks zero |block| x n_items cells: worth it when the pairs outnumber the cells
    # enough; otherwise only the cells the rows ask for get slots (work linear in pairs)
    dense = len(listed) * n_items <= DENSE_CELLS_PER_PAIR * int(inc.work[listed].sum())
    order, row_cuts, item_cuts, local = _blocks(item, hist.size[user], inc.work, listed,
                                                BUFFER_CELLS if dense else SLOT_CELLS)
    todo, item, user = todo[order], item[order], user[order]
    local = local[item]
    per_block = int(np.max(np.diff(item_cuts)))
    buf = np.zeros(per_block * n_items, dtype=np.float64 if dense else np.int32)
    kernel: Any = _slot_block
    if dense:  # one shared array of ones: the gathered pairs then carry no data of their own
        kernel = partial(_dense_block, ones=np.ones(int(np.add.reduceat(inc.work[listed], item_cuts[:-1]).max())))
    for b in range(len(row_cuts) - 1):
        lo, hi = row_cuts[b], row_cuts[b + 1]
        sums = kernel(inc, listed[item_cuts[b]:item_cuts[b + 1]], user[lo:hi], local[lo:hi], buf)
        out[todo[lo:hi]] = sums * inc.w[item[lo:hi]]
    return out


def _blocks(item: NDArray[np.int64], n_h: NDArray[np.int64], work: NDArray[np.int64], listed: NDArray[np.intp],
            cells: int) -> tuple[NDArray[np.intp], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Blocks of the ``listed`` items (train positions, ascending) and the rows grouped by block.

    A block ends where its cost (co-occurrence pairs plus history lookups) passes a multiple
    of CHUNK_ROWS or where its buffer would outgrow ``cells``. Returns the rows' order, the
    cuts of the ordered rows and of ``listed`` into blocks, and per train position its index
    within its block.
    """
    n_train = len(work)
    cost = np.cumsum(work[listed] + np.bincount(item, weights=n_h, minlength=n_train)[listed].astype(np.int64))
    per_block = max(1, cells // max(n_train, 1))
    key = (cost - 1) // CHUNK_ROWS * (len(listed) + 1) + np.arange(len(listed)) // per_block
    item_cuts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1], [True]]))
    block_of = np.zeros(n_train, dtype=np.int64)
    block_of[listed] = np.repeat(np.arange(len(item_cuts) - 1), np.diff(item_cuts))
    local = np.zeros(n_train, dtype=np.int64)
    local[listed] = np.arange(len(listed)) - np.repeat(item_cuts[:-1], np.diff(item_cuts))
    row_block = block_of[item]
    # grouped by block only (a row's value does not depend on the order within its block):
    # with fewer than 2^16 blocks numpy sorts the keys by radix, in linear time
    small = len(item_cuts) <= 1 << 16
    order = np.argsort(row_block.astype(np.uint16) if small else row_block, kind="stable")
    row_cuts = np.zeros(len(item_cuts), dtype=np.int64)
    np.cumsum(np.bincount(row_block, minlength=len(item_cuts) - 1), out=row_cuts[1:])
    return order, row_cuts, item_cuts, local


def _pairs(inc: _Incidence, items: NDArray[np.int64], ones: NDArray[np.float64] | None = None) -> Any:
    """The co-occurrence pairs of ``items``: per item i (a row), the history items of every user of i
    (values: the first entries of ``ones``, or int8 ones)."""
    from scipy import sparse

    xt = inc.xt
    if items[-1] - items[0] == len(items) - 1:  # consecutive items (sorted, distinct): their users are one slice
        users = xt.indices[xt.indptr[items[0]]:xt.indptr[items[-1] + 1]]
    else:
        users = xt[items].indices
    p = inc.x[users]
    indptr = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(inc.work[items], out=indptr[1:])
    data = p.data if ones is None else ones[:p.nnz]
    return sparse.csr_matrix((data, p.indices, indptr.astype(p.indptr.dtype)), shape=(len(items), p.shape[1]))


def _weighted_sums(history: Any, cells: NDArray[Any], values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per row of ``history``: the sum of w_h * values[cell] over its entries, in their order
    (one compiled pass: a sparse matrix-vector product)."""
    from scipy import sparse

    m = sparse.csr_matrix((history.data, cells, history.indptr), shape=(history.shape[0], len(values)))
    return np.asarray(m @ values, dtype=np.float64)


def _dense_block(inc: _Incidence, items: NDArray[np.int64], user: NDArray[Any], local: NDArray[np.int64],
                 buf: NDArray[Any], ones: NDArray[np.float64]) -> NDArray[np.float64]:
    """The weighted history sums of one block's rows from the block's dense co-occurrence counts.

    ``buf`` is zeroed and gets the counts of (block item, training item) as exact float64
    integers (``ones``: at least as many ones as the block has pairs); each row then reads
    its item's counts at its history items.
    """
    n_items = inc.x.shape[1]
    dense = buf[:len(items) * n_items].reshape(len(items), n_items)
    _pairs(inc, items, ones).toarray(out=dense)
    history = inc.history[user]
    # int32 cells: scipy reads them as they are (the buffer holds fewer than 2^31 cells)
    cells = history.indices + np.repeat((local * n_items).astype(history.indices.dtype), np.diff(history.indptr))
    return _weighted_sums(history, cells, dense.ravel())


def _slot_block(inc: _Incidence, items: NDArray[np.int64], user: NDArray[Any], local: NDArray[np.int64],
                slot: NDArray[np.int32]) -> NDArray[np.float64]:
    """The weighted history sums of one block's rows, counting only the cells they ask for.

    The (block item, history item) cells the rows ask for get a slot each in the zeroed
    ``slot`` buffer (a repeated cell keeps one); the block's co-occurrence pairs are then
    counted into the slots (one ``np.bincount``): the work is the block's rows and pairs,
    never the width of the catalog.
    """
    n_items = inc.x.shape[1]
    history = inc.history[user]
    # int64 keys: numpy indexes by int32 arrays through a slow cast
    asked = history.indices.astype(np.int64) + np.repeat(local * n_items, np.diff(history.indptr))
    slot[asked] = np.arange(1, len(asked) + 1, dtype=np.int32)
    mine = np.take(slot, asked)
    pairs = _pairs(inc, items)
    keys = pairs.indices.astype(np.int64) + np.repeat(np.arange(len(items), dtype=np.int64) * n_items,
                                                      np.diff(pairs.indptr))
    counts = np.bincount(np.take(slot, keys).astype(np.intp), minlength=len(asked) + 1)  # slot 0: cells not asked
    slot[asked] = 0
    return _weighted_sums(history, mine, counts.astype(np.float64))


def _incidence(lists: RankedLists, side: Any, hist: History) -> _Incidence:
    """``train``'s incidence matrices, the history weights and per item its pairs (cached per split)."""
    from scipy import sparse

    cache = lists.split_cache
    if "train_incidence" not in cache:
        train_users, train_items, pair_user, pair_item = train_history(side.side)
        n_users, n_items = len(train_users), len(train_items)
        rank = id_ranks(train_items)
        # int8 ones: the row gathers copy as little as they can (the counts take float64 ones)
        x = sparse.csr_matrix((np.ones(len(pair_user), dtype=np.int8), (pair_user, rank[pair_item])),
                              shape=(n_users, n_items))
        xt = sparse.csr_matrix((np.ones(len(pair_user), dtype=np.int8), (pair_item, pair_user)),
                               shape=(n_items, n_users))
        pop = np.bincount(pair_item, minlength=n_items)
        length = np.bincount(pair_user, minlength=n_users)
        work = np.bincount(pair_item, weights=length[pair_user], minlength=n_items).astype(np.int64)
        w = 1.0 / np.sqrt(np.maximum(pop, 1).astype(np.float64))
        # within each user the history is in item id order: rank[hist.item] ascends
        history = sparse.csr_matrix((w[hist.item], rank[hist.item], hist.offsets), shape=(len(hist.size), n_items))
        cache["train_incidence"] = _Incidence(x, xt, history, w, work)
    return cache["train_incidence"]


def _train_positions(lists: RankedLists, side: Any) -> NDArray[np.int64]:
    """Per item code of ``lists``: its position among ``train``'s items (-1 if absent)."""
    cache = lists.split_cache
    if "train_positions" not in cache:
        _, train_items, _, _ = train_history(side.side)
        cache["train_positions"] = train_items.get_indexer(lists.item_uniques).astype(np.int64)
    return cache["train_positions"]


def _feature_sums(lists: RankedLists, side: Any, hist: History, rows: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Per listed row (u, i) within the cutoff: x_i . sum over h in H_u of x_h, unit feature vectors."""
    from scipy import sparse

    s = side.side
    unit, rank = _unit_features(lists, side)
    n_users = lists.n_users
    train_rows = s.item_features.index.get_indexer(hist.train_items)[hist.item]
    has = train_rows >= 0
    history = sparse.csr_matrix((np.ones(int(has.sum())), (hist.user[has], rank[train_rows[has]])),
                                shape=(n_users, unit.shape[0]))
    totals = history @ unit  # per user: the sum of the history's unit vectors
    frow = side.feature_row[row_item_codes(lists)]
    todo = np.flatnonzero(rows & (frow >= 0))
    out = np.zeros(lists.n_rows)
    user = lists.user_of_row[todo]
    mine = unit[rank[frow[todo]]]
    if sparse.issparse(unit):
        out[todo] = np.asarray(sparse.csr_matrix(mine).multiply(sparse.csr_matrix(totals)[user]).sum(axis=1)).ravel()
    else:
        out[todo] = np.einsum("ij,ij->i", mine, totals[user])
    return out


def _unit_features(lists: RankedLists, side: Any) -> tuple[Any, NDArray[np.int64]]:
    """Unit feature vectors, rows in item id order (CSR for category sets); per feature row its row there."""
    from scipy import sparse

    cache = lists.split_cache
    if "unit_features" not in cache:
        s = side.side
        rank = id_ranks(s.item_features.index)
        order = np.argsort(rank)
        if s.features_kind == "vectors":
            unit: Any = s.feature_unit_vectors[order]
        else:
            incidence = s.feature_set_incidence.astype(np.float64)
            sizes = np.diff(incidence.indptr).astype(np.float64)
            with np.errstate(divide="ignore"):
                scale = np.where(sizes > 0, 1.0 / np.sqrt(sizes), 0.0)
            unit = canonical_columns(sparse.csr_matrix(sparse.diags(scale) @ incidence)[order],
                                     s.feature_categories)
        cache["unit_features"] = (unit, rank)
    return cache["unit_features"]
