r"""How evenly the attention of users spreads over items: the Gini index of rank-weighted exposure."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data.internal import check_choice, row_item_codes
from .._side_metric import SystemLevelMetric, split_constant
from .._weighting import GeometricWeight, RankWeight, as_rank_weight

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["ExposureGini"]

class ExposureGini(SystemLevelMetric):
    r"""Gini index of the exposure items get, each list position weighted by a browsing model.

    Item :math:`i`'s exposure sums the weight of every position it holds in the lists
    (of evaluated users, within the first k): :math:`E_i = \sum_u \sum_{p : L_u(p) = i} w(p)`.
    With :math:`E_1 \le \dots \le E_n` sorted ascending,

    .. math:: ExposureGini = \frac{\sum_{i=1}^{n} (2i - n - 1)\, E_i}{n \sum_{i=1}^{n} E_i}

    0 when every item gets the same exposure, towards 1 when a few items get it all.
    With equal weights it is :class:`GiniIndex`.

    LensKit's ``ExposureGini(n=k, items=..., weight=...)``
    (``lenskit/metrics/ranking/_gini.py``: exposure totals over the item vocabulary, then
    ``lenskit.stats.gini``) is ``ExposureGini(k, items="catalog")`` with LensKit's
    vocabulary as the catalog; both default to ``GeometricWeight(0.85)``.

    Parameters
    ----------
    k : int or list of int, optional
        Cutoff; None (default): whole lists.
    weight : RankWeight
        The weight of each position: ``GeometricWeight``, ``LogWeight`` or
        ``UniformWeight`` (:mod:`rankeval.metrics` rank weights; ``UniformWeight()`` gives
        :class:`GiniIndex` over the same items).
    items : {"recommended", "catalog"}
        Over the items recommended (default, as :class:`GiniIndex`), or over the catalog,
        items never recommended having exposure 0 (LensKit).
    name : str, optional
        Overrides the name ``"ExposureGini"``.

    Notes
    -----
    System level only: no per-user value. Lower is more equal (``higher_is_better =
    False``). ``items="catalog"`` needs the catalog (``catalog=`` or ``train=``);
    recommended items outside it are left out. NaN when no item is recommended. The
    system parts are integers per item (its lists, and its exposure in two 30-bit limbs: each
    weight is held to :math:`2^{-60}`), so buckets of users (Spark) merge exactly; the
    exposures are formed from the merged integers. Weights must be below :math:`2^{20}`.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [1.0, 1.0]})
    >>> # exposure with weights 1, 1/2: a = 2, b = c = 1/2 -> (-2 * .5 + 0 * .5 + 2 * 2) / (3 * 3)
    >>> metric = rk.ExposureGini(weight=rk.GeometricWeight(0.5))
    >>> print(f"{metric.perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")
    0.3333
    """

    stem = "ExposureGini"
    higher_is_better = False
    names = ("ExposureGini",)

    def __init__(self, k: int | None = None, weight: RankWeight = GeometricWeight(0.85),  # noqa: B008
                 items: str = "recommended", *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.weight = as_rank_weight(weight, "weight", "ExposureGini")
        self.items = check_choice("items", items, ("recommended", "catalog"))
        self.needs_side = ("catalog",) if self.items == "catalog" else ()

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        view = lists.head(self.k)
        codes = row_item_codes(view).astype(np.int64)
        position = view.position.astype(np.int64)
        if self.items == "catalog":
            keep = self.side_data(lists).in_catalog[codes]
            codes, position = codes[keep], position[keep]
        n_items = len(lists.item_uniques)
        longest = int(position.max(initial=0))
        high, low = _limbs(self.weight.weights(np.arange(1, longest + 1)))
        rows = np.bincount(codes, minlength=n_items)
        if n_items * longest <= 50_000_000:  # counts per (item, position), then one integer product
            at = np.bincount(codes * longest + (position - 1), minlength=n_items * longest).reshape(n_items, longest)
            hi, lo = at @ high, at @ low
        else:  # a huge catalog with long lists: per row, summed exactly in integers
            hi, lo = np.zeros(n_items, dtype=np.int64), np.zeros(n_items, dtype=np.int64)
            np.add.at(hi, codes, high[position - 1])
            np.add.at(lo, codes, low[position - 1])
        held = rows > 0
        index = pd.Index(lists.item_uniques[held])
        parts: dict[str, Any] = {"lists": pd.Series(rows[held].astype(np.int64), index=index),
                                 "hi": pd.Series(hi[held], index=index), "lo": pd.Series(lo[held], index=index)}
        if self.items == "catalog":
            parts["catalog"] = np.array([float(self.side_data(lists).n_catalog)])
            parts["parts"] = np.array([1.0])
        return parts

    def system_value(self, parts: dict[str, Any]) -> float:
        held = parts["lists"]
        m = len(held)
        if m == 0:
            return float("nan")
        hi = parts["hi"].reindex(held.index).to_numpy().astype(np.float64)
        lo = parts["lo"].reindex(held.index).to_numpy().astype(np.float64)
        totals = np.sort(np.ldexp(hi, -_BITS) + np.ldexp(lo, -2 * _BITS))
        n = m if self.items == "recommended" else int(round(split_constant(parts, "catalog")))
        total = math.fsum(totals)
        if total == 0:
            return float("nan")
        ranks = 2.0 * np.arange(n - m + 1, n + 1, dtype=np.float64) - n - 1
        return math.fsum(ranks * totals) / (n * total)


#: bits of each of the two integer limbs that hold a weight (2**-60 absolute resolution)
_BITS = 30


def _limbs(weights: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each weight as ``hi * 2**-30 + lo * 2**-60`` with integers ``hi``, ``lo``: sums of integers add
    exactly over any cut of the users (``hi`` stays far from int64's limit for weights below 2**20)."""
    scaled = np.ldexp(weights, _BITS)
    high = np.floor(scaled)
    low = np.rint(np.ldexp(scaled - high, _BITS))
    return high.astype(np.int64), low.astype(np.int64)
