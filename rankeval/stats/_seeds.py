r"""Training seeds: how much a system's score moves with its seed, beside how much users differ.

For one system run with :math:`S` seeds on the same :math:`n` users, :math:`x_{us}` is user
:math:`u`'s value under seed :math:`s` (a two-way layout without replication). With row
(user) means :math:`\bar x_{u\cdot}`, column (seed) means :math:`\bar x_{\cdot s}` (the
system's score under each seed) and grand mean :math:`\bar x`:

.. math::

    MS_{seed} = \frac{n \sum_s (\bar x_{\cdot s} - \bar x)^2}{S - 1}, \quad
    MS_{user} = \frac{S \sum_u (\bar x_{u\cdot} - \bar x)^2}{n - 1}, \quad
    MS_{res} = \frac{\sum_{u,s} (x_{us} - \bar x_{u\cdot} - \bar x_{\cdot s} + \bar x)^2}{(n-1)(S-1)}

and the variance components of the random-effects model
:math:`x_{us} = \mu + U_u + B_s + e_{us}` are
:math:`\sigma^2_{seed} = (MS_{seed} - MS_{res}) / n`, :math:`\sigma^2_{user} = (MS_{user} - MS_{res}) / S`
(each at least 0) and :math:`\sigma^2_{res} = MS_{res}`. The seed-to-seed spread of the
system's score is the standard deviation (ddof = 1) of the :math:`\bar x_{\cdot s}`.

A difference between two systems exceeds the seed-to-seed spread when
:math:`|\Delta| > \sqrt{s_a^2 + s_b^2}`, the standard deviation of the difference between
one run of each (a system given without seeds counts :math:`s = 0`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = ["seed_decomposition", "seed_spread_of_difference", "SEED_COLUMNS"]

#: the columns of :func:`seed_decomposition`'s result, in order
SEED_COLUMNS = ("n_seeds", "n_users", "mean", "seed_sd", "seed_min", "seed_max", "var_seed", "var_user",
                "var_residual")


def seed_decomposition(x: NDArray[np.float64]) -> dict[str, float]:
    """A system's mean and spread over seeds, and its variance split between seeds and users.

    Parameters
    ----------
    x : (n_users, n_seeds) array of float
        Per-user values under every seed (no NaN: the users every seed has a value for).

    Returns
    -------
    dict
        ``n_seeds``, ``n_users``, ``mean`` (grand mean), ``seed_sd`` (sd of the seeds'
        scores, ddof = 1), ``seed_min``, ``seed_max`` (the lowest and highest seed
        score), ``var_seed``, ``var_user`` and ``var_residual`` (the variance components;
        NaN with fewer than 2 users or 2 seeds).

    Examples
    --------
    >>> out = seed_decomposition(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 9.0]]))
    >>> print(out["seed_sd"], out["var_seed"], out["var_user"], out["var_residual"])
    1.4142135623730951 1.5 7.0 1.5
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"`x` must be 2-dimensional (users x seeds), got shape {x.shape}")
    n, s = x.shape
    if np.isnan(x).any():
        raise ValueError(f"`x` holds {int(np.isnan(x).sum())} NaN value(s): keep the users every seed has a value for")
    nan = float("nan")
    out = {"n_seeds": float(s), "n_users": float(n), "mean": nan, "seed_sd": nan, "seed_min": nan,
           "seed_max": nan, "var_seed": nan, "var_user": nan, "var_residual": nan}
    if n == 0 or s == 0:
        return out
    seed_means = x.mean(axis=0)
    out.update(mean=float(seed_means.mean()), seed_min=float(seed_means.min()), seed_max=float(seed_means.max()))
    if s >= 2:
        out["seed_sd"] = float(seed_means.std(ddof=1))
    if n >= 2 and s >= 2:
        user_means = x.mean(axis=1)
        grand = float(x.mean())
        ms_seed = n * float(((seed_means - grand) ** 2).sum()) / (s - 1)
        ms_user = s * float(((user_means - grand) ** 2).sum()) / (n - 1)
        resid = x - user_means[:, None] - seed_means[None, :] + grand
        ms_res = float((resid ** 2).sum()) / ((n - 1) * (s - 1))
        out.update(var_seed=max(0.0, (ms_seed - ms_res) / n), var_user=max(0.0, (ms_user - ms_res) / s),
                   var_residual=ms_res)
    return out


def seed_spread_of_difference(sd_a: float, sd_b: float) -> float:
    """``sqrt(sd_a^2 + sd_b^2)``: the sd of the difference between one run of each system.

    A NaN sd (a system without seeds) counts 0; NaN when neither system has seeds.

    Parameters
    ----------
    sd_a : float
        System a's seed-to-seed sd (NaN: no seeds).
    sd_b : float
        System b's, likewise.
    """
    if math.isnan(sd_a) and math.isnan(sd_b):
        return float("nan")
    return math.hypot(0.0 if math.isnan(sd_a) else sd_a, 0.0 if math.isnan(sd_b) else sd_b)
