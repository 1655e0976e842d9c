"""How sure is a comparison: its effect sizes with intervals, equivalence tests and seed verdicts.

Everything here reads a comparison's test table and its per-unit values (``units``), the
shapes :class:`~rankeval.ComparisonResult` keeps, and calls the array functions of
:mod:`rankeval.stats`. The bootstrap draws are the comparison's own: a test's ``n``
paired units, in unit order, with the comparison's seed and resamples, so the ratio's
interval and the bootstrap TOST resample exactly the users its difference's CI resampled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..data.internal import check_choice
from ..stats import (
    EQUIVALENCE_METHODS,
    ResamplingPlan,
    bootstrap_means,
    bootstrap_tost,
    check_margin,
    dz_interval,
    margin_of,
    ratio_interval,
    relative_difference,
    seed_spread_of_difference,
    tost_paired,
)

__all__ = ["effect_columns", "equivalence_table", "seed_pairs", "EFFECT_COLUMNS", "EQUIVALENCE_COLUMNS"]

#: the effect-size columns added to the test table
EFFECT_COLUMNS = ["rel_diff", "rel_ci_low", "rel_ci_high", "dz_ci_low", "dz_ci_high"]
#: the columns of an equivalence table
EQUIVALENCE_COLUMNS = ["margin", "diff", "tost_low", "tost_high", "tost_p", "equivalent", "method"]


def _paired_groups(table: pd.DataFrame, units: pd.DataFrame) -> dict[bytes, list[Any]]:
    """The tests of ``table`` grouped by their set of paired units (one bootstrap pass per set)."""
    groups: dict[bytes, list[Any]] = {}
    for key in table.index:
        metric, a, b = key
        paired = units[(metric, a)].notna().to_numpy() & units[(metric, b)].notna().to_numpy()
        groups.setdefault(paired.tobytes(), []).append(key)
    return groups


def _bootstraps(table: pd.DataFrame, units: pd.DataFrame, seed: int, n_resamples: int
                ) -> dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per test with 2+ paired units: the bootstrap means of a, of b and of b - a, the comparison's draws."""
    out = {}
    plan = ResamplingPlan((len(units),), int(seed), int(n_resamples))
    for mask, keys in _paired_groups(table, units).items():
        rows = np.flatnonzero(np.frombuffer(mask, dtype=bool))
        if len(rows) < 2:
            continue
        columns = sorted({(k[0], s) for k in keys for s in k[1:]}, key=str)
        where = {c: i for i, c in enumerate(columns)}
        values = np.column_stack([units[c].to_numpy(dtype=np.float64)[rows] for c in columns]
                                 + [np.zeros(len(rows))])
        zero = len(columns)
        a_cols = [zero] * zero + [where[(k[0], k[1])] for k in keys]
        b_cols = list(range(zero)) + [where[(k[0], k[2])] for k in keys]
        # infinite per-user values make NaN resamples (compare has warned of them, counted)
        with np.errstate(invalid="ignore", over="ignore"):
            boot: np.ndarray = bootstrap_means(plan, values, np.array(a_cols), np.array(b_cols))
        for j, key in enumerate(keys):
            out[key] = (boot[:, where[(key[0], key[1])]], boot[:, where[(key[0], key[2])]], boot[:, zero + j])
    return out


def effect_columns(table: pd.DataFrame, units: pd.DataFrame, alpha: float, seed: int,
                   n_resamples: int) -> pd.DataFrame:
    """``table`` with the relative difference in % and its bootstrap interval, and d_z's interval.

    Parameters
    ----------
    table : DataFrame
        A comparison's test table (``mean_a``, ``mean_b``, ``n``, ``effect_size``).
    units : DataFrame
        Its per-unit values.
    alpha : float
        The intervals have confidence ``1 - alpha``.
    seed : int
        The comparison's seed.
    n_resamples : int
        The comparison's bootstrap resamples.
    """
    boots = _bootstraps(table, units, seed, n_resamples) if len(table) else {}
    out = table.copy()
    rel, low, high, dz_low, dz_high = [], [], [], [], []
    for key, row in table.iterrows():
        rel.append(relative_difference(float(row["mean_a"]), float(row["mean_b"])))
        ratio = (ratio_interval(boots[key][0], boots[key][1], alpha) if key in boots and np.isfinite(rel[-1])
                 else (np.nan, np.nan))
        low.append(ratio[0])
        high.append(ratio[1])
        dz = dz_interval(float(row["effect_size"]), int(row["n"]), alpha)
        dz_low.append(dz[0])
        dz_high.append(dz[1])
    for name, column in zip(EFFECT_COLUMNS, (rel, low, high, dz_low, dz_high)):
        out[name] = np.asarray(column, dtype=np.float64)
    return out


