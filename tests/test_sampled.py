"""Sampled-candidate estimators against plain re-derivations (Krichene & Rendle, KDD 2020, section 5).

Every reference here is built from scratch: the distribution of the sampled rank by
enumerating every subset of negatives (itertools.combinations), the estimators by
minimizing their objectives written as plain loops (scipy.optimize), the per-user values by
a loop over users.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import rankeval as rk
from rankeval.exceptions import LowOverlapWarning
from rankeval.sampled import SampledCandidates, SampledMetric, estimator_table, sampled_rank_pmf, simulate
from rankeval.metrics.sampled import RankValue, gram_terms
from rankeval.metrics.sampled._tables import _chebyshev_quadrature, _reciprocal_rank_rhs, _rhs

from ._require import require


# ---------------------------------------------------------------- plain re-derivations
def enumerated_pmf(n, m):
    """P(sampled rank = s | true rank r) by listing every m-subset of the n - 1 other items."""
    out = np.zeros((n, m + 1))
    for r in range(1, n + 1):
        others = [i for i in range(1, n + 1) if i != r]  # item i sits at full rank i
        subsets = list(itertools.combinations(others, m))
        for sub in subsets:
            above = sum(1 for i in sub if i < r)
            out[r - 1, above] += 1.0 / len(subsets)
    return out


def full_value(kind, k, r):
    """M(r) for one positive at rank r, from the metric definitions."""
    if k is not None and r > k:
        return 0.0
    if kind == "hit":
        return 1.0
    if kind == "rr":
        return 1.0 / r
    return 1.0 / math.log2(r + 1)  # NDCG: DCG 1/log2(r+1) over IDCG 1/log2(2)


def objective(x, pmf, kind, k, gamma):
    """sum_r p(r) [(E[x(s)|r] - M(r))^2 + gamma Var[x(s)|r]], p uniform, written out."""
    n = pmf.shape[0]
    total = 0.0
    for r in range(1, n + 1):
        mean = sum(pmf[r - 1, s] * x[s] for s in range(len(x)))
        second = sum(pmf[r - 1, s] * x[s] ** 2 for s in range(len(x)))
        total += ((mean - full_value(kind, k, r)) ** 2 + gamma * (second - mean ** 2)) / n
    return total


CASES = [(6, 2), (8, 3), (9, 5), (7, 6)]
VALUES = [("hit", 3), ("hit", 1), ("rr", None), ("rr", 4), ("dcg", 3)]


@pytest.mark.parametrize("n, m", CASES)
def test_sampled_rank_distribution_is_the_enumerated_one(n, m):
    np.testing.assert_allclose(sampled_rank_pmf(n, m, np.arange(1, n + 1.0)), enumerated_pmf(n, m),
                               rtol=1e-12, atol=1e-15)
    # and scipy's hypergeometric: s - 1 ~ Hypergeom(M=n-1, n=r-1, N=m)
    ref = [[stats.hypergeom.pmf(s - 1, n - 1, r - 1, m) for s in range(1, m + 2)] for r in range(1, n + 1)]
    np.testing.assert_allclose(sampled_rank_pmf(n, m, np.arange(1, n + 1.0)), ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n, m", CASES)
@pytest.mark.parametrize("kind, k", VALUES)
@pytest.mark.parametrize("estimator, gamma", [("minimal_bias", 0.0), ("bias_variance", 0.01),
                                              ("bias_variance", 0.5)])
def test_least_squares_tables_minimize_the_papers_objective(n, m, kind, k, estimator, gamma):
    pmf = enumerated_pmf(n, m)
    table = estimator_table(n, m, RankValue(kind, k), estimator, gamma)
    best = optimize.minimize(objective, np.zeros(m + 1), args=(pmf, kind, k, gamma), method="BFGS",
                             options={"gtol": 1e-12}).x
    if estimator == "bias_variance":  # strictly convex: one minimizer
        np.testing.assert_allclose(table, best, rtol=1e-5, atol=1e-7)
    assert objective(table, pmf, kind, k, gamma) <= objective(best, pmf, kind, k, gamma) + 1e-12


@pytest.mark.parametrize("kind, k", VALUES)
def test_naive_and_rescaled_tables(kind, k):
    n, m = 9, 4
    pmf = enumerated_pmf(n, m)
    # E[sampled rank | r] = 1 + m (r - 1) / (n - 1): rescaling inverts it
    for r in range(1, n + 1):
        assert sum((s + 1) * pmf[r - 1, s] for s in range(m + 1)) == pytest.approx(1 + m * (r - 1) / (n - 1))
    naive = estimator_table(n, m, RankValue(kind, k), "naive", 0.0)
    np.testing.assert_allclose(naive, [full_value(kind, k, s) for s in range(1, m + 2)], rtol=1e-12)
    rescaled = estimator_table(n, m, RankValue(kind, k), "rescaled", 0.0)
    ranks = [1 + (s - 1) * (n - 1) / m for s in range(1, m + 2)]
    expected = [0.0 if k is not None and r > k else
                {"hit": 1.0, "rr": 1 / r, "dcg": 1 / math.log2(r + 1)}[kind] for r in ranks]
    np.testing.assert_allclose(rescaled, expected, rtol=1e-12)


def test_a_full_sample_is_the_full_metric():
    # m = n - 1 draws every other item: the sampled rank is the true rank, so every estimator is
    # exact (the variance term is 0 at every rank, so bias-variance is the least-squares solution too)
    n = 12
    for est in ("naive", "minimal_bias", "bias_variance", "rescaled"):
        table = estimator_table(n, n - 1, RankValue("dcg", 5), est, 0.01)
        np.testing.assert_allclose(table, [full_value("dcg", 5, s) for s in range(1, n + 1)], atol=1e-12)


# (1_500, 300), (3_003, 1_000), (10_000, 1_000): n a few times m, where the quadrature's weights once were wrong
@pytest.mark.parametrize("n, m", [(20_000, 30), (3_000, 60), (1_500, 300), (3_003, 1_000), (10_000, 1_000)])
def test_quadrature_gram_equals_the_sum_over_every_rank(n, m):
    gram, c = gram_terms(n, m)
    a = np.zeros((m + 1, m + 1))
    total = np.zeros(m + 1)
    reciprocal = np.zeros(m + 1)
    for start in range(1, n + 1, 1000):  # the plain sum over r, in chunks of ranks
        ranks = np.arange(start, min(start + 1000, n + 1))
        # scipy's log-pmf (a log-beta formula; its pmf is 400 times slower)
        pmf = np.exp(stats.hypergeom.logpmf(np.arange(m + 1)[None, :], n - 1, ranks[:, None] - 1, m))
        a += pmf.T @ pmf
        total += pmf.sum(axis=0)
        reciprocal += (1.0 / ranks) @ pmf
    np.testing.assert_allclose(gram, a / n, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(c, total / n, rtol=1e-10)
    # MRR's right-hand side b_s = sum_r p(r) P(s | r) / r over every rank (a closed form plus the quadrature)
    np.testing.assert_allclose(_rhs(n, m, RankValue("rr", None)), reciprocal / n, rtol=1e-9)


@pytest.mark.parametrize("n, q", [(3_003, 1_001), (10_000, 1_001), (1_000_000, 1_001), (50, 7)])
def test_quadrature_sums_every_polynomial_of_degree_below_2q(n, q):
    nodes, weights = _chebyshev_quadrature(n, q)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    for degree in sorted({0, 1, 2, 5, 10, 50, 200, q, 2 * q - 2, 2 * q - 1} & set(range(2 * q))):
        # powers of the rank scaled to [-1, 1], so that no sum overflows
        scaled = lambda r: ((r - (n + 1) / 2) / ((n - 1) / 2)) ** degree  # noqa: E731
        assert weights @ scaled(nodes) == pytest.approx(scaled(ranks).sum(), rel=1e-10, abs=1e-10 * n), degree


def test_tables_near_the_quadratures_boundary_agree():
    # n = 3 (m + 1) - 1 sums every rank, n = 3 (m + 1) goes through the quadrature: the tables
    # of two neighbouring n differ little, and by as much as plain sums over every rank say
    m = 1000
    for kind, k in (("dcg", 10), ("rr", None)):
        below = estimator_table(3 * (m + 1) - 1, m, RankValue(kind, k), "bias_variance", 0.1)
        above = estimator_table(3 * (m + 1), m, RankValue(kind, k), "bias_variance", 0.1)
        plain = []
        for n in (3 * (m + 1) - 1, 3 * (m + 1)):
            a = sampled_rank_pmf(n, m, np.arange(1, n + 1.0))
            value = RankValue(kind, k)(np.arange(1, n + 1.0))
            plain.append(np.linalg.solve(0.9 * a.T @ a / n + 0.1 * np.diag(a.sum(axis=0) / n), value @ a / n))
        np.testing.assert_allclose(below, plain[0], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(above, plain[1], rtol=1e-9, atol=1e-12)


def test_reciprocal_rank_sum_against_exact_fractions():
    # b_s = (1/n) sum_r C(r-1, s-1) C(n-r, m+1-s) / (r C(n-1, m)), in exact rational arithmetic
    n, m = 2_000, 60
    exact = [float(sum(Fraction(math.comb(r - 1, s - 1) * math.comb(n - r, m + 1 - s), r) for r in range(1, n + 1))
                   / (math.comb(n - 1, m) * n)) for s in range(1, m + 2)]
    np.testing.assert_allclose(_reciprocal_rank_rhs(n, m), exact, rtol=1e-11)


def test_tables_for_a_million_items_are_fast_and_finite():
    import time
    start = time.perf_counter()
    table = estimator_table(1_000_000, 1000, RankValue("hit", 10), "bias_variance", 0.01)
    mrr = estimator_table(1_000_000, 1000, RankValue("rr", None), "bias_variance", 0.01)
    # both < 1 s on a free core (the MRR's sum over every rank took 110 s); shared CI machines are slower
    assert time.perf_counter() - start < 5.0
    assert table.shape == mrr.shape == (1001,) and np.isfinite(table).all() and np.isfinite(mrr).all()


# ---------------------------------------------------------------- lists through the engines
def sampled_frames(n_users, m, seed, n_positive=1):
    rng = np.random.default_rng(seed)
    pred, truth = [], []
    for u in range(n_users):
        items = [f"i{j}" for j in rng.choice(500, size=m + n_positive, replace=False)]
        scores = rng.permutation(m + n_positive).astype(float)
        pred += [(u, it, sc) for it, sc in zip(items, scores)]
        truth += [(u, it, 4.0) for it in items[:n_positive]]
    return (pd.DataFrame(pred, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth, columns=["user_id", "item_id", "score"]))


def fit(pred, truth, metrics, **kw):
    # RankevalWarnings are errors in this suite: with sampled=, none is expected
    return rk.EvalModel(pred, truth, metrics, **kw).fit()


def caught_warnings(call):
    """Every warning ``call()`` raises (none filtered), as (category, message) pairs."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, str(w.message)) for w in caught]


