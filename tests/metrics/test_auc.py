"""AUC, GAUC, LAUC and LogLoss: hand-worked cases, scikit-learn per user, a plain loop under
hypothesis, RecBole's and Elliot's formulas re-derived from their source, MS Recommenders' own
functions, and the Spark engine."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from tests._require import require

sklearn_metrics = require("sklearn.metrics")


def _random(seed: int, n_users: int = 60, ties: bool = False, probabilities: bool = False):
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        listed = rng.choice(40, size=rng.integers(1, 16), replace=False)
        if probabilities:
            scores = rng.random(len(listed))
        elif ties:
            scores = rng.integers(0, 4, len(listed)).astype(float)
        else:
            scores = rng.permutation(len(listed)) + rng.random()
        pred_rows += [(f"u{u:03d}", f"i{i:02d}", s) for i, s in zip(listed, scores)]
        rated = rng.choice(40, size=rng.integers(1, 30), replace=False)
        labels = rng.integers(0, 2, len(rated)) if probabilities else rng.integers(1, 6, len(rated))
        truth_rows += [(f"u{u:03d}", f"i{i:02d}", float(g)) for i, g in zip(rated, labels)]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    return pred, truth


def _user_rows(pred, truth, threshold, k=None):
    """Per user: (scores in list order, positive flags, judged flags), the list sorted by score
    descending (stable, as the Split's default row order)."""
    merged = pred.merge(truth, on=["user_id", "item_id"], how="left", suffixes=("", "_truth"))
    out = {}
    for user, g in merged.groupby("user_id", sort=True):
        g = g.sort_values("score", ascending=False, kind="stable")
        if k is not None:
            g = g.head(k)
        judged = g["score_truth"].notna().to_numpy()
        positive = (g["score_truth"] >= threshold).to_numpy()
        out[user] = (g["score"].to_numpy(), positive, judged)
    return out


def _loop_auc(scores, positive, negative):
    """Every (positive, negative) pair, one by one."""
    pos, neg = scores[positive], scores[negative]
    if len(pos) == 0 or len(neg) == 0:
        return np.nan
    total = 0.0
    for p in pos:
        for n in neg:
            total += 1.0 if p > n else 0.5 if p == n else 0.0
    return total / (len(pos) * len(neg))


# ---------------------------------------------------------------- hand-worked
def test_hand_worked_case():
    # u1: scores a .9 (pos), b .8, c .8 (pos), d .1: pairs (a,b) 1, (a,d) 1, (c,b) 1/2, (c,d) 1 -> 3.5 / 4
    # u2: e .5 (pos), f .5 (judged negative, score 0), g .2 unjudged: listed -> (1/2 + 1) / 2; judged -> 1/2
    # u3: only positives -> NaN
    pred = pd.DataFrame({"user_id": ["u1"] * 4 + ["u2"] * 3 + ["u3"],
                         "item_id": list("abcdefgh"), "score": [.9, .8, .8, .1, .5, .5, .2, .3]})
    truth = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3"], "item_id": list("acefh"),
                          "score": [1.0, 1.0, 1.0, 0.0, 1.0]})
    split = rk.Split(pred, truth)
    listed = rk.AUC(relevant_threshold=1).perform(split)
    np.testing.assert_allclose(listed.users["AUC"].to_numpy(), [3.5 / 4, 0.75, np.nan], rtol=1e-12)
    assert listed.system.iloc[0, 0] == pytest.approx((3.5 / 4 + 0.75) / 2, rel=1e-12)
    judged = rk.AUC(relevant_threshold=1, negatives="judged").perform(split)
    np.testing.assert_allclose(judged.users["AUC"].to_numpy()[:2], [np.nan, 0.5], rtol=1e-12)
    # GAUC: u1 has 2 positives, u2 1 -> (2 * 3.5/4 + 1 * 0.75) / 3; u3 left out with a warning
    with pytest.warns(rk.UndefinedAUCWarning, match=r"GAUC: 1 of 3 user\(s\) have no positive or no negative"):
        gauc = rk.GAUC(relevant_threshold=1).perform(split)
    assert gauc.system.iloc[0, 0] == pytest.approx((2 * 3.5 / 4 + 0.75) / 3, rel=1e-12)
    # list order instead of score ties: c below b -> (1 + 1 + 0 + 1) / 4; e above f -> 1
    order = rk.AUC(relevant_threshold=1, ties="list_order").perform(split)
    np.testing.assert_allclose(order.users["AUC"].to_numpy()[:2], [0.75, 1.0], rtol=1e-12)
    # LAUC@2, u1: a (2 negatives below) within k, c at 3 out: 2 / (min(2, 2) * 2)
    lauc = rk.LAUC(2, relevant_threshold=1).perform(split)
    assert lauc.users.loc["u1", "LAUC@2"] == pytest.approx(0.5, rel=1e-12)
    # Elliot's +1: (N + 1 - above) / (N + 1) = 3 / 3 for a
    elliot = rk.LAUC(2, relevant_threshold=1, extra_negative=True, ties="list_order").perform(split)
    assert elliot.users.loc["u1", "LAUC@2"] == pytest.approx(3 / 3 / 2, rel=1e-12)


