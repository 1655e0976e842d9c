"""compare() / ComparisonResult: scipy parity, corrections, determinism, units, reports.

Every expected number here is built independently of rankeval.compare: each system's
per-user values come from ``EvalModel(...).fit()[1]`` (or by hand for tiny cases), are
paired with pandas merges on (split, user_id), NaN-dropped, sorted by (split position,
user_id) and handed to scipy directly.
"""

from __future__ import annotations

import math
import re
import warnings

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankeval as rk
from rankeval import DroppedUnitsWarning, MissingUsersWarning, RankevalWarning
from rankeval.datasets import make_ratings, recommend, train_test_folds

# random lists often share no item with random truth: the low-overlap warning is expected there
pytestmark = pytest.mark.filterwarnings("ignore::rankeval.LowOverlapWarning")

COLUMNS = ["mean_a", "mean_b", "diff", "ci_low", "ci_high", "statistic", "p_value", "p_adjusted",
           "significant", "n", "wins", "ties", "losses", "effect_size", "rel_diff", "rel_ci_low", "rel_ci_high",
           "dz_ci_low", "dz_ci_high"]
RANDOMIZED = {"paired_t": ["ci_low", "ci_high", "rel_ci_low", "rel_ci_high"],
              "wilcoxon": ["ci_low", "ci_high", "rel_ci_low", "rel_ci_high"],
              "randomization": ["ci_low", "ci_high", "rel_ci_low", "rel_ci_high", "p_value", "p_adjusted",
                                "significant"]}
METRICS = [rk.NDCGAtK(5), rk.PrecisionAtK(5), rk.MRR()]  # never NaN: every user has a relevant item
RTOL = 1e-12


# ---------------------------------------------------------------------------- data
def _lists(train: pd.DataFrame, test: pd.DataFrame, kind: str, seed: int, n: int = 10) -> pd.DataFrame:
    """recommend()'s lists with distinct scores (10.5, 9.5, ...) so that row order never matters
    (not 10, 9, ..., 1: shuffled, those read as ranks 1..n and set off RanksAsScoresWarning)."""
    rec = recommend(train, test, kind, n=n, seed=seed)
    rec["score"] = float(n) + 0.5 - rec.groupby("user_id", sort=False).cumcount().to_numpy()
    return rec


def _synthetic(n_users: int, keep: tuple[float, ...], *, seed: int, kinds: dict[str, tuple[str, int]],
               ratings_per_user: int = 12) -> tuple[dict[str, list[pd.DataFrame]], list[pd.DataFrame]]:
    """len(keep) splits; split s keeps the first keep[s] share of the users (unequal splits)."""
    ratings = make_ratings(n_users=n_users, n_items=60, ratings_per_user=ratings_per_user, seed=seed)
    folds = list(train_test_folds(ratings, n_folds=len(keep), seed=seed))
    users = np.sort(ratings["user_id"].unique())
    systems: dict[str, list[pd.DataFrame]] = {name: [] for name in kinds}
    truths = []
    for s, ((train, test), share) in enumerate(zip(folds, keep)):
        test = test[test["user_id"].isin(users[: int(round(share * len(users)))])]
        truths.append(test)
        for name, (kind, rec_seed) in kinds.items():
            systems[name].append(_lists(train, test, kind, seed=100 * rec_seed + s))
    return systems, truths


SYSTEMS4 = {"pop": ("popularity", 0), "rand": ("random", 1), "rand_2": ("random", 2),
            "noisy_oracle": ("noisy_oracle", 3)}


@pytest.fixture(scope="module")
def multi():
    """Three unequal splits (60, 40, 20 users), four systems."""
    return _synthetic(60, (1.0, 2 / 3, 1 / 3), seed=5, kinds=SYSTEMS4)


@pytest.fixture(scope="module")
def gappy(multi):
    """`multi` where `rand` lost some users' lists: NaN units for one system only."""
    systems, truths = multi
    systems = dict(systems)
    cut = []
    for s, frame in enumerate(systems["rand"]):
        users = np.sort(frame["user_id"].unique())
        cut.append(frame[~frame["user_id"].isin(users[s::7])])
    systems["rand"] = cut
    return systems, truths


