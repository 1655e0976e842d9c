"""Many systems: ComparisonResult.friedman / mean_ranks / nemenyi / tukey_hsd / plot_critical_difference.

Every expected number is built independently of rankeval.stats: scipy's own functions
(``friedmanchisquare``, ``rankdata``, ``tukey_hsd``, ``studentized_range``) on the complete
rows, pandas' row ranks, formulas written out by hand, and Demšar (2006)'s worked example.
scikit-posthocs (not a rankeval dependency) is compared with through values it computed (recorded below).
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import rankeval as rk
from rankeval import DroppedUnitsWarning, RankevalWarning
from rankeval import ComparisonResult
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.stats import average_ranks, cd_groups, nemenyi
from ._require import require

# random lists often share no item with random truth: the low-overlap warning is expected there
pytestmark = [pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning"),
              # scipy < 1.12's studentized range under NumPy >= 1.25, in the reference calls here
              pytest.mark.filterwarnings("ignore:Conversion of an array with ndim > 0:DeprecationWarning")]

# Demšar (2006), Table 6: AUC of C4.5 with and without its m and cf parameters tuned, 14 UCI data sets.
# The printed table rounds to 3 decimals; the paper's mean ranks (3.143, 2.000, 2.893, 1.964) rank
# C4.5+cf ahead of C4.5+m+cf on "voting", where both print as 0.975: 0.97501 keeps that order.
DEMSAR_SYSTEMS = ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.97501, 0.975], [0.957, 0.978, 0.946, 0.970]])


# ---------------------------------------------------------------------------- helpers
def _result(data: dict[str, np.ndarray], systems: tuple[str, ...] | None = None, *,
            higher: dict[str, bool] | None = None, alpha: float = 0.05) -> ComparisonResult:
    """A ComparisonResult whose units hold ``data[metric]`` (n units x k systems, NaN = no value)."""
    first = next(iter(data.values()))
    n, k = first.shape
    systems = systems or tuple(f"s{j}" for j in range(k))
    units = pd.DataFrame({("split", ""): ["fold1"] * n, ("user_id", ""): np.arange(n)})
    for metric, x in data.items():
        for j, s in enumerate(systems):
            units[(metric, s)] = np.asarray(x, dtype=float)[:, j]
    units.columns = pd.MultiIndex.from_tuples(units.columns)
    return ComparisonResult(table=pd.DataFrame(), units=units, systems=systems, metrics=tuple(data),
                            test="paired_t", correction="holm", alpha=alpha, n_resamples=1000, seed=0,
                            higher_is_better=dict(higher or {}))


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(k) for b in range(a + 1, k)]


def _pandas_mean_ranks(x: np.ndarray, higher: bool = True) -> np.ndarray:
    """Row ranks as pandas computes them (average ties), rank 1 = best."""
    return pd.DataFrame(x).rank(axis=1, ascending=not higher, method="average").mean(axis=0).to_numpy()


def _nemenyi_reference(x: np.ndarray, alpha: float, higher: bool = True) -> tuple[np.ndarray, float, np.ndarray]:
    """Mean ranks, CD and pairwise p-values from Demšar's formulas, pair by pair."""
    n, k = x.shape
    r = _pandas_mean_ranks(x, higher)
    se = math.sqrt(k * (k + 1) / (6 * n))
    cd = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2) * se
    p = np.array([stats.studentized_range.sf(abs(r[b] - r[a]) * math.sqrt(2) / se, k, np.inf)
                  for a, b in _pairs(k)])
    return r, cd, p


