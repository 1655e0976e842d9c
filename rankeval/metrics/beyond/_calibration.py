r"""Calibration (Steck 2018): how far the genre mix of a list is from the genre mix of its user's history.

The genres come from ``item_features=`` as one column of category sets; the history from
``train=``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import argsort_ids, check_choice, check_number, row_item_codes
from .._side_metric import SideMetric
from .._weighting import LogWeight, RankWeight, UniformWeight, as_rank_weight
from ._history import evaluated_history, id_ranks, pair_scores, train_history

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Miscalibration", "genre_matrix", "canonical_columns"]

#: up to this many genres, per-user genre masses are dense arrays (n_users x genres); sparse beyond
DENSE_GENRES = 64
#: the strings ``rank_weight`` took before the rank-weight objects, and the objects they stand for
RANK_WEIGHT_ALIASES: dict[str, RankWeight] = {"uniform": UniformWeight(), "log2": LogWeight(offset=1)}


class Miscalibration(SideMetric):
    r"""Miscalibration of a list: the KL divergence of its genre distribution from the user's history's (Steck).

    Steck (RecSys 2018, "Calibrated recommendations", eqs. 1-3): every item :math:`i`
    spreads one unit evenly over its genres, :math:`p(g|i) = 1/|G_i|` for
    :math:`g \in G_i`; the history :math:`H_u` (the user's distinct items in ``train``)
    and the list :math:`L_u` (its first k items) mix them with weights,

    .. math::

        p(g|u) = \frac{\sum_{i \in H_u} w_{u,i}\, p(g|i)}{\sum_{i \in H_u} w_{u,i}}, \qquad
        q(g|u) = \frac{\sum_{i \in L_u} w_{r(i)}\, p(g|i)}{\sum_{i \in L_u} w_{r(i)}},

    and the miscalibration is

    .. math::

        C_{KL}(p, q) = \sum_g p(g|u) \log \frac{p(g|u)}{\tilde q(g|u)}, \qquad
        \tilde q = (1 - \alpha)\, q + \alpha\, p,

    summed over the genres with :math:`p(g|u) > 0` (:math:`0 \log 0 = 0`); the mix with
    :math:`\alpha` keeps it finite when the list misses a genre of the history. 0 is a
    perfectly calibrated list; lower is better.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    alpha : float
        In [0, 1): Steck's smoothing (0.01 in the paper). With 0, a history genre absent
        from the list makes the value infinite.
    rank_weight : {"uniform", "log2"} or RankWeight
        :math:`w_{r}`: 1 for every listed item (default, ``UniformWeight()``), or
        :math:`1/\log_2(r + 1)` at rank r (``"log2"``, ``LogWeight(offset=1)``), or any rank
        weight object (``GeometricWeight(0.85)``, ...): Steck allows rank weights and gives
        no fixed form.
    history_weight : {"uniform", "score"}
        :math:`w_{u,i}`: 1 for every distinct history item (default), or the item's
        ``score`` in ``train`` (e.g. a rating or a play count; repeated rows of a pair add
        up). Steck weighs by e.g. recency; pass such a weight as ``train``'s score.
    base : float
        Base of the logarithm (default e, as Steck's :math:`\log`; 2 gives bits).
    name : str, optional
        Overrides the name ``"Miscalibration"``.

    Notes
    -----
    Needs ``train=`` and ``item_features=`` holding one column of category sets
    (numeric vectors are a ValueError). Items without genres (absent from
    ``item_features`` or an empty set) carry no genre mass and are left out of both
    sums, weights included. Undefined cases: NaN for a user with no history item with
    genres (not in ``train``) or no listed item with genres.

    Peers: LibRec's ``MiscalibrationEvaluator`` (Java; net.librec.eval.fairness) is the
    only other implementation. It differs on three points, so its numbers are not
    reproduced: it counts each genre of an item fully (1, not :math:`1/|G_i|`) and
    divides by the number of items, so its "distributions" do not add up to 1 for
    multi-genre items; it passes the list's distribution as :math:`p` and the history's
    as :math:`q`, the reverse of Steck; and it uses log base 2.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> genres = pd.DataFrame({"genres": [{"drama"}, {"comedy"}, {"drama", "comedy"}]}, index=list("abc"))
    >>> train = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "c"]})   # p: drama 3/4, comedy 1/4
    >>> pred = pd.DataFrame({"user_id": [1], "item_id": ["b"]})            # q: comedy 1
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["b"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train, item_features=genres)
    >>> value = rk.Miscalibration().perform(split).users.iloc[0, 0]  # 3/4 ln(.75/.0075) + 1/4 ln(.25/.9925)
    >>> print(f"{value:.4f}")
    3.1092
    """

    stem = "Miscalibration"
    needs_side = ("train", "item_features")
    higher_is_better = False
    names = ("Miscalibration",)

    def __init__(self, k: int | None = None, alpha: float = 0.01, rank_weight: str | RankWeight = "uniform",
                 history_weight: str = "uniform", base: float = math.e, *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.alpha = check_number("alpha", alpha, 0, 1, closed_low=True)
        check_number("base", base, 1, None)
        # the weight as given (the repr shows it, so the aliases' reprs do not change)
        self.rank_weight = rank_weight
        self._rank_weight = as_rank_weight(rank_weight, "rank_weight", "Miscalibration", aliases=RANK_WEIGHT_ALIASES)
        self.history_weight = check_choice("history_weight", history_weight, ("uniform", "score"))
        self.base = float(base)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        from scipy import sparse

        side = self.side_data(lists)
        genres, rank = genre_matrix(lists, side, self)
        n_users, n_cols = lists.n_users, genres.shape[0]
        # the list: one weight per listed row with genres, in list order
        rows = self._rows(lists)
        frow = side.feature_row[row_item_codes(lists)]
        has = rows & (frow >= 0)
        has[has] = side.side.feature_valid[frow[has]]
        w = self._rank_weight.weights(lists.position)
        w = np.where(has, w, 0.0)
        hist = evaluated_history(lists, side)
        hrow = _train_feature_rows(lists, side)[hist.item]
        hw = np.ones(len(hrow)) if self.history_weight == "uniform" else pair_scores(side.side)[hist.pair]
        hhas = hrow >= 0
        hhas[hhas] = side.side.feature_valid[hrow[hhas]]
        hw = np.where(hhas, hw, 0.0)
        q_total = lists.segment_sum(w)
        p_total = np.add.reduceat(np.append(hw, 0.0), hist.offsets[:-1]) if len(hw) else np.zeros(n_users)
        p_total = np.where(hist.size > 0, p_total, 0.0)
        listed_at = (lists.user_of_row[has], rank[frow[has]], w[has])
        history_at = (hist.user[hhas], rank[hrow[hhas]], hw[hhas])
        if genres.shape[1] <= DENSE_GENRES:  # few genres (the usual case): dense per-user arrays
            p_mass = _dense_mass(history_at, genres, n_users)
            q_mass = _dense_mass(listed_at, genres, n_users)
            return _kl_dense(p_mass, p_total, q_mass, q_total, self.alpha, self.base)
        listed = sparse.csr_matrix((listed_at[2], listed_at[:2]), shape=(n_users, n_cols))
        history = sparse.csr_matrix((history_at[2], history_at[:2]), shape=(n_users, n_cols))
        return _kl(history @ genres, p_total, listed @ genres, q_total, self.alpha, self.base)


def _dense_mass(entries: tuple[NDArray[Any], NDArray[Any], NDArray[Any]], genres: Any,
                n_users: int) -> NDArray[np.float64]:
    """Per user and genre: the sum of weight x p(g|i) over the (user, item, weight) entries, in entry order."""
    user, item, weight = entries
    counts = np.diff(genres.indptr)[item]
    starts = np.repeat(genres.indptr[item] - (np.cumsum(counts) - counts), counts)
    at = starts + np.arange(int(counts.sum()))
    n_genres = genres.shape[1]
    keys = np.repeat(np.asarray(user, dtype=np.int64), counts) * n_genres + genres.indices[at]
    mass = np.bincount(keys, weights=genres.data[at] * np.repeat(weight, counts), minlength=n_users * n_genres)
    return np.asarray(mass, dtype=np.float64).reshape(n_users, n_genres)


def _kl_dense(p_mass: NDArray[np.float64], p_total: NDArray[np.float64], q_mass: NDArray[np.float64],
              q_total: NDArray[np.float64], alpha: float, base: float) -> NDArray[np.float64]:
    """:func:`_kl` on dense users x genres arrays."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = p_mass / p_total[:, None]
        q = q_mass / q_total[:, None]
        mixed = (1.0 - alpha) * q + alpha * p
        terms = np.where(p > 0, p * (np.log(p / mixed) / math.log(base)), 0.0)
    defined = (p_total > 0) & (q_total > 0)
    return np.where(defined, terms.sum(axis=1), np.nan)


