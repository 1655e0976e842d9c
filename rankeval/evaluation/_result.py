"""ComparisonResult: what :func:`~rankeval.compare` found, and its views.

The views (publication tables, figures, the many-system tables and diagrams) live in
:mod:`rankeval.views`, below this module: they read any object of the shape
:class:`rankeval.views.Comparison` describes and never import this class. Its methods
call them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._html import html_of
from ..stats import PowerResult, power_analysis
from ..views import (
    comparison_figure,
    critical_difference_diagram,
    critical_difference_figure,
    friedman_table,
    latex,
    markdown,
    mean_ranks_table,
    nemenyi_table,
    tukey_table,
)
from ._eval_model import shows_progress
from ._sureness import EFFECT_COLUMNS, effect_columns, equivalence_table, seed_pairs

__all__ = ["ComparisonResult", "TABLE_COLUMNS", "TEST_COLUMNS"]

#: the columns of the tests themselves
TEST_COLUMNS = ["mean_a", "mean_b", "diff", "ci_low", "ci_high", "statistic", "p_value", "p_adjusted",
                "significant", "n", "wins", "ties", "losses", "effect_size"]
#: every column of a comparison's table: the tests', then the effect sizes' intervals
TABLE_COLUMNS = TEST_COLUMNS + EFFECT_COLUMNS


@dataclass(frozen=True)
class ComparisonResult:
    """What :func:`compare` found: the test table and the per-unit values it tested.

    Attributes
    ----------
    table : DataFrame
        One row per (metric, system_a, system_b) (a MultiIndex), columns ``mean_a``,
        ``mean_b``, ``diff`` (= mean_b - mean_a over the paired units), ``ci_low``,
        ``ci_high`` (bootstrap CI of ``diff``), ``statistic``, ``p_value``,
        ``p_adjusted``, ``significant`` (``p_adjusted < alpha``), ``n`` (paired units),
        ``wins``, ``ties``, ``losses`` (units where b is better, equal, worse) and
        ``effect_size`` (Cohen's d_z of the paired differences); from :func:`compare`
        also ``rel_diff`` (``100 (mean_b / mean_a - 1)``, in %), ``rel_ci_low``,
        ``rel_ci_high`` (its percentile interval over the bootstrap resamples of the CI:
        each resample's ratio of means), ``dz_ci_low`` and ``dz_ci_high`` (d_z's exact
        interval from the noncentral t), all at confidence ``1 - alpha``.
    units : DataFrame
        The per-unit values tested: columns ``split``, ``user_id``, then one per
        (metric, system); units sorted by (split position, user id).
    systems : tuple of str
        The systems, in the order given.
    metrics : tuple of str
        The names of the tested metrics: those with a per-user value whose mean is the
        system value.
    system_values : DataFrame
        The metrics that have no per-user value to pair (system-level ones such as
        ``Coverage``, ``Gini``, ``Entropy``, ``DeltaGap``; micro averages and sums, i.e.
        ``system_is_user_mean`` False): one row per system (in the order given), one
        column per such metric, each value the mean over splits of the system's split
        values (``sys_result.loc["mean"]`` of :class:`~rankeval.EvalModel`). Listed, never
        tested; shown in :meth:`to_markdown` / :meth:`to_latex` without marks. Empty (no
        column) when every metric is tested.
    test : str
        The paired test of the call (``"paired_t"``, ``"wilcoxon"`` or ``"randomization"``).
    correction : str or None
        The multiple-testing correction of the call (None: none).
    alpha : float
        The significance level of the call (the CIs have confidence ``1 - alpha``).
    n_resamples : int
        The resamples of the randomization test and of the bootstrap CIs.
    seed : int
        The seed of every random draw of the call.
    higher_is_better : mapping of str to bool
        Per metric name, whether a larger value is better (what "best" and "wins" mean).
    convention : str
        The convention the metrics followed (``"rankeval"``: none).
    ci_method : str
        The bootstrap interval (``"bca"``, ``"percentile"`` or ``"basic"``).
    equivalence : DataFrame or None
        With ``compare(equivalence_margin=...)``: :meth:`equivalence_test`'s table.
    seeds : DataFrame or None
        With systems given by training seeds: one row per (metric, seeded system),
        ``n_seeds``, ``n_users`` (units every seed has a value for), ``mean``, ``seed_sd``
        (sd over seeds of the system's score), ``seed_min``, ``seed_max``, ``var_seed``,
        ``var_user``, ``var_residual`` (the variance components between seeds, between
        users and left over; :func:`rankeval.stats.seed_decomposition`).
    seed_pairs : DataFrame or None
        With ``seeds``: per (metric, system_a, system_b), ``diff``, ``seed_spread``
        (``sqrt(seed_sd_a^2 + seed_sd_b^2)``, a system without seeds counting 0),
        ``exceeds`` (``|diff| > seed_spread``) and ``verdict`` in words.
    """

    table: pd.DataFrame
    units: pd.DataFrame
    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    test: str
    correction: str | None
    alpha: float
    n_resamples: int
    seed: int
    higher_is_better: Mapping[str, bool] = field(default_factory=dict)
    convention: str = "rankeval"
    ci_method: str = "bca"
    system_values: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(index=pd.Index([], name="system")))
    equivalence: pd.DataFrame | None = None
    seeds: pd.DataFrame | None = None
    seed_pairs: pd.DataFrame | None = None

    def _repr_html_(self) -> str | None:  # a notebook shows the report's summary tables
        return html_of(self)

    def system_means(self) -> pd.DataFrame:
        """Mean per system (rows) and metric (columns) over all of the system's units."""
        return pd.DataFrame({m: [self.units[(m, s)].mean() for s in self.systems] for m in self.metrics},
                            index=pd.Index(self.systems, name="system"))

    def to_markdown(self, digits: int = 4, *, friedman: bool = False) -> str:
        """A publication table: means (best in bold, superscripts = significantly better
        than those systems after correction) and the CI of every difference; with
        ``friedman=True`` also each metric's Friedman line (chi-square, Iman-Davenport F,
        their p-values) and the systems' mean ranks (:meth:`friedman`, :meth:`mean_ranks`).

        Parameters
        ----------
        digits : int
            Decimals of every number shown.
        friedman : bool
            Add each metric's Friedman line and the systems' mean ranks.
        """
        return markdown(self, digits, friedman=friedman)

    def to_latex(self, digits: int = 4, *, friedman: bool = False) -> str:
        """The same tables as :meth:`to_markdown`, as LaTeX (booktabs).

        Parameters
        ----------
        digits : int
            Decimals of every number shown.
        friedman : bool
            Add each metric's Friedman line and the systems' mean ranks.
        """
        return latex(self, digits, friedman=friedman)

    def plot(self, path: str | Path | None = None, *, kind: Literal["box", "violin"] = "box") -> Any:
        """Per-user distributions per system and the paired differences with their CIs.

        Needs matplotlib (``pip install 'matplotlib>=3.8'``, the ``plot`` extra). Returns the Figure; saves it
        to ``path`` when given.

        Parameters
        ----------
        path : str or Path, optional
            Save the figure there (the format from the extension).
        kind : {"box", "violin"}
            How each system's per-user values are drawn.
        """
        if not self.metrics:
            raise ValueError(f"nothing to plot: every metric of this comparison is listed per system "
                             f"without a test ({list(self.system_values.columns)}); see `system_values`")
        return comparison_figure(self, path=path, kind=kind)

    # -------------------------------------------------------------- many systems (rankeval.stats)
    def friedman(self) -> pd.DataFrame:
        r"""Friedman's test per metric: do the systems rank alike over the units?

        On the units where every system has a value for the metric (the others are
        counted in a :class:`~rankeval.DroppedUnitsWarning`), the :math:`k` systems are
        ranked within each unit and

        .. math::

            \chi^2_F = \frac{\frac{12}{nk(k+1)} \sum_j R_j^2 - 3n(k+1)}{1 - \sum t(t^2-1) / (nk(k^2-1))},
            \qquad F_F = \frac{(n-1)\chi^2_F}{n(k-1) - \chi^2_F}

        (:math:`R_j` system j's rank sum, :math:`t` the sizes of tied groups).

        Returns
        -------
        DataFrame
            Indexed by metric: ``statistic`` and ``p_value`` (exactly
            ``scipy.stats.friedmanchisquare``, tie correction included; p from
            :math:`\chi^2_{k-1}`), ``iman_davenport_F`` and ``iman_davenport_p`` (from
            :math:`F_{k-1,(k-1)(n-1)}`, Demšar's recommendation), ``n`` (complete units)
            and ``k`` (systems).

        Notes
        -----
        Fewer than 3 systems (scipy's minimum) or 2 complete units: NaN, with a
        :class:`~rankeval.RankevalWarning` naming the metric. Every unit tying all its
        systems: statistic 0, p = 1. See :func:`rankeval.stats.friedman`.
        """
        return friedman_table(self, stacklevel=2)

    def mean_ranks(self) -> pd.DataFrame:
        """Mean rank of every system (columns) per metric (rows) over the complete units.

        Within each unit where every system has a value, rank 1 = best (the highest
        value; the lowest for a metric with ``higher_is_better = False``) and tied values
        share their average rank (``scipy.stats.rankdata(..., axis=1)``). NaN when no
        unit is complete.
        """
        return mean_ranks_table(self, stacklevel=2)

    def nemenyi(self, alpha: float | None = None) -> pd.DataFrame:
        r"""Nemenyi's all-pairs post-hoc test on the mean ranks (Demšar 2006).

        .. math::

            CD = q_\alpha \sqrt{\frac{k(k+1)}{6n}}, \quad
            q_\alpha = \frac{Q^{-1}_{k,\infty}(1-\alpha)}{\sqrt 2}, \quad
            p = P\left(Q_{k,\infty} \ge \frac{|\bar r_b - \bar r_a|\sqrt 2}{\sqrt{k(k+1)/(6n)}}\right)

        with :math:`Q_{k,\infty}` the studentized range distribution.

        Parameters
        ----------
        alpha : float, optional
            Significance level of ``critical_difference`` and ``significant``; default
            the result's ``alpha``.

        Returns
        -------
        DataFrame
            One row per (metric, system_a, system_b), every pair in the systems' order:
            ``mean_rank_a``, ``mean_rank_b``, ``rank_diff`` (= mean_rank_b -
            mean_rank_a: negative when b ranks better), ``critical_difference``,
            ``p_value`` and ``significant`` (``p_value < alpha``, i.e.
            ``|rank_diff| > critical_difference``). The test already controls the
            family-wise error over the pairs of a metric: no further correction.

        Notes
        -----
        Fewer than 3 systems or 2 complete units: NaN, with a
        :class:`~rankeval.RankevalWarning`. See :func:`rankeval.stats.nemenyi`.
        """
        return nemenyi_table(self, alpha, stacklevel=2)

    def tukey_hsd(self, alpha: float | None = None) -> pd.DataFrame:
        """Tukey's HSD test between every pair of systems, per metric (one-way ANOVA post-hoc).

        The test ranx offers: ``scipy.stats.tukey_hsd`` on the systems' values over the
        complete units, as independent groups. It ignores the pairing by unit, so it
        has less power than the paired tests of :func:`compare` and the rank tests; use
        it to reproduce ranx or an ANOVA-based analysis.

        Parameters
        ----------
        alpha : float, optional
            Significance level (the intervals have confidence ``1 - alpha``); default the
            result's ``alpha``.

        Returns
        -------
        DataFrame
            One row per (metric, system_a, system_b): ``diff`` (= mean_b - mean_a),
            ``ci_low``, ``ci_high`` (Tukey's simultaneous interval of ``diff``),
            ``statistic`` (scipy's statistic, the mean difference, here b - a),
            ``p_value`` and ``significant`` (``p_value < alpha``).

        Notes
        -----
        Fewer than 2 complete units: NaN, with a :class:`~rankeval.RankevalWarning`.
        Constant values (zero variance, where scipy divides by 0): equal means give
        p = 1, different means p = 0. See :func:`rankeval.stats.tukey_hsd`.
        """
        return tukey_table(self, alpha, stacklevel=2)

    def plot_critical_difference(self, metric: str, alpha: float | None = None, ax: Any = None) -> Any:
        """Demšar's critical-difference diagram of one metric (Nemenyi test).

        The systems' mean ranks on an axis from 1 (best, left) to k, labelled on both
        sides; thick bars join groups of systems whose mean ranks differ by less than the
        critical difference (not significantly different); the CD is drawn to scale
        above the axis.

        Parameters
        ----------
        metric : str
            One of ``self.metrics``.
        alpha : float, optional
            Significance level; default the result's ``alpha``.
        ax : matplotlib Axes, optional
            Where to draw; default a new figure sized to the labels.

        Returns
        -------
        matplotlib Axes

        Needs matplotlib (``pip install 'matplotlib>=3.8'``, the ``plot`` extra). At least 3 systems and 2
        complete units (a ValueError otherwise).
        """
        return critical_difference_diagram(self, metric, alpha, ax, stacklevel=2)

    def plot_cd(self, metric: str | None = None, path: str | Path | None = None, *,
                alpha: float | None = None) -> Any:
        """Critical-difference diagrams, one panel per metric (``metric=None``: every tested
        metric) in one figure, saved to ``path`` when given; returns the Figure. See
        :meth:`plot_critical_difference` for one panel on an Axes of your own.

        Parameters
        ----------
        metric : str, optional
            One of ``self.metrics``; None: a panel for every tested metric.
        path : str or Path, optional
            Save the figure there.
        alpha : float, optional
            Significance level; None: the result's ``alpha``.
        """
        return critical_difference_figure(self, metric, path, alpha, stacklevel=2)

    # -------------------------------------------------------------- power (rankeval.stats)
    def power(self, effect: float | Mapping[str, float] | None = None, *, relative: bool = False,
              n: int | None = None, power: float = 0.8, alternative: str = "two-sided", test: str | None = None,
              simulate: bool = False, n_simulations: int = 1000, n_resamples: int | None = None, ties: str = "keep",
              seed: int | None = None, progress: bool | None = None) -> PowerResult:
        """How big a difference could each test of this comparison detect, and how many users would it need?

        Per (metric, pair), from its paired per-user differences (b - a): the minimum
        detectable effect at this ``n`` and ``power`` (paired t, in the metric's units and
        as d_z), the power to detect ``effect`` with ``n`` users, and the users the paired
        t-test needs for it; at the comparison's ``alpha`` with its correction in force
        (each test at ``alpha / m`` for the ``m`` tests of the call under holm, bonferroni
        or fdr_bh: the most conservative step). See :func:`rankeval.stats.power_analysis`.

        Parameters
        ----------
        effect : float or mapping of metric -> float, optional
            The mean difference to ask about, in the metric's units (or, with
            ``relative``, a share of ``mean_a``); default each test's observed ``diff``.
        relative : bool
            ``effect`` is a share of system a's mean (0.01: a 1 % improvement).
        n : int, optional
            Users the MDE and the power are for; None: each test's own paired users.
        power : float
            The power the MDE and the users needed are for, in (0, 1).
        alternative : {"two-sided", "one-sided"}
            Two-sided (as compare's tests), or one-sided in the direction of the effect.
        test : {None, "paired_t", "wilcoxon", "randomization", "bootstrap"}
            The test whose power is reported; None: the comparison's. All but the paired
            t-test (unless ``simulate``) are simulated.
        simulate : bool
            Simulate the paired t-test's power too.
        n_simulations : int
            Simulated comparisons per test.
        n_resamples : int, optional
            Resamples per simulated randomization or bootstrap test (the bootstrap's interval
            is the comparison's ``ci_method``).
        ties : {"keep", "shift"}
            The simulation's zero differences stay 0 (ties stay ties) or move with the
            others (see :func:`rankeval.stats.shift_to`).
        seed : int, optional
            Seed of the simulation; None: the comparison's.
        progress : bool, optional
            A progress bar per simulated test; None: on a terminal, when the simulation is
            large.
        """
        diffs, effects = {}, {}
        for key in self.table.index:
            metric, a, b = key
            pair = self.units[[(metric, a), (metric, b)]].dropna().to_numpy()
            diffs[key] = pair[:, 1] - pair[:, 0]
            wanted = effect.get(metric) if isinstance(effect, Mapping) else effect
            if wanted is not None and relative:
                wanted = float(wanted) * float(self.table.loc[key, "mean_a"])
            effects[key] = wanted
        n_tests = int(np.count_nonzero(~self.table["p_value"].isna())) or 1
        test = test or self.test
        per_sample = (n_resamples or 2000) if test in ("randomization", "bootstrap") else 1
        simulated = simulate or test != "paired_t"
        work = (n or len(self.units)) * len(self.table) * n_simulations * per_sample // 16 if simulated else 0
        return power_analysis(diffs, effect=effects, n=n, alpha=self.alpha, power=power, alternative=alternative,
                              correction=self.correction, n_tests=n_tests, test=test,
                              simulate=simulate, n_simulations=n_simulations, n_resamples=n_resamples,
                              ci_method=self.ci_method, ties=ties, seed=self.seed if seed is None else seed,
                              progress=shows_progress(progress, work),
                              index_names=["metric", "system_a", "system_b"])

    # -------------------------------------------------------------- how sure (rankeval.stats)
    def equivalence_test(self, margin: Any, *, method: str | None = None) -> pd.DataFrame:
        """Are the systems of each pair equivalent within ± ``margin``? Two one-sided tests (TOST).

        Per (metric, pair) at the comparison's ``alpha`` (uncorrected: each pair's verdict
        stands alone): ``margin`` (the absolute margin used), ``diff``, ``tost_low``,
        ``tost_high`` (the ``1 - 2 alpha`` interval of ``diff``), ``tost_p`` (the larger of
        the two one-sided p-values), ``equivalent`` (``tost_p < alpha``: the interval lies
        inside ± margin; NA without a margin or with fewer than 2 users) and ``method``.
        See :func:`rankeval.stats.tost_paired` and :func:`rankeval.stats.bootstrap_tost`.

        Parameters
        ----------
        margin : float, str or mapping of metric -> float or str
            Absolute (in the metric's units), or ``"1%"``: a share of system a's mean (the
            baseline's); per metric with a mapping (a metric it leaves out gets NA).
        method : {None, "t", "bootstrap"}
            The paired t TOST (= statsmodels' ``ttost_paired``), or the bootstrap TOST on
            the comparison's own resamples (its percentile interval); None: t when the
            comparison's test is the paired t, else bootstrap.
        """
        method = method or ("t" if self.test == "paired_t" else "bootstrap")
        return equivalence_table(self.table, self.units, margin, method=method, alpha=self.alpha, seed=self.seed,
                                 n_resamples=self.n_resamples)

    def with_sureness(self, margin: Any = None, seeds: pd.DataFrame | None = None) -> ComparisonResult:
        """This result with its effect sizes' intervals, equivalence table (a ``margin``) and seed verdicts.

        Parameters
        ----------
        margin : float, str or mapping, optional
            The equivalence margin (:meth:`equivalence_test`); None: no equivalence table.
        seeds : DataFrame, optional
            The per-(metric, system) seed table; None: no seeds.
        """
        table = effect_columns(self.table, self.units, self.alpha, self.seed, self.n_resamples)
        done = replace(self, table=table, seeds=seeds, seed_pairs=None if seeds is None else seed_pairs(table, seeds))
        return done if margin is None else replace(done, equivalence=done.equivalence_test(margin))
