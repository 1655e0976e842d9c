"""Power, minimum detectable effect and users needed (rankeval.stats.power_analysis, ComparisonResult.power).

The analytic paired t-test against statsmodels' TTestPower over the issue's grid and against
G*Power's published values; the simulation against the analytic power on normal differences
(within 3 Monte Carlo standard errors) and apart from it on skewed per-user-NDCG-like ones;
the method of a comparison against the function on the same differences; the docs' example
against its printed output.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.stats import (
    corrected_alpha,
    power_analysis,
    shift_to,
    simulated_power,
    ttest_mde,
    ttest_nobs,
    ttest_power,
)

from ._require import require

DOC = Path(__file__).resolve().parent.parent / "docs" / "compare.md"

ALPHAS = (0.01, 0.05, 0.1)
POWERS = (0.5, 0.8, 0.9, 0.95)
EFFECTS = (0.05, 0.1, 0.2, 0.5, 1.0)
#: rankeval's alternative -> statsmodels' (one-sided: in the direction of a positive effect)
SIDES = {"two-sided": "two-sided", "one-sided": "larger"}
#: statsmodels' solve_power stops about this far from the root of effect_size
SM_SOLVER = 2.5e-6
#: the noncentral t of the oldest SciPy we support (1.11) is off by up to about 2e-8 (near power 0.5 and 0.8, and
#: at an effect of 0) where newer SciPy agrees with statsmodels to 1e-15: power values are compared within this
NCT_ABS = 1e-7


def _ndcg_like(n: int = 400, seed: int = 1) -> np.ndarray:
    """Per-user NDCG differences of two systems that reach a relevant item for 15 % of users each:
    most differences 0 (both miss), the rest bounded in [-1, 1] and skewed."""
    rng = np.random.default_rng(seed)
    a = np.where(rng.random(n) < 0.15, rng.beta(2, 5, n), 0.0)
    b = np.where(rng.random(n) < 0.15, rng.beta(2, 5, n), 0.0)
    return b - a


@pytest.mark.parametrize("alternative", list(SIDES))
@pytest.mark.parametrize("alpha", ALPHAS)
def test_analytic_t_equals_statsmodels_ttestpower_over_the_grid(alpha, alternative):
    smp = require("statsmodels.stats.power")
    sm = smp.TTestPower()
    side = SIDES[alternative]
    for power in POWERS:
        for effect in EFFECTS:
            n = ttest_nobs(effect, alpha=alpha, power=power, alternative=alternative)
            assert ttest_power(effect, n, alpha=alpha, alternative=alternative) == pytest.approx(power, abs=1e-10)
            assert abs(n - sm.solve_power(effect_size=effect, nobs=None, alpha=alpha, power=power,
                                          alternative=side)) < 1
            users = math.ceil(n)
            mde = ttest_mde(users, alpha=alpha, power=power, alternative=alternative)
            # within 1e-6 of the exact root: the power crosses the target inside +-1e-6 of it
            assert (ttest_power(mde - 1e-6, users, alpha=alpha, alternative=alternative) < power
                    < ttest_power(mde + 1e-6, users, alpha=alpha, alternative=alternative))
            # statsmodels may return the negative root of the (symmetric) two-sided power
            theirs = abs(float(np.squeeze(sm.solve_power(effect_size=None, nobs=users, alpha=alpha, power=power,
                                                          alternative=side))))
            assert abs(mde - theirs) <= SM_SOLVER + 1e-6
            assert ttest_power(effect, users, alpha=alpha, alternative=alternative) == pytest.approx(
                sm.power(effect, users, alpha, alternative=side), abs=NCT_ABS)


def test_analytic_t_hand_checked_values():
    # G*Power 3.1, "t tests - means: difference from constant (one sample case)", d_z = 0.5, alpha 0.05,
    # power 0.8: total sample size 34, actual power 0.8077775 (two tails); 27 and 0.8118316 (one tail)
    assert math.ceil(ttest_nobs(0.5)) == 34
    assert ttest_power(0.5, 34) == pytest.approx(0.8077775, abs=5e-8)
    assert math.ceil(ttest_nobs(0.5, alternative="one-sided")) == 27
    assert ttest_power(0.5, 27, alternative="one-sided") == pytest.approx(0.8118316, abs=5e-8)
    # no effect: the noncentral t is the central one, rejected with probability alpha exactly
    for n in (2, 10, 1000):
        assert ttest_power(0.0, n, alpha=0.05) == pytest.approx(0.05, abs=NCT_ABS)
        assert ttest_power(0.0, n, alpha=0.1, alternative="one-sided") == pytest.approx(0.1, abs=NCT_ABS)
    # many users: the normal approximation, Phi(d sqrt(n) - z) + Phi(-d sqrt(n) - z)
    from scipy.stats import norm
    z = norm.isf(0.025)
    assert ttest_power(0.03, 10_000) == pytest.approx(norm.cdf(3 - z) + norm.cdf(-3 - z), abs=2e-4)
    # the MDE is where the power is the target, and the sign of the effect does not matter
    assert ttest_power(ttest_mde(200), 200) == pytest.approx(0.8, abs=1e-12)
    assert ttest_power(-0.3, 50) == ttest_power(0.3, 50)
    assert ttest_nobs(-0.3) == ttest_nobs(0.3)


def test_corrected_alpha_is_the_most_conservative_step():
    assert corrected_alpha(0.05, None, 6) == 0.05
    for correction in ("bonferroni", "holm", "fdr_bh"):
        assert corrected_alpha(0.05, correction, 6) == pytest.approx(0.05 / 6)
    d = np.random.default_rng(0).normal(0.1, 1.0, 300)
    res = power_analysis(d, correction="holm", n_tests=4)
    assert res.alpha_used == pytest.approx(0.0125)
    assert res.table.loc["differences", "alpha"] == pytest.approx(0.0125)
    assert res.table.loc["differences", "mde_dz"] == pytest.approx(ttest_mde(300, alpha=0.0125))
    assert "holm over 4 test(s)" in res.summary() and "0.0125" in res.summary()


def test_power_analysis_row_from_an_array_of_differences():
    d = np.random.default_rng(3).normal(0.05, 0.2, 500)
    before = d.copy()
    row = power_analysis(d, effect=0.02).table.loc["differences"]
    sd = d.std(ddof=1)
    assert row["n"] == 500 and row["sd"] == pytest.approx(sd) and row["mean_diff"] == pytest.approx(d.mean())
    assert row["mde"] == pytest.approx(ttest_mde(500) * sd) and row["mde_dz"] == pytest.approx(ttest_mde(500))
    assert row["power"] == pytest.approx(ttest_power(0.02 / sd, 500))
    assert row["n_needed_exact"] == pytest.approx(ttest_nobs(0.02 / sd))
    assert row["n_needed"] == math.ceil(ttest_nobs(0.02 / sd))
    assert row["power_method"] == "analytic t" and row["power_se"] == 0
    # without an effect: the observed mean difference
    assert power_analysis(d).table.loc["differences", "effect"] == pytest.approx(d.mean())
    np.testing.assert_array_equal(d, before)


@pytest.mark.parametrize("alternative", ["two-sided", "one-sided"])
def test_simulated_t_power_agrees_with_the_analytic_on_normal_differences(alternative):
    d = np.random.default_rng(11).normal(0.0, 1.0, 5000)
    for effect, n in ((0.1, 300), (0.2, 150), (0.05, 1000)):
        sim = simulated_power(d, effect, n=n, n_simulations=4000, seed=5, alternative=alternative)
        analytic = ttest_power(effect / d.std(ddof=1), n, alternative=alternative)
        assert 0.1 < analytic < 0.95
        assert sim.se == pytest.approx(math.sqrt(sim.power * (1 - sim.power) / 4000))
        assert abs(sim.power - analytic) < 3 * sim.se, (effect, n, sim, analytic)


def test_simulated_randomization_and_bootstrap_power_agree_on_normal_differences():
    # with normal differences every test of the mean has about the t-test's power
    d = np.random.default_rng(12).normal(0.0, 1.0, 2000)
    analytic = ttest_power(0.2 / d.std(ddof=1), 150)
    for test in ("randomization", "bootstrap"):
        sim = simulated_power(d, 0.2, n=150, test=test, n_simulations=600, n_resamples=1000, seed=2)
        assert abs(sim.power - analytic) < 3 * sim.se + 0.01, (test, sim, analytic)


def test_on_skewed_ndcg_like_differences_the_simulation_departs_from_the_formula():
    d = _ndcg_like()
    assert np.mean(d == 0) > 0.7
    sd = d.std(ddof=1)
    # the t-test at 30 users: the skewed, tie-heavy differences are far from normal
    sim_t = simulated_power(d, 0.03, n=30, n_simulations=4000, seed=1)
    analytic = ttest_power(0.03 / sd, 30)
    assert analytic == pytest.approx(0.147, abs=0.001)
    assert analytic - sim_t.power > 3 * sim_t.se  # about 0.10 against 0.147
    # the shift model: shifting the ties turns every tie into a small win, which Wilcoxon counts
    kept = simulated_power(d, 0.01, n=30, test="wilcoxon", n_simulations=4000, seed=1)
    shifted = simulated_power(d, 0.01, n=30, test="wilcoxon", n_simulations=4000, seed=1, ties="shift")
    assert kept.power < 0.1 and shifted.power > 0.6  # about 0.06 and 0.76
    assert ttest_power(0.01 / sd, 30) < 0.1


def test_the_simulation_is_what_is_reported_for_wilcoxon():
    d = _ndcg_like(30)  # a pilot of 30 users, 25 of them ties
    res = power_analysis(d, effect=0.05, test="wilcoxon", n_simulations=1000, seed=4)
    row = res.table.loc["differences"]
    sim = simulated_power(d, 0.05, test="wilcoxon", n_simulations=1000, seed=4)
    assert row["power_method"] == "simulation" and res.test == "wilcoxon"
    assert row["power"] == sim.power and row["power_se"] == sim.se
    analytic = ttest_power(0.05 / d.std(ddof=1), len(d))  # d_z 0.44: 0.65, the Wilcoxon test about 0.34
    assert abs(row["power"] - analytic) > 3 * row["power_se"]
    # the MDE and the users needed stay the paired t-test's
    assert row["mde_dz"] == pytest.approx(ttest_mde(len(d)))


def test_simulation_is_seeded_and_one_sided_follows_the_effect():
    d = _ndcg_like()
    first = simulated_power(d, 0.02, n=100, n_simulations=500, seed=3)
    assert simulated_power(d, 0.02, n=100, n_simulations=500, seed=3) == first
    assert simulated_power(d, 0.02, n=100, n_simulations=500, seed=4) != first
    # a one-sided test in the direction of a negative effect is the mirror image of a positive one
    neg = simulated_power(d, -0.02, n=100, n_simulations=500, seed=3, alternative="one-sided")
    assert neg == simulated_power(-d, 0.02, n=100, n_simulations=500, seed=3, alternative="one-sided")
    assert neg.power > simulated_power(d, -0.02, n=100, n_simulations=500, seed=3).power


def test_shift_to_keeps_ties_and_reaches_the_mean():
    d = np.array([0.0, 0.0, 0.3, -0.1, 0.0])
    kept = shift_to(d, 0.2)
    assert kept.mean() == pytest.approx(0.2) and np.all(kept[d == 0] == 0)
    np.testing.assert_allclose(kept[d != 0], d[d != 0] + (0.2 * 5 - 0.2) / 2)
    np.testing.assert_allclose(shift_to(d, 0.2, ties="shift"), d - d.mean() + 0.2)


def _small_comparison() -> rk.ComparisonResult:
    rng = np.random.default_rng(0)
    users, items = np.arange(120), np.arange(30)
    truth = pd.DataFrame({"user_id": np.repeat(users, 3), "item_id": rng.integers(0, 30, 360),
                          "score": 1.0}).drop_duplicates(["user_id", "item_id"])

    def system(pull: float) -> pd.DataFrame:
        scores = rng.random((120, 30)) + pull * items / 30
        return pd.DataFrame({"user_id": np.repeat(users, 30), "item_id": np.tile(items, 120),
                             "score": scores.ravel()})

    return rk.compare({"a": system(0.0), "b": system(0.5), "c": system(1.0)}, truth,
                      [rk.NDCGAtK(5), rk.MRRAtK(5)], seed=1, n_resamples=200)


def test_comparison_power_equals_the_function_on_its_differences():
    res = _small_comparison()
    out = res.power(0.02, power=0.9)
    assert len(out.table) == 6 and out.n_tests == 6 and out.correction == "holm"
    for (metric, a, b), row in out.table.iterrows():
        u = res.units[[(metric, a), (metric, b)]].dropna()
        d = u[(metric, b)].to_numpy() - u[(metric, a)].to_numpy()
        alone = power_analysis(d, effect=0.02, power=0.9, correction="holm", n_tests=6).table.iloc[0]
        pd.testing.assert_series_equal(row, alone, check_names=False)
        assert row["n"] == res.table.loc[(metric, a, b), "n"]
        assert row["mean_diff"] == pytest.approx(res.table.loc[(metric, a, b), "diff"])
    assert out.table["alpha"].tolist() == [pytest.approx(0.05 / 6)] * 6
    # a relative effect is a share of system a's mean, per test
    rel = res.power(0.1, relative=True).table
    np.testing.assert_allclose(rel["effect"], 0.1 * res.table["mean_a"].to_numpy())
    # per metric
    per = res.power({"NDCG@5": 0.01, "MRR@5": 0.03}).table
    assert per.xs("NDCG@5")["effect"].tolist() == [0.01] * 3 and per.xs("MRR@5")["effect"].tolist() == [0.03] * 3


def test_comparison_power_simulates_its_own_test():
    res = _small_comparison()
    out = res.power(0.05, test="randomization", n_simulations=50, n_resamples=300)
    assert out.test == "randomization" and set(out.table["power_method"]) == {"simulation"}
    d = res.units[[("MRR@5", "a"), ("MRR@5", "c")]].dropna().to_numpy()
    alone = simulated_power(d[:, 1] - d[:, 0], 0.05, test="randomization", n_simulations=50, n_resamples=300,
                            alpha=out.alpha_used, seed=res.seed, ci_method=res.ci_method)
    assert out.table.loc[("MRR@5", "a", "c"), "power"] == alone.power


@pytest.mark.parametrize("call, match", [
    (lambda: ttest_mde(100, alpha=1.5), r"`alpha` must be a number in \(0, 1\)"),
    (lambda: ttest_mde(100, alpha=0.0), r"`alpha` must be a number in \(0, 1\)"),
    (lambda: ttest_mde(100, power=1.2), r"`power` must be a number in \(0, 1\)"),
    (lambda: ttest_nobs(0.2, power=0.0), r"`power` must be a number in \(0, 1\)"),
    (lambda: ttest_mde(100, alpha=0.1, power=0.05), r"`power` = 0.05 must exceed `alpha` = 0.1"),
    (lambda: ttest_mde(1), r"`n` \(users\) must be a number >= 2, got 1"),
    (lambda: ttest_power(0.2, 1.5), r"`n` \(users\) must be a number >= 2"),
    (lambda: simulated_power([0.1, -0.2, 0.3], 0.1, n=1), r"`n` \(users\) must be an integer >= 2"),
    (lambda: ttest_nobs(0.0), r"`effect_size` must be a finite number other than 0"),
    (lambda: power_analysis([0.1]), r"`differences` need at least 2 users \(n >= 2\), got 1"),
    (lambda: power_analysis([0.2, 0.2, 0.2]), r"`differences` have zero variance"),
    (lambda: simulated_power([0.2, 0.2], 0.1), r"`differences` have zero variance"),
    (lambda: power_analysis([0.1, 0.2], power=1.0), r"`power` must be a number in \(0, 1\)"),
    (lambda: power_analysis([0.1, 0.2], alternative="left"), r"`alternative` must be one of"),
    (lambda: power_analysis([0.1, 0.2], test="sign"), r"`test` must be one of"),
    (lambda: simulated_power([0.1, 0.2, 0.4], 0.1, test="randomization", n_resamples=10),
     r"`n_resamples` must be an integer >= 40"),
    (lambda: simulated_power([0.1, 0.2, 0.4], 0.1, seed=-1), r"`seed` must be an integer >= 0"),
    (lambda: shift_to([0.0, 0.0], 0.1), r"`differences` are all 0"),
    (lambda: power_analysis([0.1, np.nan, 0.3]), r"`differences` hold 1 NaN value\(s\)"),
    (lambda: power_analysis([0.1, np.inf, 0.3]), r"`differences` hold an infinite value"),
])
def test_bad_input_is_a_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_degenerate_test_of_a_comparison_is_nan_with_a_warning():
    d = {("m", "a", "b"): [0.1, 0.3, -0.2], ("m", "a", "c"): [0.2, 0.2, 0.2]}
    with pytest.warns(rk.RankevalWarning, match=r"1 set\(s\) of differences have no power analysis.*'c'.*zero var"):
        out = power_analysis(d, index_names=["metric", "system_a", "system_b"])
    assert out.table.index.names == ["metric", "system_a", "system_b"]
    assert out.table.loc[("m", "a", "c"), "n"] == 3 and np.isnan(out.table.loc[("m", "a", "c"), "mde"])
    assert out.table.loc[("m", "a", "b"), "mde"] > 0


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## How big a difference can this comparison detect?")
    return text[start:text.index("\n## ", start + 10)]


def test_the_docs_example_prints_what_the_page_shows(capsys):
    section = _section()
    code = re.search(r"^```python\n(.*?)^```", section, flags=re.DOTALL | re.MULTILINE)
    shown = re.search(r"^```text\n(.*?)^```", section, flags=re.DOTALL | re.MULTILINE)
    assert code and shown
    exec(compile(code.group(1), "compare.md", "exec"), {})
    assert capsys.readouterr().out == shown.group(1)


def test_a_pilot_planned_at_another_number_of_users():
    d = np.random.default_rng(8).normal(0.02, 0.3, 80)  # a pilot of 80 users
    row = power_analysis(d, effect=0.03, n=2000).table.loc["differences"]
    sd = d.std(ddof=1)
    assert row["n"] == 2000 and row["sd"] == pytest.approx(sd)
    assert row["mde"] == pytest.approx(ttest_mde(2000) * sd)
    assert row["power"] == pytest.approx(ttest_power(0.03 / sd, 2000))
    sim = power_analysis(d, effect=0.03, n=2000, simulate=True, n_simulations=400, seed=1).table.loc["differences"]
    assert sim["power"] == simulated_power(d, 0.03, n=2000, n_simulations=400, seed=1).power
    res = _small_comparison()
    assert res.power(n=5000).table["n"].tolist() == [5000] * 6


def test_the_simulation_shows_a_progress_bar(monkeypatch):
    import rankeval._progress as progress_module

    class Bar:
        def __init__(self, **options):
            self.options, self.n, self.closed = options, 0, False

        def update(self, k):
            self.n += k

        def close(self):
            self.closed = True

    bars: list[Bar] = []
    monkeypatch.setattr(progress_module, "progress_bar", lambda **options: bars.append(Bar(**options)) or bars[-1])
    simulated_power(np.arange(50.0), 1.0, n_simulations=300, seed=0, progress=True)
    (bar,) = bars
    assert bar.options["enabled"] is True and bar.options["total"] == 300 and bar.n == 300 and bar.closed
    simulated_power(np.arange(50.0), 1.0, n_simulations=300, seed=0)
    assert bars[1].options["enabled"] is False


def _drawn_samples(d: np.ndarray, effect: float, n: int, n_simulations: int, seed: int) -> np.ndarray:
    """The samples simulated_power draws (one batch: n_simulations x n is small here)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    shifted = shift_to(d, effect)
    return shifted[rng.integers(0, len(d), size=(n_simulations, n))]


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon"])
def test_simulated_scipy_tests_equal_a_loop_of_compares_calls(test):
    # compare calls ttest_rel(b, a) / wilcoxon(b, a) one test at a time, p = 1 when every difference is 0
    from scipy import stats
    d = _ndcg_like(200, seed=5)
    samples = _drawn_samples(d, 0.04, 30, 300, seed=9)
    call = stats.ttest_rel if test == "paired_t" else stats.wilcoxon
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's notes on ties and zeros: compare silences them too
        p = [call(s, np.zeros(30)).pvalue if np.any(s) else 1.0 for s in samples]
    expected = np.count_nonzero(np.nan_to_num(np.array(p), nan=1.0) < 0.05) / 300
    assert simulated_power(d, 0.04, n=30, test=test, n_simulations=300, seed=9).power == expected


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_simulated_resampling_tests_equal_the_engine_one_sample_at_a_time(test):
    from rankeval.stats import ResamplingPlan, resample_tests
    d = _ndcg_like(200, seed=6)
    samples = _drawn_samples(d, 0.05, 30, 40, seed=2)
    hits = 0
    for s in samples:
        columns = np.column_stack([np.ones(30), np.zeros(30), s])
        res = resample_tests(ResamplingPlan((30,), 2, 500), columns, [(1, 2, 0)], [np.arange(30)], 0.05,
                             randomization=test == "randomization", ci_method="percentile")
        rejected = res.p_value[0] < 0.05 if test == "randomization" else res.ci_low[0] > 0 or res.ci_high[0] < 0
        hits += bool(rejected)
    assert simulated_power(d, 0.05, n=30, test=test, n_simulations=40, n_resamples=500, seed=2).power == hits / 40
