"""Agreement with the peers: trec_eval (through pytrec_eval) and ranx.

Both peers run inside these tests on seeded random data; no peer number is stored.
What the tests pin down (see ``docs/differences.md``):

- wherever the definitions match, every user's value equals the peer's to 1e-12;
- where they differ on purpose, the concrete values on both sides, and the rankeval
  parameters that reproduce the peer's number.

The random frames have distinct predicted scores within a user, so the tie rule does not
matter there; ties are tested on their own (``test_*ties*``).

ranx compiles its metrics with numba on first use and caches them in its package
directory: the first run in a fresh environment takes about 40 s longer.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest

from rankeval import (
    MAP,
    MRR,
    NDCG,
    HitRateAtK,
    MAPAtK,
    MRRAtK,
    NDCGAtK,
    PrecisionAtK,
    RecallAtK,
    Split,
)
from rankeval.exceptions import MissingUsersWarning

from ._peer_data import as_qrels, as_run, peer_frames
from ._require import require

pytrec_eval = require("pytrec_eval")
ranx = require("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")

SEEDS = [0, 1, 2, 3, 4]
KS = (5, 10)
THRESHOLD = 1  # trec_eval's relevance_level=1, ranx's default rel_lvl: grade >= 1 is relevant
TOL = dict(rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- #
# random data
# --------------------------------------------------------------------------- #
@functools.lru_cache(maxsize=None)
def make_frames(seed: int, *, tied: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    return peer_frames(seed, tied=tied, min_users=50)


def split(pred: pd.DataFrame, truth: pd.DataFrame, **kwargs) -> Split:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingUsersWarning)
        return Split(pred, truth, **kwargs)


def rankeval_users(metric, s: Split) -> pd.Series:
    return metric.perform(s).users[str(metric)]


def users_without_relevant(truth: pd.DataFrame, threshold: float = THRESHOLD) -> set:
    best = truth.groupby("user_id")["score"].max()
    return set(best.index[best < threshold])


def trec_eval(truth, pred, measures, relevance_level=THRESHOLD, judged_only=False) -> dict:
    evaluator = pytrec_eval.RelevanceEvaluator(as_qrels(truth), set(measures),
                                               relevance_level=relevance_level,
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate(as_run(pred))


def ranx_eval(truth, pred, metrics) -> dict[str, pd.Series]:
    """ranx per-query scores; queries missing from the run get an empty list (make_comparable)."""
    qrels = ranx.Qrels(as_qrels(truth))
    run = ranx.Run(as_run(pred)).make_comparable(qrels)
    scores = ranx.evaluate(qrels, run, list(metrics), return_mean=False, threads=1,
                           save_results_in_run=False)
    if len(metrics) == 1:
        scores = {metrics[0]: scores}
    q_ids = list(run.get_query_ids())
    assert q_ids == list(qrels.get_query_ids())
    return {m: pd.Series(v, index=q_ids) for m, v in scores.items()}


def check_against_peer(make_metric, s: Split, peer: pd.Series, no_relevant_users: set) -> None:
    """Default: NaN exactly on users without a relevant item, the peer's value elsewhere;
    ``no_relevant="zero"``: the peer's value on every user."""
    default = rankeval_users(make_metric(), s)
    assert set(default.index) == set(peer.index)
    default = default.loc[peer.index]
    nan_expected = default.index.isin(list(no_relevant_users))
    np.testing.assert_array_equal(np.isnan(default.to_numpy()), nan_expected, err_msg=str(make_metric()))
    np.testing.assert_allclose(default[~nan_expected].to_numpy(), peer[~nan_expected].to_numpy(), **TOL,
                               err_msg=str(make_metric()))
    zero = rankeval_users(make_metric(no_relevant="zero"), s).loc[peer.index]
    np.testing.assert_allclose(zero.to_numpy(), peer.to_numpy(), **TOL, err_msg=str(make_metric()))
    # system value: NaN users left out by default; with "zero" it is the peer's mean
    sys_zero = make_metric(no_relevant="zero").perform(s).system.iloc[0, 0]
    np.testing.assert_allclose(sys_zero, peer.mean(), **TOL)