def _per_user(systems, truths, metrics, **kwargs) -> dict[str, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return {name: rk.EvalModel(frames, truths, metrics, **kwargs).fit()[1] for name, frames in systems.items()}


def _paired(per_user: dict[str, pd.DataFrame], metric: str, a: str, b: str, split_order: list[str]
            ) -> tuple[np.ndarray, np.ndarray]:
    """The paired arrays, built with pandas: inner merge on (split, user_id), NaN dropped,
    sorted by (split position, user_id)."""
    left = per_user[a][metric].rename("a").reset_index()
    right = per_user[b][metric].rename("b").reset_index()
    both = left.merge(right, on=["split", "user_id"], how="inner").dropna(subset=["a", "b"])
    both["pos"] = both["split"].map({name: i for i, name in enumerate(split_order)})
    both = both.sort_values(["pos", "user_id"], kind="stable")
    return both["a"].to_numpy(np.float64), both["b"].to_numpy(np.float64)


def _compare(*args, **kwargs) -> rk.ComparisonResult:
    """compare() with rankeval's warnings silenced, where they are not the point."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.compare(*args, **kwargs)


def _recorded(*args, **kwargs) -> tuple[rk.ComparisonResult, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rk.compare(*args, **kwargs)
    return res, caught


def _dropped_counts(caught) -> list[int]:
    """The totals that DroppedUnitsWarning messages report."""
    out = []
    for w in caught:
        if issubclass(w.category, DroppedUnitsWarning):
            match = re.match(r"(\d+) \(split, user\) units were left out of (\d+) test", str(w.message))
            assert match, str(w.message)
            out.append(int(match.group(1)))
    return out


def _mrr_frames(positions: dict[str, list[int | None]], users: list[str], listed: int = 4):
    """Each user has one truth item (relevant: it is the user's mean); a system lists
    `listed` items with it at position p (MRR 1/p), nowhere (p=0, MRR 0), or lists
    nothing for the user (p=None)."""
    truth = pd.DataFrame({"user_id": users, "item_id": [f"rel-{u}" for u in users], "score": 1.0})
    preds = {}
    for name, pos in positions.items():
        rows = []
        for u, p in zip(users, pos):
            if p is None:
                continue
            items = [f"{name}-{u}-{j}" for j in range(listed)]
            if p:
                items[p - 1] = f"rel-{u}"
            # listed - j + 0.5: whole numbers n..1 in shuffled rows would read as ranks (RanksAsScoresWarning)
            rows += [(u, item, listed - j + 0.5) for j, item in enumerate(items)]
        preds[name] = pd.DataFrame(rows, columns=["user_id", "item_id", "score"])
    return preds, truth


def _mrr(positions):
    return np.array([0.0 if not p else 1.0 / p for p in positions])


# Two splits of four users (the same ids in both: eight distinct units).
TINY_USERS = ["u1", "u2", "u3", "u4"]
TINY_A = [[1, 2, 0, 3], [1, 0, 2, 4]]
TINY_B = [[1, 1, 2, 1], [3, 1, 1, 2]]


@pytest.fixture
def tiny():
    frames = [_mrr_frames({"a": pa, "b": pb}, TINY_USERS) for pa, pb in zip(TINY_A, TINY_B)]
    systems = {"a": [f[0]["a"] for f in frames], "b": [f[0]["b"] for f in frames]}
    truths = [f[1] for f in frames]
    a = np.concatenate([_mrr(p) for p in TINY_A])  # by hand: units (fold1, u1..u4), (fold2, u1..u4)
    b = np.concatenate([_mrr(p) for p in TINY_B])
    return systems, truths, a, b


def _check_descriptives(row: pd.Series, a: np.ndarray, b: np.ndarray) -> None:
    d = b - a
    np.testing.assert_allclose(row["mean_a"], a.mean(), rtol=RTOL)
    np.testing.assert_allclose(row["mean_b"], b.mean(), rtol=RTOL)
    np.testing.assert_allclose(row["diff"], d.mean(), rtol=RTOL, atol=1e-15)
    assert row["n"] == len(d)
    assert row["wins"] == np.count_nonzero(b > a)
    assert row["ties"] == np.count_nonzero(b == a)
    assert row["losses"] == np.count_nonzero(b < a)
    assert row["wins"] + row["ties"] + row["losses"] == row["n"]
    np.testing.assert_allclose(row["effect_size"], d.mean() / d.std(ddof=1), rtol=1e-10)


def _mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


def _scipy_permutation_p(a, b, n_resamples, seed=0):
    return stats.permutation_test((b, a), _mean_diff, permutation_type="samples", vectorized=True,
                                  n_resamples=n_resamples, alternative="two-sided", random_state=seed).pvalue


# ---------------------------------------------------------------------------- scipy parity
@pytest.mark.parametrize("data", ["multi", "gappy"])
@pytest.mark.parametrize("test", ["paired_t", "wilcoxon"])
def test_parametric_tests_match_scipy_on_independently_paired_arrays(test, data, request):
    systems, truths = request.getfixturevalue(data)
    metrics = METRICS + ([rk.Correlation("pearson")] if data == "gappy" else [])
    res = _compare(systems, truths, metrics, test=test, n_resamples=200, seed=1)
    per_user = _per_user(systems, truths, metrics)
    split_order = ["fold1", "fold2", "fold3"]
    assert len(res.table) == len(metrics) * 6
    for (metric, a_name, b_name), row in res.table.iterrows():
        a, b = _paired(per_user, metric, a_name, b_name, split_order)
        _check_descriptives(row, a, b)
        ref = stats.ttest_rel(b, a) if test == "paired_t" else stats.wilcoxon(b, a)
        np.testing.assert_allclose(row["statistic"], ref.statistic, rtol=RTOL)
        np.testing.assert_allclose(row["p_value"], ref.pvalue, rtol=RTOL)
        if test == "paired_t":  # signed: positive means b scored higher
            assert np.sign(row["statistic"]) == np.sign(row["diff"])


def test_gappy_data_really_has_gaps(gappy, multi):
    # the `gappy` parity cases above are only meaningful if pairs lost units
    res = _compare(gappy[0], gappy[1], METRICS + [rk.Correlation("pearson")], n_resamples=50)
    full = _compare(multi[0], multi[1], METRICS, n_resamples=50)
    n_full = full.table["n"].max()
    assert (res.table.xs("rand", level="system_a")["n"] < n_full).all()
    assert (res.table.xs("pearson", level="metric")["n"] < n_full).all()
    assert (res.table.xs("MRR", level="metric").xs("pop", level="system_a")["n"].loc["noisy_oracle"] == n_full)


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
def test_tiny_case_by_hand(tiny, test):
    systems, truths, a, b = tiny
    res = rk.compare(systems, truths, [rk.MRR()], test=test, n_resamples=1000, seed=0)
    assert list(res.table.index) == [("MRR", "a", "b")]
    row = res.table.loc[("MRR", "a", "b")]
    _check_descriptives(row, a, b)
    assert (row["n"], row["wins"], row["ties"], row["losses"]) == (8, 6, 1, 1)
    np.testing.assert_allclose(row["mean_a"], (1 + 1 / 2 + 0 + 1 / 3 + 1 + 0 + 1 / 2 + 1 / 4) / 8, rtol=RTOL)
    np.testing.assert_allclose(row["mean_b"], (1 + 1 + 1 / 2 + 1 + 1 / 3 + 1 + 1 + 1 / 2) / 8, rtol=RTOL)
    if test == "paired_t":
        ref = stats.ttest_rel(b, a)
    elif test == "wilcoxon":
        ref = stats.wilcoxon(b, a)
    else:
        ref = stats.permutation_test((b, a), _mean_diff, permutation_type="samples", vectorized=True,
                                     n_resamples=1000, alternative="two-sided")
        assert row["statistic"] == pytest.approx(np.mean(b - a), rel=RTOL)
    np.testing.assert_allclose(row["statistic"], ref.statistic, rtol=RTOL)
    np.testing.assert_allclose(row["p_value"], ref.pvalue, rtol=RTOL)
    # units: by hand
    units = res.units
    assert list(units.columns) == [("split", ""), ("user_id", ""), ("MRR", "a"), ("MRR", "b")]
    assert units[("split", "")].tolist() == ["fold1"] * 4 + ["fold2"] * 4
    assert units[("user_id", "")].tolist() == TINY_USERS * 2
    np.testing.assert_array_equal(units[("MRR", "a")].to_numpy(), a)
    np.testing.assert_array_equal(units[("MRR", "b")].to_numpy(), b)


@pytest.mark.parametrize("n_resamples", [2 ** 8, 2 ** 8 + 1, 10_000])
@pytest.mark.parametrize("seed", [0, 7])
def test_randomization_is_exact_when_every_sign_flip_fits(tiny, n_resamples, seed):
    # 8 paired units: 2**8 = 256 sign vectors <= n_resamples, so scipy enumerates them all
    # and neither p-value depends on the seed.
    systems, truths, a, b = tiny
    res = rk.compare(systems, truths, [rk.MRR()], test="randomization", n_resamples=n_resamples, seed=seed)
    row = res.table.iloc[0]
    expected = _scipy_permutation_p(a, b, n_resamples)
    assert row["p_value"] == pytest.approx(expected, rel=RTOL, abs=0)
    # the exact p-value is a multiple of 1 / 2**8
    assert (row["p_value"] * 256) == pytest.approx(round(row["p_value"] * 256), abs=1e-9)
    assert row["statistic"] == pytest.approx(np.mean(b - a), rel=RTOL)


def test_randomization_exact_on_a_few_real_units(multi):
    """Up to 10 units from real lists: restrict truth to a handful of users per split."""
    systems, truths = multi
    keep = [["u0000", "u0003", "u0007", "u0011", "u0017"], ["u0001", "u0004", "u0010"], ["u0002"]]
    truths = [t[t["user_id"].isin(k)] for t, k in zip(truths, keep)]
    systems = {name: [f[f["user_id"].isin(k)] for f, k in zip(frames, keep)] for name, frames in systems.items()}
    res = rk.compare(systems, truths, METRICS[:2], test="randomization", n_resamples=1024, seed=3)
    per_user = _per_user(systems, truths, METRICS[:2])
    for (metric, a_name, b_name), row in res.table.iterrows():
        a, b = _paired(per_user, metric, a_name, b_name, ["fold1", "fold2", "fold3"])
        assert len(a) == 9 and 2 ** len(a) <= 1024
        _check_descriptives(row, a, b)
        assert row["p_value"] == pytest.approx(_scipy_permutation_p(a, b, 1024), rel=RTOL, abs=0)
        assert row["statistic"] == pytest.approx(np.mean(b - a), rel=RTOL, abs=1e-15)


@pytest.fixture(scope="module")
def large():
    """One split of 300 users: a clear effect (oracle vs random) and a null one (random vs random)."""
    return _synthetic(300, (1.0,), seed=11, kinds={"rand": ("random", 1), "rand_2": ("random", 2),
                                                    "oracle": ("noisy_oracle", 3)})


def test_randomization_monte_carlo_agrees_with_scipy(large):
    systems, truths = large
    n_res = 2000
    res = rk.compare(systems, truths, [rk.NDCGAtK(10)], test="randomization", n_resamples=n_res, seed=0,
                     correction=None)
    per_user = _per_user(systems, truths, [rk.NDCGAtK(10)])
    for (metric, a_name, b_name), row in res.table.iterrows():
        a, b = _paired(per_user, metric, a_name, b_name, ["fold1"])
        assert len(a) == 300
        assert row["statistic"] == pytest.approx(np.mean(b - a), rel=RTOL, abs=1e-15)
        expected = _scipy_permutation_p(a, b, n_res, seed=0)
        p = max(expected, 1 / n_res)
        se = math.sqrt(2 * p * (1 - p) / n_res)  # two independent Monte Carlo estimates
        assert abs(row["p_value"] - expected) <= 5 * se + 2 / (n_res + 1), (a_name, b_name, row["p_value"], expected)
        assert 0 < row["p_value"] <= 1
    # the clear effect: no flip reaches the observed mean, p = 2 (0 + 1) / (2000 + 1) as scipy
    clear = res.table.loc[(metric, "rand", "oracle")]
    assert clear["p_value"] == pytest.approx(2 / (n_res + 1), rel=RTOL)
    # the null effect: a p-value far from the floor
    assert res.table.loc[(metric, "rand", "rand_2"), "p_value"] > 0.05


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_bootstrap_ci_agrees_with_scipy_bca(alpha):
    """At 500 units, within Monte Carlo error of scipy's BCa on other draws. This alone does not tell
    BCa from the percentile interval (at this n they differ by less than the tolerance): the
    same-draws test_bca_interval_is_efrons_on_the_same_draws does, at every n (tests/mutation/run_mutants.py shows it)."""
    systems, truths = _synthetic(500, (1.0,), seed=21, kinds={"rand": ("random", 1), "rand_2": ("random", 2),
                                                              "oracle": ("noisy_oracle", 3)})
    n_res = 5000
    res = rk.compare(systems, truths, [rk.NDCGAtK(10)], alpha=alpha, n_resamples=n_res, seed=4)
    per_user = _per_user(systems, truths, [rk.NDCGAtK(10)])
    for (metric, a_name, b_name), row in res.table.iterrows():
        a, b = _paired(per_user, metric, a_name, b_name, ["fold1"])
        d = b - a
        assert len(d) == 500
        ref = stats.bootstrap((d,), np.mean, method="BCa", confidence_level=1 - alpha, n_resamples=n_res,
                              random_state=np.random.default_rng(123)).confidence_interval
        width = ref.high - ref.low
        assert width > 0
        assert abs(row["ci_low"] - ref.low) < 0.1 * width, (a_name, b_name, row["ci_low"], ref.low)
        assert abs(row["ci_high"] - ref.high) < 0.1 * width, (a_name, b_name, row["ci_high"], ref.high)
        assert abs((row["ci_high"] - row["ci_low"]) - width) < 0.1 * width
        assert row["ci_low"] < row["diff"] < row["ci_high"]


def test_ci_contains_diff_and_narrows_with_confidence(multi):
    systems, truths = multi
    wide = _compare(systems, truths, METRICS, alpha=0.01, n_resamples=2000)
    narrow = _compare(systems, truths, METRICS, alpha=0.2, n_resamples=2000)
    for res in (wide, narrow):
        t = res.table
        assert (t["ci_low"] <= t["diff"]).all() and (t["diff"] <= t["ci_high"]).all()
    assert ((wide.table["ci_high"] - wide.table["ci_low"]) > (narrow.table["ci_high"] - narrow.table["ci_low"])).all()


# ---------------------------------------------------------------------------- corrections
def _holm(p: np.ndarray) -> np.ndarray:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = np.empty(m)
    running = 0.0
    for j, i in enumerate(order):  # step down: (m - j) p_(j), made monotone
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out


def _bh(p: np.ndarray) -> np.ndarray:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i], reverse=True)
    out = np.empty(m)
    running = 1.0
    for j, i in enumerate(order):  # step up from the largest: rank of p[i] is m - j
        running = min(running, p[i] * m / (m - j))
        out[i] = running
    return out


def _bonferroni(p: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, len(p) * p)


@pytest.fixture(scope="module")
def small():
    """One split of 40 users, four systems: p-values of every size."""
    return _synthetic(40, (1.0,), seed=8, kinds=SYSTEMS4)


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
@pytest.mark.parametrize("correction, adjust", [("holm", _holm), ("bonferroni", _bonferroni), ("fdr_bh", _bh),
                                                (None, lambda p: p)])
def test_corrections_by_hand(small, test, correction, adjust):
    systems, truths = small
    res = rk.compare(systems, truths, METRICS, test=test, correction=correction, n_resamples=1000, alpha=0.05)
    t = res.table
    assert len(t) == 18  # 3 metrics x 6 pairs: every test of the call is one family
    p = t["p_value"].to_numpy()
    assert not np.isnan(p).any()
    assert len(np.unique(p)) >= 6 and (p > 0.05).any() and (p < 0.005).any()
    np.testing.assert_allclose(t["p_adjusted"].to_numpy(), adjust(p), rtol=RTOL)
    if correction is None:
        np.testing.assert_array_equal(t["p_adjusted"].to_numpy(), p)
    assert (t["p_adjusted"] >= t["p_value"]).all() and (t["p_adjusted"] <= 1).all()
    assert t["significant"].dtype == bool
    pd.testing.assert_series_equal(t["significant"], t["p_adjusted"] < 0.05, check_names=False)
    assert res.correction == correction


def test_holm_and_bh_with_tied_p_values():
    # tiny sanity checks of the hand-written references themselves (ties, monotonicity)
    p = np.array([0.01, 0.04, 0.03, 0.03, 0.5, 0.001])
    np.testing.assert_allclose(_holm(p), [0.05, 0.12, 0.12, 0.12, 0.5, 0.006])
    np.testing.assert_allclose(_bh(p), [0.03, 0.048, 0.045, 0.045, 0.5, 0.006])
    np.testing.assert_allclose(_bh(p), stats.false_discovery_control(p, method="bh"))


@pytest.mark.parametrize("alpha", [0.001, 0.05, 0.5])
def test_significant_follows_alpha(small, alpha):
    systems, truths = small
    res = rk.compare(systems, truths, METRICS, alpha=alpha, n_resamples=max(200, int(np.ceil(2 / alpha))))
    pd.testing.assert_series_equal(res.table["significant"], res.table["p_adjusted"] < alpha, check_names=False)
    assert res.alpha == alpha


# ---------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
def test_same_seed_same_numbers_other_seed_only_randomized_columns(multi, test):
    systems, truths = multi
    first = rk.compare(systems, truths, METRICS, test=test, n_resamples=1000, seed=5)
    again = rk.compare(systems, truths, METRICS, test=test, n_resamples=1000, seed=5)
    pd.testing.assert_frame_equal(first.table, again.table, check_exact=True)
    pd.testing.assert_frame_equal(first.units, again.units, check_exact=True)
    other = rk.compare(systems, truths, METRICS, test=test, n_resamples=1000, seed=6)
    fixed = [c for c in COLUMNS if c not in RANDOMIZED[test]]
    pd.testing.assert_frame_equal(first.table[fixed], other.table[fixed], check_exact=True)
    pd.testing.assert_frame_equal(first.units, other.units, check_exact=True)
    assert (first.table["ci_low"] != other.table["ci_low"]).any()
    assert (first.table["ci_high"] != other.table["ci_high"]).any()
    if test == "randomization":
        assert (first.table["p_value"] != other.table["p_value"]).any()


def _growing_calls(systems, truths, test, n_resamples=1000):
    """The same pairs alone, then with more systems, more metrics, or both (same seed)."""
    two = {k: systems[k] for k in ["rand", "noisy_oracle"]}
    kw = dict(test=test, n_resamples=n_resamples, seed=2, correction=None)
    alone = rk.compare(two, truths, METRICS[:2], **kw)
    bigger = [rk.compare({**two, "pop": systems["pop"]}, truths, METRICS[:2], **kw),
              rk.compare(systems, truths, METRICS[:2], **kw),
              rk.compare(two, truths, [METRICS[2], *METRICS[:2]], **kw),
              rk.compare(systems, truths, [METRICS[2], *METRICS[:2]], **kw)]
    return alone, bigger


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
def test_a_pair_does_not_change_when_systems_or_metrics_are_added(multi, test):
    alone, bigger = _growing_calls(*multi, test)
    exact = [c for c in COLUMNS if c not in ("ci_low", "ci_high")]  # correction=None: p_adjusted == p_value
    for res in bigger:
        for key in [("NDCG@5", "rand", "noisy_oracle"), ("P@5", "rand", "noisy_oracle")]:
            pd.testing.assert_series_equal(res.table.loc[key, exact], alone.table.loc[key, exact],
                                           check_exact=True, check_names=False)
            # CIs: exact equality is tested below; here: close
            np.testing.assert_allclose(res.table.loc[key, ["ci_low", "ci_high"]].to_numpy(float),
                                       alone.table.loc[key, ["ci_low", "ci_high"]].to_numpy(float), atol=2e-3)


@pytest.mark.parametrize("test", ["paired_t", "randomization"])
def test_a_pairs_ci_does_not_change_when_systems_or_metrics_are_added(multi, test):
    alone, bigger = _growing_calls(*multi, test, n_resamples=200)
    for res in bigger:
        for key in [("NDCG@5", "rand", "noisy_oracle"), ("P@5", "rand", "noisy_oracle")]:
            assert res.table.loc[key, "ci_low"] == alone.table.loc[key, "ci_low"]
            assert res.table.loc[key, "ci_high"] == alone.table.loc[key, "ci_high"]


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
def test_input_row_order_does_not_matter(multi, test):
    systems, truths = multi
    rng = np.random.default_rng(0)

    def shuffle(frame):
        return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)

    shuffled_systems = {name: [shuffle(f) for f in frames] for name, frames in reversed(list(systems.items()))}
    shuffled_systems = {name: shuffled_systems[name] for name in systems}  # same system order
    shuffled_truths = [shuffle(t) for t in truths]
    first = rk.compare(systems, truths, METRICS, test=test, n_resamples=1000, seed=9)
    second = rk.compare(shuffled_systems, shuffled_truths, METRICS, test=test, n_resamples=1000, seed=9)
    pd.testing.assert_frame_equal(first.table, second.table, check_exact=True)
    pd.testing.assert_frame_equal(first.units, second.units, check_exact=True)


# ---------------------------------------------------------------------------- units
def test_units_table(multi):
    systems, truths = multi
    res = rk.compare(systems, truths, METRICS, n_resamples=100)
    units = res.units
    assert list(units.columns[:2]) == [("split", ""), ("user_id", "")]
    assert set(units.columns[2:]) == {(str(m), s) for m in METRICS for s in systems}
    assert len(units.columns) == 2 + len(METRICS) * len(systems)
    # sorted by (split position, user id); sizes 60, 40, 20
    pos = units[("split", "")].map({"fold1": 0, "fold2": 1, "fold3": 2})
    key = list(zip(pos, units[("user_id", "")]))
    assert key == sorted(key)
    assert units[("split", "")].value_counts().to_dict() == {"fold1": 60, "fold2": 40, "fold3": 20}
    assert res.table["n"].unique().tolist() == [120]
    # values: EvalModel's per-user values, put side by side with a merge
    per_user = _per_user(systems, truths, METRICS)
    for metric in res.metrics:
        for s in res.systems:
            ref = per_user[s][metric].rename("ref").reset_index()
            got = pd.DataFrame({"split": units[("split", "")], "user_id": units[("user_id", "")],
                                "got": units[(metric, s)]})
            merged = got.merge(ref, on=["split", "user_id"], how="outer", validate="one_to_one")
            assert len(merged) == len(units)
            np.testing.assert_array_equal(merged["got"].to_numpy(), merged["ref"].to_numpy())
    assert res.systems == tuple(systems) and res.metrics == tuple(str(m) for m in METRICS)
    # system_means: mean over each system's units
    means = res.system_means()
    for s in res.systems:
        for metric in res.metrics:
            assert means.loc[s, metric] == pytest.approx(per_user[s][metric].mean(), rel=RTOL)


def test_units_sorted_by_user_id_value_not_input_order():
    users = [10, 9, 100, 2]
    truth = pd.DataFrame({"user_id": users, "item_id": ["r"] * 4, "score": 1.0})
    a = pd.DataFrame({"user_id": [100, 10, 9, 2], "item_id": ["r"] * 4, "score": 1.0})
    b = pd.DataFrame({"user_id": [2, 9, 10, 100], "item_id": ["x"] * 4, "score": 1.0})
    res = rk.compare({"a": a, "b": b}, truth, [rk.MRR()], n_resamples=50)
    assert res.units[("user_id", "")].tolist() == [2, 9, 10, 100]
    assert res.units[("split", "")].tolist() == ["fold1"] * 4


def test_user_missing_from_one_system_is_dropped_and_counted(tiny):
    # fold1: b has no list for u3; fold2: a has no list for u1 and u4
    frames = [_mrr_frames({"a": [1, 2, 0, 3], "b": [1, 1, None, 1]}, TINY_USERS),
              _mrr_frames({"a": [None, 0, 2, None], "b": [3, 1, 1, 2]}, TINY_USERS)]
    systems = {"a": [f[0]["a"] for f in frames], "b": [f[0]["b"] for f in frames]}
    truths = [f[1] for f in frames]
    res, caught = _recorded(systems, truths, [rk.MRR(), rk.PrecisionAtK(2)], n_resamples=500)
    assert any(issubclass(w.category, MissingUsersWarning) for w in caught)  # EvalModel's, for each system
    assert _dropped_counts(caught) == [6]  # 3 units x 2 metrics
    message = next(str(w.message) for w in caught if issubclass(w.category, DroppedUnitsWarning))
    assert "left out of 2 test(s)" in message and "MRR a vs b: 3" in message
    assert issubclass(DroppedUnitsWarning, RankevalWarning) and issubclass(DroppedUnitsWarning, UserWarning)
    row = res.table.loc[("MRR", "a", "b")]
    a = np.array([1, 1 / 2, 1 / 3, 0, 1 / 2])  # (fold1, u1 u2 u4), (fold2, u2 u3)
    b = np.array([1, 1, 1, 1, 1])
    _check_descriptives(row, a, b)
    assert row["n"] == 5
    np.testing.assert_allclose(row["p_value"], stats.ttest_rel(b, a).pvalue, rtol=RTOL)
    # the units keep the unpaired values, with NaN where a system has no list
    units = res.units.set_index([("split", ""), ("user_id", "")])
    assert len(units) == 8
    assert np.isnan(units.loc[("fold1", "u3"), ("MRR", "b")]) and units.loc[("fold1", "u3"), ("MRR", "a")] == 0
    assert np.isnan(units.loc[("fold2", "u1"), ("MRR", "a")]) and units.loc[("fold2", "u1"), ("MRR", "b")] == 1 / 3


def test_pytest_warns_dropped_units(tiny):
    frames = _mrr_frames({"a": [1, 2, 0, 3], "b": [1, None, 2, 1]}, TINY_USERS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        with pytest.warns(DroppedUnitsWarning, match=r"^1 \(split, user\) units were left out of 1 test"):
            res = rk.compare(frames[0], frames[1], [rk.MRR()], n_resamples=100)
    assert res.table["n"].tolist() == [3]


def test_missing_users_zero_scores_them_instead_of_dropping(tiny):
    frames = _mrr_frames({"a": [1, 2, 0, 3], "b": [1, None, 2, 1]}, TINY_USERS)
    res, caught = _recorded(frames[0], frames[1], [rk.MRR()], n_resamples=100, missing_users="zero")
    assert _dropped_counts(caught) == []
    row = res.table.iloc[0]
    _check_descriptives(row, np.array([1, 1 / 2, 0, 1 / 3]), np.array([1, 0, 1 / 2, 1]))


def test_nan_in_one_system_is_dropped_and_counted():
    # pearson needs two judged listed items with varying scores: u2's list in b has one
    truth = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 3,
                          "item_id": ["a", "b", "c"] * 3, "score": [5.0, 3.0, 1.0] * 3})
    a = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 3, "item_id": ["a", "b", "c"] * 3,
                      "score": [3.5, 2.5, 1.5, 1.5, 2.5, 3.5, 3.5, 1.5, 2.5]})  # 3, 2, 1 would read as ranks
    b = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 3,
                      "item_id": ["c", "b", "a", "a", "x", "y", "b", "a", "c"],
                      "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    with pytest.warns(DroppedUnitsWarning, match=r"^1 \(split, user\) units"):
        res = rk.compare({"a": a, "b": b}, truth, [rk.Correlation("pearson")], n_resamples=100)
    row = res.table.iloc[0]
    assert row["n"] == 2
    np.testing.assert_allclose([row["mean_a"], row["mean_b"]], [(1 + 0.5) / 2, (-1 + 0.5) / 2], rtol=RTOL)
    assert np.isnan(res.units[("pearson", "b")].iloc[1]) and res.units[("pearson", "a")].iloc[1] == -1


def test_nan_in_both_systems_is_counted():
    # MAP with threshold 5: u2 has no grade 5, so MAP is undefined (NaN) for u2 in every system
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3"], "item_id": ["a", "b"] * 3,
                          "score": [5.0, 1.0, 4.0, 1.0, 5.0, 2.0]})
    a = truth.assign(score=[2.0, 1.0] * 3)  # a before b
    b = truth.assign(score=[1.5, 2.5] * 3)  # b before a (1, 2 would read as ranks: RanksAsScoresWarning)
    metric = rk.MAP(relevant_threshold=5)
    per_user = rk.EvalModel(a, truth, [metric]).fit()[1]
    assert np.isnan(per_user.loc[("fold1", "u2"), "MAP"])
    with pytest.warns(DroppedUnitsWarning, match=r"^1 \(split, user\) units"):
        res = rk.compare({"a": a, "b": b}, truth, [metric], n_resamples=100)
    assert res.table["n"].tolist() == [2]


def test_nan_in_both_systems_is_left_out_of_n():
    # the current behaviour of the case above, minus the warning: n still excludes the unit
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3"], "item_id": ["a", "b"] * 3,
                          "score": [5.0, 1.0, 4.0, 1.0, 5.0, 2.0]})
    a = truth.assign(score=[2.0, 1.0] * 3)
    b = truth.assign(score=[1.5, 2.5] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedUnitsWarning)
        res = rk.compare({"a": a, "b": b}, truth, [rk.MAP(relevant_threshold=5)], n_resamples=100)
    row = res.table.iloc[0]
    assert row["n"] == 2
    assert (row["mean_a"], row["mean_b"], row["losses"]) == (1.0, 0.5, 2)


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomization"])
def test_degenerate_pairs(test):
    """No paired unit, one paired unit, identical systems: NaN where nothing can be tested;
    a NaN p-value stays NaN after the correction, is never significant and is not counted
    in the family size."""
    users = ["u1", "u2", "u3", "u4", "u5"]
    preds, truth = _mrr_frames({"full": [1, 2, 0, 3, 1], "same": [1, 2, 0, 3, 1], "worse": [2, 3, 2, 4, 0],
                                "first_one": [1, None, None, None, None], "last_two": [None, None, None, 1, 2]},
                               users)
    res, caught = _recorded(preds, truth, [rk.MRR()], test=test, n_resamples=1000, correction="holm")
    assert any(issubclass(w.category, MissingUsersWarning) for w in caught)
    t = res.table.xs("MRR", level="metric")
    # first_one vs last_two: no paired unit, 3 units dropped
    none = t.loc[("first_one", "last_two")]
    assert none["n"] == 0 and none[["wins", "ties", "losses"]].tolist() == [0, 0, 0]
    assert np.isnan(none[["mean_a", "mean_b", "diff", "ci_low", "ci_high", "statistic", "p_value",
                          "p_adjusted", "effect_size"]].to_numpy(float)).all()
    assert not none["significant"]
    # worse vs first_one: one paired unit (u1: 1/2 vs 1)
    one = t.loc[("worse", "first_one")]
    assert (one["n"], one["mean_a"], one["mean_b"], one["diff"], one["wins"]) == (1, 0.5, 1.0, 0.5, 1)
    assert np.isnan(one["effect_size"])
    assert np.isnan(one[["p_value", "ci_low", "ci_high"]].to_numpy(float)).all()  # one unit: nothing to test
    # identical systems: every difference 0
    same = t.loc[("full", "same")]
    assert (same["n"], same["diff"], same["ties"], same["wins"], same["losses"]) == (5, 0.0, 5, 0, 0)
    # every difference 0: statistic 0, p = 1, CI [0, 0], effect 0 for every test (scipy's t-test says NaN,
    # scipy >= 1.13's Wilcoxon W = 0, p = 1, older ones raise)
    assert same["p_value"] == 1.0 and same["statistic"] == 0.0
    assert (same["ci_low"], same["ci_high"], same["effect_size"]) == (0.0, 0.0, 0.0)
    assert not same["significant"]
    # fewer than 2 paired units: one warning naming the tests
    few = [str(w.message) for w in caught if w.category is RankevalWarning]
    assert len(few) == 1 and "have fewer than 2 paired units" in few[0]
    assert "MRR worse vs first_one (1 unit(s))" in few[0] and "MRR first_one vs last_two (0 unit(s))" in few[0]
    assert not t["significant"][t["p_value"].isna()].any()
    assert t["p_adjusted"].isna().equals(t["p_value"].isna())
    p = t["p_value"].dropna().to_numpy()
    np.testing.assert_allclose(t["p_adjusted"].dropna().to_numpy(), _holm(p), rtol=RTOL)
    # dropped: full/same/worse vs first_one (4 each), vs last_two (3 each), first_one vs last_two (3)
    assert _dropped_counts(caught) == [3 * 4 + 3 * 3 + 3]


# ---------------------------------------------------------------------------- pairs / baseline
def test_pairs_in_insertion_order(multi):
    systems, truths = multi
    order = ["noisy_oracle", "rand", "pop", "rand_2"]
    res = rk.compare({k: systems[k] for k in order}, truths, METRICS[:2], n_resamples=50)
    pairs = [(order[i], order[j]) for i in range(4) for j in range(i + 1, 4)]
    assert list(res.table.index) == [(str(m), a, b) for m in METRICS[:2] for a, b in pairs]
    assert res.table.index.names == ["metric", "system_a", "system_b"]
    assert list(res.table.columns) == COLUMNS


@pytest.mark.parametrize("baseline", ["pop", "rand_2", "noisy_oracle"])
def test_baseline_is_always_system_a(multi, baseline):
    systems, truths = multi
    res = rk.compare(systems, truths, METRICS[:2], baseline=baseline, n_resamples=200, seed=3)
    others = [s for s in systems if s != baseline]
    assert list(res.table.index) == [(str(m), baseline, o) for m in METRICS[:2] for o in others]
    # the same numbers as the all-pairs call, with a and b swapped where needed
    everything = rk.compare(systems, truths, METRICS[:2], n_resamples=200, seed=3, correction=None)
    names = list(systems)
    for (metric, a, b), row in res.table.iterrows():
        if names.index(a) < names.index(b):
            ref = everything.table.loc[(metric, a, b)]
            for c in ["mean_a", "mean_b", "diff", "statistic", "p_value", "n", "wins", "ties", "losses",
                      "effect_size"]:
                assert row[c] == ref[c]
        else:
            ref = everything.table.loc[(metric, b, a)]
            assert (row["mean_a"], row["mean_b"], row["n"]) == (ref["mean_b"], ref["mean_a"], ref["n"])
            assert (row["wins"], row["losses"], row["ties"]) == (ref["losses"], ref["wins"], ref["ties"])
            assert row["diff"] == pytest.approx(-ref["diff"], rel=RTOL)
            assert row["statistic"] == pytest.approx(-ref["statistic"], rel=1e-10)
            assert row["p_value"] == pytest.approx(ref["p_value"], rel=1e-10)
            assert row["effect_size"] == pytest.approx(-ref["effect_size"], rel=1e-10)
            # CIs across calls: see the test on added systems
            assert row["ci_low"] <= row["diff"] <= row["ci_high"]


def test_baseline_with_non_string_system_names(tiny):
    systems, truths, _, _ = tiny
    res = rk.compare({1: systems["a"], 2: systems["b"]}, truths, [rk.MRR()], baseline=1, n_resamples=50)
    assert list(res.table.index) == [("MRR", "1", "2")]


def test_non_string_system_names_become_strings(tiny):
    systems, truths, _, _ = tiny
    res = rk.compare({1: systems["a"], 2: systems["b"]}, truths, [rk.MRR()], n_resamples=50)
    assert res.systems == ("1", "2") and list(res.table.index) == [("MRR", "1", "2")]


class _MRRLowerIsBetter(rk.MRR):
    higher_is_better = False


def test_wins_losses_follow_higher_is_better(tiny):
    systems, truths, a, b = tiny
    metric = _MRRLowerIsBetter(name="lowMRR")
    res = rk.compare(systems, truths, [metric, rk.MRR()], n_resamples=100, correction=None)
    low, high = res.table.loc[("lowMRR", "a", "b")], res.table.loc[("MRR", "a", "b")]
    # wins / losses are from b's point of view: b "better" = lower for a lower-is-better metric
    assert (low["wins"], low["ties"], low["losses"]) == (np.count_nonzero(b < a), 1, np.count_nonzero(b > a))
    assert (high["wins"], high["losses"]) == (low["losses"], low["wins"])
    # diff / statistic / effect size stay b - a
    for c in ["diff", "statistic", "p_value", "effect_size", "mean_a", "mean_b"]:
        assert low[c] == high[c]
    assert res.higher_is_better == {"lowMRR": False, "MRR": True}


# ---------------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("kwargs, match", [
    ({"test": "t-test"}, "`test`"),
    ({"test": None}, "`test`"),
    ({"correction": "BH"}, "`correction`"),
    ({"correction": "none"}, "`correction`"),
    ({"baseline": "knn"}, "`baseline`"),
    ({"alpha": 0}, "`alpha`"),
    ({"alpha": 1}, "`alpha`"),
    ({"alpha": 1.5}, "`alpha`"),
    ({"alpha": -0.1}, "`alpha`"),
    ({"alpha": float("nan")}, "`alpha`"),
    ({"n_resamples": 0}, "`n_resamples`"),
    ({"n_resamples": -5}, "`n_resamples`"),
    ({"n_resamples": 10.0}, "`n_resamples`"),
    ({"seed": -1}, "`seed`"),
    ({"missing_users": "drop"}, "`missing_users`"),
])
def test_bad_arguments_name_the_argument(tiny, kwargs, match):
    systems, truths, _, _ = tiny
    with pytest.raises(ValueError, match=match):
        rk.compare(systems, truths, [rk.MRR()], **kwargs)


def test_fewer_than_two_systems(tiny):
    systems, truths, _, _ = tiny
    with pytest.raises(ValueError, match="`systems`.*at least two"):
        rk.compare({"a": systems["a"]}, truths, [rk.MRR()])
    with pytest.raises(ValueError, match="`systems`.*at least two"):
        rk.compare({}, truths, [rk.MRR()])


def test_split_count_mismatch(tiny):
    systems, truths, _, _ = tiny
    with pytest.raises(ValueError, match=r"`systems\['b'\]` has 1 split\(s\) but `truth` has 2"):
        rk.compare({"a": systems["a"], "b": systems["b"][:1]}, truths, [rk.MRR()])
    with pytest.raises(ValueError, match=r"`systems\['a'\]` has 2 split\(s\) but `truth` has 1"):
        rk.compare(systems, truths[0], [rk.MRR()])
    with pytest.raises(ValueError, match=r"`systems\['a'\]` has 3 split\(s\)"):
        rk.compare({"a": systems["a"] + systems["a"][:1], "b": systems["b"]}, truths, [rk.MRR()])


def test_single_frames_are_one_split(tiny):
    systems, truths, a, b = tiny
    res = rk.compare({"a": systems["a"][0], "b": [systems["b"][0]]}, truths[0], [rk.MRR()], n_resamples=50)
    _check_descriptives(res.table.iloc[0], a[:4], b[:4])


# ---------------------------------------------------------------------------- multi-split pooling
def test_multi_split_pooled_means(multi):
    systems, truths = multi
    res = rk.compare(systems, truths, METRICS, n_resamples=200)
    per_user = _per_user(systems, truths, METRICS)
    for (metric, a_name, b_name), row in res.table.iterrows():
        a, b = _paired(per_user, metric, a_name, b_name, ["fold1", "fold2", "fold3"])
        assert row["n"] == 60 + 40 + 20 == len(a)
        assert row["mean_a"] == pytest.approx(a.mean(), rel=RTOL)
        assert row["mean_b"] == pytest.approx(b.mean(), rel=RTOL)
        split_means = per_user[a_name][metric].groupby(level="split").mean()
        assert len(split_means) == 3
        if abs(split_means.mean() - a.mean()) > 1e-9:  # the pooled mean is not the mean of split means
            assert abs(row["mean_a"] - split_means.mean()) > 1e-9
    # at least one of them really differs, or the check above was vacuous
    pooled = per_user["pop"]["NDCG@5"].mean()
    of_splits = per_user["pop"]["NDCG@5"].groupby(level="split").mean().mean()
    assert abs(pooled - of_splits) > 1e-4
    assert res.table.loc[("NDCG@5", "pop", "rand"), "mean_a"] == pytest.approx(pooled, rel=RTOL)


def test_split_names(multi):
    systems, truths = multi
    res = rk.compare(systems, truths, METRICS[:1], split_names=["x", "y", "z"], n_resamples=50)
    assert res.units[("split", "")].unique().tolist() == ["x", "y", "z"]


# ---------------------------------------------------------------------------- reports
@pytest.fixture(scope="module")
def report_result(small):
    systems, truths = small
    return rk.compare(systems, truths, METRICS[:2], n_resamples=500)


def _expected_cells(res: rk.ComparisonResult, bold, sup, digits=4):
    letters = dict(zip(res.systems, "abcdefgh"))
    expected = {}
    for metric in res.metrics:
        means = {s: res.units[(metric, s)].mean() for s in res.systems}
        best = max(means.values())
        for s in res.systems:
            beaten = []
            for (m, a, b), row in res.table.iterrows():
                if m != metric or not row["significant"]:
                    continue
                if s == b and row["diff"] > 0:
                    beaten.append(a)
                if s == a and row["diff"] < 0:
                    beaten.append(b)
            text = f"{means[s]:.{digits}f}"
            if means[s] == best:
                text = bold[0] + text + bold[1]
            if beaten:
                text += sup[0] + "".join(sorted(letters[x] for x in beaten)) + sup[1]
            expected[(metric, s)] = text
    return expected


def test_to_markdown(report_result):
    res = report_result
    md = res.to_markdown()
    t = res.table
    assert t["significant"].any() and not t["significant"].all()
    lines = md.splitlines()
    assert lines[0] == "| system | NDCG@5 | P@5 |"
    expected = _expected_cells(res, ("**", "**"), ("<sup>", "</sup>"))
    letters = dict(zip(res.systems, "abcd"))
    for s in res.systems:
        row = next(line for line in lines if line.startswith(f"| {s} ({letters[s]}) |"))
        assert row == "| " + " | ".join([f"{s} ({letters[s]})", *(expected[(m, s)] for m in res.metrics)]) + " |"
    # the oracle is best everywhere and beats every other system significantly
    for m in res.metrics:
        assert expected[(m, "noisy_oracle")].startswith("**") and "<sup>abc</sup>" in expected[(m, "noisy_oracle")]
    assert md.count("**") == 2 * len(res.metrics)
    # one line per test in the differences table, starred when significant
    diff_lines = [line for line in lines if line.startswith("| NDCG@5 |") or line.startswith("| P@5 |")]
    assert len(diff_lines) == 2 * len(t)  # the differences, then their effect sizes
    diff_lines, effect_lines = diff_lines[:len(t)], diff_lines[len(t):]
    for line, (_, row) in zip(effect_lines, t.iterrows()):
        assert f"| {100 * (row['mean_b'] / row['mean_a'] - 1):+.2f}% |" in line
        assert f"[{row['rel_ci_low']:+.2f}, {row['rel_ci_high']:+.2f}]" in line
        assert line.endswith(f"| [{row['dz_ci_low']:+.2f}, {row['dz_ci_high']:+.2f}] |")
    for line, ((m, a, b), row) in zip(diff_lines, t.iterrows()):
        assert f"{b} − {a}" in line
        assert (f"{row['diff']:+.4f}*" in line) == bool(row["significant"])
        assert f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]" in line
        assert line.endswith(f"| {int(row['n'])} |")
    assert "Holm" in md and "paired t-test" in md
    assert res.to_markdown(digits=2).splitlines()[2].count(".") >= 1


def test_to_markdown_without_significance(multi):
    systems, truths = multi
    res = rk.compare({k: systems[k] for k in ["rand", "rand_2"]}, truths, METRICS[:1], n_resamples=200)
    assert not res.table["significant"].any()
    md = res.to_markdown()
    assert "<sup>" not in md and md.count("**") == 2


def test_to_latex(report_result):
    res = report_result
    tex = res.to_latex()
    for token in [r"\textbf{", r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}", r"\end{tabular}",
                  r"\begin{table}", r"\end{table}"]:
        assert token in tex
    # the means, the differences and their effect sizes
    assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 3
    assert tex.count(r"\textbf{") == len(res.metrics)
    expected = _expected_cells(res, (r"\textbf{", "}"), (r"$^{\mathrm{", "}}$"))
    assert expected[("NDCG@5", "noisy_oracle")] in tex
    assert r"noisy\_oracle" in tex and "noisy_oracle" not in tex.replace(r"noisy\_oracle", "")
    assert r"rand\_2" in tex
    assert "$^*$" in tex  # significant differences are starred


@pytest.mark.parametrize("kind", ["box", "violin"])
def test_plot_writes_a_png(report_result, tmp_path, kind):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    path = tmp_path / f"compare_{kind}.png"
    fig = report_result.plot(path, kind=kind)
    try:
        assert isinstance(fig, Figure)
        assert path.exists() and path.stat().st_size > 1000
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(fig.axes) == 2 * len(report_result.metrics)
    finally:
        plt.close(fig)


def test_plot_without_path_and_bad_kind(report_result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = report_result.plot()
    plt.close(fig)
    with pytest.raises(ValueError, match="`kind`"):
        report_result.plot(kind="bar")


def test_compare_keeps_integer_ids_beyond_2_53_apart_when_systems_differ_in_dtype():
    # numpy would concatenate uint64 and int64 ids as float64, where 2**62 and 2**62 + 1 are one number
    big = 2 ** 62
    a = pd.DataFrame({"user_id": np.array([big, big + 1], dtype=np.uint64), "item_id": ["a", "a"],
                      "score": [1.0, 1.0]})
    b = pd.DataFrame({"user_id": np.array([big, big + 1], dtype=np.int64), "item_id": ["a", "b"],
                      "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": np.array([big, big + 1]), "item_id": ["a", "a"], "score": [1.0, 1.0]})
    res = rk.compare({"a": a, "b": b}, truth, [rk.MRR()], n_resamples=100)
    assert res.units[("user_id", "")].tolist() == [big, big + 1]
    assert res.units[("MRR", "a")].tolist() == [1.0, 1.0]
    assert res.units[("MRR", "b")].tolist() == [1.0, 0.0]


# ---------------------------------------------------------------------------- the ordinary bootstrap
def _scipy_spread(d: np.ndarray, alpha: float, method: str, n_resamples: int, runs: int = 8):
    """scipy.stats.bootstrap's interval over several seeds: mean and spread of each end."""
    ends = np.array([[*stats.bootstrap((d,), np.mean, method=method, confidence_level=1 - alpha,
                                       n_resamples=n_resamples, random_state=s).confidence_interval]
                     for s in range(runs)])
    return ends.mean(axis=0), ends.std(axis=0, ddof=1)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 13, 20, 40, 100, 1000])
