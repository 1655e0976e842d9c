r"""Effect sizes of a paired comparison, with their intervals.

* Cohen's :math:`d_z = \bar d / s_d` of the per-user differences :math:`d = b - a`, with
  the exact confidence interval of the noncentral t (Steiger & Fouladi 1997, Cumming &
  Finch 2001): with :math:`t = d_z \sqrt n` and :math:`\nu = n - 1`, the limits are
  :math:`\lambda / \sqrt n` for the noncentralities :math:`\lambda` where
  :math:`F_{T_{\nu,\lambda}}(t) = 1 - \alpha/2` (low) and :math:`\alpha/2` (high).
* The relative difference :math:`100 (\bar b / \bar a - 1)` %, with the percentile interval
  of the same ratio over bootstrap resamples of the users (each resample's ratio of means,
  not the difference's interval divided by :math:`\bar a`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

from ._paired import cohen_dz

__all__ = ["cohen_dz", "dz_interval", "relative_difference", "ratio_interval"]


def nct_cdf(t: float, df: float, lam: float) -> float:
    """``scipy.stats.nct.cdf(t, df, lam)``, the same float, without the generic distribution's
    argument handling (about 20 times the special function's own cost: the d_z interval's root
    search calls it some 70 times a test). Past the checks the generic method evaluates
    ``nct._cdf`` at ``(t - 0) / 1``, so the result is that of the SciPy installed, whichever
    special function it uses; the public method stays the path for what it would refuse."""
    if df > 0 and np.isfinite(lam) and np.isfinite(t):
        return float(_NCT_CDF(np.float64(t), np.float64(df), np.float64(lam)))
    return float(stats.nct.cdf(t, df, lam))


#: the distribution's own cdf (a private method of every SciPy rv_continuous; the public one if absent)
_NCT_CDF = getattr(stats.nct, "_cdf", None) or (lambda t, df, lam: stats.nct.cdf(t, df, lam))


def _noncentrality(t: float, df: float, target: float) -> float:
    """The noncentrality lambda where the noncentral t's cdf at ``t`` is ``target`` (it falls as lambda grows)."""
    def gap(lam: float) -> float:
        with np.errstate(all="ignore"):  # SciPy 1.11's noncentral t divides by zero in its far tails
            cdf = nct_cdf(t, df, lam)
        if np.isnan(cdf):  # scipy's far tails (beyond ~1e-15, large |t - lambda|): the cdf is 0 or 1 there
            cdf = 0.0 if lam > t else 1.0
        return cdf - target

    width = 1.0 + abs(t)
    low, high = t - width, t + width
    while gap(low) < 0:  # the cdf is too small: lambda lies lower
        low -= width
        width *= 2
    while gap(high) > 0:
        high += width
        width *= 2
    return float(optimize.brentq(gap, low, high, xtol=1e-12, rtol=8 * np.finfo(float).eps, maxiter=500))


def dz_interval(dz: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    r"""The exact ``1 - alpha`` interval of Cohen's d_z from the noncentral t.

    With :math:`t = d_z \sqrt n` and :math:`\nu = n - 1`: low :math:`= \lambda_L / \sqrt n`,
    :math:`F_{T_{\nu,\lambda_L}}(t) = 1 - \alpha/2`; high :math:`= \lambda_H / \sqrt n`,
    :math:`F_{T_{\nu,\lambda_H}}(t) = \alpha/2` (normal differences assumed, as the t-test).

    Parameters
    ----------
    dz : float
        The observed d_z (finite; NaN or infinite give a NaN interval).
    n : int
        Users (paired differences); fewer than 2 give a NaN interval.
    alpha : float
        One minus the confidence, in (0, 1).

    Examples
    --------
    >>> low, high = dz_interval(0.5, 34)
    >>> print(f"{low:.4f} {high:.4f}")
    0.1397 0.8536
    """
    if n < 2 or not math.isfinite(dz):
        return float("nan"), float("nan")
    if dz < 0:  # the noncentral t is symmetric: T(nu, -lambda) = -T(nu, lambda)
        low, high = dz_interval(-dz, n, alpha)
        return -high, -low
    t, df = dz * math.sqrt(n), n - 1.0
    return (_noncentrality(t, df, 1 - alpha / 2) / math.sqrt(n),
            _noncentrality(t, df, alpha / 2) / math.sqrt(n))


def relative_difference(mean_a: float, mean_b: float) -> float:
    """``100 (mean_b / mean_a - 1)``: b's difference from a in % of a's mean (NaN when ``mean_a`` is 0).

    Parameters
    ----------
    mean_a : float
        System a's mean.
    mean_b : float
        System b's mean.
    """
    if mean_a == 0 or not (math.isfinite(mean_a) and math.isfinite(mean_b)):
        return float("nan")
    return 100.0 * (mean_b / mean_a - 1.0)


def ratio_interval(boot_a: NDArray[np.float64], boot_b: NDArray[np.float64], alpha: float = 0.05
                   ) -> tuple[float, float]:
    """Percentile interval of ``100 (mean_b / mean_a - 1)`` over paired bootstrap resamples.

    Parameters
    ----------
    boot_a : array of float
        System a's mean in every resample.
    boot_b : array of float
        System b's mean in the same resamples.
    alpha : float
        One minus the confidence, in (0, 1).

    Returns
    -------
    low : float
        The ``alpha / 2`` quantile of the resampled relative differences (linear
        interpolation, as ``numpy.quantile``); NaN when a resample's mean of a is 0 and
        its b is 0 too (no ratio), or there are no resamples.
    high : float
        The ``1 - alpha / 2`` quantile; an infinity when resamples with a's mean 0 reach it.
    """
    boot_a = np.asarray(boot_a, dtype=np.float64)
    boot_b = np.asarray(boot_b, dtype=np.float64)
    if not len(boot_a):
        return float("nan"), float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = 100.0 * (boot_b / boot_a - 1.0)
    if np.isnan(rel).any():
        return float("nan"), float("nan")
    with np.errstate(invalid="ignore"):  # infinite ratios: the quantile between inf and inf is NaN, kept so
        low, high = np.quantile(rel, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)