# --------------------------------------------------------------------------- #
# trec_eval
# --------------------------------------------------------------------------- #
def _k_metrics(cls, stem):
    return [(f"{stem}_{k}", functools.partial(cls, k, relevant_threshold=THRESHOLD)) for k in KS]


TREC_EVAL_PAIRS = [
    ("map", functools.partial(MAP, relevant_threshold=THRESHOLD)),
    *_k_metrics(MAPAtK, "map_cut"),
    ("recip_rank", functools.partial(MRR, relevant_threshold=THRESHOLD)),
    *_k_metrics(PrecisionAtK, "P"),
    *_k_metrics(RecallAtK, "recall"),
    *_k_metrics(HitRateAtK, "success"),
    ("ndcg", functools.partial(NDCG, relevant_threshold=THRESHOLD)),
    *_k_metrics(NDCGAtK, "ndcg_cut"),
]
TREC_EVAL_MEASURES = {"map", "map_cut", "recip_rank", "P", "recall", "success", "ndcg", "ndcg_cut"}


def _trec_series(results: dict, measure: str) -> pd.Series:
    return pd.Series({q: v[measure] for q, v in results.items()}, dtype=float)


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_agrees_per_user(seed):
    pred, truth = make_frames(seed)
    s = split(pred, truth)  # missing_users="ignore": trec_eval (without -c) skips them too
    results = trec_eval(truth, pred, TREC_EVAL_MEASURES)
    # trec_eval scores the users in both frames, exactly rankeval's evaluated users
    assert set(results) == set(s.ranked_lists().user_ids)
    no_rel = users_without_relevant(truth)
    assert no_rel & set(results), "the data must hold listed users without a relevant item"
    for measure, make_metric in TREC_EVAL_PAIRS:
        check_against_peer(make_metric, s, _trec_series(results, measure), no_rel)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_trec_eval_judged_only_ndcg_agrees(seed):
    """trec_eval -J (judged_docs_only_flag) condenses the list as NDCG(judged_only=True)."""
    pred, truth = make_frames(seed)
    s = split(pred, truth)
    results = trec_eval(truth, pred, {"ndcg", "ndcg_cut"}, judged_only=True)
    no_rel = users_without_relevant(truth)
    check_against_peer(functools.partial(NDCG, judged_only=True), s, _trec_series(results, "ndcg"), no_rel)
    for k in KS:
        check_against_peer(functools.partial(NDCGAtK, k, judged_only=True), s,
                           _trec_series(results, f"ndcg_cut_{k}"), no_rel)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_trec_eval_agrees_on_tied_scores_with_item_id_desc(seed):
    """Scores drawn from {1, 2, 3}: many ties, broken by trec_eval by docno descending."""
    pred, truth = make_frames(seed, tied=True)
    results = trec_eval(truth, pred, TREC_EVAL_MEASURES)
    no_rel = users_without_relevant(truth)
    s = split(pred, truth, ties="item_id_desc")
    for measure, make_metric in TREC_EVAL_PAIRS:
        check_against_peer(make_metric, s, _trec_series(results, measure), no_rel)
    # the default (row order) does not agree on this data
    row_order = rankeval_users(MAP(relevant_threshold=THRESHOLD, no_relevant="zero"), split(pred, truth))
    peer = _trec_series(results, "map")
    assert not np.allclose(row_order.loc[peer.index].to_numpy(), peer.to_numpy(), **TOL)