def test_bootstrap_interval_is_scipys_at_every_number_of_units(n, method):
    """The multinomial bootstrap of the paired units, within Monte Carlo error of scipy at every n
    (the Poisson weights it replaces were off by 0.07 at n = 8)."""
    rng = np.random.default_rng(n)
    positions_a = rng.integers(0, 5, n).tolist()
    positions_b = rng.integers(0, 5, n).tolist()
    users = [f"u{j:02d}" for j in range(n)]
    preds, truth = _mrr_frames({"a": positions_a, "b": positions_b}, users, listed=5)
    d = _mrr(positions_b) - _mrr(positions_a)
    if np.all(d == d[0]):
        d[0] += 0.25  # keep the distribution non-degenerate
        positions_b[0] = 0
        preds, truth = _mrr_frames({"a": positions_a, "b": positions_b}, users, listed=5)
        d = _mrr(positions_b) - _mrr(positions_a)
    res = rk.compare(preds, truth, [rk.MRR()], n_resamples=20_000, ci_method=method.lower())
    row = res.table.iloc[0]
    mean, spread = _scipy_spread(d, 0.05, method, 20_000)
    # 5 standard deviations of scipy's own run-to-run spread, plus a floor for a discrete distribution's
    # quantile falling on an atom (then every run gives the same end and the spread is 0)
    tolerance = 5 * spread + 1e-9 + 0.02 * (mean[1] - mean[0])
    assert abs(row["ci_low"] - mean[0]) <= tolerance[0], (row["ci_low"], mean[0], spread[0])
    assert abs(row["ci_high"] - mean[1]) <= tolerance[1], (row["ci_high"], mean[1], spread[1])


