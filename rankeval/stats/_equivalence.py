r"""Equivalence of two paired systems: two one-sided tests (TOST) within a margin.

The systems are equivalent within :math:`\pm\delta` when both one-sided nulls
:math:`\mu_d \le -\delta` and :math:`\mu_d \ge \delta` are rejected at level :math:`\alpha`
(Schuirmann 1987); the TOST p-value is the larger of the two one-sided p-values, and the
verdict agrees with the :math:`1 - 2\alpha` interval of the mean difference lying inside
:math:`(-\delta, \delta)`.

* t form, on the per-user differences :math:`d = b - a` (:math:`n` users, mean
  :math:`\bar d`, standard error :math:`s_d / \sqrt n`, :math:`\nu = n - 1`):
  :math:`p_1 = P(T_\nu > (\bar d + \delta) / se)`, :math:`p_2 = P(T_\nu < (\bar d - \delta) / se)`,
  interval :math:`\bar d \pm t_{1-\alpha,\nu}\, se` (statsmodels' ``ttost_paired(b, a, -delta, delta)``).
* bootstrap form, on the bootstrap means :math:`\bar d^*` of the paired resamples:
  :math:`p_1 = \#\{\bar d^* \le -\delta\} / B`, :math:`p_2 = \#\{\bar d^* \ge \delta\} / B`,
  interval the percentile interval :math:`[q_\alpha, q_{1-\alpha}]` of :math:`\bar d^*`
  (the test that inverts it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

__all__ = ["tost_paired", "bootstrap_tost", "check_margin", "margin_of", "EQUIVALENCE_METHODS"]

#: the two forms of the test
EQUIVALENCE_METHODS = ("t", "bootstrap")


def tost_paired(d: NDArray[np.float64], margin: float, alpha: float = 0.05) -> tuple[float, float, float]:
    """The paired t TOST of ``|mean(d)| < margin``: (p-value, interval low, interval high).

    Parameters
    ----------
    d : array of float
        Per-user differences b - a (no NaN).
    margin : float
        The equivalence margin delta, > 0.
    alpha : float
        Level of each one-sided test; the interval has confidence ``1 - 2 alpha``.

    Notes
    -----
    Fewer than 2 differences: NaN. Equal differences (zero variance): p = 0 when they lie
    inside the margin, else 1, and the interval is the point.

    Examples
    --------
    >>> p, low, high = tost_paired(np.array([0.1, -0.2, 0.05, 0.0, 0.1]), 0.5)
    >>> print(f"{p:.4f} [{low:.4f}, {high:.4f}]")
    0.0005 [-0.1087, 0.1287]
    """
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    if n < 2:
        return float("nan"), float("nan"), float("nan")
    mean = float(d.mean())
    if np.all(d == d[0]):
        return (0.0 if abs(mean) < margin else 1.0), mean, mean
    se = float(d.std(ddof=1)) / math.sqrt(n)
    df = n - 1
    p_low = float(stats.t.sf((mean + margin) / se, df))
    p_high = float(stats.t.cdf((mean - margin) / se, df))
    half = float(stats.t.isf(alpha, df)) * se
    return max(p_low, p_high), mean - half, mean + half


def bootstrap_tost(boot: NDArray[np.float64], margin: float, alpha: float = 0.05) -> tuple[float, float, float]:
    """The bootstrap TOST of ``|mean difference| < margin``: (p-value, interval low, interval high).

    Parameters
    ----------
    boot : array of float
        The mean difference b - a in every paired bootstrap resample.
    margin : float
        The equivalence margin delta, > 0.
    alpha : float
        Level of each one-sided test; the interval is the ``1 - 2 alpha`` percentile interval.
    """
    boot = np.asarray(boot, dtype=np.float64)
    if not len(boot):
        return float("nan"), float("nan"), float("nan")
    p = max(float(np.mean(boot <= -margin)), float(np.mean(boot >= margin)))
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    return p, float(low), float(high)


def _one_margin(value: Any, what: str) -> tuple[float, bool]:
    """(margin, relative) of one margin: a number > 0, or a string ``"<x>%"`` (x > 0)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            share = float(value.strip()[:-1]) / 100.0
        except ValueError:
            share = float("nan")
        if math.isfinite(share) and share > 0:
            return share, True
    elif (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
          and math.isfinite(value) and value > 0):
        return float(value), False
    raise ValueError(f"`{what}` must be a number > 0 (absolute, in the metric's units) or a share of the "
                     f"baseline's mean such as '1%', got {value!r}")


def check_margin(margin: Any) -> dict[str | None, tuple[float, bool]]:
    """An equivalence margin checked: ``{metric or None (every metric): (margin, relative)}``.

    Parameters
    ----------
    margin : float, str, mapping of metric -> float or str, or None
        Absolute (a number > 0, in the metric's units), relative (``"1%"``: a share of
        system a's mean, the baseline's), or one of those per metric name; None: no
        margin (an empty mapping).
    """
    if margin is None:
        return {}
    if isinstance(margin, Mapping):
        if not margin:
            raise ValueError("`equivalence_margin` must name at least one metric, got an empty mapping")
        return {str(k): _one_margin(v, f"equivalence_margin[{k!r}]") for k, v in margin.items()}
    return {None: _one_margin(margin, "equivalence_margin")}


def margin_of(margins: Mapping[str | None, tuple[float, bool]], metric: str, mean_a: float) -> float:
    """The absolute margin of ``metric`` (NaN when the mapping does not name it, or a
    relative margin meets a baseline mean of 0 or NaN).

    Parameters
    ----------
    margins : mapping
        As :func:`check_margin` returns.
    metric : str
        The metric's name.
    mean_a : float
        System a's (the baseline's) mean, for a relative margin.
    """
    value, relative = margins.get(metric, margins.get(None, (float("nan"), False)))
    if not relative:
        return value
    delta = value * abs(mean_a)
    return delta if delta > 0 else float("nan")