@contextlib.contextmanager
def _no_warnings():
    """Any warning inside is an error (scipy's RuntimeWarnings too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# small integers: many ties within and across units
tied_matrices = st.tuples(st.integers(2, 25), st.integers(3, 6)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.integers(0, 4).map(float)))
real_matrices = st.tuples(st.integers(2, 25), st.integers(2, 5)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(-5, 5, allow_nan=False, width=32)))


# ---------------------------------------------------------------------------- friedman
@settings(max_examples=150)
@given(x=tied_matrices, higher=st.booleans())
def test_friedman_equals_scipy_exactly(x, higher):
    table = _result({"m": x}, higher={"m": higher}).friedman()
    row = table.loc["m"]
    n, k = x.shape
    assert (row["n"], row["k"]) == (n, k)
    if (x == x[:, :1]).all():  # every unit ties all systems: scipy divides 0 by 0
        assert (row["statistic"], row["p_value"], row["iman_davenport_F"], row["iman_davenport_p"]) == (0, 1, 0, 1)
        return
    ref = stats.friedmanchisquare(*x.T)
    assert row["statistic"] == float(ref.statistic)
    assert row["p_value"] == float(ref.pvalue)
    chi2 = float(ref.statistic)
    if n * (k - 1) - chi2 > 1e-9:
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        assert row["iman_davenport_F"] == pytest.approx(f, rel=1e-12, abs=1e-12)
        assert row["iman_davenport_p"] == pytest.approx(stats.f.sf(max(f, 0), k - 1, (k - 1) * (n - 1)),
                                                        rel=1e-10, abs=1e-14)


def test_friedman_by_hand_no_ties():
    # ranks (higher = better): [1,2,3], [1,3,2], [1,2,3], [2,1,3]; rank sums 5, 8, 11
    x = np.array([[3, 2, 1], [3, 1, 2], [3, 2, 1], [2, 3, 1]], dtype=float)
    row = _result({"m": x}).friedman().loc["m"]
    chi2 = 12 / (4 * 3 * 4) * (5 ** 2 + 8 ** 2 + 11 ** 2) - 3 * 4 * 4  # = 4.5
    assert row["statistic"] == pytest.approx(4.5, rel=1e-14) and chi2 == pytest.approx(4.5)
    assert row["p_value"] == pytest.approx(math.exp(-4.5 / 2), rel=1e-12)  # chi2 with 2 df: sf = exp(-x/2)
    assert row["iman_davenport_F"] == pytest.approx(3 * 4.5 / (4 * 2 - 4.5), rel=1e-12)  # 27/7
    assert row["iman_davenport_p"] == pytest.approx(stats.f.sf(27 / 7, 2, 6), rel=1e-12)
    assert _result({"m": x}).mean_ranks().loc["m"].tolist() == [1.25, 2.0, 2.75]


def test_friedman_by_hand_with_ties():
    # ranks: [1.5,1.5,3], [1,2.5,2.5], [3,2,1]; rank sums 5.5, 6, 6.5; two tie groups of 2: sum t(t^2-1) = 12
    x = np.array([[1, 1, 0], [2, 1, 1], [0, 1, 2]], dtype=float)
    row = _result({"m": x}).friedman().loc["m"]
    uncorrected = 12 / (3 * 3 * 4) * (5.5 ** 2 + 6 ** 2 + 6.5 ** 2) - 3 * 3 * 4  # 1/6
    assert row["statistic"] == pytest.approx(uncorrected / (1 - 12 / (3 * 8 * 3)), rel=1e-12)  # 0.2
    assert row["statistic"] == pytest.approx(0.2, rel=1e-12)
    assert row["p_value"] == pytest.approx(math.exp(-0.1), rel=1e-12)
    np.testing.assert_array_equal(_result({"m": x}).mean_ranks().loc["m"], [5.5 / 3, 2.0, 6.5 / 3])


def test_perfect_agreement_gives_infinite_iman_davenport():
    x = np.tile([3.0, 2.0, 1.0, 0.0], (6, 1))  # every unit ranks the systems alike, no ties
    with _no_warnings():
        row = _result({"m": x}).friedman().loc["m"]
    assert row["statistic"] == pytest.approx(6 * 3)  # n (k - 1), the largest possible
    assert row["p_value"] == pytest.approx(stats.chi2.sf(18, 3), rel=1e-12)
    assert row["iman_davenport_F"] == math.inf and row["iman_davenport_p"] == 0.0


def test_all_values_equal_give_no_difference_and_no_warning():
    x = np.full((7, 4), 0.5)
    res = _result({"m": x})
    with _no_warnings():
        fr, ranks, nem, tuk = res.friedman(), res.mean_ranks(), res.nemenyi(), res.tukey_hsd()
    assert fr.loc["m"].tolist() == [0.0, 1.0, 0.0, 1.0, 7, 4]
    assert ranks.loc["m"].tolist() == [2.5] * 4
    assert (nem["rank_diff"] == 0).all() and (nem["p_value"] == 1).all() and not nem["significant"].any()
    assert nem["critical_difference"].iloc[0] == pytest.approx(
        stats.studentized_range.ppf(0.95, 4, np.inf) / math.sqrt(2) * math.sqrt(4 * 5 / (6 * 7)), rel=1e-12)
    assert (tuk["diff"] == 0).all() and (tuk["ci_low"] == 0).all() and (tuk["ci_high"] == 0).all()
    assert (tuk["p_value"] == 1).all() and not tuk["significant"].any()


# ---------------------------------------------------------------------------- mean ranks
@settings(max_examples=100)
@given(x=tied_matrices, higher=st.booleans())
def test_mean_ranks_equal_rankdata(x, higher):
    ranks = _result({"m": x}, higher={"m": higher}).mean_ranks()
    expected = stats.rankdata(-x if higher else x, axis=1).mean(axis=0)
    np.testing.assert_array_equal(ranks.loc["m"].to_numpy(), expected)
    np.testing.assert_array_equal(average_ranks(x, higher), stats.rankdata(-x if higher else x, axis=1))
    assert ranks.loc["m"].sum() == pytest.approx(x.shape[1] * (x.shape[1] + 1) / 2)


def test_mean_ranks_frame_and_direction():
    x = np.array([[0.9, 0.1, 0.5], [0.8, 0.2, 0.2]])
    res = _result({"acc": x, "err": x}, ("a", "b", "c"), higher={"acc": True, "err": False})
    ranks = res.mean_ranks()
    assert ranks.index.name == "metric" and ranks.columns.name == "system"
    assert ranks.loc["acc"].tolist() == [1.0, 2.75, 2.25]  # b and c tie in unit 2: 2.5 each
    assert ranks.loc["err"].tolist() == [3.0, 1.25, 1.75]  # lowest value best
    # a metric the result has no direction for counts as higher-is-better
    assert _result({"m": x}).mean_ranks().loc["m"].tolist() == [1.0, 2.75, 2.25]


# ---------------------------------------------------------------------------- nemenyi
@settings(max_examples=60)
@given(x=tied_matrices, higher=st.booleans(), alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_nemenyi_equals_the_formula(x, higher, alpha):
    k = x.shape[1]
    table = _result({"m": x}, higher={"m": higher}).nemenyi(alpha)
    r, cd, p = _nemenyi_reference(x, alpha, higher)
    pairs = _pairs(k)
    assert table.index.tolist() == [("m", f"s{a}", f"s{b}") for a, b in pairs]
    np.testing.assert_allclose(table["mean_rank_a"], [r[a] for a, _ in pairs], rtol=1e-13)
    np.testing.assert_allclose(table["mean_rank_b"], [r[b] for _, b in pairs], rtol=1e-13)
    np.testing.assert_allclose(table["rank_diff"], [r[b] - r[a] for a, b in pairs], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(table["critical_difference"], cd, rtol=1e-12)
    np.testing.assert_allclose(table["p_value"], p, rtol=1e-10, atol=1e-15)
    assert table["significant"].tolist() == (p < alpha).tolist()


#: scikit-posthocs 0.17.1 (not a rankeval dependency), on the data of the test below:
#: ref = scikit_posthocs.posthoc_nemenyi_friedman(x).to_numpy(); [ref[a, b] for a, b in _pairs(5)]
SCIKIT_POSTHOCS_NEMENYI_P = [0.770419647401494, 0.21087650496353805, 9.671244287901004e-05, 1.2603515606723903e-05,
                             0.8752769396545648, 0.010067140820813836, 0.002197595601345137, 0.14538700077343847,
                             0.050748011269752924, 0.9932470998209948]


def test_nemenyi_matches_scikit_posthocs():
    rng = np.random.default_rng(3)
    x = np.round(rng.random((40, 5)) + np.arange(5) * 0.08, 1)  # ties, and real differences
    table = _result({"m": x}).nemenyi()
    np.testing.assert_allclose(table["p_value"], SCIKIT_POSTHOCS_NEMENYI_P, rtol=1e-12)


def test_demsar_worked_example():
    res = _result({"AUC": DEMSAR_AUC}, DEMSAR_SYSTEMS, alpha=0.05)
    ranks = res.mean_ranks().loc["AUC"]
    np.testing.assert_allclose(ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)  # Demšar, p. 13
    n, k = 14, 4
    # Demšar's chi-square (without the tie correction) and Iman-Davenport F from these ranks
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks.to_numpy() ** 2) - k * (k + 1) ** 2 / 4)
    assert chi2 == pytest.approx(9.28, abs=0.005)
    assert (n - 1) * chi2 / (n * (k - 1) - chi2) == pytest.approx(3.69, abs=0.005)
    fr = res.friedman().loc["AUC"]
    ref = stats.friedmanchisquare(*DEMSAR_AUC.T)  # scipy corrects for ties (mushroom, iris, ...): larger
    assert fr["statistic"] == float(ref.statistic) and fr["statistic"] > chi2
    assert fr["iman_davenport_p"] < 0.05  # F(3, 39) critical value 2.85: the classifiers differ

    nem = res.nemenyi()
    q05 = stats.studentized_range.ppf(0.95, 4, np.inf) / math.sqrt(2)
    assert round(q05, 3) == 2.569  # Demšar's Table 5(a)
    assert round(float(nem["critical_difference"].iloc[0]), 2) == 1.25  # as Demšar prints it
    assert float(nem["critical_difference"].iloc[0]) == pytest.approx(q05 * math.sqrt(k * (k + 1) / (6 * n)),
                                                                      rel=1e-12)
    # 3.143 - 1.964 = 1.179 < 1.25: "not powerful enough to detect any significant differences"
    assert not nem["significant"].any()
    nem10 = res.nemenyi(alpha=0.10)
    assert round(float(nem10["critical_difference"].iloc[0]), 2) == 1.12  # q_0.10 = 2.291
    q10 = stats.studentized_range.ppf(0.90, 4, np.inf) / math.sqrt(2)
    assert float(nem10["critical_difference"].iloc[0]) == pytest.approx(q10 * math.sqrt(k * (k + 1) / (6 * n)),
                                                                        rel=1e-12)
    assert nem10.index[nem10["significant"]].tolist() == [("AUC", "C4.5", "C4.5+m"), ("AUC", "C4.5", "C4.5+m+cf")]
    assert nem10.loc[("AUC", "C4.5", "C4.5+m+cf"), "rank_diff"] == pytest.approx(1.964 - 3.143, abs=1e-3)


# ---------------------------------------------------------------------------- tukey hsd
@settings(max_examples=15)  # scipy's studentized range at finite df is slow: ~10 ms per p-value
@given(x=real_matrices, alpha=st.sampled_from([0.05, 0.1]))
def test_tukey_hsd_equals_scipy(x, alpha):
    table = _result({"m": x}, alpha=alpha).tukey_hsd()
    k = x.shape[1]
    pairs = _pairs(k)
    if (x == x[:1]).all(axis=0).all():  # constant groups: scipy divides by 0 (handled on its own)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = stats.tukey_hsd(*x.T)
        ci = ref.confidence_interval(1 - alpha)
    assert table.index.tolist() == [("m", f"s{a}", f"s{b}") for a, b in pairs]
    np.testing.assert_array_equal(table["diff"], [x[:, b].mean() - x[:, a].mean() for a, b in pairs])
    np.testing.assert_array_equal(table["statistic"], [ref.statistic[b, a] for a, b in pairs])
    np.testing.assert_array_equal(table["p_value"], [ref.pvalue[b, a] for a, b in pairs])
    np.testing.assert_array_equal(table["ci_low"], [ci.low[b, a] for a, b in pairs])
    np.testing.assert_array_equal(table["ci_high"], [ci.high[b, a] for a, b in pairs])
    assert table["significant"].tolist() == [bool(ref.pvalue[b, a] < alpha) for a, b in pairs]


def test_tukey_hsd_scipy_documentation_example():
    # scipy.stats.tukey_hsd's example: group 1 differs from 0 and 2, CI [0.950841, 8.249159]
    x = np.array([[24.5, 28.4, 26.1], [23.5, 34.2, 28.3], [26.4, 29.5, 24.3], [27.1, 32.2, 26.2],
                  [29.9, 30.1, 27.8]])
    table = _result({"m": x}, ("g0", "g1", "g2")).tukey_hsd()
    row = table.loc[("m", "g0", "g1")]
    assert row["diff"] == pytest.approx(30.88 - 26.28, rel=1e-12)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(0.950841, abs=1e-6), pytest.approx(8.249159, abs=1e-6))
    assert table["significant"].tolist() == [True, False, True]
    assert table.loc[("m", "g1", "g2"), "diff"] == pytest.approx(26.54 - 30.88, rel=1e-12)


def test_tukey_hsd_constant_systems_are_certain():
    # no variance at all: scipy divides by zero; a difference is then certain, an interval a point
    x = np.tile([1.0, 2.0, 2.0], (4, 1))
    with _no_warnings():
        table = _result({"m": x}).tukey_hsd()
    assert table["diff"].tolist() == [1.0, 1.0, 0.0]
    assert table["p_value"].tolist() == [0.0, 0.0, 1.0]
    assert table["significant"].tolist() == [True, True, False]
    assert (table["ci_low"] == table["diff"]).all() and (table["ci_high"] == table["diff"]).all()


def test_tukey_hsd_works_with_two_systems():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 2)) + [0.0, 0.8]
    row = _result({"m": x}).tukey_hsd().iloc[0]
    ref = stats.tukey_hsd(x[:, 0], x[:, 1])
    assert row["p_value"] == ref.pvalue[1, 0] and row["diff"] == ref.statistic[1, 0] > 0
    # with two groups Tukey's test is the pooled two-sample t-test
    assert row["p_value"] == pytest.approx(stats.ttest_ind(x[:, 1], x[:, 0]).pvalue, rel=1e-6)


# ---------------------------------------------------------------------------- dropped units, too few
def test_incomplete_units_are_dropped_and_counted():
    rng = np.random.default_rng(7)
    x = rng.random((12, 4))
    y = rng.random((12, 4))
    x[[1, 5], 2] = np.nan
    x[8, :] = np.nan  # no system has a value: dropped too
    y[3, 0] = np.nan
    res = _result({"NDCG@5": x, "MRR": y})
    with pytest.warns(DroppedUnitsWarning, match=r"friedman\(\).*NDCG@5: 3 of 12; MRR: 1 of 12"):
        fr = res.friedman()
    assert fr["n"].tolist() == [9, 11] and fr["k"].tolist() == [4, 4]
    keep = ~np.isnan(x).any(axis=1)
    assert fr.loc["NDCG@5", "statistic"] == float(stats.friedmanchisquare(*x[keep].T).statistic)
    for method in ("mean_ranks", "nemenyi", "tukey_hsd"):
        with pytest.warns(DroppedUnitsWarning, match=rf"{method}\(\).*NDCG@5: 3 of 12; MRR: 1 of 12") as caught:
            getattr(res, method)()
        assert len(caught) == 1
        assert caught[0].filename == __file__  # points at the caller
    with pytest.warns(DroppedUnitsWarning):
        ranks = res.mean_ranks()
    np.testing.assert_array_equal(ranks.loc["NDCG@5"], stats.rankdata(-x[keep], axis=1).mean(axis=0))
    with pytest.warns(DroppedUnitsWarning):
        tuk = res.tukey_hsd()
    ref = stats.tukey_hsd(*y[~np.isnan(y).any(axis=1)].T)
    np.testing.assert_array_equal(tuk.xs("MRR")["p_value"], [ref.pvalue[b, a] for a, b in _pairs(4)])


def test_fewer_than_three_systems_or_two_units_give_nan_with_a_warning():
    two = _result({"NDCG@5": np.array([[0.1, 0.2], [0.3, 0.1], [0.5, 0.6]])})
    with pytest.warns(RankevalWarning, match=r"friedman\(\).*3 systems.*NDCG@5 \(3 complete unit\(s\), 2 systems\)"):
        fr = two.friedman()
    assert fr.loc["NDCG@5", ["statistic", "p_value", "iman_davenport_F", "iman_davenport_p"]].isna().all()
    assert fr.loc["NDCG@5", ["n", "k"]].tolist() == [3, 2]
    with pytest.warns(RankevalWarning, match=r"nemenyi\(\).*NDCG@5"):
        nem = two.nemenyi()
    assert nem["critical_difference"].isna().all() and nem["p_value"].isna().all()
    assert nem["rank_diff"].tolist() == [pytest.approx(-1 / 3, rel=1e-14)] and not nem["significant"].any()
    with _no_warnings():
        assert two.tukey_hsd()["p_value"].notna().all()  # Tukey needs only two groups

    x = np.full((3, 3), np.nan)
    x[0] = [0.1, 0.2, 0.3]
    one = _result({"MRR": x})
    with pytest.warns(RankevalWarning) as caught:
        fr = one.friedman()
    assert [w.category for w in caught] == [DroppedUnitsWarning, RankevalWarning]
    assert "MRR (1 complete unit(s), 3 systems)" in str(caught[1].message)
    assert fr.loc["MRR", "statistic"] != fr.loc["MRR", "statistic"] and fr.loc["MRR", "n"] == 1
    with pytest.warns(RankevalWarning, match=r"tukey_hsd\(\).*MRR"):
        assert one.tukey_hsd()["p_value"].isna().all()


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, "0.05", True])
def test_alpha_must_be_in_the_unit_interval(alpha):
    res = _result({"m": np.random.default_rng(0).random((5, 3))})
    for method in (res.nemenyi, res.tukey_hsd):
        with pytest.raises(ValueError, match=r"`alpha` must be a number in \(0, 1\) or None"):
            method(alpha)


# ---------------------------------------------------------------------------- through compare()
class NDCGLoss(rk.NDCGAtK):
    """NDCG@k read as a loss: the same values, lower is better."""

    higher_is_better = False


@pytest.fixture(scope="module")
def compared():
    ratings = make_ratings(n_users=40, n_items=50, ratings_per_user=10, seed=2)
    systems: dict[str, list[pd.DataFrame]] = {"pop": [], "rand": [], "oracle": [], "oracle_2": []}
    truths = []
    for s, (train, test) in enumerate(train_test_folds(ratings, n_folds=2, seed=2)):
        truths.append(test)
        for j, (name, kind) in enumerate([("pop", "popularity"), ("rand", "random"), ("oracle", "noisy_oracle"),
                                          ("oracle_2", "noisy_oracle")]):
            rec = recommend(train, test, kind, n=8, seed=10 * j + s)
            rec["score"] = 8.0 - rec.groupby("user_id", sort=False).cumcount().to_numpy()  # distinct scores
            if name == "rand":  # a system that did not list some users: incomplete units
                rec = rec[~rec["user_id"].isin(np.sort(rec["user_id"].unique())[::9])]
            systems[name].append(rec)
    metrics = [rk.NDCGAtK(5), NDCGLoss(5, name="NDCG-loss@5"), rk.MRR()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.compare(systems, truths, metrics, n_resamples=100)


def test_compare_result_end_to_end(compared):
    res = compared
    assert res.higher_is_better["NDCG-loss@5"] is False
    with pytest.warns(DroppedUnitsWarning, match=r"NDCG@5: \d+ of \d+"):
        fr, ranks = res.friedman(), res.mean_ranks()
    for metric in res.metrics:
        x = res.units[[(metric, s) for s in res.systems]].to_numpy(dtype=float)
        x = x[~np.isnan(x).any(axis=1)]
        ref = stats.friedmanchisquare(*x.T)
        assert fr.loc[metric, "statistic"] == float(ref.statistic) and fr.loc[metric, "p_value"] == float(ref.pvalue)
        assert fr.loc[metric, "n"] == len(x) < len(res.units)
        higher = metric != "NDCG-loss@5"
        np.testing.assert_array_equal(ranks.loc[metric], stats.rankdata(-x if higher else x, axis=1).mean(axis=0))
    # the loss ranks every system in reverse: mean ranks mirror around (k + 1) / 2
    np.testing.assert_allclose(ranks.loc["NDCG-loss@5"], 5 - ranks.loc["NDCG@5"], rtol=1e-14)
    assert ranks.loc["NDCG@5"].idxmin() in ("oracle", "oracle_2") and ranks.loc["NDCG@5"].idxmax() == "rand"
    with pytest.warns(DroppedUnitsWarning):
        nem = res.nemenyi()
    np.testing.assert_allclose(nem.xs("NDCG-loss@5")["rank_diff"], -nem.xs("NDCG@5")["rank_diff"], rtol=1e-14)
    np.testing.assert_allclose(nem.xs("NDCG-loss@5")["p_value"], nem.xs("NDCG@5")["p_value"], rtol=1e-12)
    assert nem.loc[("NDCG@5", "rand", "oracle"), "significant"]
    assert nem.loc[("NDCG@5", "rand", "oracle"), "rank_diff"] < 0  # oracle (b) ranks better


# ---------------------------------------------------------------------------- groups and the diagram
@pytest.mark.parametrize("ranks, significant_pairs, groups", [
    pytest.param([1.0, 2.0, 3.0, 4.0], [], [(0, 1, 2, 3)], id="none-significant: one bar"),
    pytest.param([1.0, 2.0, 3.0, 4.0], [(0, 3)], [(0, 1, 2), (1, 2, 3)], id="overlapping"),
    pytest.param([1.0, 2.0, 3.0, 4.0], [(0, 2), (0, 3), (1, 3)], [(0, 1), (1, 2), (2, 3)], id="chain"),
    pytest.param([1.0, 2.0, 3.0], [(0, 1), (0, 2), (1, 2)], [], id="all-significant: no bar"),
    pytest.param([3.0, 1.0, 2.0, 4.0], [(1, 3)], [(1, 2, 0), (2, 0, 3)], id="rank-order-not-input-order"),
])
def test_cd_groups(ranks, significant_pairs, groups):
    sig = np.zeros((len(ranks), len(ranks)), dtype=bool)
    for a, b in significant_pairs:
        sig[a, b] = sig[b, a] = True
    assert cd_groups(np.array(ranks), sig) == groups


def _lines(ax, gid):
    return [line for line in ax.get_lines() if line.get_gid() == gid]


def test_critical_difference_diagram_draws_groups_labels_and_scale():
    require("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = _result({"AUC": DEMSAR_AUC}, DEMSAR_SYSTEMS)
    ax = res.plot_critical_difference("AUC", alpha=0.10)
    try:
        nem = res.nemenyi(alpha=0.10)
        cd = float(nem["critical_difference"].iloc[0])
        # at alpha 0.10 C4.5 differs from C4.5+m and C4.5+m+cf: bars {m+cf, m, cf} and {cf, C4.5}
        bars = _lines(ax, "cd-group")
        assert len(bars) == 2
        spans = sorted((round(min(b.get_xdata()) + 0.04, 3), round(max(b.get_xdata()) - 0.04, 3)) for b in bars)
        assert spans == [(1.964, 2.893), (2.893, 3.143)]
        labels = [t for t in ax.texts if t.get_gid() == "cd-label"]
        assert sorted(t.get_text() for t in labels) == sorted(
            ["C4.5 (3.14)", "C4.5+m (2.00)", "C4.5+cf (2.89)", "C4.5+m+cf (1.96)"])
        assert {t.get_text(): t.get_ha() for t in labels}["C4.5+m+cf (1.96)"] == "right"  # best: left side
        assert {t.get_text(): t.get_ha() for t in labels}["C4.5 (3.14)"] == "left"
        assert len(_lines(ax, "cd-system")) == 4
        scale = _lines(ax, "cd-scale")[0]
        assert np.ptp(scale.get_xdata()) == pytest.approx(cd) and min(scale.get_xdata()) == 1
        assert any(t.get_text() == f"CD = {cd:.2f}" for t in ax.texts)
        assert [t.get_text() for t in ax.texts if re.fullmatch(r"\d", t.get_text())] == ["1", "2", "3", "4"]
        # at alpha 0.05 nothing differs: one bar over all four
        fig, own = plt.subplots()
        assert res.plot_critical_difference("AUC", ax=own) is own
        assert len(_lines(own, "cd-group")) == 1
        assert sorted(_lines(own, "cd-group")[0].get_xdata()) == pytest.approx([1.964 - 0.04, 3.143 + 0.04],
                                                                                abs=1e-3)
    finally:
        plt.close("all")


def test_plot_cd_draws_one_panel_per_metric_and_saves(tmp_path):
    require("matplotlib")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(3)
    res = _result({"NDCG@10": rng.random((30, 5)), "MAP@10": rng.random((30, 5)) + np.arange(5) * 0.2},
                  ("pop", "knn", "mf", "ease", "random"))
    try:
        path = tmp_path / "cd.png"
        fig = res.plot_cd(path=path)
        assert path.stat().st_size > 0 and len(fig.axes) == 2
        assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["NDCG@10", "MAP@10"]
        # MAP@10 grows with the system's position: random (last) ranks best, pop worst
        labels = {t.get_text().split(" (")[0]: float(t.get_text().split("(")[1].rstrip(")"))
                  for t in fig.axes[1].texts if t.get_gid() == "cd-label"}
        assert labels["random"] < labels["pop"]
        np.testing.assert_allclose(sorted(labels.values()), sorted(res.mean_ranks().loc["MAP@10"]), atol=0.005)
        one = res.plot_cd("MAP@10")
        assert len(one.axes) == 1
        with pytest.raises(ValueError, match="not among the compared metrics"):
            res.plot_cd("P@10")
    finally:
        plt.close("all")


def test_critical_difference_diagram_refuses_bad_input(monkeypatch):
    require("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    res = _result({"AUC": DEMSAR_AUC}, DEMSAR_SYSTEMS)
    with pytest.raises(ValueError, match=r"`metric` 'NDCG' is not among the compared metrics \['AUC'\]"):
        res.plot_critical_difference("NDCG")
    two = _result({"m": np.random.default_rng(0).random((5, 2))})
    with pytest.raises(ValueError, match=r"needs at least 3 systems and 2 complete units.*got 2 systems and 5"):
        two.plot_critical_difference("m")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'matplotlib>=3.8'"):
        res.plot_critical_difference("AUC")


def test_nemenyi_function_on_demsar_ranks():
    res = nemenyi(np.array([3.143, 2.000, 2.893, 1.964]), n=14, alpha=0.05)
    assert res.critical_difference == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * 14)), abs=1e-3)
    assert res.p_value.shape == (4, 4) and (np.diag(res.p_value) == 1).all()
    np.testing.assert_array_equal(res.p_value, res.p_value.T)


# Demšar (2006), Table 5: critical values q_alpha of the two-tailed Nemenyi test, k = 2..10 classifiers
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


def test_nemenyi_q_for_two_systems_is_demsars():
    from rankeval.stats._posthoc import _q_alpha

    # nemenyi() itself needs 3 systems (after a Friedman test); its q for k = 2 is the normal quantile
    assert _q_alpha(0.05, 2) == pytest.approx(DEMSAR_Q05[0], abs=1.1e-3)
    assert _q_alpha(0.10, 2) == pytest.approx(DEMSAR_Q10[0], abs=1.1e-3)


@pytest.mark.parametrize("k", range(3, 11))
def test_nemenyi_critical_difference_is_demsars_for_every_k(k):
    """CD = q_alpha sqrt(k (k + 1) / (6 n)) with q_alpha of Demšar's published table, k = 3..10,
    read off nemenyi() itself on k systems over n units."""
    n = 12
    rng = np.random.default_rng(k)
    values = rng.random((n, k))
    for alpha, table in ((0.05, DEMSAR_Q05), (0.10, DEMSAR_Q10)):
        res = _result({"m": values}, alpha=alpha)
        cd = float(res.nemenyi()["critical_difference"].iloc[0])
        q = cd / math.sqrt(k * (k + 1) / (6 * n))
        # the table is the studentized range's printed 3-decimal values / sqrt(2): its last digit is
        # off by one for k = 3, 5, 7 (2.3437 printed 2.343, 2.4595 printed 2.459, 2.9483 printed 2.949)
        assert q == pytest.approx(table[k - 2], abs=1.1e-3), (k, alpha, q)


def test_tables_gain_the_friedman_line_and_mean_ranks_when_asked():
    res = _result({"AUC": DEMSAR_AUC}, DEMSAR_SYSTEMS)
    plain = res.to_markdown()
    assert "chi2_F" not in plain and "chi2_F" not in res.to_latex()
    md = res.to_markdown(friedman=True)
    assert md.startswith(plain.rstrip("\n"))
    fr = res.friedman().loc["AUC"]
    row = next(line for line in md.splitlines() if line.startswith("| AUC | ") and "rank" not in line
               and line.count("|") == 11)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{fr['statistic']:.4f}" and cells[3] == f"{fr['iman_davenport_F']:.4f}"
    assert cells[5] == "14"
    assert [float(c) for c in cells[6:]] == pytest.approx([3.143, 2.000, 2.893, 1.964], abs=5e-3)  # Demšar
    tex = res.to_latex(friedman=True)
    assert r"$\chi^2_F$" in tex and "Iman--Davenport" in tex and f"{fr['statistic']:.4f}" in tex