def equivalence_table(table: pd.DataFrame, units: pd.DataFrame, margin: Any, *, method: str, alpha: float,
                      seed: int, n_resamples: int) -> pd.DataFrame:
    """Per test of ``table``: the TOST of its difference within the margin (see :mod:`rankeval.stats`).

    Parameters
    ----------
    table : DataFrame
        A comparison's test table.
    units : DataFrame
        Its per-unit values.
    margin : float, str or mapping
        The margin, as :func:`rankeval.stats.check_margin` reads it.
    method : {"t", "bootstrap"}
        The paired t TOST, or the bootstrap TOST on the comparison's draws.
    alpha : float
        Level of each one-sided test.
    seed : int
        The comparison's seed (bootstrap).
    n_resamples : int
        The comparison's resamples (bootstrap).
    """
    margins = check_margin(margin)
    method = check_choice("method", method, EQUIVALENCE_METHODS)
    unknown = sorted(str(m) for m in margins if m is not None and m not in set(table.index.get_level_values(0)))
    if unknown:
        raise ValueError(f"`equivalence_margin` names metric(s) this comparison does not test: {unknown}")
    boots = _bootstraps(table, units, seed, n_resamples) if method == "bootstrap" and len(table) else {}
    rows = []
    for key, row in table.iterrows():
        metric, a, b = key
        delta = margin_of(margins, metric, float(row["mean_a"]))
        p, low, high = np.nan, np.nan, np.nan
        if np.isfinite(delta) and key in boots:
            p, low, high = bootstrap_tost(boots[key][2], delta, alpha)
        elif np.isfinite(delta) and method == "t":
            pair = units[[(metric, a), (metric, b)]].dropna().to_numpy(dtype=np.float64)
            p, low, high = tost_paired(pair[:, 1] - pair[:, 0], delta, alpha)
        rows.append({"margin": delta, "diff": float(row["diff"]), "tost_low": low, "tost_high": high, "tost_p": p,
                     "equivalent": bool(p < alpha) if np.isfinite(p) else None, "method": method})
    frame = pd.DataFrame(rows, index=table.index, columns=EQUIVALENCE_COLUMNS)
    frame["equivalent"] = frame["equivalent"].astype("boolean")  # NA: no margin or too few users to test
    return frame


def seed_pairs(table: pd.DataFrame, seeds: pd.DataFrame) -> pd.DataFrame:
    """Per test: whether its difference exceeds the seed-to-seed spread of a single-run difference.

    Parameters
    ----------
    table : DataFrame
        A comparison's test table.
    seeds : DataFrame
        Per (metric, system) with seeds, ``seed_sd`` (the comparison's ``seeds``).
    """
    rows = []
    for (metric, a, b), row in table.iterrows():
        sd = [float(seeds.loc[(metric, s), "seed_sd"]) if (metric, s) in seeds.index else np.nan for s in (a, b)]
        spread = seed_spread_of_difference(sd[0], sd[1])
        diff = float(row["diff"])
        exceeds = bool(abs(diff) > spread) if np.isfinite(spread) and np.isfinite(diff) else None
        verdict = ("no seeds" if exceeds is None and np.isnan(spread) else "undefined" if exceeds is None
                   else "exceeds the seed-to-seed spread" if exceeds else "does not exceed the seed-to-seed spread")
        rows.append({"diff": diff, "seed_spread": spread, "exceeds": exceeds, "verdict": verdict})
    frame = pd.DataFrame(rows, index=table.index, columns=["diff", "seed_spread", "exceeds", "verdict"])
    frame["exceeds"] = frame["exceeds"].astype("boolean")
    return frame