# ---------------------------------------------------------------- scikit-learn per user
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "tied"])
@pytest.mark.parametrize("negatives", ["listed", "judged"])
@pytest.mark.parametrize("k", [None, 5])
def test_auc_equals_roc_auc_score_per_user(ties, negatives, k):
    pred, truth = _random(3 + ties, ties=ties)
    metric = rk.AUC(k, relevant_threshold=3, negatives=negatives)
    got = metric.perform(rk.Split(pred, truth)).users[str(metric)]
    expected = {}
    for user, (scores, positive, judged) in _user_rows(pred, truth, 3, k).items():
        negative = ~positive if negatives == "listed" else judged & ~positive
        keep = positive | negative
        if positive.any() and negative.any():
            expected[user] = sklearn_metrics.roc_auc_score(positive[keep], scores[keep])
        else:
            expected[user] = np.nan
    np.testing.assert_allclose(got.loc[list(expected)].to_numpy(), list(expected.values()), rtol=1e-12)
    assert np.isfinite(got).sum() >= 10  # the comparison covers many defined users


def test_multi_cutoff_equals_single_cutoffs():
    pred, truth = _random(8, ties=True)
    split = rk.Split(pred, truth)
    for cls in (rk.AUC, rk.GAUC, rk.LAUC):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankevalWarning)
            many = cls(k=[2, 5], relevant_threshold=3).perform(split)
            for k in (2, 5):
                one = cls(k, relevant_threshold=3).perform(split)
                col = f"{cls.stem}@{k}"
                pd.testing.assert_frame_equal(many.users[[col]], one.users)
                assert many.system[col].iloc[0] == one.system[col].iloc[0]


# ---------------------------------------------------------------- plain loop under hypothesis
@st.composite
def _frames(draw):
    n_users = draw(st.integers(1, 5))
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        n = draw(st.integers(1, 7))
        scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        grades = draw(st.lists(st.sampled_from([None, 0.0, 1.0, 2.0]), min_size=n, max_size=n))
        pred_rows += [(u, f"i{j}", float(s)) for j, s in enumerate(scores)]
        truth_rows += [(u, f"i{j}", g) for j, g in enumerate(grades) if g is not None]
        truth_rows.append((u, "unlisted", 2.0))
    return (pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]))


@pytest.mark.filterwarnings("ignore::rankeval.exceptions.RankevalWarning")
@settings(max_examples=150, deadline=None)
@given(frames=_frames(), negatives=st.sampled_from(["listed", "judged"]), k=st.sampled_from([None, 1, 3]),
       extra=st.booleans())
