"""Worked examples of five small metric scripts and hand-computed toy cases.

Examples 000 to 004 are five short scripts (NumPy functions for MRR, MAP, NDCG, precision,
recall and rank correlations; 001 runs ClayRS) whose inputs are copied into the tests below.
Expected values are the numbers those scripts print, written out with their printed digits,
or formulas written out term by term. Nothing here is computed by rankeval's own code.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankeval import (
    DCG,
    MAP,
    MRR,
    NDCG,
    Correlation,
    DCGAtK,
    HitRateAtK,
    MAPAtK,
    MissingUsersWarning,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
    Split,
)

from .._frames import from_item_lists, from_relevance_lists

L = np.log2


def system(metric, split) -> float:
    return float(metric.perform(split).system.loc["sys", str(metric)])


def per_user(metric, split) -> pd.Series:
    return metric.perform(split).users[str(metric)]


# --------------------------------------------------------------------------- toy (conftest.toy_frames)
@pytest.mark.parametrize("metric, expected", [
    pytest.param(MRR(), [1, 1 / 3, 0], id="MRR"),
    pytest.param(MRRAtK(2), [1, 0, 0], id="MRR@2"),
    pytest.param(MAP(), [(1 / 1 + 2 / 3) / 2, 1 / 3, 0], id="MAP"),
    pytest.param(MAPAtK(2), [1 / 2, 0, 0], id="MAP@2-divides-by-all-relevant"),
    pytest.param(PrecisionAtK(2), [1 / 2, 0, 0], id="P@2"),
    pytest.param(PrecisionAtK(5), [2 / 5, 1 / 5, 0], id="P@5-short-lists-divide-by-k"),
    pytest.param(PrecisionAtK(5, denominator="listed"), [2 / 3, 1 / 3, 0], id="P@5-listed"),
    pytest.param(RecallAtK(2), [1 / 2, 0, 0], id="R@2"),
    pytest.param(RecallAtK(3), [1, 1, 0], id="R@3"),
    pytest.param(RecallAtK(1, denominator="min_k"), [1, 0, 0], id="R@1-min_k"),
    pytest.param(HitRateAtK(1), [1, 0, 0], id="HR@1"),
    pytest.param(HitRateAtK(3), [1, 1, 0], id="HR@3"),
    pytest.param(NDCG(), [(5 + 4 / L(4)) / (5 + 4 / L(3) + 1 / L(4)),
                          (2 + 4 / L(4)) / (4 + 2 / L(3)), 0], id="NDCG-ideal-truth"),
    pytest.param(NDCGAtK(2), [5 / (5 + 4 / L(3)), 2 / (4 + 2 / L(3)), 0], id="NDCG@2"),
    pytest.param(NDCG(gains="exponential"), [(31 + 15 / L(4)) / (31 + 15 / L(3) + 1 / L(4)),
                                             (3 + 15 / L(4)) / (15 + 3 / L(3)), 0], id="NDCG-exp"),
    pytest.param(NDCG(ideal="ranked"), [(5 + 4 / L(4)) / (5 + 4 / L(3)),
                                        (2 + 4 / L(4)) / (4 + 2 / L(3)), np.nan], id="NDCG-ranked"),
    pytest.param(NDCG(ideal="ranked", judged_only=True), [1.0, (2 + 4 / L(3)) / (4 + 2 / L(3)), np.nan],
                 id="NDCG-clayrs"),
    pytest.param(NDCG(judged_only=True), [(5 + 4 / L(3)) / (5 + 4 / L(3) + 1 / L(4)),
                                          (2 + 4 / L(3)) / (4 + 2 / L(3)), 0], id="NDCG-condensed"),
    pytest.param(NDCG(gains="binary"), [(1 + 1 / L(4)) / (1 + 1 / L(3)), (1 / L(4)) / 1, 0],
                 id="NDCG-binary"),
    pytest.param(NDCG(discount="jarvelin"), [(5 + 4 / L(3)) / (5 + 4 / L(2) + 1 / L(3)),
                                             (2 + 4 / L(3)) / (4 + 2 / L(2)), 0], id="NDCG-jarvelin"),
    pytest.param(NDCG(discount_log=np.log), [(5 / np.log(2) + 4 / np.log(4)) / (5 / np.log(2) + 4 / np.log(3)
                                                                        + 1 / np.log(4)),
                                             (2 / np.log(2) + 4 / np.log(4)) / (4 / np.log(2) + 2 / np.log(3)), 0],
                 id="NDCG-ln"),
    pytest.param(DCG(), [5 + 4 / L(4), 2 + 4 / L(4), 0], id="DCG"),
    pytest.param(DCGAtK(1), [5, 2, 0], id="DCG@1"),
    pytest.param(Correlation("pearson"), [1, -1, np.nan], id="pearson"),
])
def test_toy_reference_values(toy_frames, metric, expected):
    res = metric.perform(Split(*toy_frames))
    got = res.users.loc[["u1", "u2", "u3"], str(metric)].to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    if np.isnan(expected).all():
        assert np.isnan(res.system.loc["sys", str(metric)])
    else:
        assert res.system.loc["sys", str(metric)] == pytest.approx(np.nanmean(expected), rel=1e-12)


def test_toy_thresholds_and_counts(toy_frames):
    lists = Split(*toy_frames).ranked_lists()
    assert lists.user_ids.tolist() == ["u1", "u2", "u3"]
    np.testing.assert_allclose(lists.threshold, [10 / 3, 3, 1])
    assert lists.n_relevant.tolist() == [2, 1, 1]
    assert lists.n_truth.tolist() == [3, 2, 1]
    assert lists.n_listed.tolist() == [3, 3, 2]
    assert lists.offsets.tolist() == [0, 3, 6, 8]
    assert lists.position.tolist() == [1, 2, 3, 1, 2, 3, 1, 2]
    assert lists.item_ids.tolist() == ["a", "x", "c", "d", "x", "e", "y", "z"]
    np.testing.assert_array_equal(lists.truth_score, [5, np.nan, 4, 2, np.nan, 4, np.nan, np.nan])
    assert lists.relevant.tolist() == [True, False, True, False, False, True, False, False]
    fixed = lists.for_threshold(4.0)
    assert fixed.n_relevant.tolist() == [2, 1, 0]
    assert fixed.relevant.tolist() == [True, False, True, False, False, True, False, False]


# ------------------------------------------------ example 000: NumPy MRR, MAP, NDCG@5, Spearman
def test_seed000_mrr_0_4583():
    # [0,0,1,0,0] [1,0,0,0,0] [0,0,0,0,0] [0,1,0,0,0]; query 3 has a relevant item, unlisted
    pred, truth = from_relevance_lists(
        [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 0, 0, 0]], extra_truth={2: 1})
    split = Split(pred, truth)
    assert round(system(MRR(relevant_threshold=1), split), 4) == 0.4583
    assert system(MRR(relevant_threshold=1), split) == pytest.approx((1 / 3 + 1 + 0 + 1 / 2) / 4, rel=1e-15)


def test_seed000_mrr_without_any_relevant_item_is_nan_or_zero():
    # query 3 has no relevant item at all: undefined (NaN, left out) unless no_relevant="zero"
    pred, truth = from_relevance_lists([[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 0, 0, 0]])
    split = Split(pred, truth)
    users = per_user(MRR(relevant_threshold=1), split)
    assert np.isnan(users["q2"])
    assert system(MRR(relevant_threshold=1), split) == pytest.approx((1 / 3 + 1 + 1 / 2) / 3, rel=1e-15)
    assert round(system(MRR(relevant_threshold=1, no_relevant="zero"), split), 4) == 0.4583


def _seed000_map_frames(with_rank: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    y_true = [[1, 0, 1, 1, 0], [0, 1, 1, 0, 0]]
    y_scores = [[0.9, 0.2, 0.7, 0.8, 0.1], [0.1, 0.8, 0.9, 0.3, 0.8]]
    # the seed's own order: np.argsort(y_scores)[::-1]
    seed_order = [np.argsort(s)[::-1] for s in y_scores]
    pred = pd.DataFrame([(f"q{q}", f"i{j}", y_scores[q][j]) for q in range(2) for j in range(5)],
                        columns=["user_id", "item_id", "score"])
    if with_rank:
        rank = {(f"q{q}", f"i{j}"): r + 1 for q in range(2) for r, j in enumerate(seed_order[q])}
        pred["rank"] = [rank[(u, i)] for u, i in zip(pred.user_id, pred.item_id)]
    truth = pd.DataFrame([(f"q{q}", f"i{j}", float(y_true[q][j])) for q in range(2) for j in range(5)],
                         columns=["user_id", "item_id", "score"])
    return pred, truth


def test_seed000_map_0_9167_with_the_seeds_tie_order_as_rank():
    pred, truth = _seed000_map_frames(with_rank=True)
    value = system(MAP(relevant_threshold=1), Split(pred, truth))
    assert round(value, 4) == 0.9167
    assert value == pytest.approx((1.0 + (1 + 2 / 3) / 2) / 2, rel=1e-15)


@pytest.mark.parametrize("ties, expected", [
    pytest.param("row_order", 1.0, id="row-order-i1-before-i4"),
    pytest.param("item_id", 1.0, id="item-id-ascending"),
    pytest.param("item_id_desc", (1.0 + (1 + 2 / 3) / 2) / 2, id="item-id-descending-like-argsort"),
])
def test_seed000_map_tied_scores_follow_the_tie_rule(ties, expected):
    # query 2 ties i1 and i4 at 0.8; i1 is relevant, i4 is not
    pred, truth = _seed000_map_frames(with_rank=False)
    assert system(MAP(relevant_threshold=1), Split(pred, truth, ties=ties)) == pytest.approx(expected, rel=1e-15)


def test_seed000_ndcg_at_5_exponential_printed_0_7272929761069984():
    pred, truth = from_relevance_lists([[2, 2, 3, 0, 1, 2]])
    value = system(NDCGAtK(5, gains="exponential", ideal="ranked"), Split(pred, truth))
    assert value == pytest.approx(0.7272929761069984, rel=1e-15)


@pytest.mark.parametrize("scores, commented", [
    ([2, 2, 3, 0, 1, 2], "0.7272"),
    ([3, 2, 3, 0, 1, 2], "0.8755"),
    ([4, 2, 3, 0, 1, 2], "0.9196"),
])
def test_seed000_ndcg_at_5_exponential(scores, commented):
    # the list is the relevance vector itself; the ideal re-sorts it (over all 6, then cut at 5);
    # the seed's comments truncate to 4 digits (0.72729... is commented 0.7272)
    pred, truth = from_relevance_lists([scores])
    for ideal in ("ranked", "truth"):
        value = system(NDCGAtK(5, gains="exponential", ideal=ideal), Split(pred, truth))
        assert f"{value:.6f}"[:6] == commented
    g = [2.0 ** s - 1 for s in scores]
    ideal_g = sorted(g, reverse=True)
    expected = sum(g[i] / L(i + 2) for i in range(5)) / sum(ideal_g[i] / L(i + 2) for i in range(5))
    assert value == pytest.approx(expected, rel=1e-14)


def test_seed000_ndcg_at_5_ground_truth_0_9735():
    truth = pd.DataFrame({"user_id": "u", "item_id": range(6), "score": [3.0, 2, 3, 0, 1, 2]})
    pred = pd.DataFrame({"user_id": "u", "item_id": [0, 2, 1, 5, 3, 4]})
    value = system(NDCGAtK(5, gains="exponential"), Split(pred, truth))
    assert value == pytest.approx(0.973494864667227, rel=1e-15)
    assert value == pytest.approx((7 + 7 / L(3) + 3 / 2 + 3 / L(5)) / (7 + 7 / L(3) + 3 / 2 + 3 / L(5) + 1 / L(6)),
                                  rel=1e-14)


def test_seed000_spearman_matches_scipy_not_the_no_ties_formula():
    # the seed's own formula prints 0.825, which assumes no ties; y has a tie, and
    # scipy (which the seed prints next to it) gives 0.8207826816681233
    pred = pd.DataFrame({"user_id": "u", "item_id": list("abcde"), "score": [1.0, 2, 3, 4, 5]})
    truth = pd.DataFrame({"user_id": "u", "item_id": list("abcde"), "score": [2.0, 1, 2, 4, 5]})
    value = system(Correlation("spearman"), Split(pred, truth))
    assert value == pytest.approx(0.8207826816681233, rel=1e-12)


# ------------------------------------------------ example 002: MRR, precision@k, AP, NDCG@k, correlations
def test_seed002_mrr_of_five_queries():
    lists = [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
    value = system(MRR(relevant_threshold=1), Split(*from_relevance_lists(lists)))
    assert round(value, 4) == 0.4567
    assert value == pytest.approx((1 / 3 + 1 + 1 / 2 + 1 / 4 + 1 / 5) / 5, rel=1e-15)


RANKING_002 = [1, 0, 1, 0, 1, 0, 0, 1, 0, 1]


@pytest.mark.parametrize("k, printed", [(1, 1.0), (2, 0.5), (3, 0.6667), (4, 0.5), (5, 0.6),
                                        (6, 0.5), (7, 0.4286), (8, 0.5), (9, 0.4444), (10, 0.5)])
def test_seed002_precision_at_k(k, printed):
    split = Split(*from_relevance_lists([RANKING_002]))
    value = system(PrecisionAtK(k, relevant_threshold=1), split)
    assert round(value, 4) == printed
    assert value == sum(RANKING_002[:k]) / k


def test_seed002_average_precision_0_6533():
    value = system(MAP(relevant_threshold=1), Split(*from_relevance_lists([RANKING_002])))
    assert round(value, 4) == 0.6533
    assert value == pytest.approx((1 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 10) / 5, rel=1e-15)


def test_seed002_mean_average_precision_of_four_queries():
    rankings = [[1, 1, 0, 1, 0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 1, 0, 1, 0, 1, 1],
                [1, 0, 1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 1, 1, 1]]
    users = per_user(MAP(relevant_threshold=1), Split(*from_relevance_lists(rankings)))
    expected = [(1 + 1 + 3 / 4 + 4 / 6) / 4, (1 / 2 + 2 / 5 + 3 / 7 + 4 / 9 + 5 / 10) / 5,
                (1 + 2 / 3 + 3 / 4) / 3, (1 / 6 + 2 / 8 + 3 / 9 + 4 / 10) / 4]
    np.testing.assert_allclose(users.loc[["q0", "q1", "q2", "q3"]], expected, rtol=1e-14)
    assert [round(v, 4) for v in expected] == [0.8542, 0.4546, 0.8056, 0.2875]
    assert round(float(np.mean(expected)), 4) == 0.6005


GRADED_002 = [3, 2, 3, 0, 1, 2, 0, 1, 0, 3]


@pytest.mark.parametrize("k", range(1, 11))
def test_seed002_ndcg_at_k_exponential(k):
    # the seed's dcg_at_k(method=1) over the list and its own sorted copy
    def dcg(r):
        return sum((2.0 ** r[i] - 1) / L(i + 2) for i in range(min(k, len(r))))
    expected = dcg(GRADED_002) / dcg(sorted(GRADED_002, reverse=True))
    value = system(NDCGAtK(k, gains="exponential", ideal="ranked"), Split(*from_relevance_lists([GRADED_002])))
    assert value == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("predicted", [
    list(range(1, 11)), list(range(10, 0, -1)), [1, 3, 2, 4, 6, 5, 7, 9, 8, 10], [2, 1, 4, 3, 6, 5, 8, 7, 10, 9],
], ids=["identical", "reverse", "slightly-different", "swapped-pairs"])
@pytest.mark.parametrize("method", ["spearman", "kendall", "pearson"])
def test_seed002_rank_correlations_match_scipy(predicted, method):
    true_ranking = list(range(1, 11))
    pred = pd.DataFrame({"user_id": "u", "item_id": range(10), "score": np.array(predicted, dtype=float)})
    truth = pd.DataFrame({"user_id": "u", "item_id": range(10), "score": np.array(true_ranking, dtype=float)})
    reference = {"spearman": stats.spearmanr, "kendall": stats.kendalltau, "pearson": stats.pearsonr}[method]
    expected = reference(predicted, true_ranking)[0]
    assert system(Correlation(method), Split(pred, truth)) == pytest.approx(expected, rel=1e-12, abs=1e-15)


# ------------------------------------------------ example 003: precision and recall@4 of ten users
PREFERENCES_003 = [
    [1, 4, 6, 9, 8, 2, 0, 3, 7, 5], [9, 6, 8, 4, 5, 1, 7, 3, 0, 2], [1, 0, 7, 6, 8, 9, 5, 4, 3, 2],
    [9, 4, 6, 2, 0, 3, 7, 1, 5, 8], [8, 9, 5, 3, 6, 2, 4, 0, 1, 7], [6, 4, 5, 0, 9, 1, 7, 2, 3, 8],
    [3, 9, 7, 6, 1, 5, 0, 8, 4, 2], [7, 4, 2, 5, 3, 0, 8, 6, 1, 9], [2, 9, 4, 0, 6, 7, 8, 5, 1, 3],
    [1, 5, 8, 3, 4, 0, 9, 2, 7, 6],
]
RECOMMENDATIONS_003 = [
    [1, 4, 6, 9, 8, 2, 0, 3, 7, 5], [9, 6, 8, 4, 5, 1, 7, 3, 0, 2], [1, 0, 7, 6, 8, 9, 5, 4, 3, 2],
    [9, 4, 6, 2, 0, 3, 7, 1, 5, 8], [7, 3, 9, 5, 8, 6, 2, 4, 0, 1], [6, 4, 5, 0, 9, 1, 7, 2, 3, 8],
    [3, 9, 7, 6, 1, 5, 0, 8, 4, 2], [7, 4, 2, 5, 3, 0, 8, 6, 1, 9], [5, 2, 0, 1, 8, 9, 3, 6, 4, 7],
    [1, 5, 8, 3, 4, 0, 9, 2, 7, 6],
]


def test_seed003_precision_and_recall_at_4():
    # each user's first 5 preferences are relevant (the printed relevance masks)
    pred, truth = from_item_lists(RECOMMENDATIONS_003, [p[:5] for p in PREFERENCES_003])
    split = Split(pred, truth)
    assert round(system(PrecisionAtK(4, relevant_threshold=1), split), 4) == 0.925
    assert round(system(RecallAtK(4, relevant_threshold=1), split), 4) == 0.74


# ------------------------------------------------ example 004: recall@k, MRR, MAP@8, DCG/IDCG/NDCG tables
@pytest.mark.parametrize("k, printed", [(1, 0.0), (2, 0.25), (3, 0.25), (4, 0.5), (5, 0.75),
                                        (6, 0.75), (7, 1.0), (8, 1.0)])
def test_seed004_recall_at_k(k, printed):
    pred, truth = from_item_lists([["1", "2", "3", "4", "5", "6", "7", "8"]], [["2", "4", "5", "7"]])
    assert system(RecallAtK(k, relevant_threshold=1), Split(pred, truth)) == printed


ACTUAL_004 = [[2, 4, 5, 7], [1, 4, 5, 7], [5, 8]]
PREDICTED_004 = [[1, 2, 3, 4, 5, 6, 7, 8]] * 3


def test_seed004_mrr_0_57():
    split = Split(*from_item_lists(PREDICTED_004, ACTUAL_004))
    value = system(MRR(relevant_threshold=1), split)
    assert round(value, 2) == 0.57
    assert value == pytest.approx((1 / 2 + 1 + 1 / 5) / 3, rel=1e-15)


def test_seed004_map_at_8_0_48():
    split = Split(*from_item_lists(PREDICTED_004, ACTUAL_004))
    users = per_user(MAPAtK(8, relevant_threshold=1), split)
    assert [round(v, 2) for v in users.loc[["q0", "q1", "q2"]]] == [0.54, 0.67, 0.23]
    assert round(system(MAPAtK(8, relevant_threshold=1), split), 2) == 0.48


RELEVANCE_004 = [0, 4, 1, 3, 4, 1, 3, 2]


def _seed004_split(order: list[int]) -> Split:
    truth = pd.DataFrame({"user_id": "u", "item_id": range(8), "score": np.array(RELEVANCE_004, dtype=float)})
    pred = pd.DataFrame({"user_id": "u", "item_id": order})
    return Split(pred, truth)


@pytest.mark.parametrize("k, dcg, idcg, ndcg", [
    (1, 0.0, 4.0, 0.0), (2, 2.52, 6.52, 0.39), (3, 3.02, 8.02, 0.38), (4, 4.32, 9.32, 0.46),
    (5, 5.86, 10.09, 0.58), (6, 6.22, 10.45, 0.6), (7, 7.22, 10.78, 0.67), (8, 7.85, 10.78, 0.73),
])
def test_seed004_dcg_idcg_ndcg_tables(k, dcg, idcg, ndcg):
    as_listed = _seed004_split(list(range(8)))
    ideal_order = sorted(range(8), key=lambda i: -RELEVANCE_004[i])
    assert round(system(DCGAtK(k), as_listed), 2) == dcg
    assert round(system(DCGAtK(k), _seed004_split(ideal_order)), 2) == idcg
    assert round(system(NDCGAtK(k), as_listed), 2) == ndcg


# ------------------------------------------------ example 001: ClayRS's metrics
def test_clayrs_default_threshold_is_the_users_mean_and_inclusive():
    # ratings 2, 3, 4: mean 3, so the item rated 3 is relevant (>=)
    pred = pd.DataFrame({"user_id": "u", "item_id": ["b", "x", "c"]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c"], "score": [2.0, 3.0, 4.0]})
    split = Split(pred, truth)
    assert system(MRR(), split) == 1.0
    assert system(PrecisionAtK(3), split) == pytest.approx(2 / 3)
    # strictly above the mean would have made b irrelevant: MRR 1/3
    assert system(MRR(relevant_threshold=3.5), split) == pytest.approx(1 / 3)


def test_users_with_all_equal_ratings_are_fully_relevant_despite_rounding():
    # 0.1 * 3 / 3 != 0.1 in floating point; the clamped mean keeps every item relevant
    pred = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c"]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c"], "score": [0.1, 0.1, 0.1]})
    assert system(PrecisionAtK(3), Split(pred, truth)) == 1.0


def test_clayrs_map_at_k_divides_by_all_relevant_truth_items():
    # 4 relevant (score 5), list hits 2 of them in the first 2: AP@2 = (1 + 1) / 4
    pred = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "x"]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c", "d", "e"], "score": [5.0, 5, 5, 5, 1]})
    assert system(MAPAtK(2), Split(pred, truth)) == pytest.approx(2 / 4)


def test_clayrs_nan_users_are_left_out_of_the_system_mean():
    # u2 rates everything 5 with a fixed threshold of 6: no relevant item, NaN
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "c"]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "c"], "score": [7.0, 1, 5]})
    res = MAP(relevant_threshold=6).perform(Split(pred, truth))
    assert res.users["MAP"].loc["u1"] == 1.0
    assert np.isnan(res.users["MAP"].loc["u2"])
    assert res.system.loc["sys", "MAP"] == 1.0


def test_clayrs_correlation_on_common_items_nan_under_two():
    pred = pd.DataFrame({"user_id": ["u1"] * 4 + ["u2"] * 2, "item_id": ["a", "x", "b", "c", "d", "y"],
                         "score": [4.0, 3, 2, 1, 2, 1]})
    truth = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"], "item_id": ["a", "b", "c", "d"],
                          "score": [5.0, 1, 3, 4]})
    users = per_user(Correlation(), Split(pred, truth))
    assert users["u1"] == pytest.approx(stats.pearsonr([4, 2, 1], [5, 1, 3])[0], rel=1e-12)
    assert np.isnan(users["u2"])  # one common item


def test_clayrs_ndcg_is_ideal_ranked_judged_only():
    # ClayRS: truth scores of the listed items that are in truth, in list order, against
    # the same scores sorted; unjudged items vanish, unlisted truth items are ignored
    pred = pd.DataFrame({"user_id": "u", "item_id": ["a", "x", "b", "c"]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c", "d"], "score": [2.0, 5, 3, 4]})
    split = Split(pred, truth)
    clayrs = (2 + 5 / L(3) + 3 / L(4)) / (5 + 3 / L(3) + 2 / L(4))
    assert system(NDCG(ideal="ranked", judged_only=True), split) == pytest.approx(clayrs, rel=1e-14)
    clayrs_at_2 = (2 + 5 / L(3)) / (5 + 3 / L(3))
    assert system(NDCGAtK(2, ideal="ranked", judged_only=True), split) == pytest.approx(clayrs_at_2, rel=1e-14)


# --------------------------------------------------------------------------- edge cases
def test_rank_column_orders_the_list_and_gaps_close():
    pred = pd.DataFrame({"user_id": "u", "item_id": ["c", "a", "b"], "rank": [7, 1, 3], "score": [9.0, 1, 5]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c"], "score": [1.0, 1, 5]})
    lists = Split(pred, truth).ranked_lists()
    assert lists.item_ids.tolist() == ["a", "b", "c"]
    assert lists.position.tolist() == [1, 2, 3]
    assert system(MRR(relevant_threshold=5), Split(pred, truth)) == pytest.approx(1 / 3)


def test_without_score_or_rank_row_order_is_the_list_and_correlation_uses_minus_position():
    pred = pd.DataFrame({"user_id": "u", "item_id": ["c", "a", "b"]})
    truth = pd.DataFrame({"user_id": "u", "item_id": ["a", "b", "c"], "score": [3.0, 1, 5]})
    split = Split(pred, truth)
    assert split.ranked_lists().item_ids.tolist() == ["c", "a", "b"]
    assert system(Correlation(), split) == pytest.approx(stats.pearsonr([-1, -2, -3], [5, 3, 1])[0], rel=1e-12)


def test_missing_users_zero_policy_scores_truth_only_users_zero(toy_frames):
    pred, truth = toy_frames
    truth = pd.concat([truth, pd.DataFrame({"user_id": ["u9"], "item_id": ["q"], "score": [3.0]})],
                      ignore_index=True)
    with pytest.warns(MissingUsersWarning, match=r"1 `truth` user\(s\) have no recommendations and get 0"):
        split = Split(pred, truth, missing_users="zero")
    res = MRR().perform(split)
    assert res.users["MRR"].to_dict() == {"u1": 1.0, "u2": 1 / 3, "u3": 0.0, "u9": 0.0}
    assert res.system.loc["sys", "MRR"] == pytest.approx((1 + 1 / 3) / 4)
    with pytest.warns(MissingUsersWarning, match=r"1 `truth` user\(s\) have no recommendations and are left out"):
        ignored = MRR().perform(Split(pred, truth))
    assert "u9" not in ignored.users.index


def test_pred_only_users_are_left_out_with_a_counting_warning(toy_frames):
    pred, truth = toy_frames
    pred = pd.concat([pred, pd.DataFrame({"user_id": ["p1", "p2"], "item_id": ["a", "a"], "score": [1.0, 1]})],
                     ignore_index=True)
    with pytest.warns(MissingUsersWarning, match=r"2 `pred` user\(s\) have no truth ratings and are left out"):
        split = Split(pred, truth)
    assert split.ranked_lists().user_ids.tolist() == ["u1", "u2", "u3"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(per_user(MAP(), split).to_numpy(), [(1 + 2 / 3) / 2, 1 / 3, 0])


@pytest.mark.parametrize("scores, grades, expected", [
    pytest.param([1e200, 2, 3], [3, 1, 0], {"pearson": 0.9449111825230682, "kendall": 1 / 3}, id="huge-score"),
    pytest.param([1, 2, 3], [5e-324, 0, -5e-324], {"pearson": -1.0, "kendall": -1.0}, id="subnormal-grades"),
    pytest.param([1e308, -1e308, 0], [1, 2, 3], {"pearson": -0.5, "kendall": -1 / 3}, id="near-max-float"),
    pytest.param([1e-310, 2e-310, 5], [1, 2, 3], {"pearson": 0.8660254037844386, "kendall": 1.0}, id="subnormal-scores"),
    # exact: cov = 2 - 2e300 - ..., var = 2e600 each, r = -1e-300 (rational arithmetic below); scipy
    # 1.17's pearsonr gives -0.4999999999999999 here, a cancellation in its own scaling
    pytest.param([1e300, 1e-300, -1e300, 0], [1e-300, 1e300, 2, -1e300],
                 {"pearson": -1e-300, "kendall": 0.0}, id="mixed-magnitudes"),
])
@pytest.mark.parametrize("method", ["pearson", "kendall"])
def test_correlation_is_exact_and_warning_free_on_extreme_scores(scores, grades, expected, method):
    """Scores near the float limits (1e300 squared overflows, 5e-324 squared underflows) give the
    exact correlation, as scipy's (which scales too), without a RuntimeWarning."""
    pred = pd.DataFrame({"user_id": "u", "item_id": range(len(scores)), "score": np.array(scores, dtype=float)})
    truth = pd.DataFrame({"user_id": "u", "item_id": range(len(grades)), "score": np.array(grades, dtype=float)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = system(Correlation(method), Split(pred, truth))
    assert value == pytest.approx(expected[method], rel=1e-15, abs=0)
    if method == "pearson":
        assert value == pytest.approx(_exact_pearson(scores, grades), rel=1e-15, abs=0)
    if expected[method] == 0 or abs(expected[method]) > 1e-200:  # scipy loses the tiny one (see above)
        reference = {"pearson": stats.pearsonr, "kendall": stats.kendalltau}[method](scores, grades)[0]
        assert value == pytest.approx(reference, rel=1e-12, abs=1e-15)


def _exact_pearson(x: list[float], y: list[float]) -> float:
    """Pearson's r of the floats as exact rationals, the square root to 60 digits."""
    from decimal import Decimal, localcontext
    from fractions import Fraction

    fx, fy = [Fraction(v) for v in x], [Fraction(v) for v in y]
    mx, my = sum(fx) / len(fx), sum(fy) / len(fy)
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy))
    sxx, syy = sum((a - mx) ** 2 for a in fx), sum((b - my) ** 2 for b in fy)
    r2 = sxy * sxy / (sxx * syy)
    with localcontext() as ctx:
        ctx.prec = 60
        root = (Decimal(r2.numerator) / Decimal(r2.denominator)).sqrt()
    return float(root) if sxy >= 0 else -float(root)
