r"""Propensities: the probability that a relevant (user, item) interaction is observed.

Three forms (docs/unbiased.md derives and compares them):

- ``given``: the caller's numbers, one per item (a Series item -> propensity) or one per
  (user, item) pair (a frame with a propensity column, e.g. a column of the truth frame);
- ``popularity``: the normalised popularity :math:`p_i = (n_i / \max_j n_j)^{\beta}`
  (Steck 2011; Cornac), :math:`n_i` the item's distinct training users;
- ``power_law``: Yang et al.'s (RecSys 2018) user-independent propensity
  :math:`p_i \propto (n_i)^{(\gamma + 1)/2}`, scaled so that the most popular item has
  :math:`p = 1`; :math:`\gamma` given, or fitted to the training popularity by the discrete
  power-law maximum likelihood (Clauset, Shalizi and Newman 2009, eq. 3.7, ``x_min = 1``).

A propensity outside (0, 1] is a ValueError naming the items; an item that needs one and has
none is a ValueError for ``given`` and, for the two estimated forms, an item without training
interactions gets :math:`n_i = 1` (the least popularity observed) with a warning that counts
the truth rows. ``floor`` (on :math:`p`) and ``cap`` (on :math:`w = 1/p`) clip; the clipped
relevant truth rows are counted in a :class:`PropensityClippedWarning`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ...data import internal as data_internal
from ...data.internal import check_number, is_frame, require_columns, require_side, to_pandas
from ...exceptions import RankevalWarning

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Propensity", "PropensityClippedWarning", "UnseenItemsWarning", "FORMS", "fit_power_law_exponent"]

FORMS = ("given", "popularity", "power_law")


class PropensityClippedWarning(RankevalWarning):
    """Propensities below ``floor`` (or weights above ``cap``) were clipped (the message counts the rows)."""


class UnseenItemsWarning(RankevalWarning):
    """Relevant truth items without training interactions were given the popularity 1 (the message counts them)."""


def fit_power_law_exponent(counts: Any) -> float:
    r"""The exponent :math:`\gamma` of a discrete power law :math:`P(n) \propto n^{-\gamma}` fitted to ``counts``.

    .. math:: \hat\gamma = 1 + m \left( \sum_{i=1}^{m} \ln \frac{n_i}{x_{\min} - 1/2} \right)^{-1},
              \qquad x_{\min} = 1

    the approximate maximum-likelihood estimator of Clauset, Shalizi and Newman (SIAM Review
    2009, eq. 3.7) over the positive counts.

    Parameters
    ----------
    counts : array of int
        Item popularities (counts of 0 are left out).
    """
    n = np.asarray(counts, dtype=np.float64)
    n = n[n > 0]
    if not len(n):
        raise ValueError("`train` has no item with an interaction: no power law can be fitted")
    total = float(np.sum(np.log(n / 0.5)))
    return 1.0 + len(n) / total


class Propensity:
    r"""A model of the propensity :math:`p_{u,i}` of every relevant truth item.

    Build it with :meth:`given`, :meth:`popularity` or :meth:`power_law`. The estimated forms
    read the popularity from the split's ``train`` (side data: ``train=`` of Split, EvalModel,
    compare; ``--train`` on the command line).

    Parameters
    ----------
    form : {"popularity", "given", "power_law"}
        Which model (use the class methods rather than this constructor).
    values : Series, optional
        ``given``: item -> propensity, or (user, item) -> propensity (a two-level index).
    power : float, optional
        ``popularity``: the exponent :math:`\beta`; ``power_law``: :math:`\gamma` (None: fitted).
    floor : float, optional
        Propensities below it are raised to it (a weight of at most ``1/floor``).
    cap : float, optional
        Weights :math:`1/p` above it are lowered to it.
    """

    def __init__(self, form: str = "popularity", values: pd.Series | None = None, power: float | None = 0.5, *,
                 floor: float | None = None, cap: float | None = None) -> None:
        if form not in FORMS:
            raise ValueError(f"`form` must be one of {list(FORMS)}, got {form!r}")
        self.form, self.values = form, values
        self.power = None if power is None else _positive("power", power)
        self.floor = None if floor is None else check_number("floor", floor, 0.0, 1.0, closed_high=True)
        self.cap = None if cap is None else _positive("cap", cap, at_least_one=True)
        self.needs_side: tuple[str, ...] = () if form == "given" else ("train",)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def given(cls, values: Any, *, column: str = "propensity", user_col: str = "user_id",
              item_col: str = "item_id", floor: float | None = None, cap: float | None = None) -> Propensity:
        """The caller's propensities: a Series item -> propensity, or a frame with ``item_col``,
        ``column`` and optionally ``user_col`` (then one propensity per (user, item) pair, e.g.
        the truth frame with a propensity column).

        Parameters
        ----------
        values : Series or DataFrame
            The propensities, each in (0, 1].
        column : str, default "propensity"
            The propensity column of a frame.
        user_col : str, default "user_id"
            The user column of a frame (per-pair propensities when present).
        item_col : str, default "item_id"
            The item column of a frame.
        floor : float, optional
            Propensities below it are raised to it.
        cap : float, optional
            Weights above it are lowered to it.
        """
        if is_frame(values):
            df = to_pandas(values, "propensity")
            require_columns(df, "propensity", [item_col, column])
            keys = [user_col, item_col] if user_col in df.columns else [item_col]
            series = pd.Series(df[column].to_numpy(), index=pd.MultiIndex.from_frame(df[keys]) if len(keys) == 2
                               else pd.Index(df[item_col].to_numpy()), name=column)
        elif isinstance(values, pd.Series):
            series = values.copy()
        elif isinstance(values, dict):
            series = pd.Series(values, dtype=np.float64)
        else:
            raise TypeError(f"`propensity` must be a Series item -> propensity or a frame with '{item_col}' and "
                            f"'{column}', got {type(values).__name__}")
        return cls("given", _checked(series), None, floor=floor, cap=cap)

    @classmethod
    def popularity(cls, power: float = 0.5, *, floor: float | None = None, cap: float | None = None) -> Propensity:
        r"""The normalised popularity :math:`p_i = (n_i / \max_j n_j)^{\beta}` (Steck; Cornac).

        Parameters
        ----------
        power : float, default 0.5
            :math:`\beta` > 0.
        floor : float, optional
            Propensities below it are raised to it.
        cap : float, optional
            Weights above it are lowered to it.
        """
        return cls("popularity", None, power, floor=floor, cap=cap)

    @classmethod
    def power_law(cls, gamma: float | None = None, *, floor: float | None = None,
                  cap: float | None = None) -> Propensity:
        r"""Yang et al.'s propensity :math:`p_i = (n_i / \max_j n_j)^{(\gamma + 1)/2}`.

        Parameters
        ----------
        gamma : float, optional
            :math:`\gamma` > 0; None fits it to the training popularity
            (:func:`fit_power_law_exponent`: the popularity distribution's exponent, which
            is not necessarily the paper's presentation-bias exponent; docs/unbiased.md).
        floor : float, optional
            Propensities below it are raised to it.
        cap : float, optional
            Weights above it are lowered to it.
        """
        return cls("power_law", None, gamma, floor=floor, cap=cap)

    # ------------------------------------------------------------------ identity
    def describe(self) -> str:
        """One line naming the model (the report's metric card, the CLI's header)."""
        if self.values is not None:
            per = "(user, item) pair" if isinstance(self.values.index, pd.MultiIndex) else "item"
            text = f"given, one per {per} ({len(self.values)} values)"
        elif self.form == "popularity":
            text = f"normalised popularity (n_i / max n)^{self.power:g} from train"
        else:
            gamma = "fitted" if self.power is None else f"{self.power:g}"
            text = f"power law (n_i / max n)^((gamma + 1) / 2), gamma {gamma}, from train (Yang et al. 2018)"
        if self.floor is not None:
            text += f", floor {self.floor:g}"
        if self.cap is not None:
            text += f", weight cap {self.cap:g}"
        return text

    def __repr__(self) -> str:
        return f"Propensity({self.describe()})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Propensity):
            return False
        same_values = (self.values is None and other.values is None) or (
            self.values is not None and other.values is not None and self.values.equals(other.values))
        return (self.form, self.power, self.floor, self.cap) == (other.form, other.power, other.floor,
                                                                  other.cap) and same_values

    def __hash__(self) -> int:
        return hash((self.form, self.power, self.floor, self.cap))

    # ------------------------------------------------------------------ per split
    def code_weights(self, lists: RankedLists, metric: object) -> NDArray[np.float64] | None:
        """:math:`w = 1/p`, clipped, of every item code of ``lists`` (None for per-pair
        propensities); computed once per split and threshold.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        metric : object
            The metric asking (named in errors and warnings).
        """
        return self._state(lists, metric)["code"]

    def truth_weights(self, lists: RankedLists, metric: object) -> NDArray[np.float64]:
        """:math:`w = 1/p`, clipped, of every truth row of ``lists`` (``truth_values``' order),
        0 on the rows that are not relevant; computed once per split and threshold.

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        metric : object
            The metric asking (named in errors and warnings).
        """
        state = self._state(lists, metric)
        if "truth" not in state:
            w = np.zeros(len(state["relevant"]))
            w[state["relevant"]] = state["code"][state["codes"]]
            state["truth"] = w
        return state["truth"]

    def weight_sums(self, lists: RankedLists, metric: object,
                    users: NDArray[np.integer] | None = None) -> NDArray[np.float64]:
        """:math:`W_u = \\sum_{i \\in S_u} w_i` of every user of ``lists``, or of ``users`` alone
        (SNIPS' normaliser).

        Parameters
        ----------
        lists : RankedLists
            The split's lists joined to its truth, at the metric's relevance threshold.
        metric : object
            The metric asking (named in errors and warnings).
        users : int array, optional
            Ascending, distinct user indices (0..n_users-1); None: every user (cached).
        """
        state = self._state(lists, metric)
        if "sums" in state or users is None or state["code"] is None:
            if "sums" not in state:
                state["sums"] = self._sums(lists, metric, state)
            return state["sums"] if users is None else state["sums"][users]
        # those users' relevant rows alone (they are grouped by user in truth order): each sum is of
        # the same values in the same order as over every user's, so it has the same bits
        if "offsets" not in state:
            state["offsets"] = np.zeros(lists.n_users + 1, dtype=np.int64)
            np.cumsum(lists.n_relevant, out=state["offsets"][1:])
        n_rel = lists.n_relevant[users]
        rows = data_internal.concat_ranges(state["offsets"][users], n_rel)
        offsets = np.zeros(len(users) + 1, dtype=np.int64)
        np.cumsum(n_rel, out=offsets[1:])
        return data_internal.segment_sum(state["code"][state["codes"][rows]], offsets)

    def _sums(self, lists: RankedLists, metric: object, state: dict[str, Any]) -> NDArray[np.float64]:
        if state["code"] is None:
            return data_internal.segment_sum(self.truth_weights(lists, metric), lists.truth_offsets)
        # the relevant rows alone, grouped by user in truth order: the same sums, fewer rows
        offsets = np.zeros(lists.n_users + 1, dtype=np.int64)
        np.cumsum(lists.n_relevant, out=offsets[1:])
        return data_internal.segment_sum(state["code"][state["codes"]], offsets)

    def _state(self, lists: RankedLists, metric: object) -> dict[str, Any]:
        key = f"propensity-weights {id(self)} {lists.relevant_threshold!r}"
        cache = lists.split_cache
        hit = cache.get(key)
        if hit is None or hit[0] is not self:  # this very model, not one that reused its id
            relevant = _relevant_truth_rows(lists)
            rows = np.flatnonzero(relevant)
            codes = lists.truth_item_codes[rows]  # a take of the rows: faster than the mask's gather
            state: dict[str, Any] = {"relevant": relevant, "codes": codes, "code": None}
            if self.values is not None and isinstance(self.values.index, pd.MultiIndex):
                p = self._given_pairs(lists, rows, codes, metric)
                w = np.zeros(len(relevant))
                w[rows] = self._clipped(p, np.ones(len(p), dtype=np.int64), metric)
                state["truth"] = w
            else:
                rows_per_code = np.bincount(codes, minlength=len(lists.item_uniques) + len(lists.truth_only_item_ids))
                state["code"] = self._clipped(self._per_code(lists, rows_per_code, metric), rows_per_code, metric)
            hit = (self, state)
            cache[key] = hit
        return hit[1]

    def _per_code(self, lists: RankedLists, rows_per_code: NDArray[np.int64], metric: object) -> NDArray[np.float64]:
        """The propensity of every item code (NaN where none is needed and none is known);
        ``rows_per_code`` counts the relevant truth rows of each code."""
        items = _item_ids(lists)
        needed = rows_per_code > 0
        n_rows = int(rows_per_code.sum())
        if self.form == "given":
            assert self.values is not None
            at = self.values.index.get_indexer(pd.Index(items))
            missing = needed & (at < 0)
            if missing.any():
                n_missing = int(rows_per_code[missing].sum())
                raise ValueError(f"`propensity` has no value for {n_missing} of {n_rows} relevant truth rows of "
                                 f"{metric} (items), e.g. items {items[missing][:5].tolist()}: give a propensity "
                                 f"for every relevant truth item")
            return np.where(at >= 0, self.values.to_numpy(dtype=np.float64)[np.maximum(at, 0)], np.nan)
        side = require_side(lists, metric, self.needs_side).side
        pop = side.item_popularity()
        at = pop.index.get_indexer(pd.Index(items))
        counts = np.where(at >= 0, pop.to_numpy()[np.maximum(at, 0)], 0).astype(np.float64)
        unseen = needed & (counts == 0)
        if unseen.any():
            warnings.warn(UnseenItemsWarning(
                f"{metric}: {int(rows_per_code[unseen].sum())} of {n_rows} relevant truth rows hold items without "
                f"training interactions, e.g. {items[unseen][:5].tolist()}; they get the popularity 1 (the "
                f"least observed)"), stacklevel=6)
        counts[counts == 0] = 1.0
        gamma = self.power if self.power is not None else fit_power_law_exponent(pop.to_numpy())
        exponent = gamma if self.form == "popularity" else (gamma + 1.0) / 2.0
        return np.power(counts / max(float(pop.max()), 1.0), exponent)

    def _given_pairs(self, lists: RankedLists, rows: NDArray[np.int64], codes: NDArray[Any],
                     metric: object) -> NDArray[np.float64]:
        values = self.values
        assert values is not None
        items = _item_ids(lists)[codes]
        users = np.repeat(lists.user_ids, np.diff(lists.truth_offsets))[rows]
        at = values.index.get_indexer(pd.MultiIndex.from_arrays([users, items]))
        missing = at < 0
        if missing.any():
            raise ValueError(f"`propensity` has no value for {int(missing.sum())} of {len(rows)} relevant truth "
                             f"rows of {metric} ((user, item) pairs), e.g. items "
                             f"{pd.unique(items[missing])[:5].tolist()}: give a propensity for every relevant "
                             f"truth item")
        return values.to_numpy(dtype=np.float64)[at]

    def _clipped(self, p: NDArray[np.float64], rows: NDArray[np.int64], metric: object) -> NDArray[np.float64]:
        """``1/p`` clipped to ``floor`` and ``cap``; ``rows`` counts the relevant truth rows of
        each entry of ``p`` (what the warning counts)."""
        p = p.copy()
        low = np.zeros(len(p), dtype=bool) if self.floor is None else p < self.floor
        if self.floor is not None:
            p[low] = self.floor
        with np.errstate(divide="ignore"):
            w = 1.0 / p
        high = np.zeros(len(p), dtype=bool) if self.cap is None else w > self.cap
        if self.cap is not None:
            w[high] = self.cap
        n_clipped = int(rows[low | high].sum())
        if n_clipped:
            warnings.warn(PropensityClippedWarning(
                f"{metric}: {n_clipped} of {int(rows.sum())} relevant truth rows had their propensity clipped "
                f"({self.describe()})"), stacklevel=6)
        return w


def _relevant_truth_rows(lists: RankedLists) -> NDArray[np.bool_]:
    """Whether each truth row is relevant at ``lists``' threshold (the listed rows' rule)."""
    if lists.relevant_threshold is not None:
        return np.asarray(lists.truth_values >= lists.relevant_threshold)
    threshold = np.repeat(lists.threshold, np.diff(lists.truth_offsets))
    return np.asarray(lists.truth_values >= threshold)


def _item_ids(lists: RankedLists) -> NDArray[Any]:
    """The caller's id of every item code (listed items, then the truth items no list holds)."""
    listed, others = lists.item_uniques, lists.truth_only_item_ids
    if not len(others):
        return np.asarray(listed)
    if listed.dtype != others.dtype:
        listed, others = listed.astype(object), others.astype(object)
    return np.concatenate([listed, others])


def _positive(name: str, value: Any, *, at_least_one: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0 \
            or (at_least_one and value < 1):
        bound = ">= 1" if at_least_one else "> 0"
        raise ValueError(f"`{name}` must be a finite number {bound}, got {value!r}")
    return float(value)


def _checked(series: pd.Series) -> pd.Series:
    """``series`` as float propensities in (0, 1], else a ValueError naming the items."""
    try:
        values = pd.to_numeric(series, errors="raise").astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`propensity` must hold numbers in (0, 1], got values such as "
                         f"{series.head(3).tolist()}") from exc
    bad = ~((values > 0) & (values <= 1))
    if bad.any():
        shown = {k: v for k, v in list(values[bad].items())[:5]}
        raise ValueError(f"`propensity` must be in (0, 1] (a probability of observing the item), got "
                         f"{int(bad.sum())} values outside it (NaN included), e.g. {shown}")
    if not values.index.is_unique:
        dup = values.index[values.index.duplicated()].unique()[:5].tolist()
        raise ValueError(f"`propensity` gives {int(values.index.duplicated().sum())} keys twice, e.g. {dup}: "
                         f"one propensity per item (or per (user, item) pair)")
    return values
