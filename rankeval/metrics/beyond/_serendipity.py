r"""Serendipity (MS Recommenders): relevant recommendations unlike what the user had before.

:math:`L_u` the first k items of user u's list, :math:`H_u` the user's distinct items in
``train``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...data._side import CHUNK_ROWS, row_item_codes
from ...data._validation import check_choice
from ._calibration import canonical_columns
from ._history import History, evaluated_history, id_ranks, train_history
from ._side_metric import SideMetric

if TYPE_CHECKING:
    from ...data._ranked import RankedLists

__all__ = ["Serendipity"]

#: cells of the dense co-occurrence buffer of one block of items (int32: 16 MiB)
BUFFER_CELLS = 1 << 22


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

    def __init__(self, k: int | None = None, similarity: str = "cooccurrence", relevance: str = "binary",
                 relevant_threshold: float | None = None, *, name: str | None = None) -> None:
        super().__init__(k, relevant_threshold, name)
        self.similarity = check_choice("similarity", similarity, ("cooccurrence", "features"))
        self.relevance = check_choice("relevance", relevance, ("binary", "none"))
        if self.similarity == "features":
            self.needs_side = ("train", "item_features")

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self._side(lists)
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


def _cooccurrence_sums(lists: RankedLists, side: Any, hist: History, rows: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Per listed row (u, i) within the cutoff: the sum over h in H_u of sim(i, h); 0 elsewhere.

    The rows are sorted by item and taken in blocks of items; each block counts only the
    co-occurrences its rows ask for (:func:`_block_sums`). The co-occurrence matrix (as many
    nonzeros as the sum of squared history lengths) is never held, no lookup searches a
    large array, and the sums are the same to the bit whatever the blocks.
    """
    train_pos = _train_positions(lists, side)[row_item_codes(lists)]
    out = np.zeros(lists.n_rows)
    todo = np.flatnonzero(rows & (train_pos >= 0) & (hist.size[lists.user_of_row] > 0))
    if len(todo) == 0:
        return out
    x, xt, pop, work = _incidence(lists, side)
    n_items = x.shape[1]
    inv_sqrt = 1.0 / np.sqrt(np.maximum(pop, 1)).astype(np.float64)
    todo = todo[np.argsort(train_pos[todo], kind="stable")]
    item = train_pos[todo]
    firsts = np.flatnonzero(np.concatenate([[True], item[1:] != item[:-1]]))
    n_h = hist.size[lists.user_of_row[todo]]
    # a block ends where the cost (co-occurrence row nonzeros at most, plus lookups) passes
    # a multiple of CHUNK_ROWS, or where the dense buffer would outgrow BUFFER_CELLS
    cost = np.cumsum(work[item[firsts]] + np.add.reduceat(n_h, firsts))
    per_block = max(1, BUFFER_CELLS // max(n_items, 1))
    block = (cost - 1) // CHUNK_ROWS * (len(firsts) + 1) + np.arange(len(firsts)) // per_block
    cuts = np.flatnonzero(np.concatenate([[True], block[1:] != block[:-1], [True]]))
    slot = np.zeros(min(per_block, len(firsts)) * n_items, dtype=np.int32)
    bounds = np.append(firsts, len(todo))
    for a, b in zip(cuts[:-1], cuts[1:]):
        lo, hi = bounds[a], bounds[b]
        out[todo[lo:hi]] = _block_sums(x, xt, hist, lists.user_of_row[todo[lo:hi]], item[lo:hi],
                                       item[firsts[a:b]], slot, inv_sqrt)
    return out


def _ranges(start: NDArray[np.int64], length: NDArray[np.int64]) -> NDArray[np.int64]:
    """The concatenated ranges ``start[j] .. start[j] + length[j] - 1``."""
    before = np.cumsum(length) - length
    return np.repeat(start - before, length) + np.arange(int(before[-1] + length[-1]) if len(length) else 0)


def _block_sums(x: Any, xt: Any, hist: History, user: NDArray[Any], item: NDArray[np.int64],
                items: NDArray[np.int64], slot: NDArray[np.int32],
                inv_sqrt: NDArray[np.float64]) -> NDArray[np.float64]:
    """The similarity sums of one block's rows (``user``, ``item``; ``items`` the block's distinct items, sorted).

    Cells are (block item, training item) in the zeroed ``slot`` buffer. The cells the rows
    ask for get a slot each; every training user v of a block item i then counts 1 for each
    h of v's history whose cell (i, h) has a slot (one ``np.bincount`` over the slots):
    the work is the block's rows and co-occurrence pairs, never the width of the catalog.
    """
    n_items = x.shape[1]
    n_h = hist.size[user]
    h = hist.item[_ranges(hist.offsets[user], n_h)]
    asked = np.repeat(np.searchsorted(items, item) * n_items, n_h) + h
    slot[asked] = np.arange(1, len(asked) + 1, dtype=np.int32)  # a repeated cell keeps one of its slots
    mine = slot[asked]
    start = xt.indptr[items].astype(np.int64)
    n_v = xt.indptr[items + 1] - start
    v = xt.indices[_ranges(start, n_v)]
    v_start = x.indptr[v].astype(np.int64)
    v_len = x.indptr[v + 1] - v_start
    pairs = slot[np.repeat(np.repeat(np.arange(len(items), dtype=np.int64) * n_items, n_v), v_len)
                 + x.indices[_ranges(v_start, v_len)]]
    counts = np.bincount(pairs, minlength=len(asked) + 1)  # slot 0: cells no row asked for
    slot[asked] = 0
    sim = counts[mine].astype(np.float64) * np.repeat(inv_sqrt[item], n_h) * inv_sqrt[h]
    return np.asarray(np.add.reduceat(sim, np.cumsum(n_h) - n_h), dtype=np.float64)  # >= 1 history item each


def _incidence(lists: RankedLists, side: Any) -> tuple[Any, Any, NDArray[np.int64], NDArray[np.int64]]:
    """``train``'s users x items incidence (CSR) and its transpose; per training item its
    popularity and the nonzeros its co-occurrence row can have (cached per split)."""
    from scipy import sparse

    cache = lists.split_cache
    if "train_incidence" not in cache:
        train_users, train_items, pair_user, pair_item = train_history(side.side)
        x = sparse.csr_matrix((np.ones(len(pair_user), dtype=np.int32), (pair_user, pair_item)),
                              shape=(len(train_users), len(train_items)))
        pop = np.bincount(pair_item, minlength=len(train_items)).astype(np.int64)
        length = np.bincount(pair_user, minlength=len(train_users))
        work = np.bincount(pair_item, weights=length[pair_user], minlength=len(train_items)).astype(np.int64)
        cache["train_incidence"] = (x, x.T.tocsr(), pop, work)
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
