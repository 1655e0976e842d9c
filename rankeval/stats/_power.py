r"""Power and the minimum detectable effect (MDE) of a paired comparison.

Analytic for the paired t-test (a one-sample t-test on the per-user differences): with
:math:`n` users, standardised effect :math:`d_z = \mu_d / \sigma_d`, :math:`\nu = n - 1`
degrees of freedom and noncentrality :math:`\lambda = d_z \sqrt n`, the power is

.. math::

    1 - \beta = P(T_{\nu,\lambda} > t_{1-\alpha/2,\nu}) + P(T_{\nu,\lambda} < -t_{1-\alpha/2,\nu})

two-sided (:math:`1 - \beta = P(T_{\nu,\lambda} > t_{1-\alpha,\nu})` one-sided), with
:math:`T_{\nu,\lambda}` noncentral t (``scipy.stats.nct``). The MDE and the number of users
needed are the roots of this equation in :math:`d_z` and :math:`n`, found by bracketing
(``scipy.optimize.brentq``) to about 1e-12: the numbers of statsmodels' ``TTestPower``.

By simulation for every paired test rankeval runs: the observed differences are shifted
so that their mean is the effect, users are resampled with replacement to ``n``, the
test runs on every resample (scipy's ``ttest_1samp`` and ``wilcoxon`` over all of them at
once, the randomization test and the bootstrap CI through :func:`resample_tests`), and the
share of rejections is the power, with its Monte Carlo standard error.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import optimize, stats

from ..data.internal import check_choice, check_integer, check_number
from ..exceptions import RankevalWarning
from ._resampling import CI_METHODS, ResamplingPlan, min_resamples, resample_tests

__all__ = ["ttest_power", "ttest_mde", "ttest_nobs", "corrected_alpha", "simulated_power", "power_analysis",
           "shift_to", "PowerResult", "SimulatedPower", "POWER_TESTS", "ALTERNATIVES", "TIES"]

#: the paired tests the simulation serves: compare's three and the bootstrap CI (reject when it excludes 0)
POWER_TESTS = ("paired_t", "wilcoxon", "randomization", "bootstrap")
#: two-sided, or one-sided in the direction of the effect
ALTERNATIVES = ("two-sided", "one-sided")
#: what the simulation does with zero differences: keep them (shift the others), or shift every one
TIES = ("keep", "shift")
#: the corrections compare applies
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
#: root tolerance of the MDE (in d_z) and of the number of users
_XTOL = 1e-12
#: the most users the solver looks at: an effect needing more is reported as too small
_MAX_N = 1e12
#: simulated values held in memory at once (simulations x users)
_CELLS = 2_000_000


def _check_alternative(alternative: str) -> bool:
    """Whether the test is two-sided."""
    return check_choice("alternative", alternative, ALTERNATIVES) == "two-sided"


def _power(d: float, n: float, alpha: float, two_sided: bool) -> float:
    df = n - 1.0
    nc = abs(d) * math.sqrt(n)
    with np.errstate(all="ignore"):  # SciPy 1.11's noncentral t divides by zero in its far tails
        if two_sided:
            crit = stats.t.isf(alpha / 2, df)
            # the far tail is below 1e-15 where scipy's nct.cdf gives NaN (few degrees of freedom, large nc)
            far = float(stats.nct.cdf(-crit, df, nc))
            return float(stats.nct.sf(crit, df, nc)) + (0.0 if math.isnan(far) else far)
        return float(stats.nct.sf(stats.t.isf(alpha, df), df, nc))


def ttest_power(effect_size: float, n: float, *, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    """Power of the paired t-test to detect a standardised effect with ``n`` users.

    Parameters
    ----------
    effect_size : float
        The standardised effect d_z (mean / sd of the per-user differences); its sign does
        not matter (one-sided: a test in its direction).
    n : float
        Users (paired units), at least 2.
    alpha : float
        Level of the test, in (0, 1).
    alternative : {"two-sided", "one-sided"}
        Two-sided, or one-sided in the direction of the effect.

    Examples
    --------
    >>> print(f"{ttest_power(0.5, 34):.4f}")
    0.8078
    """
    two_sided = _check_alternative(alternative)
    alpha = check_number("alpha", alpha)
    n = _check_n(n)
    return _power(_check_effect(effect_size, allow_zero=True, name="effect_size"), n, alpha, two_sided)


def ttest_mde(n: float, *, alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided") -> float:
    """The smallest standardised effect d_z the paired t-test detects with ``n`` users and ``power``.

    Parameters
    ----------
    n : float
        Users (paired units), at least 2.
    alpha : float
        Level of the test, in (0, 1).
    power : float
        Power wanted, in (alpha, 1) (an effect of 0 is "detected" with probability alpha).
    alternative : {"two-sided", "one-sided"}
        Two-sided, or one-sided in the direction of the effect.

    Examples
    --------
    >>> print(f"{ttest_mde(34):.4f}")
    0.4950
    """
    two_sided = _check_alternative(alternative)
    alpha, power = _check_levels(alpha, power)
    n = _check_n(n)
    high = 1.0
    while _power(high, n, alpha, two_sided) < power:  # the power grows with d: double until past it
        high *= 2.0
    return float(optimize.brentq(lambda d: _power(d, n, alpha, two_sided) - power, 0.0, high, xtol=_XTOL,
                                 rtol=8 * np.finfo(float).eps, maxiter=500))


def ttest_nobs(effect_size: float, *, alpha: float = 0.05, power: float = 0.8,
               alternative: str = "two-sided") -> float:
    """Users the paired t-test needs to detect a standardised effect with ``power``: the exact
    (fractional) root, at least 2; round it up for a count of users.

    Parameters
    ----------
    effect_size : float
        The standardised effect d_z, not 0.
    alpha : float
        Level of the test, in (0, 1).
    power : float
        Power wanted, in (alpha, 1).
    alternative : {"two-sided", "one-sided"}
        Two-sided, or one-sided in the direction of the effect.

    Examples
    --------
    >>> print(f"{ttest_nobs(0.5):.4f}")
    33.3671
    """
    two_sided = _check_alternative(alternative)
    alpha, power = _check_levels(alpha, power)
    d = _check_effect(effect_size, allow_zero=False, name="effect_size")
    low = 2.0  # a paired test needs 2 users: an effect detected with fewer needs 2
    if _power(d, low, alpha, two_sided) >= power:
        return low
    high = 4.0
    while _power(d, high, alpha, two_sided) < power:
        high *= 2.0
        if high > _MAX_N:
            raise ValueError(f"`effect_size` = {effect_size!r} is too small: more than {_MAX_N:.0e} users needed")
    return float(optimize.brentq(lambda n: _power(d, n, alpha, two_sided) - power, low, high, xtol=_XTOL * high,
                                 rtol=8 * np.finfo(float).eps, maxiter=500))


def corrected_alpha(alpha: float, correction: str | None, n_tests: int) -> float:
    """The per-comparison level that a correction implies for a family of ``n_tests`` tests.

    Bonferroni tests each at ``alpha / m``. Holm's first (most demanding) step is
    Bonferroni's, and Benjamini-Hochberg's smallest threshold is ``alpha / m`` too: a test
    planned to be detected on its own must clear that step, so each gives ``alpha / m``
    (conservative for Holm and BH when several effects are real). None: ``alpha``.

    Parameters
    ----------
    alpha : float
        The family's level, in (0, 1).
    correction : str or None
        The multiple-testing correction: ``"holm"``, ``"bonferroni"``, ``"fdr_bh"`` or None (none).
    n_tests : int
        Tests in the family, at least 1.
    """
    alpha = check_number("alpha", alpha)
    m = check_integer("n_tests", n_tests, 1)
    if correction is None:
        return alpha
    check_choice("correction", correction, CORRECTIONS)
    return alpha / m


@dataclass(frozen=True)
class SimulatedPower:
    """Power by simulation: the share of rejections and its Monte Carlo standard error.

    Attributes
    ----------
    power : float
        Share of the simulated comparisons whose test rejected.
    se : float
        Its Monte Carlo standard error, ``sqrt(power (1 - power) / n_simulations)``.
    n_simulations : int
        Simulated comparisons.
    """

    power: float
    se: float
    n_simulations: int


def simulated_power(differences: Any, effect: float, *, n: int | None = None, test: str = "paired_t",
                    alpha: float = 0.05, alternative: str = "two-sided", n_simulations: int = 1000,
                    n_resamples: int | None = None, ci_method: str = "percentile", ties: str = "keep",
                    seed: int = 0, progress: bool = False) -> SimulatedPower:
    """Power of a paired test by simulation from observed per-user differences.

    The differences are shifted so that their mean is ``effect`` (:func:`shift_to`); ``n``
    users are drawn with replacement ``n_simulations`` times; the test runs on each sample.

    Parameters
    ----------
    differences : array-like of float
        Per-user paired differences (b - a), from a comparison or a pilot; at least 2,
        not all equal, no NaN.
    effect : float
        The true mean difference to detect, in the metric's units.
    n : int, optional
        Users per simulated comparison (at least 2); default ``len(differences)``.
    test : {"paired_t", "wilcoxon", "randomization", "bootstrap"}
        The paired t-test and the Wilcoxon signed-rank test as compare runs them (scipy),
        the sign-flip randomization test, or the bootstrap CI of the mean difference
        (rejecting when it excludes 0), both through rankeval's resampling engine.
    alpha : float
        Level of the test, in (0, 1).
    alternative : {"two-sided", "one-sided"}
        Two-sided, or one-sided in the direction of the effect (the randomization test: its
        two-sided p below ``2 alpha`` with the sample mean on the effect's side; the
        bootstrap: the ``1 - 2 alpha`` interval above 0).
    n_simulations : int
        Simulated comparisons (at least 10).
    n_resamples : int, optional
        Sign flips or bootstrap draws per simulated comparison (randomization, bootstrap);
        default ``max(2000, 10 ceil(2 / alpha))``; at least ``ceil(2 / alpha)``.
    ci_method : {"percentile", "bca", "basic"}
        The bootstrap test's interval, as compare's ``ci_method``.
    ties : {"keep", "shift"}
        Users whose difference is 0 (both systems tie, often most users of a per-user
        ranking metric) stay at 0 and the others take the shift (``"keep"``), or every
        difference is shifted alike (``"shift"``, the location-shift model).
    seed : int
        Seed of the draws: the same inputs and seed give the same power.
    progress : bool
        A progress bar over the simulations.

    Returns
    -------
    SimulatedPower
    """
    d = _check_differences(differences)
    effect = _check_effect(effect, allow_zero=True)
    n = len(d) if n is None else int(_check_n(n, integer=True))
    test = check_choice("test", test, POWER_TESTS)
    alpha = check_number("alpha", alpha)
    two_sided = _check_alternative(alternative)
    n_simulations = check_integer("n_simulations", n_simulations, 10)
    n_resamples = _check_resamples(n_resamples, alpha if two_sided else 2 * alpha)
    ci_method = check_choice("ci_method", ci_method, CI_METHODS)
    ties = check_choice("ties", ties, TIES)
    seed = check_integer("seed", seed, 0)
    shifted = shift_to(d, effect, ties)
    if effect < 0:  # oriented so that the effect is positive: a one-sided test is then always "greater"
        shifted = -shifted
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    batch = max(1, min(n_simulations, _CELLS // n))
    rejected = 0
    from .._progress import progress_bar
    bar = progress_bar(enabled=progress, total=n_simulations, desc="rankeval: power", unit="simulation",
                       leave=False)
    try:
        for start in range(0, n_simulations, batch):
            rows = min(batch, n_simulations - start)
            samples = shifted[rng.integers(0, len(shifted), size=(rows, n))]
            rejected += int(np.count_nonzero(_rejects(samples, test, alpha, two_sided,
                                                      ResamplingPlan((n,), seed, n_resamples), ci_method)))
            bar.update(rows)
    finally:
        bar.close()
    p = rejected / n_simulations
    return SimulatedPower(power=p, se=math.sqrt(p * (1 - p) / n_simulations), n_simulations=n_simulations)


def shift_to(differences: Any, effect: float, ties: str = "keep") -> NDArray[np.float64]:
    """The differences moved so that their mean is ``effect``, the alternative the simulation draws from.

    ``"shift"`` adds ``effect - mean`` to every difference (the location-shift model).
    ``"keep"`` leaves the zero differences at 0 and adds ``(n effect - sum) / n_nonzero`` to the
    others: a user both systems tie on (no relevant item found by either, say) stays tied, as
    under a real improvement, instead of becoming a win that a sign-based test (Wilcoxon)
    counts. Without zeros the two are the same.

    Parameters
    ----------
    differences : array-like of float
        Per-user differences, at least one not 0.
    effect : float
        The mean wanted.
    ties : {"keep", "shift"}
        What happens to the zero differences.

    Examples
    --------
    >>> [round(float(x), 3) for x in shift_to([0.0, 0.0, 0.3, -0.1], 0.15)]
    [0.0, 0.0, 0.5, 0.1]
    >>> [round(float(x), 3) for x in shift_to([0.0, 0.0, 0.3, -0.1], 0.15, ties="shift")]
    [0.1, 0.1, 0.4, 0.0]
    """
    d = np.asarray(differences, dtype=np.float64)
    check_choice("ties", ties, TIES)
    moving = d != 0 if ties == "keep" else np.ones(len(d), dtype=bool)
    if not moving.any():
        raise ValueError("`differences` are all 0: with ties kept there is nothing to shift (use ties='shift')")
    out = d.copy()
    out[moving] += (effect * len(d) - d.sum()) / np.count_nonzero(moving)
    return out


def _rejects(samples: NDArray[np.float64], test: str, alpha: float, two_sided: bool, plan: ResamplingPlan,
             ci_method: str) -> NDArray[np.bool_]:
    """Per row of ``samples`` (differences oriented so that the effect is positive): does the test reject?"""
    side = "two-sided" if two_sided else "greater"
    moving = np.any(samples != 0, axis=1)  # all differences 0: p = 1 for every test, as compare says
    out = np.zeros(len(samples), dtype=bool)
    if not moving.any():
        return out
    x = samples[moving]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a constant sample: scipy's NaN, never a rejection
        warnings.simplefilter("ignore", UserWarning)
        if test == "paired_t":  # compare's ttest_rel(b, a) is this test on b - a
            p = stats.ttest_1samp(x, 0.0, axis=1, alternative=side).pvalue
            out[moving] = p < alpha
            return out
        if test == "wilcoxon":
            p = stats.wilcoxon(x, axis=1, alternative=side).pvalue
            out[moving] = p < alpha
            return out
    n = x.shape[1]
    # one column of zeros (system a), one per sample (system b), the mask of paired units
    columns = np.column_stack([np.ones(n), np.zeros(n), x.T])
    pairs = [(1, 2 + j, 0) for j in range(len(x))]
    every = np.arange(n, dtype=np.int64)
    # every sample's test uses the same sign flips and bootstrap draws (the engine's, for n units): they
    # are independent of the samples drawn, so each test is exact in its own right
    res = resample_tests(plan, columns, pairs, [every] * len(x), alpha if two_sided else 2 * alpha,
                         randomization=test == "randomization", ci_method=ci_method)
    if test == "randomization":
        hit = res.p_value < (alpha if two_sided else 2 * alpha)
        out[moving] = hit if two_sided else hit & (x.mean(axis=1) > 0)
    else:
        out[moving] = (res.ci_low > 0) | ((res.ci_high < 0) if two_sided else False)
    return out


@dataclass(frozen=True)
class PowerResult:
    """What :func:`power_analysis` (and :meth:`rankeval.ComparisonResult.power`) found.

    Attributes
    ----------
    table : DataFrame
        One row per set of differences (per (metric, system_a, system_b) for a comparison):
        ``n`` (the users the MDE and the power are for: the set's own, or the ``n`` asked
        about), ``mean_diff`` and ``sd`` (mean and standard deviation, ddof = 1, of
        the differences), ``alpha`` (the per-comparison level used), ``effect`` (the effect
        asked about, in the metric's units; the observed ``mean_diff`` when none was
        given) and ``effect_dz`` (= effect / sd), ``power`` (to detect ``effect`` with
        ``n`` users), ``power_se`` (its Monte Carlo standard error; 0 for the analytic
        power), ``power_method`` (``"analytic t"`` or ``"simulation"``), ``mde`` and
        ``mde_dz`` (the smallest effect the paired t-test detects with ``n`` users and the
        target power, in units and standardised), ``n_needed`` (users the paired t-test
        needs for ``effect``: the exact root rounded up) and ``n_needed_exact``.
    alpha : float
        The family's significance level.
    alpha_used : float
        The level of each test: ``alpha``, or ``alpha / n_tests`` under a correction.
    correction : str or None
        The multiple-testing correction in force.
    n_tests : int
        Tests in the family the correction covers.
    target_power : float
        The power the MDE and ``n_needed`` are for.
    alternative : str
        ``"two-sided"`` or ``"one-sided"`` (in the direction of the effect).
    test : str
        The test whose power ``power`` is.
    """

    table: pd.DataFrame
    alpha: float
    alpha_used: float
    correction: str | None
    n_tests: int
    target_power: float
    alternative: str
    test: str

    def summary(self) -> str:
        """One sentence on the level and the correction the numbers use."""
        level = f"alpha = {self.alpha:g}"
        if self.correction is not None:
            step = {"bonferroni": "Bonferroni", "holm": "Holm's first (Bonferroni) step",
                    "fdr_bh": "Benjamini-Hochberg's smallest threshold"}[self.correction]
            level += (f" with {self.correction} over {self.n_tests} test(s): each test at "
                      f"alpha / {self.n_tests} = {self.alpha_used:.4g} ({step}, the most conservative)")
        return (f"{self.alternative} {self.test}, {level}; MDE and users needed at power "
                f"{self.target_power:g} (paired t).")


def power_analysis(differences: Any, *, effect: Any = None, n: int | None = None, alpha: float = 0.05,
                   power: float = 0.8,
                   alternative: str = "two-sided", correction: str | None = None, n_tests: int = 1,
                   test: str = "paired_t", simulate: bool = False, n_simulations: int = 1000,
                   n_resamples: int | None = None, ci_method: str = "percentile", ties: str = "keep",
                   seed: int = 0, progress: bool = False, index_names: Any = None) -> PowerResult:
    """MDE, power and users needed from per-user paired differences (a comparison's or a pilot's).

    Parameters
    ----------
    differences : array-like of float, or mapping of key -> array-like
        Per-user differences (b - a), no NaN; a mapping gives one row per key (a set with
        fewer than 2 values, zero variance or an infinite value gets NaN, with a
        :class:`~rankeval.RankevalWarning`; a single array raises a ValueError instead).
    effect : float, or mapping of key -> float, optional
        The mean difference to ask about, in the metric's units; default the observed mean.
    n : int, optional
        Users the MDE and the power are for (at least 2); None: each set's own number (a
        pilot's differences planned at another size: its sd, this ``n``).
    alpha : float
        The family's significance level, in (0, 1).
    power : float
        The power the MDE and the users needed are for, in (alpha, 1).
    alternative : {"two-sided", "one-sided"}
        Two-sided, or one-sided in the direction of the effect.
    correction : {None, "holm", "bonferroni", "fdr_bh"}
        The multiple-testing correction in force (see :func:`corrected_alpha`); None: none.
    n_tests : int
        Tests in the family the correction covers.
    test : {"paired_t", "wilcoxon", "randomization", "bootstrap"}
        The test whose power is reported: the paired t analytically (unless ``simulate``),
        the others by simulation (:func:`simulated_power`).
    simulate : bool
        Simulate the paired t-test's power too.
    n_simulations : int
        Simulated comparisons per row.
    n_resamples : int, optional
        Resamples of the randomization and bootstrap tests (see :func:`simulated_power`).
    ci_method : {"percentile", "bca", "basic"}
        The bootstrap test's interval.
    ties : {"keep", "shift"}
        The simulation's zero differences (see :func:`simulated_power`).
    seed : int
        Seed of the simulation.
    progress : bool
        A progress bar per simulated row.
    index_names : list of str, optional
        Names of the table's index levels (mapping keys).

    Returns
    -------
    PowerResult
    """
    alpha, target = _check_levels(alpha, power)
    check_choice("test", test, POWER_TESTS)
    two_sided = _check_alternative(alternative)
    used = corrected_alpha(alpha, correction, n_tests)
    if target <= used:
        raise ValueError(f"`power` = {power!r} must exceed the per-test level alpha = {used:g}")
    single = not isinstance(differences, Mapping)
    sets = {"differences": differences} if single else dict(differences)
    options: dict[str, Any] = dict(
        alpha=used, power=target, alternative=alternative, two_sided=two_sided, test=test, simulate=simulate,
        n_simulations=n_simulations, n_resamples=n_resamples, ci_method=ci_method, ties=ties, seed=seed,
        progress=progress, n=None if n is None else int(_check_n(n, integer=True)))
    rows, skipped = [], []
    for key, values in sets.items():
        wanted = effect.get(key) if isinstance(effect, Mapping) else effect
        try:
            rows.append(_row(_check_differences(values), wanted, **options))
        except _Degenerate as exc:
            if single:
                raise ValueError(str(exc)) from None
            skipped.append(f"{key}: {exc}")
            rows.append({"n": len(np.asarray(values))})
    if skipped:
        warnings.warn(RankevalWarning(f"{len(skipped)} set(s) of differences have no power analysis (NaN): "
                                      + "; ".join(skipped[:10])), stacklevel=2)
    keys = list(sets)
    index = (pd.MultiIndex.from_tuples(keys, names=index_names) if keys and isinstance(keys[0], tuple)
             else pd.Index(keys, name=index_names[0] if index_names else None))
    table = pd.DataFrame(rows, index=index, columns=TABLE_COLUMNS)
    table["n"] = table["n"].astype(np.int64)
    table["n_needed"] = table["n_needed"].astype("Int64")  # NaN (no effect to plan for) stays missing
    return PowerResult(table=table, alpha=alpha, alpha_used=used, correction=correction, n_tests=int(n_tests),
                       target_power=target, alternative=alternative, test=test)


TABLE_COLUMNS = ["n", "mean_diff", "sd", "alpha", "effect", "effect_dz", "power", "power_se", "power_method",
                 "mde", "mde_dz", "n_needed", "n_needed_exact"]


def _row(d: NDArray[np.float64], effect: float | None, *, alpha: float, power: float, alternative: str,
         two_sided: bool, test: str, simulate: bool, n_simulations: int, n_resamples: int | None, ci_method: str,
         ties: str, seed: int, progress: bool, n: int | None) -> dict[str, Any]:
    n = len(d) if n is None else n
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    wanted = mean if effect is None else _check_effect(effect, allow_zero=True)
    mde_dz = ttest_mde(n, alpha=alpha, power=power, alternative=alternative)
    row: dict[str, Any] = {"n": n, "mean_diff": mean, "sd": sd, "alpha": alpha, "effect": wanted,
                           "effect_dz": wanted / sd, "mde": mde_dz * sd, "mde_dz": mde_dz}
    if test == "paired_t" and not simulate:
        row.update(power=_power(wanted / sd, n, alpha, two_sided), power_se=0.0, power_method="analytic t")
    else:
        sim = simulated_power(d, wanted, n=n, test=test, alpha=alpha, alternative=alternative,
                              n_simulations=n_simulations, n_resamples=n_resamples, ci_method=ci_method, ties=ties,
                              seed=seed, progress=progress)
        row.update(power=sim.power, power_se=sim.se, power_method="simulation")
    if wanted != 0:
        exact = ttest_nobs(wanted / sd, alpha=alpha, power=power, alternative=alternative)
        row.update(n_needed_exact=exact, n_needed=max(2, math.ceil(exact)))
    return row


class _Degenerate(ValueError):
    """Differences no power analysis can use: fewer than 2, zero variance, or an infinite one."""


def _check_differences(values: Any) -> NDArray[np.float64]:
    d = np.asarray(values, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"`differences` must be 1-dimensional (one value per user), got shape {d.shape}")
    missing = int(np.count_nonzero(np.isnan(d)))
    if missing:
        raise ValueError(f"`differences` hold {missing} NaN value(s): leave out the users without a paired "
                         "value first (a comparison's per-user values are paired already)")
    if not np.isfinite(d).all():
        raise _Degenerate("`differences` hold an infinite value: no mean or variance to plan with")
    if len(d) < 2:
        raise _Degenerate(f"`differences` need at least 2 users (n >= 2), got {len(d)}")
    if np.all(d == d[0]):  # (the float sd of equal values may be 1e-17, not 0)
        raise _Degenerate("`differences` have zero variance (every user's difference is the same): "
                          "a t-based power or MDE is undefined")
    return d


def _check_n(n: Any, *, integer: bool = False) -> float:
    ok = isinstance(n, (int, float, np.integer, np.floating)) and not isinstance(n, bool) and math.isfinite(n)
    if not ok or n < 2 or (integer and float(n) != int(n)):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"`n` (users) must be {kind} >= 2, got {n!r}")
    return float(n)


def _check_effect(effect: Any, *, allow_zero: bool, name: str = "effect") -> float:
    ok = isinstance(effect, (int, float, np.integer, np.floating)) and not isinstance(effect, bool)
    if not ok or not math.isfinite(effect) or (not allow_zero and effect == 0):
        need = "a finite number" if allow_zero else "a finite number other than 0"
        raise ValueError(f"`{name}` must be {need}, got {effect!r}")
    return float(effect)


def _check_levels(alpha: Any, power: Any) -> tuple[float, float]:
    alpha = check_number("alpha", alpha)
    power = check_number("power", power)
    if power <= alpha:
        raise ValueError(f"`power` = {power!r} must exceed `alpha` = {alpha!r} (an effect of 0 is "
                         "detected with probability alpha)")
    return alpha, power


def _check_resamples(n_resamples: int | None, alpha: float) -> int:
    least = min_resamples(alpha)
    if n_resamples is None:
        return max(2000, 10 * least)
    return check_integer("n_resamples", n_resamples, least, why=f" (ceil(2 / alpha) at alpha = {alpha:g})")