def test_bootstrap_draws_resample_n_units_with_replacement():
    from rankeval.stats._resampling import _multinomial_counts

    counts = _multinomial_counts(np.random.default_rng(0), 8, 50_000)
    assert counts.shape == (50_000, 8) and (counts.sum(axis=1) == 8).all()
    # a unit's count is Binomial(8, 1/8): mean 1, variance 7/8 (Poisson(1) weights have variance 1)
    assert abs(counts.mean() - 1.0) < 0.01 and abs(counts.var() - 7 / 8) < 0.01
    assert (counts.sum(axis=1) == 8).all()


def test_ci_methods_relate_as_in_scipy():
    """percentile and basic are each other's mirror image around the observed difference."""
    preds, truth = _mrr_frames({"a": [1, 2, 0, 3, 1, 2, 4, 0, 1, 3], "b": [1, 1, 2, 1, 0, 1, 1, 2, 1, 1]},
                               [f"u{j}" for j in range(10)])
    pct = rk.compare(preds, truth, [rk.MRR()], n_resamples=2000, ci_method="percentile").table.iloc[0]
    basic = rk.compare(preds, truth, [rk.MRR()], n_resamples=2000, ci_method="basic").table.iloc[0]
    assert math.isclose(basic["ci_low"], 2 * pct["diff"] - pct["ci_high"], abs_tol=1e-12)
    assert math.isclose(basic["ci_high"], 2 * pct["diff"] - pct["ci_low"], abs_tol=1e-12)
    bca = rk.compare(preds, truth, [rk.MRR()], n_resamples=2000).table.iloc[0]
    assert bca["ci_low"] != pct["ci_low"]
    with pytest.raises(ValueError, match=r"`ci_method` must be one of .*'bca'"):
        rk.compare(preds, truth, [rk.MRR()], ci_method="normal")