# --------------------------------------------------------------------------- #
# ranx
# --------------------------------------------------------------------------- #
RANX_PAIRS = [
    ("map", functools.partial(MAP, relevant_threshold=THRESHOLD)),
    ("mrr", functools.partial(MRR, relevant_threshold=THRESHOLD)),
    ("ndcg", functools.partial(NDCG, relevant_threshold=THRESHOLD)),
    # ranx's "ndcg" is linear (Jarvelin) gains, "ndcg_burges" 2^r - 1; both discount log2(i + 1)
    ("ndcg_burges", functools.partial(NDCG, gains="exponential", relevant_threshold=THRESHOLD)),
]
for _k in KS:
    RANX_PAIRS += [
        (f"map@{_k}", functools.partial(MAPAtK, _k, relevant_threshold=THRESHOLD)),
        (f"mrr@{_k}", functools.partial(MRRAtK, _k, relevant_threshold=THRESHOLD)),
        (f"precision@{_k}", functools.partial(PrecisionAtK, _k, relevant_threshold=THRESHOLD)),
        (f"recall@{_k}", functools.partial(RecallAtK, _k, relevant_threshold=THRESHOLD)),
        (f"ndcg@{_k}", functools.partial(NDCGAtK, _k, relevant_threshold=THRESHOLD)),
        (f"ndcg_burges@{_k}", functools.partial(NDCGAtK, _k, gains="exponential", relevant_threshold=THRESHOLD)),
        (f"hit_rate@{_k}", functools.partial(HitRateAtK, _k, relevant_threshold=THRESHOLD)),
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_agrees_per_user(seed):
    pred, truth = make_frames(seed)
    # ranx (make_comparable) scores truth users without a list as empty lists: 0,
    # which is rankeval's missing_users="zero"; pred-only users are dropped by both
    s = split(pred, truth, missing_users="zero")
    scores = ranx_eval(truth, pred, [m for m, _ in RANX_PAIRS])
    assert set(scores["map"].index) == set(truth["user_id"])
    listed_no_rel = users_without_relevant(truth) & set(s.ranked_lists().user_ids)
    assert listed_no_rel, "the data must hold listed users without a relevant item"
    for measure, make_metric in RANX_PAIRS:
        check_against_peer(make_metric, s, scores[measure], listed_no_rel)


def test_generator_covers_the_cases():
    """Every seed's data holds the cases the agreement tests are meant to exercise."""
    for seed in SEEDS:
        pred, truth = make_frames(seed)
        lists = split(pred, truth).ranked_lists().for_threshold(THRESHOLD)
        assert 50 <= lists.n_users <= 200
        assert (lists.n_listed < 5).any() and (lists.n_listed > 10).any()
        assert np.isnan(lists.truth_score).any()                   # unjudged listed items
        hits = lists.segment_sum(lists.relevant)
        assert (hits < lists.n_relevant).any()                     # relevant items not listed
        assert (lists.n_relevant == 0).any()                       # no relevant item
        assert len(lists.missing_user_ids) and len(lists.pred_only_user_ids)
        assert not pred.duplicated(["user_id", "score"]).any()     # distinct scores per user
        tied, _ = make_frames(seed, tied=True)
        assert tied.duplicated(["user_id", "score"]).any()


# --------------------------------------------------------------------------- #
# known differences, with concrete values
# --------------------------------------------------------------------------- #
def _one_user(items, scores, truth_items, grades, user="q"):
    pred = pd.DataFrame({"user_id": user, "item_id": items, "score": [float(x) for x in scores]})
    truth = pd.DataFrame({"user_id": user, "item_id": truth_items, "score": grades})
    return pred, truth


def test_ties_trec_eval_orders_by_docno_descending_as_strings():
    # "10" and "9" tie; only "9" is relevant. Rows list "10" first.
    pred, truth = _one_user(["10", "9"], [1, 1], ["9", "10"], [1, 0])
    te = trec_eval(truth, pred, {"recip_rank"})["q"]["recip_rank"]
    assert te == 1.0  # "9" > "10" as strings: trec_eval ranks "9" first
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth))["q"] == 0.5  # row order
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth, ties="item_id"))["q"] == 0.5
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth, ties="item_id_desc"))["q"] == te
    # integer ids: item_id_desc still compares them as strings, as trec_eval would
    ipred, itruth = pred.assign(item_id=[10, 9]), truth.assign(item_id=[9, 10])
    assert rankeval_users(MRR(relevant_threshold=1), Split(ipred, itruth, ties="item_id_desc"))["q"] == te
    assert rankeval_users(MRR(relevant_threshold=1), Split(ipred, itruth, ties="item_id"))["q"] == 1.0


