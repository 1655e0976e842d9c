r"""Intra-list diversity: the mean pairwise distance between the features of the recommended items.

:math:`L_u` the first k items of user u's list; the features come from ``item_features=``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import CHUNK_ROWS, row_item_codes, warn_featureless
from .._side_metric import SideMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["IntraListDiversity"]


class IntraListDiversity(SideMetric):
    r"""Mean pairwise distance between the features of the recommended items (ILD).

    .. math:: ILD_u = \frac{2}{m_u (m_u - 1)} \sum_{i < j \in L_u} d(i, j)

    over the :math:`m_u` items of :math:`L_u` that have features. Vectors:
    :math:`d = 1 - \cos(x_i, x_j)`; category sets: :math:`d = 1 - |A_i \cap A_j| /
    |A_i \cup A_j|` (Jaccard). Computed without a loop over users: for vectors from the
    per-user sums of unit vectors, :math:`\sum_{i<j} \cos = (\lVert \sum_i \hat x_i
    \rVert^2 - \sum_i \lVert \hat x_i \rVert^2) / 2`; for sets from a sparse incidence
    matrix whose block-diagonal Gram matrix holds every in-list intersection.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"ILD"``.

    Notes
    -----
    Needs ``item_features=``. Listed items without features (absent from
    ``item_features``, an empty set or an all-zero vector: no distance is defined) are
    left out, with a :class:`~rankeval.RankevalWarning` that counts them. NaN for a user
    with fewer than 2 such items.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> features = pd.DataFrame({"genres": [{"drama"}, {"drama", "war"}, {"comedy"}]}, index=list("abc"))
    >>> pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": list("abc")})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, item_features=features)
    >>> print(f"{rk.IntraListDiversity().perform(split).users.iloc[0, 0]:.4f}")  # (1/2 + 1 + 1) / 3
    0.8333
    """

    stem = "ILD"
    needs_side = ("item_features",)
    names = ("ILD",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        rows = self._rows(lists)
        feature = side.feature_row[row_item_codes(lists)]
        has = rows & (feature >= 0)
        has[has] = side.side.feature_valid[feature[has]]
        n_missing = int(rows.sum() - has.sum())
        if n_missing:
            missing = rows & ~has
            warn_featureless(self, n_missing, int(rows.sum()), pd.unique(lists.item_ids[missing])[:5].tolist())
        m = lists.segment_sum(has).astype(np.int64)
        offsets = np.zeros(lists.n_users + 1, dtype=np.int64)
        np.cumsum(m, out=offsets[1:])
        f = feature[has]
        if side.side.features_kind == "vectors":
            similar = _vector_pair_sums(side.side.feature_unit_vectors, f, offsets)
        else:
            similar = _set_pair_sums(side.side.feature_set_incidence, f, offsets)
        pairs = m * (m - 1) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m >= 2, 1.0 - similar / pairs, np.nan)


def _user_chunks(offsets: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Ranges of users [a, b) whose rows add up to about ``CHUNK_ROWS``."""
    n_users = len(offsets) - 1
    bounds = np.searchsorted(offsets, np.arange(0, offsets[-1] + CHUNK_ROWS, CHUNK_ROWS), side="left")
    bounds = np.unique(np.clip(np.concatenate([[0], bounds, [n_users]]), 0, n_users))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _vector_pair_sums(unit: NDArray[np.float64], f: NDArray[np.int64], offsets: NDArray[np.int64]
                      ) -> NDArray[np.float64]:
    """Per user: the sum over pairs of rows of their cosine similarity (unit rows ``unit[f]``)."""
    n_users = len(offsets) - 1
    out = np.zeros(n_users)
    counts = np.diff(offsets)
    for a, b in _user_chunks(offsets):
        users = a + np.flatnonzero(counts[a:b] > 0)
        if len(users) == 0:
            continue
        r0, r1 = int(offsets[users[0]]), int(offsets[users[-1] + 1])
        block = unit[f[r0:r1]]
        starts = offsets[users] - r0
        total = np.add.reduceat(block, starts, axis=0)
        own = np.add.reduceat(np.einsum("ij,ij->i", block, block), starts)
        out[users] = (np.einsum("ij,ij->i", total, total) - own) / 2.0
    return out


def _set_pair_sums(incidence: Any, f: NDArray[np.int64], offsets: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per user: the sum over pairs of rows of the Jaccard similarity of their category sets."""
    from scipy import sparse

    n_users = len(offsets) - 1
    out = np.zeros(n_users)
    sizes_all = np.diff(incidence.indptr)
    for a, b in _user_chunks(offsets):
        r0, r1 = int(offsets[a]), int(offsets[b])
        if r1 - r0 < 2:
            continue
        rows = incidence[f[r0:r1]]  # one row per listed item: its categories
        user = np.repeat(np.arange(b - a), np.diff(offsets[a:b + 1]))
        # columns (user, category): rows of different users share no column, so the Gram
        # matrix is block diagonal and holds exactly the in-list intersections
        row_of_entry = np.repeat(np.arange(r1 - r0), np.diff(rows.indptr))
        keys = user[row_of_entry].astype(np.int64) * incidence.shape[1] + rows.indices
        _, columns = np.unique(keys, return_inverse=True)
        blocked = sparse.csr_matrix((np.ones(len(columns), dtype=np.int32), columns.ravel(), rows.indptr),
                                    shape=(r1 - r0, int(columns.max()) + 1 if len(columns) else 1))
        gram = (blocked @ blocked.T).tocoo()
        upper = gram.row < gram.col
        i, j, inter = gram.row[upper], gram.col[upper], gram.data[upper].astype(np.float64)
        sizes = sizes_all[f[r0:r1]].astype(np.float64)
        jaccard = inter / (sizes[i] + sizes[j] - inter)
        out[a:b] = np.bincount(user[i], weights=jaccard, minlength=b - a)
    return out