def test_auc_gauc_lauc_match_a_plain_loop(frames, negatives, k, extra):
    pred, truth = frames
    split = rk.Split(pred, truth)
    auc = rk.AUC(k, relevant_threshold=1, negatives=negatives, extra_negative=extra).perform(split).users
    rows = _user_rows(pred, truth, 1, k)
    for user, (scores, positive, judged) in rows.items():
        negative = ~positive if negatives == "listed" else judged & ~positive
        if extra:  # one more negative, below every item
            scores, positive = np.append(scores, -np.inf), np.append(positive, False)
            negative = np.append(negative, True)
        assert auc.loc[user].iloc[0] == pytest.approx(_loop_auc(scores, positive, negative), rel=1e-12, nan_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.UndefinedAUCWarning)
        gauc = rk.GAUC(k, relevant_threshold=1, negatives=negatives, extra_negative=extra).perform(split)
    weights = {u: r[1].sum() for u, r in rows.items()}
    values = auc.iloc[:, 0]
    defined = [u for u in rows if np.isfinite(values.loc[u])]
    expected = (sum(weights[u] * values.loc[u] for u in defined) / sum(weights[u] for u in defined)
                if defined else np.nan)
    assert gauc.system.iloc[0, 0] == pytest.approx(expected, rel=1e-12, nan_ok=True)
    lk = 3 if k is None else k
    lauc = rk.LAUC(lk, relevant_threshold=1, negatives=negatives, extra_negative=extra).perform(split).users
    whole = _user_rows(pred, truth, 1)
    for user, (scores, positive, judged) in whole.items():
        negative = ~positive if negatives == "listed" else judged & ~positive
        n_neg = negative.sum() + extra
        m = min(lk, int((truth[truth.user_id == user].score >= 1).sum()))
        credit = 0.0
        for j in np.flatnonzero(positive[:lk]):
            credit += (scores[j] > scores[negative]).sum() + 0.5 * (scores[j] == scores[negative]).sum() + extra
        expected = credit / (m * n_neg) if m and n_neg else np.nan
        assert lauc.loc[user].iloc[0] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def test_a_rank_column_that_disagrees_with_the_scores_is_read_by_score():
    pred = pd.DataFrame({"user_id": 1, "item_id": list("abcd"), "score": [0.1, 0.9, 0.5, 0.5], "rank": [1, 2, 3, 4]})
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "c"], "score": [1.0, 1.0]})
    got = rk.AUC(relevant_threshold=1).perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == pytest.approx(sklearn_metrics.roc_auc_score([1, 0, 1, 0], [0.1, 0.9, 0.5, 0.5]), rel=1e-12)


# ---------------------------------------------------------------- RecBole and Elliot, re-derived
def _recbole_gauc(pred, truth):
    """recbole/evaluator/collector.py eval_batch_collect ("rec.meanrank"): average descending ranks of
    the positives among the scored items (_average_rank: ties share the mean rank); metrics.py
    GAUC.metric_info: pair_num = (n + 1) * P - P (P + 1) / 2 - pos_rank_sum, AUC_u = pair_num / (N P),
    users without a positive or a negative removed, result = sum(AUC_u P) / sum(P)."""
    num, den = 0.0, 0.0
    for user, g in pred.groupby("user_id"):
        positives = set(truth.loc[truth.user_id == user, "item_id"])
        pos = g["item_id"].isin(positives).to_numpy()
        ranks = rankdata(-g["score"].to_numpy(), method="average")
        n, p = len(g), int(pos.sum())
        if p == 0 or n - p == 0:
            continue
        pair_num = (n + 1) * p - p * (p + 1) / 2 - ranks[pos].sum()
        num += pair_num / ((n - p) * p) * p
        den += p
    return num / den


def _elliot(pred, truth, cutoff=None):
    """elliot/evaluation/metrics/accuracy/AUC: auc.py __user_auc, gauc.py __user_gauc, lauc.py
    __user_auc_at_k with neg_num = num_items - train_size - len(rel) + 1; here the lists hold every
    non-training item, so num_items - train_size is the list length."""
    terms, gauc, lauc = [], {}, {}
    for user, g in pred.groupby("user_id"):
        g = g.sort_values("score", ascending=False, kind="stable")
        rel = set(truth.loc[truth.user_id == user, "item_id"])
        neg_num = len(g) - len(rel) + 1
        ranks = [r for r, i in enumerate(g["item_id"]) if i in rel]
        user_terms = [(neg_num - r_r + p_r) / neg_num for p_r, r_r in enumerate(ranks)]
        terms += user_terms
        gauc[user] = sum(user_terms) / len(rel)
        if cutoff is not None:
            cut = [r for r, i in enumerate(g["item_id"].iloc[:cutoff]) if i in rel]
            lauc[user] = sum((neg_num - r_r + p_r) / neg_num for p_r, r_r in enumerate(cut)) / min(cutoff, len(rel))
    return float(np.mean(terms)), gauc, lauc


