r"""Popularity-stratified evaluation (Jadidinejad, Macdonald and Ounis, TOIS 2021).

The truth rows are put into :math:`Q` strata by the propensity of their item: equal-width
bins over :math:`[0.99\,p_{\min},\ 1.01\,p_{\max}]` (:math:`p` over the truth rows), stratum
:math:`q` holding the rows with ``numpy.digitize(p, edges) == q`` -- the rule of Cornac's
``PropensityStratifiedEvaluation`` (``_build_stratified_dataset``), kept as it is so that the
strata are Cornac's. Every metric is evaluated on each stratum's truth rows alone (a user
with no truth row in the stratum is not evaluated there) and the stratum-weighted value is

.. math:: M^{strata} = \sum_{q} \frac{N_q}{N} M_q

with :math:`N_q` the stratum's truth rows and :math:`N` all of them (Cornac's ``PSTResult``
"Unbiased" row). The plain value over all truth rows is the row ``"all"``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...data import Split
from ...data.internal import require_columns, to_pandas
from .._base import RankingMetric
from ._propensity import Propensity, UnseenItemsWarning

__all__ = ["stratified", "strata_of", "STRATA_ALL", "STRATA_COMBINED"]

STRATA_ALL = "all"
STRATA_COMBINED = "strata"


def strata_of(propensities: Any, n_strata: int) -> np.ndarray:
    """The stratum (1..n_strata, as Cornac numbers them) of each propensity.

    Parameters
    ----------
    propensities : array of float
        One propensity per truth row.
    n_strata : int
        :math:`Q`, the number of equal-width bins.
    """
    if isinstance(n_strata, bool) or not isinstance(n_strata, (int, np.integer)) or n_strata < 1:
        raise ValueError(f"`n_strata` must be an integer >= 1, got {n_strata!r}")
    p = np.asarray(propensities, dtype=np.float64)
    low = p.min() - 0.01 * p.min()
    high = p.max() + 0.01 * p.max()
    width = (high - low) / n_strata
    return np.digitize(x=p, bins=np.arange(low, high, width))


def _truth_propensities(truth: pd.DataFrame, propensity: Propensity | pd.Series, train: Any, user_col: str,
                        item_col: str) -> np.ndarray:
    """The propensity of every truth row's item (a Series: item -> value, used as it is)."""
    items = truth[item_col].to_numpy()
    if isinstance(propensity, pd.Series):
        values = propensity
    elif propensity.form == "given":
        values = propensity.values
    else:
        if train is None:
            raise ValueError(f"propensity {propensity.describe()} needs `train=` (the training interactions)")
        train = to_pandas(train, "train")
        require_columns(train, "train", [user_col, item_col])
        counts = train.drop_duplicates([user_col, item_col])[item_col].value_counts()
        unseen = ~pd.Index(items).isin(counts.index)
        if unseen.any():  # as the weighted metrics do: the least observed popularity, counted
            warnings.warn(UnseenItemsWarning(
                f"strata: {int(unseen.sum())} of {len(truth)} truth rows hold items without training interactions, "
                f"e.g. {pd.unique(items[unseen])[:5].tolist()}; they get the popularity 1 (the least observed)"),
                stacklevel=3)
        values = _estimated(counts, propensity, pd.unique(items[unseen]))
    assert values is not None
    if isinstance(values.index, pd.MultiIndex):
        at = values.index.get_indexer(pd.MultiIndex.from_arrays([truth[user_col].to_numpy(), items]))
    else:
        at = values.index.get_indexer(pd.Index(items))
    missing = at < 0
    if missing.any():
        raise ValueError(f"`propensity` has no value for {int(missing.sum())} of {len(truth)} truth rows, e.g. "
                         f"items {pd.unique(items[missing])[:5].tolist()}: strata need one for every truth item")
    return values.to_numpy(dtype=np.float64)[at]


def _estimated(counts: pd.Series, propensity: Propensity, unseen: Any) -> pd.Series:
    """The estimated propensity of every item of ``counts`` (train's popularity) and of the
    ``unseen`` items (popularity 1), normalised by train's most popular item."""
    from ._propensity import fit_power_law_exponent
    if propensity.form == "popularity":
        power = propensity.power
    else:
        gamma = propensity.power if propensity.power is not None else fit_power_law_exponent(counts.to_numpy())
        power = (gamma + 1.0) / 2.0
    top = float(counts.max())
    every = pd.concat([counts, pd.Series(1, index=unseen)]) if len(unseen) else counts
    return (every / top).astype(np.float64) ** power


def stratified(pred: Any, truth: Any, metrics: Sequence[RankingMetric], propensity: Propensity | pd.Series,
               n_strata: int = 2, *, train: Any = None, user_col: str = "user_id", item_col: str = "item_id",
               **split_options: Any) -> pd.DataFrame:
    r"""Every metric on each popularity stratum of the truth, and their stratum-weighted value.

    Parameters
    ----------
    pred : DataFrame
        The lists (as :class:`~rankeval.Split` reads them).
    truth : DataFrame
        The held-out interactions.
    metrics : sequence of RankingMetric
        The metrics; each system value must be the mean of its users' values.
    propensity : Propensity or Series
        The propensity of each truth row's item: a model, or a Series item -> propensity
        (e.g. the one Cornac estimated).
    n_strata : int, default 2
        :math:`Q`, the number of equal-width propensity bins.
    train : DataFrame, optional
        The training interactions (the estimated propensity forms need them).
    user_col : str, default "user_id"
        The user column of ``pred``, ``truth`` and ``train``.
    item_col : str, default "item_id"
        The item column of ``pred``, ``truth`` and ``train``.
    **split_options : Any
        Passed to every :class:`~rankeval.Split` (``score_col``, ``ties``, ...).

    Returns
    -------
    DataFrame
        Index ``"all"``, ``"Q1"`` ... ``"Q<n>"`` (the non-empty strata) and ``"strata"``
        (:math:`\sum_q N_q M_q / N`); one column per metric and ``"size"`` (truth rows).
    """
    pred, truth = to_pandas(pred, "pred"), to_pandas(truth, "truth")
    require_columns(truth, "truth", [user_col, item_col])
    metrics = [m for metric in metrics for m in metric.expand()]
    for m in metrics:
        if not m.system_is_user_mean:
            raise ValueError(f"{m}: its system value is no mean of users, so strata cannot weight it")
    strata = strata_of(_truth_propensities(truth, propensity, train, user_col, item_col), n_strata)
    options = {"user_col": user_col, "item_col": item_col, **split_options}
    rows = {STRATA_ALL: _row(pred, truth, metrics, options)}
    for q in np.unique(strata):
        part = truth[strata == q]
        rows[f"Q{int(q)}"] = _row(pred[pred[user_col].isin(part[user_col])], part, metrics, options)
    out = pd.DataFrame(rows).T
    strata_rows = out.iloc[1:]
    weights = strata_rows["size"].to_numpy() / float(len(truth))
    combined = {str(m): float(np.sum(weights * strata_rows[str(m)].to_numpy())) for m in metrics}
    out.loc[STRATA_COMBINED] = {**combined, "size": float(len(truth))}
    return out


def _row(pred: pd.DataFrame, truth: pd.DataFrame, metrics: list[RankingMetric],
         options: dict[str, Any]) -> dict[str, float]:
    split = Split(pred, truth, **options)
    row = {str(m): float(m.perform(split).system.iloc[0, 0]) for m in metrics}
    row["size"] = float(len(truth))
    return row
