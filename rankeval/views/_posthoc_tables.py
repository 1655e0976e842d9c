"""The many-system tables of a comparison: Friedman, mean ranks, Nemenyi and Tukey HSD.

Each table function reads a comparison's per-unit values (``res.units``) and calls the
array tests of :mod:`rankeval.stats`; no system is evaluated again. Every test of a metric
uses the **complete units**: the (split, user) units where every system has a value for
that metric; the others are counted in one :class:`~rankeval.DroppedUnitsWarning` per call.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..exceptions import DroppedUnitsWarning, RankevalWarning
from ..stats import average_ranks, check_alpha, friedman, nemenyi, tukey_hsd
from ._comparison import Comparison

__all__ = ["friedman_table", "mean_ranks_table", "nemenyi_table", "tukey_table", "complete_units", "mean_ranks",
           "nemenyi_frame", "FRIEDMAN_COLUMNS", "NEMENYI_COLUMNS", "TUKEY_COLUMNS", "PAIR_NAMES"]

FRIEDMAN_COLUMNS = ["statistic", "p_value", "iman_davenport_F", "iman_davenport_p", "n", "k"]
NEMENYI_COLUMNS = ["mean_rank_a", "mean_rank_b", "rank_diff", "critical_difference", "p_value", "significant"]
TUKEY_COLUMNS = ["diff", "ci_low", "ci_high", "statistic", "p_value", "significant"]
PAIR_NAMES = ["metric", "system_a", "system_b"]


def complete_units(res: Comparison, metrics: Sequence[str], what: str,
                    stacklevel: int) -> dict[str, NDArray[np.float64]]:
    """Per metric, the (n, k) values of the units where every system has one; dropped units warned about."""
    out, dropped = {}, []
    for metric in metrics:
        x = np.column_stack([res.units[(metric, s)].to_numpy(dtype=np.float64) for s in res.systems])
        complete = ~np.isnan(x).any(axis=1)
        out[metric] = x[complete]
        if not complete.all():
            dropped.append(f"{metric}: {int((~complete).sum())} of {len(complete)}")
    if dropped:
        warnings.warn(DroppedUnitsWarning(
            f"{what} uses the (split, user) units where every system has a value; units were left out "
            f"(NaN, or the user is not in a system's lists) for {'; '.join(dropped)}"), stacklevel=stacklevel + 1)
    return out


def _too_few(what: str, rows: list[tuple[str, int, int]], need_k: int, stacklevel: int) -> None:
    bad = [(m, n, k) for m, n, k in rows if n < 2 or k < need_k]
    if bad:
        shown = "; ".join(f"{m} ({n} complete unit(s), {k} systems)" for m, n, k in bad)
        warnings.warn(RankevalWarning(
            f"{what} needs at least 2 complete units and {need_k} systems, so its values are NaN for: {shown}"),
            stacklevel=stacklevel + 1)


def _pairs_index(metric: str, systems: Sequence[str]) -> tuple[list[tuple[str, str, str]], NDArray[np.intp],
                                                                NDArray[np.intp]]:
    rows, cols = np.triu_indices(len(systems), 1)  # combinations(systems, 2), in order
    return [(metric, systems[a], systems[b]) for a, b in zip(rows.tolist(), cols.tolist())], rows, cols


def friedman_table(res: Comparison, *, stacklevel: int = 1) -> pd.DataFrame:
    """``res.friedman()``: one row per metric (see :func:`friedman`)."""
    data = complete_units(res, res.metrics, "friedman()", stacklevel + 1)
    rows = [friedman(x)._asdict() for x in data.values()]
    table = pd.DataFrame(rows, index=pd.Index(list(res.metrics), name="metric"), columns=FRIEDMAN_COLUMNS)
    table = table.astype({"n": np.int64, "k": np.int64})
    _too_few("friedman() (scipy.stats.friedmanchisquare)", [(m, int(r["n"]), int(r["k"])) for m, r in
                                                            zip(res.metrics, rows)], 3, stacklevel + 1)
    return table


def mean_ranks(res: Comparison, x: NDArray[np.float64], metric: str) -> NDArray[np.float64]:
    ranks = average_ranks(x, bool(res.higher_is_better.get(metric, True)))
    if len(ranks) == 0:
        return np.full(ranks.shape[1], np.nan)
    return ranks.mean(axis=0)


def mean_ranks_table(res: Comparison, *, stacklevel: int = 1) -> pd.DataFrame:
    """``res.mean_ranks()``: metric × system mean ranks over the complete units (rank 1 = best)."""
    data = complete_units(res, res.metrics, "mean_ranks()", stacklevel + 1)
    return pd.DataFrame([mean_ranks(res, x, m) for m, x in data.items()],
                        index=pd.Index(list(res.metrics), name="metric"),
                        columns=pd.Index(list(res.systems), name="system"))


def nemenyi_frame(res: Comparison, data: dict[str, NDArray[np.float64]], alpha: float) -> pd.DataFrame:
    keys, parts = [], []
    for metric, x in data.items():
        r = mean_ranks(res, x, metric)
        test = nemenyi(r, len(x), alpha)
        pair_keys, a, b = _pairs_index(metric, res.systems)
        keys += pair_keys
        parts.append(pd.DataFrame({"mean_rank_a": r[a], "mean_rank_b": r[b], "rank_diff": r[b] - r[a],
                                   "critical_difference": test.critical_difference,
                                   "p_value": test.p_value[a, b]}))
    table = pd.concat(parts, ignore_index=True)
    table.index = pd.MultiIndex.from_tuples(keys, names=PAIR_NAMES)
    table["significant"] = table["p_value"] < alpha
    return table[NEMENYI_COLUMNS]


def nemenyi_table(res: Comparison, alpha: float | None = None, *, stacklevel: int = 1) -> pd.DataFrame:
    """``res.nemenyi()``: one row per (metric, system_a, system_b) (see :func:`nemenyi`)."""
    level = check_alpha(alpha, res.alpha)
    data = complete_units(res, res.metrics, "nemenyi()", stacklevel + 1)
    _too_few("nemenyi()", [(m, len(x), x.shape[1]) for m, x in data.items()], 3, stacklevel + 1)
    return nemenyi_frame(res, data, level)


def tukey_table(res: Comparison, alpha: float | None = None, *, stacklevel: int = 1) -> pd.DataFrame:
    """``res.tukey_hsd()``: one row per (metric, system_a, system_b) (see :func:`tukey_hsd`)."""
    level = check_alpha(alpha, res.alpha)
    data = complete_units(res, res.metrics, "tukey_hsd()", stacklevel + 1)
    _too_few("tukey_hsd() (scipy.stats.tukey_hsd)", [(m, len(x), x.shape[1]) for m, x in data.items()], 2,
             stacklevel + 1)
    infinite = [m for m, x in data.items() if len(x) >= 2 and not np.isfinite(x).all()]
    if infinite:
        warnings.warn(RankevalWarning(f"tukey_hsd() needs finite values, so its values are NaN for: "
                                      f"{', '.join(infinite)}"), stacklevel=stacklevel + 1)
    keys, parts = [], []
    for metric, x in data.items():
        test = tukey_hsd(x, level)
        pair_keys, a, b = _pairs_index(metric, res.systems)
        keys += pair_keys
        # scipy's [i, j] is mean_i - mean_j: the row (a, b) reads [b, a] for diff = mean_b - mean_a
        parts.append(pd.DataFrame({"diff": test.statistic[b, a], "ci_low": test.ci_low[b, a],
                                   "ci_high": test.ci_high[b, a], "statistic": test.statistic[b, a],
                                   "p_value": test.p_value[b, a]}))
    table = pd.concat(parts, ignore_index=True)
    table.index = pd.MultiIndex.from_tuples(keys, names=PAIR_NAMES)
    table["significant"] = table["p_value"] < level
    return table[TUKEY_COLUMNS]
