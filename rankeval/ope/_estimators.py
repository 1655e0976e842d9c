"""The off-policy estimators of a ranked list's expected reward: declared once, computed by one engine.

Every estimator is a weighted mean of the logged rewards, the weight of a row being the
new policy's probability over the logging policy's, of one kind (:data:`._log.KINDS`):

* whole slate (**SIPS**, standard IPS): ``w = pi_e(s | x) / pi_b(s | x)``;
* item at its position (**IIPS**, independent IPS; Li et al., "Offline evaluation of
  ranking policies with click models", KDD 2018): ``w_l = pi_e(a_l | x) / pi_b(a_l | x)``;
* the top-l prefix (**RIPS**, reward-interaction IPS; McInerney et al., KDD 2020;
  Kiyohara et al., "Doubly robust off-policy evaluation for ranking policies under the
  cascade behavior model", WSDM 2022): ``w_l = pi_e(a_1..a_l | x) / pi_b(a_1..a_l | x)``.

``V = (1/n) sum_i sum_l w_il r_il`` over ``n`` slates. The self-normalised forms divide
each row's weight by the mean weight of its position (SNIIPS, SNRIPS) or of every row
(SNSIPS), as obp 0.5.7 does (Swaminathan & Joachims, NeurIPS 2015). ``ipw``, ``snipw``
and ``dr`` treat each logged row as its own round (one position shown), as obp's
``InverseProbabilityWeighting``, ``SelfNormalizedInverseProbabilityWeighting`` and
``DoublyRobust`` do; ``dr`` (Dudik, Langford & Li, ICML 2011) adds a reward model:
``V = (1/N) sum_r [q_e(r) + w_r (r_r - q(r))]``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..exceptions import RankevalWarning
from ..stats import bootstrap_column_means
from ._log import LoggedSlates

__all__ = ["ESTIMATORS", "Estimator", "estimate"]


@dataclass(frozen=True)
class Estimator:
    """How one estimator weighs the log: the kind of probability, the normalisation, the unit."""

    kind: str
    normalise: Literal["none", "all", "position"] = "none"
    per_row: bool = False
    doubly_robust: bool = False


ESTIMATORS: dict[str, Estimator] = {
    "sips": Estimator("pscore"),
    "iips": Estimator("pscore_item_position"),
    "rips": Estimator("pscore_cascade"),
    "snsips": Estimator("pscore", "all"),
    "sniips": Estimator("pscore_item_position", "position"),
    "snrips": Estimator("pscore_cascade", "position"),
    "ipw": Estimator("pscore_item_position", per_row=True),
    "snipw": Estimator("pscore_item_position", "all", per_row=True),
    "dr": Estimator("pscore_item_position", per_row=True, doubly_robust=True),
}


def _unit_columns(log: LoggedSlates, spec: Estimator) -> tuple[NDArray[np.float64], int]:
    """Per unit (slate or row): the sums the estimate is a function of, and the number of groups.

    Plain forms: one column, the unit's summed weighted reward. Self-normalised forms:
    per normalisation group (one, or each position), the summed weighted reward, the
    summed weight and the number of rows.
    """
    w = log.target[spec.kind] / log.behavior[spec.kind]
    units: NDArray[np.int64] = np.arange(len(w), dtype=np.int64) if spec.per_row else log.slate
    n_units = len(w) if spec.per_row else log.n_slates
    if spec.normalise == "none":
        terms = w * log.reward
        if spec.doubly_robust:
            assert log.q_logged is not None and log.q_target is not None
            terms = log.q_target + w * (log.reward - log.q_logged)
        summed: NDArray[np.float64] = np.bincount(units, terms, minlength=n_units).astype(np.float64)
        return summed[:, None], 0
    groups = log.n_positions if spec.normalise == "position" else 1
    cell = units * groups + (log.position if spec.normalise == "position" else 0)
    size = n_units * groups
    sums = [np.bincount(cell, values, minlength=size).reshape(n_units, groups)
            for values in (w * log.reward, w, np.ones_like(w))]
    return np.concatenate(sums, axis=1), groups


def _value(means: NDArray[np.float64], groups: int) -> NDArray[np.float64]:
    """The estimate from the units' column means (rows: the sample, or each bootstrap resample)."""
    if groups == 0:
        return means[:, 0]
    num, den, count = means[:, :groups], means[:, groups:2 * groups], means[:, 2 * groups:]
    with np.errstate(invalid="ignore", divide="ignore"):
        per_group = np.where(count > 0, num * count / den, 0.0)
    return per_group.sum(axis=1)


def _ess(log: LoggedSlates, spec: Estimator) -> float:
    """Kish's effective sample size of the weights, ``(sum w)^2 / sum w^2``: how many logged rows the
    estimate is worth."""
    w = log.target[spec.kind] / log.behavior[spec.kind]
    square = float(np.dot(w, w))
    return float(w.sum() ** 2 / square) if square > 0 else 0.0


def estimate(log: LoggedSlates, names: list[str], *, alpha: float, n_resamples: int | None,
             seed: int) -> pd.DataFrame:
    """One row per estimator: the value, its percentile-bootstrap interval over units, the weights' size."""
    rows = []
    for name in names:
        spec = ESTIMATORS[name]
        columns, groups = _unit_columns(log, spec)
        value = float(_value(columns.mean(axis=0)[None, :], groups)[0])
        low = high = np.nan
        if n_resamples:
            boot = _value(bootstrap_column_means(columns, n_resamples=n_resamples, seed=seed), groups)
            low, high = (float(q) for q in np.quantile(boot, [alpha / 2, 1 - alpha / 2]))
        if np.isnan(value):
            warnings.warn(f"{name}: at a position where rows were logged, the new policy gives every logged item "
                          "weight 0, so the self-normalised estimate is undefined (NaN)", RankevalWarning,
                          stacklevel=3)
        w = log.target[spec.kind] / log.behavior[spec.kind]
        rows.append({"estimator": name, "value": value, "ci_low": low, "ci_high": high,
                     "units": len(columns), "ess": _ess(log, spec), "max_weight": float(w.max())})
    return pd.DataFrame(rows).set_index("estimator")