def test_ties_ranx_keeps_row_order_in_short_lists_only():
    # short list: ranx keeps insertion (row) order, as rankeval's default
    pred, truth = _one_user(["b", "a"], [1, 1], ["a", "b"], [1, 0])
    assert ranx_eval(truth, pred, ["mrr"])["mrr"]["q"] == 0.5
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth))["q"] == 0.5
    assert trec_eval(truth, pred, {"recip_rank"})["q"]["recip_rank"] == 0.5  # "b" > "a"
    # 16 tied items: ranx sorts with numba's unstable quicksort, so the order of ties is
    # neither row order nor id order, and every re-sort (make_comparable sorts again)
    # moves them: the same evaluation gives 1/15 or 1
    items = [f"d{i:02d}" for i in range(16)]
    pred, truth = _one_user(items, [1] * 16, ["d00"], [1])
    qrels = ranx.Qrels(as_qrels(truth))
    once = ranx.evaluate(qrels, ranx.Run(as_run(pred)), "mrr", return_mean=False, threads=1)
    twice = ranx.evaluate(qrels, ranx.Run(as_run(pred)), "mrr", return_mean=False, threads=1,
                          make_comparable=True)
    assert once[0] == pytest.approx(1 / 15, rel=1e-15)
    assert twice[0] == 1.0
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth))["q"] == 1.0
    assert rankeval_users(MRR(relevant_threshold=1), Split(pred, truth, ties="item_id_desc"))["q"] == 1 / 16
    assert trec_eval(truth, pred, {"recip_rank"})["q"]["recip_rank"] == 1 / 16


def test_no_relevant_item_is_zero_for_peers_nan_for_rankeval():
    # user "a": MAP 1; user "b": only grade 0, no relevant item at level 1
    pred = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "y"], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "y"], "score": [2, 0]})
    te = trec_eval(truth, pred, {"map", "ndcg", "P_5"})
    rx = ranx_eval(truth, pred, ["map", "ndcg", "precision@5"])
    assert te["b"] == {"map": 0.0, "ndcg": 0.0, "P_5": 0.0}
    assert rx["map"]["b"] == rx["ndcg"]["b"] == rx["precision@5"]["b"] == 0.0
    s = Split(pred, truth)
    for metric, te_name, rx_name in [(MAP(relevant_threshold=1), "map", "map"),
                                     (NDCG(relevant_threshold=1), "ndcg", "ndcg"),
                                     (PrecisionAtK(5, relevant_threshold=1), "P_5", "precision@5")]:
        res = metric.perform(s)
        assert np.isnan(res.users[str(metric)]["b"])
        assert res.users[str(metric)]["a"] == te["a"][te_name] == rx[rx_name]["a"]
    # so the system values differ: peers average the 0 in, rankeval leaves the user out
    assert MAP(relevant_threshold=1).perform(s).system.iloc[0, 0] == 1.0
    assert np.mean([te[q]["map"] for q in te]) == rx["map"].mean() == 0.5
    assert MAP(relevant_threshold=1, no_relevant="zero").perform(s).system.iloc[0, 0] == 0.5