def _full_rankings(seed: int):
    """Every user scores all 30 items (as RecBole's and Elliot's full-sort evaluation), a few positives each."""
    rng = np.random.default_rng(seed)
    pred = pd.DataFrame([(u, f"i{i}", float(rng.integers(0, 12))) for u in range(40) for i in range(30)],
                        columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame([(u, f"i{i}", 1.0) for u in range(40) for i in rng.choice(30, rng.integers(1, 6),
                                                                                    replace=False)],
                         columns=["user_id", "item_id", "score"])
    return pred, truth


def test_gauc_equals_recboles_formula_on_full_rankings():
    pred, truth = _full_rankings(11)
    got = rk.GAUC().with_convention("recbole").perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == pytest.approx(_recbole_gauc(pred, truth), rel=1e-12)


def test_elliot_auc_gauc_lauc():
    pred, truth = _full_rankings(12)
    pred["score"] += np.arange(len(pred)) * 1e-6  # Elliot reads positions: no ties
    split = rk.Split(pred, truth)
    auc, gauc, lauc = _elliot(pred, truth, cutoff=10)
    elliot = {"extra_negative": True, "ties": "list_order", "relevant_threshold": 1}
    assert rk.GAUC(**elliot).perform(split).system.iloc[0, 0] == pytest.approx(auc, rel=1e-12)
    got = rk.LAUC(30, **elliot).perform(split).users["LAUC@30"]
    np.testing.assert_allclose(got.loc[list(gauc)].to_numpy(), list(gauc.values()), rtol=1e-12)
    got = rk.LAUC(10, **elliot).perform(split).users["LAUC@10"]
    np.testing.assert_allclose(got.loc[list(lauc)].to_numpy(), list(lauc.values()), rtol=1e-12)


# ---------------------------------------------------------------- LogLoss
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_logloss_equals_sklearn(average):
    pred, truth = _random(5, probabilities=True)
    metric = rk.LogLoss(average=average)
    res = metric.perform(rk.Split(pred, truth))
    merged = pred.merge(truth, on=["user_id", "item_id"], suffixes=("", "_truth"))
    per_user = {u: sklearn_metrics.log_loss(g["score_truth"], g["score"], labels=[0, 1])
                for u, g in merged.groupby("user_id")}
    users = res.users[str(metric)]
    np.testing.assert_allclose(users.loc[list(per_user)].to_numpy(), list(per_user.values()), rtol=1e-12)
    expected = (np.mean(list(per_user.values())) if average == "macro"
                else sklearn_metrics.log_loss(merged["score_truth"], merged["score"]))
    assert res.system.iloc[0, 0] == pytest.approx(expected, rel=1e-12)


def test_logloss_labels_from_a_threshold_and_clipping():
    pred = pd.DataFrame({"user_id": 1, "item_id": list("ab"), "score": [1.0, 0.25]})
    truth = pd.DataFrame({"user_id": 1, "item_id": list("ab"), "score": [2.0, 5.0]})
    # labels: a 0 (2 < 4), b 1; a's probability 1 clipped to 1 - 1e-15
    got = rk.LogLoss(relevant_threshold=4, eps=1e-15).perform(rk.Split(pred, truth)).system.iloc[0, 0]
    assert got == pytest.approx((-np.log(1 - (1 - 1e-15)) - np.log(0.25)) / 2, rel=1e-12)


@pytest.mark.parametrize("score, match", [
    (1.5, r"LogLoss reads `pred` scores as probabilities, which must be in \[0, 1\]: user 'u2' has score 1\.5"),
    (-0.1, r"user 'u2' has score -0\.1 for item 'c'"),
])
def test_logloss_rejects_scores_outside_0_1(score, match):
    pred = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": list("abc"), "score": [0.2, 0.3, score]})
    truth = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "c"], "score": [1.0, 0.0]})
    with pytest.raises(ValueError, match=match):
        rk.LogLoss().perform(rk.Split(pred, truth))


def test_logloss_rejects_graded_labels_without_a_threshold():
    pred = pd.DataFrame({"user_id": ["u1"], "item_id": ["a"], "score": [0.2]})
    truth = pd.DataFrame({"user_id": ["u1"], "item_id": ["a"], "score": [4.0]})
    with pytest.raises(ValueError, match=r"must be 0 or 1: user 'u1' has 4 .*pass relevant_threshold="):
        rk.LogLoss().perform(rk.Split(pred, truth))