def low_overlap(caught):
    return [message for category, message in caught if issubclass(category, LowOverlapWarning)]


METRICS = [rk.HitRateAtK(10), rk.RecallAtK(10), rk.NDCGAtK(10), rk.MRR(), rk.MRRAtK(5), rk.MAP(), rk.MAPAtK(5)]


def test_naive_is_the_metric_of_the_sampled_list():
    pred, truth = sampled_frames(60, 20, seed=1)
    design = SampledCandidates(1000, 20)
    _, naive = fit(pred, truth, METRICS, sampled=design, estimator="naive")
    _, plain = fit(pred, truth, METRICS)
    for metric in METRICS:
        np.testing.assert_allclose(naive[f"{metric}-naive"].to_numpy(), plain[str(metric)].to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("estimator", ["bias_variance", "minimal_bias", "rescaled"])
def test_per_user_values_are_the_table_at_the_sampled_rank(estimator):
    pred, truth = sampled_frames(40, 8, seed=2)
    n_items = pd.Series(np.random.default_rng(3).integers(9, 30, 40), index=range(40))
    sys_result, users = fit(pred, truth, METRICS, sampled=SampledCandidates(n_items, 8), estimator=estimator)
    for metric in METRICS:
        kind = ("hit" if isinstance(metric, (rk.HitRateAtK, rk.RecallAtK))
                else "dcg" if isinstance(metric, rk.NDCGAtK) else "rr")
        expected = []
        for u in range(40):  # plain loop: the positive's place among the user's scores
            rows = pred[pred.user_id == u]
            positive = truth.loc[truth.user_id == u, "item_id"].iloc[0]
            s = 1 + int((rows.score > rows.loc[rows.item_id == positive, "score"].iloc[0]).sum())
            expected.append(estimator_table(int(n_items[u]), 8, RankValue(kind, metric.k), estimator,
                                            0.1 if estimator == "bias_variance" else 0.0)[s - 1])
        got = users[str(metric)].droplevel("split").loc[range(40)].to_numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        assert sys_result.loc["mean", str(metric)] == pytest.approx(np.mean(expected), rel=1e-12)
        assert f"{metric}-naive" in users.columns


def test_a_convention_converts_the_wrapped_metric():
    metric = SampledMetric(rk.NDCGAtK(10), SampledCandidates(100, 10)).with_convention("recbole")
    assert isinstance(metric, SampledMetric) and str(metric) == "NDCG@10"
    assert metric.metric == rk.NDCGAtK(10).with_convention("recbole")


def test_compare_tests_the_corrected_values():
    pred_a, truth = sampled_frames(50, 10, seed=4)
    pred_b = pred_a.assign(score=np.random.default_rng(5).permutation(len(pred_a)).astype(float))
    design = SampledCandidates(200, 10)
    res = rk.compare({"a": pred_a, "b": pred_b}, truth, [rk.NDCGAtK(10)], sampled=design, n_resamples=200)
    _, users_a = fit(pred_a, truth, [rk.NDCGAtK(10)], sampled=design)
    _, users_b = fit(pred_b, truth, [rk.NDCGAtK(10)], sampled=design)
    row = res.table.reset_index().set_index("metric").loc["NDCG@10"]
    assert row["mean_a"] == pytest.approx(users_a["NDCG@10"].mean(), rel=1e-12)
    assert row["mean_b"] == pytest.approx(users_b["NDCG@10"].mean(), rel=1e-12)
    diff = users_b["NDCG@10"].to_numpy() - users_a["NDCG@10"].to_numpy()
    assert row["p_value"] == pytest.approx(stats.ttest_1samp(diff, 0.0).pvalue, rel=1e-9)
    assert "NDCG@10-naive" in set(res.table.reset_index()["metric"])


def test_sampled_lists_do_not_warn_of_low_overlap():
    # 100 negatives: 1 judged row in 101, but every positive is listed: all the lists could hold
    pred, truth = sampled_frames(12, 100, seed=12)
    design = SampledCandidates(5000, 100)
    plain = caught_warnings(lambda: rk.EvalModel(pred, truth, [rk.NDCGAtK(10)]).fit())
    assert low_overlap(plain) == []
    # positives whose ids do not match still warn
    shifted = truth.assign(item_id="x" + truth["item_id"])
    for options in ({},):
        wrong = caught_warnings(lambda: rk.EvalModel(pred, shifted, [rk.NDCGAtK(10)], **options).fit())
        assert low_overlap(wrong) == ["only 0 of 1212 listed (user, item) rows in split 'fold1' have a truth "
                                      "score, 0% of the 12 the lists could hold (per user the smaller of the "
                                      "list's length and the truth's size): every metric will be near zero. "
                                      "Check that `pred`['item_id'] and `truth`['item_id'] hold the same ids "
                                      "(same spelling, same type)"]
    assert low_overlap(caught_warnings(lambda: rk.EvalModel(pred, truth, [rk.NDCGAtK(10)], sampled=design).fit())) == []
    assert low_overlap(caught_warnings(lambda: rk.EvalModel(
        pred, truth, [SampledMetric(rk.NDCGAtK(10), design)]).fit())) == []
    pred_b = pred.assign(score=-pred.score)
    compared = caught_warnings(lambda: rk.compare({"a": pred, "b": pred_b}, truth, [rk.NDCGAtK(10)], sampled=design,
                                                  n_resamples=100))
    assert low_overlap(compared) == []
    unsampled = caught_warnings(lambda: rk.compare({"a": pred, "b": pred_b}, truth, [rk.NDCGAtK(10)],
                                                   n_resamples=100))
    assert low_overlap(unsampled) == []
    assert low_overlap(caught_warnings(lambda: rk.Split(pred, truth))) == []
    # only that warning is left out: a user without truth is still counted
    extra = pd.concat([pred, pred[pred.user_id == 0].assign(user_id=99)], ignore_index=True)
    caught = caught_warnings(lambda: rk.EvalModel(extra, truth, [rk.NDCGAtK(10)], sampled=design).fit())
    assert low_overlap(caught) == []
    assert [m for c, m in caught if issubclass(c, rk.MissingUsersWarning)] == [
        "1 `pred` user(s) in split 'fold1' have no truth ratings and are left out, e.g. [99]"]


def test_sampled_lists_on_the_command_line_do_not_warn_of_low_overlap(tmp_path, capsys):
    from rankeval.cli import main
    pred, truth = sampled_frames(12, 100, seed=13)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    args = ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
            "-m", "NDCG@10", "--format", "csv", "-q"]
    # the command line prints rankeval's warnings on stderr
    assert main([*args, "--sampled", "5000:100"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(args) == 0
    assert "warning" not in capsys.readouterr().err


# ---------------------------------------------------------------- simulate
def test_simulate_against_a_plain_loop():
    rng = np.random.default_rng(6)
    ranks = {"good": rng.integers(1, 40, 300), "weak": rng.integers(1, 400, 300)}
    n, m = 500, 50
    out = simulate(ranks, n, m, [rk.NDCGAtK(10)], seeds=[0, 1, 2]).set_index(["estimator", "model"])
    for est in ("naive", "bias_variance"):
        table = estimator_table(n, m, RankValue("dcg", 10), est, 0.1)  # simulate's default gamma
        means = {}
        for name, r in ranks.items():
            per_seed = []
            for seed in [0, 1, 2]:
                draws = np.random.default_rng(seed).hypergeometric(r - 1, n - r, m)
                per_seed.append(np.mean([table[d] for d in draws]))
            full = np.mean([full_value("dcg", 10, x) for x in r])
            got = out.loc[(est, name)]
            assert got["full"] == pytest.approx(full, rel=1e-12)
            assert got["mean"] == pytest.approx(np.mean(per_seed), rel=1e-12)
            assert got["sd"] == pytest.approx(np.std(per_seed, ddof=1), rel=1e-9)
            means[name] = per_seed
        kept = np.mean([means["good"][j] > means["weak"][j] for j in range(3)])
        assert out.loc[(est, "good"), "order_kept"] == pytest.approx(kept)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("make, error, match", [
    (lambda: SampledCandidates(100, 100), ValueError, r"`n_negatives`=100 must be below `n_items`=100"),
    (lambda: SampledCandidates(100, 0), ValueError, r"`n_negatives` must be a whole number >= 1"),
    (lambda: SampledCandidates(100, 10, scheme="popularity"), ValueError, r"`scheme`='popularity' is not supported"),
    (lambda: SampledCandidates(pd.Series([50, 5], index=["u", "v"]), 10), ValueError, r"users \['v'\] have \[5\]"),
    (lambda: SampledMetric(rk.PrecisionAtK(10), SampledCandidates(100, 10)), ValueError,
     r"metric P@10 \(PrecisionAtK\) has no sampled-candidate estimator; supported: HitRateAtK"),
    (lambda: SampledMetric(rk.NDCG(), SampledCandidates(100, 10)), ValueError, r"metric NDCG \(NDCG\)"),
    (lambda: SampledMetric(rk.MRR(), SampledCandidates(100, 10), estimator="exact"), ValueError,
     r"`estimator` must be one of"),
    (lambda: SampledMetric(rk.MRR(), SampledCandidates(100, 10), gamma=2), ValueError, r"`gamma` must be"),
    (lambda: SampledMetric(rk.MRR(), (100, 10)), TypeError, r"`design` must be a SampledCandidates"),
])
def test_bad_design_and_metric(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_bad_lists():
    pred, truth = sampled_frames(5, 10, seed=7)
    with pytest.raises(ValueError, match=r"5 users have a list with a wrong number of negatives, but the design "
                                         r"declares n_negatives=12; e.g. \(user: count\) 0: 10, 1: 10"):
        fit(pred, truth, [rk.MRR()], sampled=SampledCandidates(100, 12))
    two_pred, two_truth = sampled_frames(3, 10, seed=8, n_positive=2)
    with pytest.raises(ValueError, match=r"3 users have a list with a wrong number of positives.*\(user: count\) 0: 2"):
        fit(two_pred, two_truth, [rk.MRR()], sampled=SampledCandidates(100, 10))
    no_positive = truth.assign(item_id=truth.item_id.where(truth.user_id != 2, "elsewhere"))
    with pytest.raises(ValueError, match=r"1 users have a list with a wrong number of positives.*\(user: count\) 2: 0"):
        fit(pred, no_positive, [rk.MRR()], sampled=SampledCandidates(100, 10))
    with pytest.raises(ValueError, match=r"`n_items` has no number for users \[4\]"):
        fit(pred, truth, [rk.MRR()], sampled=SampledCandidates(pd.Series(50, index=range(4)), 10))
    with pytest.raises(ValueError, match=r"`estimator`='rescaled' needs `sampled=`"):
        fit(pred, truth, [rk.MRR()], estimator="rescaled")


def test_spark_equals_pandas(spark):
    # 100 negatives: under 1% of the rows judged, which Spark does not warn of either
    pred, truth = sampled_frames(30, 100, seed=9)
    design = SampledCandidates(pd.Series(np.arange(140, 170), index=range(30)), 100)
    _, local = fit(pred, truth, [rk.NDCGAtK(10), rk.MRR()], sampled=design, ties="item_id")
    spark_pred, spark_truth = spark.createDataFrame(pred), spark.createDataFrame(truth)
    out = []
    caught = caught_warnings(lambda: out.append(rk.EvalModel(spark_pred, spark_truth, [rk.NDCGAtK(10), rk.MRR()],
                                                             sampled=design).fit()))
    assert low_overlap(caught) == []
    plain = caught_warnings(lambda: rk.EvalModel(spark_pred, spark_truth, [rk.NDCGAtK(10)]).fit())
    assert low_overlap(plain) == []
    shifted = spark.createDataFrame(truth.assign(item_id="x" + truth["item_id"]))
    wrong = caught_warnings(lambda: rk.EvalModel(spark_pred, shifted, [rk.NDCGAtK(10)]).fit())
    assert low_overlap(wrong) == ["only 0 of 3030 listed (user, item) rows in split 'fold1' have a truth "
                                  "score, 0% of the 30 the lists could hold (per user the smaller of the "
                                  "list's length and the truth's size): every metric will be near zero. "
                                  "Check that `pred`['item_id'] and `truth`['item_id'] hold the same ids "
                                  "(same spelling, same type)"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyspark's own notices about pandas 3
        remote = out[0][1].toPandas().set_index("user_id").sort_index()
    local = local.droplevel("split").sort_index()
    for col in ("NDCG@10", "NDCG@10-naive", "MRR", "MRR-naive"):
        np.testing.assert_allclose(remote[col].to_numpy(), local[col].to_numpy(), rtol=1e-12)


def test_command_line(tmp_path, capsys):
    from rankeval.cli import main
    pred, truth = sampled_frames(20, 10, seed=10)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    args = ["evaluate", "--pred", str(tmp_path / "pred.csv"), "--truth", str(tmp_path / "truth.csv"),
            "-m", "NDCG@10", "--format", "csv", "-q"]
    assert main([*args, "--sampled", "200:10", "--estimator", "rescaled"]) == 0
    out = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), index_col=0)
    sys_result, _ = fit(pred, truth, [rk.NDCGAtK(10)], sampled=SampledCandidates(200, 10), estimator="rescaled")
    assert out.loc["mean", "NDCG@10"] == pytest.approx(sys_result.loc["mean", "NDCG@10"], rel=1e-15)
    assert out.loc["mean", "NDCG@10-naive"] == pytest.approx(sys_result.loc["mean", "NDCG@10-naive"], rel=1e-15)
    assert main([*args, "--sampled", "10:10"]) == 2
    assert "--sampled '10:10': `n_negatives`=10 must be below `n_items`=10" in capsys.readouterr().err


def test_report_card_states_the_design(tmp_path):
    require("jinja2")
    require("matplotlib")
    pred, truth = sampled_frames(20, 100, seed=11)  # 1 judged row in 101: no low-overlap warning either
    pages = []
    caught = caught_warnings(lambda: pages.append(rk.report(
        systems={"a": pred, "b": pred.assign(score=-pred.score)}, truth=truth, metrics=[rk.NDCGAtK(10)],
        sampled=SampledCandidates(2000, 100), n_resamples=100)))
    assert low_overlap(caught) == []
    assert "SampledCandidates(n_items=2000, n_negatives=100, scheme=&#39;uniform&#39;), estimator " \
           "&#39;bias_variance&#39;" in pages[0].html
    assert "NDCG@10-naive" in pages[0].html


@pytest.mark.parametrize("kwargs, match", [
    ({"full_ranks": [1, 500]}, r"has ranks above `n_items`"),
    ({"full_ranks": [0, 3]}, r"must be a non-empty 1-D array of whole ranks >= 1"),
    ({"seeds": []}, r"`seeds` is empty"),
    ({"estimators": ["exact"]}, r"`estimators` has \['exact'\]"),
    ({"metrics": [rk.PrecisionAtK(5)]}, r"metric P@5 \(PrecisionAtK\) has no sampled-candidate estimator"),
])
def test_simulate_rejects_bad_input(kwargs, match):
    call = {"full_ranks": [1, 5, 9], "n_items": 100, "n_negatives": 10, "metrics": [rk.MRR()], **kwargs}
    with pytest.raises(ValueError, match=match):
        simulate(**call)