@pytest.mark.parametrize("alpha, fewest", [(0.05, 40), (0.01, 200), (0.5, 4), (0.2, 10)])
def test_n_resamples_below_what_the_level_needs_is_refused_naming_the_minimum(alpha, fewest):
    preds, truth = _mrr_frames({"a": [1, 2, 0, 3], "b": [1, 1, 2, 1]}, ["u1", "u2", "u3", "u4"])
    with pytest.raises(ValueError, match=rf"`n_resamples` must be an integer >= {fewest} .*got {fewest - 1}"):
        rk.compare(preds, truth, [rk.MRR()], alpha=alpha, n_resamples=fewest - 1)
    res = rk.compare(preds, truth, [rk.MRR()], alpha=alpha, n_resamples=fewest)
    assert np.isfinite(res.table[["ci_low", "ci_high"]].to_numpy(float)).all()


def test_bootstrap_numbers_do_not_depend_on_row_order():
    preds, truth = _mrr_frames({"a": [1, 2, 0, 3, 1, 2], "b": [1, 1, 2, 1, 0, 1], "c": [2, 2, 1, 0, 1, 1]},
                               [f"u{j}" for j in range(6)])
    first = rk.compare(preds, truth, [rk.MRR(), rk.NDCG()], test="randomization", n_resamples=500, seed=3)
    shuffled = {k: v.sample(frac=1.0, random_state=1) for k, v in preds.items()}
    again = rk.compare(shuffled, truth.sample(frac=1.0, random_state=2), [rk.MRR(), rk.NDCG()],
                       test="randomization", n_resamples=500, seed=3)
    pd.testing.assert_frame_equal(first.table, again.table, check_exact=True)