def test_ms_recommenders_auc_and_logloss():
    evaluation = require("recommenders.evaluation.python_evaluation")
    pred, truth = _random(6, probabilities=True)
    truth = truth.rename(columns={"score": "rating", "user_id": "userID", "item_id": "itemID"})
    pred = pred.rename(columns={"score": "prediction", "user_id": "userID", "item_id": "itemID"})
    split_pred = rk.Split(pred.rename(columns={"prediction": "rating"}), truth, user_col="userID",
                          item_col="itemID", score_col="rating")
    got = rk.LogLoss(average="micro").with_convention("ms_recommenders").perform(split_pred).system.iloc[0, 0]
    assert got == pytest.approx(evaluation.logloss(truth, pred), rel=1e-12)
    # its auc pools every user's pairs: per user, on one user's rows, it is AUC(negatives="judged")
    merged = pred.merge(truth, on=["userID", "itemID"])
    both = merged.groupby("userID")["rating"].nunique()
    one = both.index[both == 2][0]
    t1, p1 = truth[truth.userID == one], pred[pred.userID == one]
    res = rk.AUC(relevant_threshold=1, negatives="judged").perform(split_pred).users.loc[one, "AUC"]
    assert res == pytest.approx(evaluation.auc(t1, p1), rel=1e-12)


# ---------------------------------------------------------------- names and Spark
@pytest.mark.parametrize("text", ["AUC", "AUC@10", "GAUC", "GAUC@5", "LAUC@10", "LogLoss", "LogLoss-micro",
                                  "AUC@1,5"])
def test_names_round_trip(text):
    metric = rk.parse_metric(text)
    assert str(metric) == text
    assert rk.parse_metric(str(metric)) == metric
    assert eval(repr(metric), {**vars(rk), "inf": float("inf")}) == metric


def test_higher_is_better():
    assert rk.AUC.higher_is_better and rk.GAUC.higher_is_better and rk.LAUC.higher_is_better
    assert not rk.LogLoss.higher_is_better


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "tied"])
def test_spark_equals_pandas(spark, ties):
    pred, truth = _random(9, n_users=150, ties=ties)
    probs, labels = _random(10, n_users=150, probabilities=True)
    metrics = [rk.AUC(relevant_threshold=3), rk.AUC(5, relevant_threshold=3, negatives="judged"),
               rk.GAUC(relevant_threshold=3), rk.LAUC([3, 10], relevant_threshold=3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        pd_sys, pd_users = rk.EvalModel([pred], [truth], metrics, ties="item_id").fit()
        ll_sys, ll_users = rk.EvalModel([probs], [labels], [rk.LogLoss(), rk.LogLoss(average="micro")],
                                        ties="item_id").fit()
        for b in (1, 4):
            sp_sys, sp_users = rk.EvalModel([spark.createDataFrame(pred)], [spark.createDataFrame(truth)], metrics,
                                            n_buckets=b).fit()
            pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
            got = sp_users.toPandas().set_index(["split", "user_id"]).sort_index()
            np.testing.assert_array_equal(got.to_numpy(), pd_users.sort_index().to_numpy())
            sp_sys, _ = rk.EvalModel([spark.createDataFrame(probs)], [spark.createDataFrame(labels)],
                                     [rk.LogLoss(), rk.LogLoss(average="micro")], n_buckets=b).fit()
            pd.testing.assert_frame_equal(sp_sys, ll_sys, check_exact=True)


def test_gauc_warning_reaches_the_caller_on_spark(spark):
    # a user's AUC is undefined when the list holds no positive or no negative: with threshold 5,
    # lists without a 5 (or with only 5s among the judged and unjudged items) are left out
    pred, truth = _random(11, n_users=150)
    metric = rk.GAUC(relevant_threshold=5)
    with pytest.warns(rk.UndefinedAUCWarning) as caught:
        pd_sys, pd_users = rk.EvalModel([pred], [truth], [metric], ties="item_id").fit()
    left_out = int(pd_users["GAUC"].isna().sum())
    assert 0 < left_out < 150
    expected = f"GAUC: {left_out} of 150 user(s) have no positive or no negative item and are left out"
    assert [str(w.message) for w in caught if w.category is rk.UndefinedAUCWarning] == \
        [expected + " of the system value"]
    for b in (1, 4):
        with pytest.warns(rk.UndefinedAUCWarning) as caught:
            sp_sys, _ = rk.EvalModel([spark.createDataFrame(pred)], [spark.createDataFrame(truth)], [metric],
                                     n_buckets=b).fit()
        assert [str(w.message) for w in caught if w.category is rk.UndefinedAUCWarning] == \
            [expected + " of the system value"]
        pd.testing.assert_frame_equal(sp_sys, pd_sys, check_exact=True)
