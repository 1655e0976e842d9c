r"""How the recommendations spread over the items: catalog coverage, Gini index, Shannon entropy.

System-level metrics (no per-user value); :math:`c_i` is the number of lists (of
evaluated users, cut at k) holding item i, :math:`C` the catalog.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_choice, check_number
from .._side_metric import SystemLevelMetric, split_constant

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["CatalogCoverage", "GiniIndex", "ShannonEntropy"]


class CatalogCoverage(SystemLevelMetric):
    r"""Share of the catalog recommended to at least one user (within the first k).

    .. math:: Coverage = \frac{|C \cap \bigcup_u L_u|}{|C|}

    ClayRS's ``CatalogCoverage(catalog, top_n=k)`` and ``PredictionCoverage(catalog)``
    (which report a percentage rounded to 2 decimals: ``round(100 * Coverage, 2)``),
    RecBole's ``ItemCoverage@k`` (over every item of the dataset: pass that as the
    catalog), Elliot's ``ItemCoverage`` (a count, not a share: ``Coverage * |C|``).

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"Coverage"``.

    Notes
    -----
    Needs the catalog (``catalog=``, or ``train=``: by default the catalog is every item
    of train and of the split's truth). Recommended items outside the catalog do not
    count. System level only: no per-user value. Only evaluated users' lists count (those
    with truth ratings), as in ClayRS, which keeps the users common to pred and truth.
    ClayRS's ``CatalogCoverage(k=n)``, which samples n users at random, is not
    reproduced.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [5.0, 4.0]})
    >>> split = rk.Split(pred, truth, catalog=["a", "b", "c", "d", "e"])
    >>> print(f"{rk.CatalogCoverage().perform(split).system.iloc[0, 0]:.2f}")
    0.60
    >>> print(f"{rk.CatalogCoverage(k=1).perform(split).system.iloc[0, 0]:.2f}")
    0.20
    """

    stem = "Coverage"
    needs_side = ("catalog",)
    names = ("Coverage",)
    aliases = ("itemcoverage",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        side = self.side_data(lists)
        counts = self._item_counts(lists)
        return {"items": self._keyed(lists, counts, (counts > 0) & side.in_catalog),
                "catalog": np.array([float(side.n_catalog)]), "parts": np.array([1.0])}

    def system_value(self, parts: dict[str, Any]) -> float:
        items = parts["items"]
        return float(int((items > 0).sum()) / split_constant(parts, "catalog"))


class GiniIndex(SystemLevelMetric):
    r"""Inequality of how often items are recommended (0: all equally often, towards 1: a few items).

    With the counts :math:`x_1 \le \dots \le x_n` sorted ascending,

    .. math:: Gini = \frac{\sum_{i=1}^{n} (2i - n - 1)\, x_i}{n \sum_{i=1}^{n} x_i}

    ``items="recommended"`` (default): over the n distinct items recommended (within the
    first k), as ClayRS's ``GiniIndex(top_n=k)`` (``(n + 1 - 2 * sum(cumsum(x)) /
    sum(x)) / n``, the same value). ``items="catalog"``: over every catalog item, those
    never recommended counting 0, as RecBole's ``GiniIndex@k`` (with its ``num_items``
    as the catalog). Elliot's ``Gini`` is a diversity, :math:`1 - Gini \cdot n / (n - 1)`
    over the catalog.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    items : {"recommended", "catalog"}
        Which items the distribution is over.
    name : str, optional
        Overrides the name ``"Gini"``.

    Notes
    -----
    ``items="catalog"`` needs the catalog (``catalog=`` or ``train=``); recommended items
    outside it are left out. The value is computed from the integer counts exactly and
    rounded once. NaN when no (catalog) item is recommended. Lower is more equal
    (``higher_is_better = False``). System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": list("abacad")})
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": list("bcd"), "score": [1.0] * 3})
    >>> split = rk.Split(pred, truth, catalog=list("abcdef"))
    >>> print(f"{rk.GiniIndex().perform(split).system.iloc[0, 0]:.4f}")  # counts 1, 1, 1, 3
    0.2500
    >>> print(f"{rk.GiniIndex(items='catalog').perform(split).system.iloc[0, 0]:.4f}")  # 0, 0, 1, 1, 1, 3
    0.5000
    """

    stem = "Gini"
    higher_is_better = False
    names = ("Gini",)
    aliases = ("giniindex",)

    def __init__(self, k: int | None = None, items: str = "recommended", *, name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.items = check_choice("items", items, ("recommended", "catalog"))
        self.needs_side = ("catalog",) if self.items == "catalog" else ()

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        counts = self._item_counts(lists)
        keep = counts > 0
        if self.items == "recommended":
            return {"items": self._keyed(lists, counts, keep)}
        side = self.side_data(lists)
        return {"items": self._keyed(lists, counts, keep & side.in_catalog),
                "catalog": np.array([float(side.n_catalog)]), "parts": np.array([1.0])}

    def system_value(self, parts: dict[str, Any]) -> float:
        x = np.sort(parts["items"].to_numpy()[parts["items"].to_numpy() > 0]).astype(object)
        m = len(x)
        n = m if self.items == "recommended" else int(round(split_constant(parts, "catalog")))
        total = int(x.sum()) if m else 0
        if total == 0:
            return float("nan")
        weights = (2 * np.arange(n - m + 1, n + 1, dtype=object) - n - 1)
        numerator = int((weights * x).sum())  # exact integers: no rounding before the one division
        return float(Fraction(numerator, n * total))


class ShannonEntropy(SystemLevelMetric):
    r"""Entropy of the distribution of recommendations over items.

    .. math:: H = -\sum_{i} p_i \log_b p_i, \qquad p_i = \frac{c_i}{\sum_j c_j}

    over the items recommended within the first k (:math:`c_i` lists hold item i).
    Higher: recommendations spread over more items, more evenly.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    base : float
        Base of the logarithm: 2 (default, bits; Elliot's ``SEntropy`` on lists of equal
        length), ``math.e`` (nats, RecBole).
    per_item : bool
        Divide H by the number of distinct items recommended, as RecBole's
        ``ShannonEntropy@k`` does (``result / len(item_count)``).
    name : str, optional
        Overrides the name ``"Entropy"``.

    Notes
    -----
    RecBole's value is ``ShannonEntropy(k, base=math.e, per_item=True)`` (its lists all
    have k items). Needs no side data. System level only.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": ["a", "b", "a", "c"]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"], "score": [5.0, 4.0]})
    >>> print(f"{rk.ShannonEntropy().perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")  # p = 1/2, 1/4, 1/4
    1.5000
    """

    stem = "Entropy"
    names = ("Entropy",)
    aliases = ("shannonentropy",)

    def __init__(self, k: int | None = None, base: float = 2.0, per_item: bool = False, *,
                 name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.base = check_number("base", base, 0, None, why=" other than 1")
        if self.base == 1:  # no logarithm: the one point of the interval left out
            raise ValueError(f"`base` must be a finite number > 0 other than 1, got {base!r}")
        if not isinstance(per_item, (bool, np.bool_)):
            raise ValueError(f"`per_item` must be True or False, got {per_item!r}")
        self.per_item = bool(per_item)

    def system_parts(self, lists: RankedLists, values: NDArray[np.float64]) -> dict[str, Any]:
        counts = self._item_counts(lists)
        return {"items": self._keyed(lists, counts, counts > 0)}

    def system_value(self, parts: dict[str, Any]) -> float:
        c = np.sort(parts["items"].to_numpy().astype(np.float64))
        c = c[c > 0]
        if len(c) == 0:
            return float("nan")
        p = c / math.fsum(c)
        h = math.fsum(-p * np.log(p)) / math.log(self.base)
        return h / len(c) if self.per_item else h + 0.0