def test_tables_never_print_nan():
    preds, truth = _mrr_frames({"a": [1, 2, 0, 3], "same": [1, 2, 0, 3], "one": [1, None, None, None],
                                "none": [None, None, None, 1]}, ["u1", "u2", "u3", "u4"])
    res, _ = _recorded(preds, truth, [rk.MRR()], n_resamples=100, missing_users="ignore")
    for text in (res.to_markdown(), res.to_latex()):
        assert "nan" not in text.lower()
    assert "| MRR | same − a | 0.0000 | [0.0000, 0.0000] | 1.0000 | 4 |" in res.to_markdown()


def test_exact_randomization_in_blocks_equals_scipy_and_stays_small():
    """Every sign vector, block by block: scipy's exact p-value, in memory that does not grow with 2**n."""
    import tracemalloc
    from unittest import mock

    from rankeval.stats import _resampling as _stats

    rng = np.random.default_rng(5)
    a, b = rng.random(12), rng.random(12) + 0.1
    expected = _scipy_permutation_p(a, b, 2 ** 12)
    with mock.patch.object(_stats, "_EXACT_BLOCK", 100):  # 41 blocks, the last one short
        assert _stats._exact_p_two_sided(b - a, float(np.mean(b - a))) == pytest.approx(expected, rel=RTOL, abs=0)
    d = rng.random(22) - 0.45
    tracemalloc.start()
    p = _stats._exact_p_two_sided(d, float(np.mean(d)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 0 < p < 1
    assert peak < 50e6  # all 2**22 sign vectors at once would take 2**22 * 22 * 8 bytes = 738 MB


# ---------------------------------------------------------------------------- BCa, told apart
def _bca_by_hand(boot: np.ndarray, d: np.ndarray, alpha: float) -> tuple[float, float]:
    """Efron's BCa interval of the mean of ``d`` from the bootstrap means ``boot``, written from
    the textbook (Efron & Tibshirani 1993, 14.3; scipy.stats.bootstrap's definition): bias
    z0 from the share of resampled means below the observed one (ties counted half), the
    acceleration from a leave-one-out jackknife computed by a plain loop. A resampled mean
    that equals the observed one in exact arithmetic is a tie even when its float differs
    in the last bits (the values here are fractions 1/p: such ties are common)."""
    observed = d.mean()
    tie = np.isclose(boot, observed, rtol=1e-9, atol=1e-12)
    below = np.sum((boot < observed) & ~tie)
    z0 = stats.norm.ppf((2 * below + np.sum(tie)) / (2 * len(boot)))
    jack = np.array([np.delete(d, i).mean() for i in range(len(d))])
    u = jack.mean() - jack
    accel = np.sum(u ** 3) / (6 * np.sum(u ** 2) ** 1.5)
    ends = []
    for z_alpha in (stats.norm.ppf(alpha / 2), stats.norm.ppf(1 - alpha / 2)):
        ends.append(stats.norm.cdf(z0 + (z0 + z_alpha) / (1 - accel * (z0 + z_alpha))))
    low, high = np.quantile(boot, ends)
    return float(low), float(high)


def _skewed_comparison(alpha: float, n: int = 40):
    """Two systems over ``n`` users whose paired differences are skewed (acceleration and bias
    away from 0), and the bootstrap distributions the engine drew for them (a spy)."""
    from rankeval.stats import _resampling

    rng = np.random.default_rng(7)
    users = [f"u{j:02d}" for j in range(n)]
    positions_a = rng.integers(1, 10, n).tolist()
    positions_b = [p if j % 4 else 0 for j, p in enumerate(positions_a)]  # b loses the item for every 4th user
    preds, truth = _mrr_frames({"a": positions_a, "b": positions_b}, users, listed=10)
    d = _mrr(positions_b) - _mrr(positions_a)
    drawn = []
    real = _resampling.bootstrap_means

    def spy(*args, **kwargs):
        drawn.append(real(*args, **kwargs))
        return drawn[-1]

    with mock.patch.object(_resampling, "bootstrap_means", spy):
        res = rk.compare(preds, truth, [rk.MRR()], alpha=alpha, n_resamples=4000, seed=3)
    return res, d, drawn


def _check_bca(res, d: np.ndarray, drawn: list, alpha: float) -> None:
    assert len(drawn) == 1, "the comparison drew no bootstrap distribution"
    low, high = _bca_by_hand(drawn[0][:, 0], d, alpha)
    row = res.table.iloc[0]
    assert row["ci_low"] == pytest.approx(low, rel=1e-12, abs=1e-15), (row["ci_low"], low)
    assert row["ci_high"] == pytest.approx(high, rel=1e-12, abs=1e-15), (row["ci_high"], high)


@pytest.mark.parametrize("n", [8, 13, 40])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_bca_interval_is_efrons_on_the_same_draws(alpha, n):
    res, d, drawn = _skewed_comparison(alpha, n)
    jack = np.array([np.delete(d, i).mean() for i in range(len(d))])
    u = jack.mean() - jack
    assert abs(np.sum(u ** 3) / (6 * np.sum(u ** 2) ** 1.5)) > 0.02  # the acceleration matters here
    _check_bca(res, d, drawn, alpha)


def _percentile_instead(boot, observed, diffs, alpha):
    return np.quantile(boot, alpha / 2, axis=0), np.quantile(boot, 1 - alpha / 2, axis=0)


def _basic_instead(boot, observed, diffs, alpha):
    low, high = _percentile_instead(boot, observed, diffs, alpha)
    return 2 * observed - high, 2 * observed - low


def _bca_without_acceleration(boot, observed, diffs, alpha):
    z0 = stats.norm.ppf((np.sum(boot < observed, axis=0) + np.sum(boot <= observed, axis=0)) / (2 * len(boot)))
    ends = [stats.norm.cdf(2 * z0 + stats.norm.ppf(q)) for q in (alpha / 2, 1 - alpha / 2)]
    return (np.array([np.quantile(boot[:, t], ends[0][t]) for t in range(boot.shape[1])]),
            np.array([np.quantile(boot[:, t], ends[1][t]) for t in range(boot.shape[1])]))


@pytest.mark.parametrize("n", [8, 13, 40])
@pytest.mark.parametrize("wrong", [_percentile_instead, _basic_instead, _bca_without_acceleration])
def test_the_bca_check_fails_for_every_wrong_interval(wrong, n):
    """The check above is not vacuous: with the engine's BCa swapped for a near miss, it fails.

    From 8 units up: with 5, the resampled means take so few values that the BCa and the
    percentile ends can fall on the same atom, and no check can tell them apart there."""
    from rankeval.stats import _resampling

    with mock.patch.object(_resampling, "_bca", wrong):
        res, d, drawn = _skewed_comparison(0.05, n)
    with pytest.raises(AssertionError):
        _check_bca(res, d, drawn, 0.05)
