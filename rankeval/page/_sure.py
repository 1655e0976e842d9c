"""The page's "How sure is this?" card: what each difference could detect, equivalence, seeds.

Per tested (metric, pair): the minimum detectable effect at the comparison's users (paired t,
at its level with the correction in force), the power to detect the observed difference and
the users needed for it (:meth:`~rankeval.ComparisonResult.power`); the equivalence verdicts
when the comparison tested a margin; the spread over training seeds when systems came with
seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import ComparisonResult
from ._tables import frame_table

__all__ = ["sure_section"]


def _power_frame(res: ComparisonResult) -> tuple[pd.DataFrame, Any]:
    power = res.power(progress=False)
    table = power.table
    mean_a = res.table["mean_a"].reindex(table.index).to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mde_share = 100 * table["mde"].to_numpy(dtype=np.float64) / np.abs(mean_a)
    frame = pd.DataFrame({"n": table["n"], "difference": table["mean_diff"], "MDE": table["mde"],
                          "MDE (% of a)": mde_share, "MDE (d_z)": table["mde_dz"],
                          "power for the difference": table["power"],
                          "users needed for the difference": table["n_needed"].astype(object)},
                         index=table.index)
    frame["users needed for the difference"] = [None if pd.isna(v) else int(v)
                                                for v in frame["users needed for the difference"]]
    return frame, power


def sure_section(res: ComparisonResult, digits: int) -> dict[str, Any] | None:
    """The card's tables: power and MDE, then equivalence and seeds when the comparison has them."""
    if not res.metrics or not len(res.table):
        return None
    frame, power = _power_frame(res)
    tables = [("what this comparison could detect", frame_table("power", frame, digits))]
    notes = [f"MDE: the smallest mean difference the paired t-test detects with power {power.target_power:g} "
             f"with these users; power and users needed: for the observed difference ({power.summary()})"]
    if res.equivalence is not None:
        eq = res.equivalence.copy()
        eq["equivalent"] = [("equivalent" if v else "not shown equivalent") if not pd.isna(v) else "–"
                            for v in eq["equivalent"]]
        tables.append(("equivalence (two one-sided tests)", frame_table("equivalence", eq, digits)))
        notes.append(f"Equivalent within ± margin when the {100 * (1 - 2 * res.alpha):g}% interval "
                     f"[tost_low, tost_high] lies inside it (TOST p < {res.alpha:g}).")
    if res.seeds is not None:
        tables.append(("spread over training seeds", frame_table("seeds", res.seeds, digits)))
        if res.seed_pairs is not None:
            pairs = res.seed_pairs.drop(columns="exceeds")
            tables.append(("differences against the seed-to-seed spread", frame_table("seed-pairs", pairs, digits)))
        notes.append("seed_sd: sd over seeds of a system's score; var_seed, var_user, var_residual: the variance "
                     "between seeds, between users and left over; a difference exceeds the seed-to-seed spread "
                     "when |diff| > sqrt(seed_sd_a² + seed_sd_b²).")
    return {"id": "sure", "title": "How sure is this?", "tables": tables, "note": " ".join(notes)}