def test_users_absent_from_the_run():
    # "c" has ratings but no list; "p" has a list but no ratings
    pred = pd.DataFrame({"user_id": ["a", "p"], "item_id": ["x", "x"], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user_id": ["a", "c"], "item_id": ["x", "y"], "score": [1, 1]})
    # trec_eval (pytrec_eval has no -c) skips both
    assert set(trec_eval(truth, pred, {"map"})) == {"a"}
    # ranx refuses different query sets...
    with pytest.raises(AssertionError, match="make_comparable"):
        ranx.evaluate(ranx.Qrels(as_qrels(truth)), ranx.Run(as_run(pred)), "map")
    # ...and with make_comparable scores "c" 0 and drops "p"
    assert ranx_eval(truth, pred, ["map"])["map"].to_dict() == {"a": 1.0, "c": 0.0}
    with pytest.warns(MissingUsersWarning):
        ignore = Split(pred, truth)
    assert rankeval_users(MAP(relevant_threshold=1), ignore).to_dict() == {"a": 1.0}  # as trec_eval
    with pytest.warns(MissingUsersWarning):
        zero = Split(pred, truth, missing_users="zero")
    assert rankeval_users(MAP(relevant_threshold=1), zero).to_dict() == {"a": 1.0, "c": 0.0}  # as ranx


def test_ndcg_negative_grades():
    # trec_eval and ranx give a grade <= 0 no gain, in the list and in the ideal;
    # rankeval's linear gain is the raw grade in the list (a disliked item costs), while the
    # ideal takes positive gains only: the best list puts nothing with a negative gain
    pred, truth = _one_user(list("abcd"), [4, 3, 2, 1], list("abcd"), [-2, 2, 1, -1])
    ideal = 2 + 1 / np.log2(3)
    peer_value = (2 / np.log2(3) + 1 / 2) / ideal
    assert trec_eval(truth, pred, {"ndcg"})["q"]["ndcg"] == pytest.approx(peer_value, rel=1e-12)
    assert ranx_eval(truth, pred, ["ndcg"])["ndcg"]["q"] == pytest.approx(peer_value, rel=1e-12)
    dcg = -2 + 2 / np.log2(3) + 1 / 2 - 1 / np.log2(5)
    idcg = 2 + 1 / np.log2(3)  # ideal: the positive grades, sorted
    assert rankeval_users(NDCG(), Split(pred, truth))["q"] == pytest.approx(dcg / idcg, rel=1e-12)
    # reproduce the peers: clip the grades at 0
    clipped = truth.assign(score=truth["score"].clip(lower=0))
    assert rankeval_users(NDCG(), Split(pred, clipped))["q"] == pytest.approx(peer_value, rel=1e-12)


def test_ndcg_is_at_most_one_with_negative_grades():
    # the best possible list ["a"] scores DCG 2, which is the IDCG
    pred, truth = _one_user(["a"], [1], ["a", "b"], [2, -1])
    assert trec_eval(truth, pred, {"ndcg"})["q"]["ndcg"] == 1.0
    assert rankeval_users(NDCG(), Split(pred, truth))["q"] <= 1.0


def test_ndcg_relevance_level_above_one():
    # trec_eval's ndcg ignores relevance_level (gain = raw grade); ranx's "ndcg@k-lL"
    # zeroes the gain of grades below L; rankeval's linear NDCG ignores relevant_threshold
    pred, truth = _one_user(list("abc"), [3, 2, 1], list("abc"), [1, 2, 3])
    te = trec_eval(truth, pred, {"ndcg", "map"}, relevance_level=2)["q"]
    rx = ranx_eval(truth, pred, ["ndcg-l2", "map-l2"])
    full = (1 + 2 / np.log2(3) + 3 / 2) / (3 + 2 / np.log2(3) + 1 / 2)
    cut = (2 / np.log2(3) + 3 / 2) / (3 + 2 / np.log2(3))
    assert te["ndcg"] == pytest.approx(full, rel=1e-12)
    assert rx["ndcg-l2"]["q"] == pytest.approx(cut, rel=1e-12)
    assert rankeval_users(NDCG(relevant_threshold=2), Split(pred, truth))["q"] == pytest.approx(full, rel=1e-12)
    # binary metrics follow the level in all three: relevant b (2) and c (3) at ranks 2, 3
    assert te["map"] == pytest.approx(rx["map-l2"]["q"], rel=1e-12)
    assert rankeval_users(MAP(relevant_threshold=2), Split(pred, truth))["q"] == pytest.approx(te["map"], rel=1e-12)
    # reproduce ranx: give grades below the level a gain of 0
    below = truth.assign(score=truth["score"].where(truth["score"] >= 2, 0))
    assert rankeval_users(NDCG(), Split(pred, below))["q"] == pytest.approx(cut, rel=1e-12)