def _kl(p_mass: Any, p_total: NDArray[np.float64], q_mass: Any, q_total: NDArray[np.float64], alpha: float,
        base: float) -> NDArray[np.float64]:
    """Per user: sum over p's genres of p log(p / ((1 - alpha) q + alpha p)), genres in a fixed order."""
    from scipy import sparse

    defined = (p_total > 0) & (q_total > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sparse.diags(np.where(p_total > 0, 1.0 / p_total, 0.0)) @ p_mass
        q = sparse.diags(np.where(q_total > 0, 1.0 / q_total, 0.0)) @ q_mass
    p = sparse.csr_matrix(p)
    p.eliminate_zeros()
    p.sort_indices()
    mixed = sparse.csr_matrix((1.0 - alpha) * q + alpha * p).multiply(p.astype(bool)).tocsr()
    mixed.sort_indices()
    # q~ > 0 wherever p > 0 when alpha > 0; with alpha = 0 a missing genre gives q~ = 0 (infinite KL)
    q_at = np.zeros(p.nnz)
    at = np.searchsorted(_keys(p), _keys(mixed))
    q_at[at] = mixed.data
    with np.errstate(divide="ignore"):
        terms = p.data * (np.log(p.data / q_at) / math.log(base))
    sums = np.add.reduceat(np.append(terms, 0.0), p.indptr[:-1]) if p.nnz else np.zeros(len(p_total))
    return np.where(defined, np.where(np.diff(p.indptr) > 0, sums, 0.0), np.nan)


def _keys(m: Any) -> NDArray[np.int64]:
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    return rows * m.shape[1] + m.indices


def _train_feature_rows(lists: RankedLists, side: Any) -> NDArray[np.int64]:
    """Per training item: its row in ``item_features`` (-1 without one); cached per split."""
    cache = lists.split_cache
    if "train_feature_rows" not in cache:
        _, train_items, _, _ = train_history(side.side)
        cache["train_feature_rows"] = side.side.item_features.index.get_indexer(train_items).astype(np.int64)
    return cache["train_feature_rows"]


def genre_matrix(lists: RankedLists, side: Any, metric: object) -> tuple[Any, NDArray[np.int64]]:
    """The items' genre distributions (CSR, items by id x genres by label, row i = 1/|G_i| on i's genres)
    and, per row of ``item_features``, its row in that matrix; cached per split."""
    from scipy import sparse

    cache = lists.split_cache
    if "genre_matrix" not in cache:
        if side.side.features_kind != "sets":
            raise ValueError(f"{metric} needs genres: `item_features` must hold one column of category sets, "
                             f"got numeric vectors")
        incidence = side.side.feature_set_incidence
        rank = id_ranks(side.side.item_features.index)
        order = np.argsort(rank)
        sizes = np.diff(incidence.indptr).astype(np.float64)
        with np.errstate(divide="ignore"):
            spread = sparse.diags(np.where(sizes > 0, 1.0 / sizes, 0.0)) @ incidence.astype(np.float64)
        matrix = canonical_columns(sparse.csr_matrix(spread)[order], side.side.feature_categories)
        cache["genre_matrix"] = (matrix, rank)
    return cache["genre_matrix"]


def canonical_columns(matrix: Any, categories: pd.Index) -> Any:
    """``matrix`` (CSR, one column per category) with its columns in order of the category labels.

    The category codes follow the rows of ``item_features``; the labels' order does not, so
    sums over categories come out the same after any shuffle of the features.
    """
    order = np.asarray(argsort_ids(categories), dtype=np.int64)
    if len(order) < matrix.shape[1]:  # no category at all: one empty column
        order = np.arange(matrix.shape[1])
    out = matrix[:, order].tocsr()
    out.sort_indices()
    return out
