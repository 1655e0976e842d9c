"""How sure is a comparison: effect sizes with intervals, equivalence (TOST) and training seeds.

d_z's interval against its defining equation (scipy's noncentral t) and its coverage on normal
data; the t TOST against statsmodels' ``ttost_paired`` and ``tconfint_mean``; the bootstrap
TOST's interval against the comparison's own percentile CI (same draws); the relative
difference's interval against scipy's bootstrap of the ratio and an exact case; the seed
decomposition against a hand-worked case and a plain-loop oracle; compare with seeds against
the same runs compared as separate systems.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import rankeval as rk
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.stats import (
    bootstrap_tost,
    check_margin,
    dz_interval,
    ratio_interval,
    seed_decomposition,
    seed_spread_of_difference,
    tost_paired,
)

from ._require import require
from .test_split_movielens import ml100k  # noqa: F401 (the fixture)


# ---------------------------------------------------------------------------- d_z's interval
@pytest.mark.parametrize(("dz", "n", "alpha"), [(0.5, 34, 0.05), (-1.2, 5, 0.05), (0.05, 2000, 0.1),
                                                (2.0, 12, 0.01), (0.0, 40, 0.05)])
def test_dz_interval_solves_the_noncentral_t_equations(dz, n, alpha):
    low, high = dz_interval(dz, n, alpha)
    t, df = dz * math.sqrt(n), n - 1
    assert stats.nct.cdf(t, df, low * math.sqrt(n)) == pytest.approx(1 - alpha / 2, abs=1e-9)
    assert stats.nct.cdf(t, df, high * math.sqrt(n)) == pytest.approx(alpha / 2, abs=1e-9)
    assert low < dz < high


@given(st.floats(-200, 200), st.integers(1, 10**6), st.floats(-250, 250))
def test_the_root_search_reads_the_noncentral_t_cdf_of_scipy_bit_for_bit(t, df, lam):
    """The d_z interval's cdf (the distribution's own, past the generic argument handling) is
    the float ``scipy.stats.nct.cdf`` returns, on the SciPy installed: the interval's bits
    do not depend on the shortcut."""
    from rankeval.stats._effects import nct_cdf

    with np.errstate(all="ignore"):
        public = float(stats.nct.cdf(t, df, lam))
        fast = nct_cdf(t, df, lam)
    assert fast == public or (math.isnan(fast) and math.isnan(public))


def test_dz_interval_is_the_normal_approximation_at_large_n():
    n, dz = 100_000, 0.3
    se = math.sqrt(1 / n + dz ** 2 / (2 * n))  # the large-sample sd of d_z
    low, high = dz_interval(dz, n, 0.05)
    assert low == pytest.approx(dz - 1.959964 * se, abs=2e-5)
    assert high == pytest.approx(dz + 1.959964 * se, abs=2e-5)


def test_dz_interval_covers_at_its_level_on_normal_differences():
    rng = np.random.default_rng(3)
    true, n, reps = 0.4, 15, 600
    hits = 0
    for _ in range(reps):
        d = rng.normal(true, 1.0, n)
        low, high = dz_interval(d.mean() / d.std(ddof=1), n, 0.05)
        hits += low <= true <= high
    se = math.sqrt(0.95 * 0.05 / reps)
    assert abs(hits / reps - 0.95) < 3 * se


@pytest.mark.parametrize("n", [2, 3, 10, 100, 600, 5000, 100_000])
def test_dz_interval_is_finite_and_mirrored_where_scipys_tails_are_nan(n):
    # scipy's nct.cdf is NaN far in its tails (t = -23 at 599 degrees of freedom, lambda = 1, say)
    for dz in (0.1, 0.95, 2.0, 8.0, 30.0):
        low, high = dz_interval(dz, n)
        assert math.isfinite(low) and math.isfinite(high) and low < dz < high
        assert dz_interval(-dz, n) == (-high, -low)
    se = math.sqrt(1 / 600 + 0.9478 ** 2 / 1200)  # large n: the normal form
    assert dz_interval(-0.9478, 600) == pytest.approx((-0.9478 - 1.96 * se, -0.9478 + 1.96 * se), abs=2e-3)


def test_dz_interval_is_nan_without_an_estimate():
    assert all(math.isnan(v) for v in dz_interval(float("inf"), 10))
    assert all(math.isnan(v) for v in dz_interval(0.3, 1))


# ---------------------------------------------------------------------------- TOST
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_t_tost_equals_statsmodels(seed, alpha):
    ws = require("statsmodels.stats.weightstats")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 200))
    a = rng.random(n)
    b = a + rng.normal(rng.normal(0, 0.02), 0.05, n)
    margin = float(rng.uniform(0.005, 0.05))
    p, low, high = tost_paired(b - a, margin, alpha)
    sm_p, _, _ = ws.ttost_paired(b, a, -margin, margin)
    assert p == pytest.approx(float(sm_p), rel=1e-10, abs=1e-14)
    sm_low, sm_high = ws.DescrStatsW(b - a).tconfint_mean(alpha=2 * alpha)
    assert (low, high) == pytest.approx((sm_low, sm_high), rel=1e-12)
    inside = -margin < low and high < margin
    assert (p < alpha) == inside  # the verdict is the (1 - 2 alpha) interval inside the margin


def test_t_tost_degenerate_cases():
    assert tost_paired(np.array([0.01, 0.01, 0.01]), 0.05) == (0.0, 0.01, 0.01)
    assert tost_paired(np.array([0.2, 0.2]), 0.05) == (1.0, 0.2, 0.2)
    assert all(math.isnan(v) for v in tost_paired(np.array([0.1]), 0.05))


def test_bootstrap_tost_by_hand():
    boot = np.array([-0.3, -0.1, 0.0, 0.05, 0.1, 0.2, 0.25, 0.4, 0.45, 0.6])
    p, low, high = bootstrap_tost(boot, 0.4, alpha=0.1)
    # share at or below -0.4: 0; at or above 0.4: 3 of 10
    assert p == pytest.approx(0.3)
    assert (low, high) == pytest.approx(tuple(np.quantile(boot, [0.1, 0.9])))


@pytest.mark.parametrize(("margin", "expected"), [(0.1, {None: (0.1, False)}), ("2%", {None: (0.02, True)}),
                                                  ({"P@5": "1.5%", "MRR": 0.2},
                                                   {"P@5": (0.015, True), "MRR": (0.2, False)})])
def test_margins_read(margin, expected):
    got = check_margin(margin)
    assert set(got) == set(expected)
    for key, (value, relative) in expected.items():
        assert got[key][0] == pytest.approx(value, rel=1e-15) and got[key][1] is relative


@pytest.mark.parametrize("margin", [0, -0.1, "x%", "0%", float("nan"), True, "5", {}])
def test_bad_margins_raise_naming_the_argument(margin):
    with pytest.raises(ValueError, match="equivalence_margin"):
        check_margin(margin)


# ---------------------------------------------------------------------------- relative difference
def test_ratio_interval_of_a_constant_ratio_is_the_point():
    rng = np.random.default_rng(0)
    a = rng.random((400, 1)) + 0.1
    boot = np.column_stack([a.mean(axis=1), 1.1 * a.mean(axis=1)])
    low, high = ratio_interval(boot[:, 0], boot[:, 1])
    assert (low, high) == pytest.approx((10.0, 10.0), rel=1e-12)


@pytest.fixture(scope="module")
def lists():
    ratings = make_ratings(n_users=300, n_items=120, seed=1)
    train, test = next(iter(train_test_folds(ratings, n_folds=5, seed=0)))
    systems = {"pop": recommend(train, test, "popularity", n=10),
               "rand": recommend(train, test, "random", n=10, seed=1),
               "oracle": recommend(train, test, "noisy_oracle", n=10, seed=2)}
    runs = {f"s{i}": recommend(train, test, "random", n=10, seed=10 + i) for i in range(4)}
    return systems, runs, test


def test_relative_difference_and_its_interval_against_scipy_bootstrap(lists):
    systems, _, test = lists
    res = rk.compare({k: systems[k] for k in ("pop", "oracle")}, test, [rk.NDCGAtK(10)], n_resamples=20_000)
    row = res.table.loc[("NDCG@10", "pop", "oracle")]
    assert row["rel_diff"] == pytest.approx(100 * (row["mean_b"] / row["mean_a"] - 1), rel=1e-12)
    a = res.units[("NDCG@10", "pop")].to_numpy()
    b = res.units[("NDCG@10", "oracle")].to_numpy()
    ref = stats.bootstrap((a, b), lambda x, y, axis: 100 * (y.mean(axis) / x.mean(axis) - 1), paired=True,
                          vectorized=True, n_resamples=20_000, method="percentile", random_state=7)
    rel = 100 * np.array([b[i].mean() / a[i].mean() - 1 for i in
                          np.random.default_rng(8).integers(0, len(a), (2000, len(a)))])
    sd = rel.std()
    assert row["rel_ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.15 * sd)
    assert row["rel_ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.15 * sd)
    dz = (b - a).mean() / (b - a).std(ddof=1)
    assert (row["dz_ci_low"], row["dz_ci_high"]) == pytest.approx(dz_interval(dz, len(a), 0.05), rel=1e-12)


# ---------------------------------------------------------------------------- equivalence in compare
def test_compare_equivalence_t_equals_statsmodels_on_the_units(lists):
    ws = require("statsmodels.stats.weightstats")
    systems, _, test = lists
    res = rk.compare(systems, test, [rk.NDCGAtK(10), rk.PrecisionAtK(5)], n_resamples=200,
                     equivalence_margin={"NDCG@10": "5%", "P@5": 0.02})
    eq = res.equivalence
    assert list(eq.index) == list(res.table.index)
    for (metric, a, b), row in eq.iterrows():
        margin = 0.05 * abs(res.table.loc[(metric, a, b), "mean_a"]) if metric == "NDCG@10" else 0.02
        assert row["margin"] == pytest.approx(margin, rel=1e-15)
        pair = res.units[[(metric, a), (metric, b)]].dropna().to_numpy()
        sm_p = ws.ttost_paired(pair[:, 1], pair[:, 0], -margin, margin)[0]
        assert row["tost_p"] == pytest.approx(float(sm_p), rel=1e-10, abs=1e-300)
        assert row["equivalent"] == (row["tost_p"] < 0.05)
        assert row["method"] == "t"


def test_near_identical_systems_are_equivalent_and_distant_ones_are_not(lists):
    systems, _, test = lists
    near = systems["oracle"].copy()
    near.loc[near.index[::50], "score"] *= 1.0001  # a few scores nudged: the same lists
    res = rk.compare({"oracle": systems["oracle"], "near": near, "pop": systems["pop"]}, test,
                     [rk.NDCGAtK(10)], n_resamples=200, equivalence_margin="1%")
    assert bool(res.equivalence.loc[("NDCG@10", "oracle", "near"), "equivalent"])
    assert not bool(res.equivalence.loc[("NDCG@10", "oracle", "pop"), "equivalent"])


def test_bootstrap_tost_uses_the_comparisons_own_draws(lists):
    systems, _, test = lists
    two = {k: systems[k] for k in ("pop", "rand")}
    # the percentile CI at alpha 0.1 holds the 5 % and 95 % quantiles of the bootstrap means, as the
    # bootstrap TOST's (1 - 2 alpha) interval at alpha 0.05 does: the same draws give the same limits
    res = rk.compare(two, test, [rk.NDCGAtK(10)], alpha=0.1, ci_method="percentile", n_resamples=999, seed=4)
    eq = dataclasses.replace(res, alpha=0.05).equivalence_test(0.01, method="bootstrap")
    key = ("NDCG@10", "pop", "rand")
    assert eq.loc[key, "tost_low"] == res.table.loc[key, "ci_low"]
    assert eq.loc[key, "tost_high"] == res.table.loc[key, "ci_high"]
    assert res.equivalence_test(0.01, method="bootstrap").loc[key, "method"] == "bootstrap"
    wilcoxon = rk.compare(two, test, [rk.NDCGAtK(10)], test="wilcoxon", n_resamples=999, equivalence_margin=0.5)
    assert wilcoxon.equivalence.loc[key, "method"] == "bootstrap"
    assert bool(wilcoxon.equivalence.loc[key, "equivalent"])  # a margin of 0.5 NDCG holds any of these


def test_margin_naming_an_untested_metric_raises(lists):
    systems, _, test = lists
    with pytest.raises(ValueError, match=r"does not test: \['MAP@3'\]"):
        rk.compare({k: systems[k] for k in ("pop", "rand")}, test, [rk.NDCGAtK(10)], n_resamples=100,
                   equivalence_margin={"MAP@3": 0.1})
    with pytest.raises(ValueError, match="equivalence_margin"):
        rk.compare({k: systems[k] for k in ("pop", "rand")}, test, [rk.NDCGAtK(10)], equivalence_margin=-1)


# ---------------------------------------------------------------------------- seeds
def test_seed_decomposition_by_hand():
    x = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    out = seed_decomposition(x)
    # seed scores 2/3 and 1/3; MS_seed = 1/6, MS_user = 1/2, MS_res = (1/3) / 2 = 1/6
    assert out["mean"] == pytest.approx(0.5)
    assert out["seed_sd"] == pytest.approx(math.sqrt(2) / 6)
    assert out["var_seed"] == pytest.approx(0.0, abs=1e-15)
    assert out["var_user"] == pytest.approx(1 / 6)
    assert out["var_residual"] == pytest.approx(1 / 6)
    assert (out["seed_min"], out["seed_max"]) == pytest.approx((1 / 3, 2 / 3))


def _decomposition_loops(x):
    n, s = len(x), len(x[0])
    grand = sum(sum(r) for r in x) / (n * s)
    col = [sum(x[u][j] for u in range(n)) / n for j in range(s)]
    row = [sum(x[u]) / s for u in range(n)]
    ss_seed = sum(n * (c - grand) ** 2 for c in col)
    ss_user = sum(s * (r - grand) ** 2 for r in row)
    ss_res = 0.0
    for u in range(n):
        for j in range(s):
            ss_res += (x[u][j] - row[u] - col[j] + grand) ** 2
    ms_res = ss_res / ((n - 1) * (s - 1))
    sd = math.sqrt(sum((c - sum(col) / s) ** 2 for c in col) / (s - 1))
    return sd, max(0.0, (ss_seed / (s - 1) - ms_res) / n), max(0.0, (ss_user / (n - 1) - ms_res) / s), ms_res


@given(st.integers(2, 12).flatmap(lambda n: st.integers(2, 5).flatmap(lambda s: st.lists(
    st.lists(st.floats(0, 1), min_size=s, max_size=s), min_size=n, max_size=n))))
def test_seed_decomposition_equals_plain_loops(x):
    out = seed_decomposition(np.array(x))
    expected = _decomposition_loops(x)
    got = (out["seed_sd"], out["var_seed"], out["var_user"], out["var_residual"])
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_seed_spread_of_difference():
    assert seed_spread_of_difference(0.03, 0.04) == pytest.approx(0.05)
    assert seed_spread_of_difference(float("nan"), 0.04) == pytest.approx(0.04)
    assert math.isnan(seed_spread_of_difference(float("nan"), float("nan")))


def test_compare_with_seeds_by_hand():
    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["x", "x", "x"], "score": [1.0, 1.0, 1.0]})

    def lists(top):
        return pd.DataFrame({"user_id": [1, 2, 3], "item_id": top, "score": [1.0, 1.0, 1.0]})

    # P@1 of seed0: 1, 0, 1; of seed1: 0, 0, 1; system b: 1, 1, 1
    res = rk.compare({"a": {"seed0": lists(["x", "y", "x"]), "seed1": lists(["y", "y", "x"])},
                      "b": lists(["x", "x", "x"])}, truth, [rk.PrecisionAtK(1)], n_resamples=100)
    assert res.systems == ("a", "b")
    np.testing.assert_allclose(res.units[("P@1", "a")], [0.5, 0.0, 1.0])
    row = res.seeds.loc[("P@1", "a")]
    assert (row["n_seeds"], row["n_users"]) == (2, 3)
    assert row["mean"] == pytest.approx(0.5)
    assert row["seed_sd"] == pytest.approx(math.sqrt(2) / 6)
    assert (row["var_seed"], row["var_user"], row["var_residual"]) == pytest.approx((0.0, 1 / 6, 1 / 6), abs=1e-15)
    pair = res.seed_pairs.loc[("P@1", "a", "b")]
    assert pair["diff"] == pytest.approx(0.5)
    assert pair["seed_spread"] == pytest.approx(math.sqrt(2) / 6)
    assert bool(pair["exceeds"]) and pair["verdict"] == "exceeds the seed-to-seed spread"


def test_compare_with_seeds_equals_the_runs_compared_alone(lists):
    systems, runs, test = lists
    metrics = [rk.NDCGAtK(10), rk.RecallAtK(10)]
    seeded = rk.compare({"pop": systems["pop"], "rand": runs}, test, metrics, n_resamples=200)
    flat = rk.compare({"pop": systems["pop"], **{f"rand[{k}]": v for k, v in runs.items()}}, test, metrics,
                      n_resamples=200)
    for metric in ("NDCG@10", "R@10"):
        per_run = np.column_stack([flat.units[(metric, f"rand[{k}]")] for k in runs])
        np.testing.assert_allclose(seeded.units[(metric, "rand")], per_run.mean(axis=1), rtol=1e-15)
        scores = per_run.mean(axis=0)
        row = seeded.seeds.loc[(metric, "rand")]
        assert row["seed_sd"] == pytest.approx(scores.std(ddof=1), rel=1e-12)
        assert row["mean"] == pytest.approx(scores.mean(), rel=1e-12)
        key = (metric, "pop", "rand")
        d = seeded.units[(metric, "rand")] - seeded.units[(metric, "pop")]
        assert seeded.table.loc[key, "p_value"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-9)
        spread = seeded.seed_pairs.loc[key]
        assert spread["seed_spread"] == pytest.approx(row["seed_sd"], rel=1e-15)  # pop has no seeds
        assert bool(spread["exceeds"]) == (abs(seeded.table.loc[key, "diff"]) > row["seed_sd"])


def test_seed_input_errors(lists):
    systems, runs, test = lists
    with pytest.raises(ValueError, match=r"systems\['rand'\]` has no seed runs"):
        rk.compare({"pop": systems["pop"], "rand": {}}, test, [rk.NDCGAtK(10)])
    with pytest.raises(ValueError, match="also system names"):
        rk.compare({"pop": systems["pop"], "rand": runs, "rand[s0]": systems["rand"]}, test, [rk.NDCGAtK(10)])


# ---------------------------------------------------------------------------- the worked example
def test_the_movielens_example_prints_what_the_docs_show(ml100k, tmp_path, capsys):  # noqa: F811 (the fixture)
    import re
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    ml100k[["user_id", "item_id", "score", "timestamp"]].to_csv(tmp_path / "u.data", sep="\t", header=False,
                                                                index=False)
    example = runpy.run_path(str(root / "examples" / "how_sure.py"))
    example["main"]([str(tmp_path / "u.data")])
    text = (root / "docs" / "compare.md").read_text(encoding="utf-8")
    start = text.index("## How sure is this? A worked example on MovieLens-100k")
    section = text[start:text.index("\n## ", start + 10)]
    shown = re.search(r"^```text\n(.*?)^```", section, flags=re.DOTALL | re.MULTILINE)
    assert shown is not None and capsys.readouterr().out == shown.group(1)


# ---------------------------------------------------------------------------- the report's card
def _table_rows(html: str, table_id: str) -> list[list[str]]:
    import re

    body = re.search(rf'<table[^>]*id="{table_id}".*?<tbody>(.*?)</tbody>', html, flags=re.DOTALL)
    assert body is not None, table_id
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), flags=re.DOTALL)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, flags=re.DOTALL)]
            for r in rows]


def test_the_report_card_shows_equivalence_and_seeds(lists):
    require("jinja2")
    systems, runs, test = lists
    res = rk.compare({"pop": systems["pop"], "rand": runs}, test, [rk.NDCGAtK(10)], n_resamples=200,
                     equivalence_margin=0.05)
    page = rk.report(res)
    assert "sure" in page.sections
    eq = _table_rows(page.html, "equivalence")
    row = res.equivalence.iloc[0]
    assert eq[0][:3] == ["NDCG@10", "pop", "rand"]
    assert eq[0][3] == f"{row['margin']:.4f}" and eq[0][7] == f"{row['tost_p']:.4f}"
    assert eq[0][8] == ("equivalent" if row["equivalent"] else "not shown equivalent")
    seeds = _table_rows(page.html, "seeds")
    assert seeds[0][:4] == ["NDCG@10", "rand", "4", str(len(res.units))]
    assert seeds[0][4:6] == [f"{res.seeds.iloc[0][c]:.4f}" for c in ("mean", "seed_sd")]
    verdicts = _table_rows(page.html, "seed-pairs")
    assert verdicts[0][-1] == res.seed_pairs.iloc[0]["verdict"]
