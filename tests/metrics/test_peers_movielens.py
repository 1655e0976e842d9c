"""The AUC family, LogLoss, fairness, exposure, calibration and serendipity metrics against their
peers on MovieLens-100K, with a popularity and an item-kNN recommender, per user and system.

MovieLens-100K and its genres and user genders come from RecBole 1.2.1's wheel (the fixture of
tests/test_split_movielens.py: fetched once, SHA-256 checked). The split holds out each user's
last 10 ratings (by timestamp, ties by row order); both recommenders rank every item the user
did not rate in train. The references are the peers' own code where it installs
(scikit-learn's ``roc_auc_score`` and ``log_loss``; MS Recommenders' ``python_evaluation``) and
the plain-loop transcriptions of Elliot's, RecBole's and LensKit's code and the definitions
already written in the other tests of this folder (imported, not copied).
"""

from __future__ import annotations

import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import RankevalWarning

from ..test_split_movielens import _wheel, ml100k  # noqa: F401 (ml100k: the fixture)
from . import _side_oracles as oracles
from .test_auc import _elliot, _recbole_gauc, sklearn_metrics
from .test_exposure import _lenskit_exposure_gini
from .test_fairness import (
    elliot_aclt,
    elliot_bias_disparity,
    elliot_reo,
    elliot_rsp,
    elliot_user_mad,
    group_clusters,
    pop_clusters,
)
from .test_item_mad import elliot_item_mad
from .test_serendipity import _ms_user_serendipity

pytestmark = pytest.mark.filterwarnings("ignore::rankeval.exceptions.RankevalWarning")

HELD_OUT = 10  # test ratings per user
TOP = 10       # the lists of the side-data metrics
K = 10
TOL = 1e-12


def _member(name: str) -> bytes:
    wheel = _wheel()
    assert wheel is not None  # the ml100k fixture has fetched it
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(f"recbole/dataset_example/ml-100k/{name}")


def _side_tables() -> tuple[pd.Series, pd.Series]:
    """Each movie's genres (RecBole's ``class`` column) and each user's gender."""
    import io
    items = pd.read_csv(io.BytesIO(_member("ml-100k.item")), sep="\t", quoting=3)
    genres = pd.Series([set(str(c).split(" ")) for c in items["class:token_seq"]],
                       index=items["item_id:token"].astype(np.int64))
    users = pd.read_csv(io.BytesIO(_member("ml-100k.user")), sep="\t")
    gender = pd.Series(users["gender:token"].to_numpy(), index=users["user_id:token"].astype(np.int64))
    return genres, gender


def _rank_all(scores: np.ndarray, seen: np.ndarray, users: np.ndarray, items: np.ndarray) -> pd.DataFrame:
    """Every unseen item of every user, best first (ties by item id), with its score and rank."""
    rows = []
    for u in range(len(users)):
        cand = np.flatnonzero(~seen[u])
        order = cand[np.lexsort((items[cand], -scores[u, cand]))]
        rows.append(pd.DataFrame({"user_id": users[u], "item_id": items[order], "score": scores[u, order],
                                  "rank": np.arange(1, len(order) + 1)}))
    return pd.concat(rows, ignore_index=True)


@pytest.fixture(scope="module")
def experiment(ml100k):  # noqa: F811 (the imported fixture)
    frame = ml100k.sort_values(["user_id", "timestamp"], kind="stable")
    last = frame.groupby("user_id").cumcount(ascending=False) < HELD_OUT
    train, truth = frame[~last][["user_id", "item_id", "score"]], frame[last][["user_id", "item_id", "score"]]
    users, items = np.sort(frame["user_id"].unique()), np.sort(frame["item_id"].unique())
    r = np.zeros((len(users), len(items)))
    r[np.searchsorted(users, train["user_id"]), np.searchsorted(items, train["item_id"])] = 1.0
    seen = r > 0
    popularity = np.broadcast_to(r.sum(axis=0), r.shape)
    co = r.T @ r
    norms = np.sqrt(np.diag(co))
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.nan_to_num(co / np.outer(norms, norms))
    np.fill_diagonal(sim, 0.0)
    knn = r @ sim
    genres, gender = _side_tables()
    systems = {name: _rank_all(s, seen, users, items) for name, s in (("pop", popularity), ("knn", knn))}
    return {"train": train.reset_index(drop=True), "truth": truth.reset_index(drop=True), "systems": systems,
            "genres": genres, "gender": gender, "items": items}


def _users(metric, split) -> pd.Series:
    return metric.perform(split).users[str(metric)]


def _system(metric, split) -> float:
    return float(metric.perform(split).system.iloc[0, 0])


def _close(got: pd.Series, expected: dict | pd.Series) -> None:
    expected = pd.Series(expected, dtype=float)
    np.testing.assert_allclose(got.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=TOL, atol=0)


@pytest.mark.parametrize("system", ["pop", "knn"])
def test_auc_family_and_logloss(experiment, system):
    # a user's AUC depends on that user's ranking only: every third user keeps the peers' loops short
    full, truth = experiment["systems"][system], experiment["truth"]
    full, truth = full[full["user_id"] % 3 == 0], truth[truth["user_id"] % 3 == 0]
    split = rk.Split(full, truth)
    # AUC per user (positives: rating >= 4; negatives: every other ranked item) = roc_auc_score
    got = _users(rk.AUC(relevant_threshold=4), split)
    expected = {}
    merged = full.merge(truth, on=["user_id", "item_id"], how="left", suffixes=("", "_truth"))
    for user, g in merged.groupby("user_id", sort=False):
        positive = (g["score_truth"] >= 4).to_numpy()
        if positive.any() and not positive.all():
            expected[user] = sklearn_metrics.roc_auc_score(positive, g["score"].to_numpy())
    assert len(expected) > 250
    _close(got, expected)
    assert _system(rk.AUC(relevant_threshold=4), split) == pytest.approx(np.mean(list(expected.values())), rel=TOL)
    # GAUC: RecBole's formula (every test item a positive)
    assert _system(rk.GAUC().with_convention("recbole"), split) == pytest.approx(_recbole_gauc(full, truth), rel=TOL)
    # Elliot's AUC, GAUC and LAUC read positions: the list order
    by_rank = full.assign(score=-full["rank"].astype(float))
    positions = rk.Split(by_rank, truth)
    auc, gauc, lauc = _elliot(by_rank, truth, cutoff=K)
    elliot = {"extra_negative": True, "ties": "list_order", "relevant_threshold": 1}
    assert _system(rk.GAUC(**elliot), positions) == pytest.approx(auc, rel=TOL)
    _close(_users(rk.LAUC(len(experiment["items"]), **elliot), positions), gauc)
    _close(_users(rk.LAUC(K, **elliot), positions), lauc)
    # LogLoss: the scores scaled into [0, 1] (per user), labels rating >= 4
    top = full.groupby("user_id")["score"].transform("max")
    probs = full.assign(score=np.where(top > 0, full["score"] / top.where(top > 0, 1.0), 0.0))
    labels = truth.assign(score=(truth["score"] >= 4).astype(float))
    res = rk.LogLoss().perform(rk.Split(probs, labels))
    joined = probs.merge(labels, on=["user_id", "item_id"], suffixes=("", "_truth"))
    per_user = {u: sklearn_metrics.log_loss(g["score_truth"], g["score"], labels=[0, 1])
                for u, g in joined.groupby("user_id")}
    _close(res.users["LogLoss"], per_user)
    assert res.system.iloc[0, 0] == pytest.approx(np.mean(list(per_user.values())), rel=TOL)
    # MS Recommenders' own logloss (pooled) and auc (pooled; one user's rows: that user's AUC)
    ms = _ms()
    ms_truth = labels.rename(columns={"score": "rating", "user_id": "userID", "item_id": "itemID"})
    ms_pred = probs.drop(columns="rank").rename(columns={"score": "prediction", "user_id": "userID",
                                                         "item_id": "itemID"})
    pooled = rk.LogLoss(average="micro").with_convention("ms_recommenders")
    ms_split = rk.Split(ms_pred.rename(columns={"prediction": "rating"}), ms_truth, user_col="userID",
                        item_col="itemID", score_col="rating")
    assert _system(pooled, ms_split) == pytest.approx(ms.logloss(ms_truth, ms_pred), rel=TOL)
    judged = _users(rk.AUC(relevant_threshold=1, negatives="judged"), ms_split)
    for user in judged.dropna().index[:25]:
        one = ms.auc(ms_truth[ms_truth.userID == user], ms_pred[ms_pred.userID == user])
        assert judged[user] == pytest.approx(one, rel=TOL)


def _ms():
    from tests._require import require
    return require("recommenders.evaluation.python_evaluation")


def _top(experiment, system: str, n: int = TOP) -> pd.DataFrame:
    full = experiment["systems"][system]
    return full[full["rank"] <= n].reset_index(drop=True)


@pytest.mark.parametrize("system", ["pop", "knn"])
def test_fairness_and_item_mad(experiment, system):
    pred, truth, train = _top(experiment, system), experiment["truth"], experiment["train"]
    # three providers: drama, else comedy, else the rest (every group has relevant test items)
    groups = pd.Series({i: "Drama" if "Drama" in g else "Comedy" if "Comedy" in g else "other"
                        for i, g in experiment["genres"].items()})
    gender = experiment["gender"]
    user_groups = {g: list(gender.index[gender == g]) for g in sorted(gender.unique())}
    split = rk.Split(pred, truth, train=train, item_groups=groups)
    aclt = _users(rk.ACLT(K), split)
    expected = elliot_aclt(pred, truth, train, K, 0.8)
    assert aclt.to_dict() == {u: float(v) for u, v in expected.items()}
    clusters = group_clusters(groups)
    pops = pop_clusters(train, 0.8)
    checks = [(rk.RSP(K), elliot_rsp(pred, truth, train, K, clusters)),
              (rk.REO(K, relevant_threshold=4), elliot_reo(pred, truth, train, K, clusters, 4.0)),
              (rk.PopRSP(K), elliot_rsp(pred, truth, train, K, pops)),
              (rk.PopREO(K, relevant_threshold=4), elliot_reo(pred, truth, train, K, pops, 4.0)),
              (rk.UserMAD(user_groups, rk.NDCGAtK(K, gains="exponential")),
               elliot_user_mad(pred, truth, K, {g: set(ids) for g, ids in user_groups.items()}, 1.0)),
              (rk.ItemMAD(K, relevant_threshold=1, gains="exponential"),
               elliot_item_mad(pred, truth, K, dict(groups), 1.0, "elliot_ranking")),
              (rk.ItemMAD(K, relevant_threshold=4, gains="score"),
               elliot_item_mad(pred, truth, K, dict(groups), 4.0, "elliot_rating")),
              (rk.ItemMAD(K, relevant_threshold=4),
               elliot_item_mad(pred, truth, K, dict(groups), 4.0, "binary"))]
    for metric, value in checks:
        assert np.isfinite(value) and _system(metric, split) == pytest.approx(value, rel=TOL), str(metric)
    by_user = {u: g for g, ids in user_groups.items() for u in ids}
    bias = elliot_bias_disparity(pred, truth, train, K, dict(groups), by_user)
    bd = rk.BiasDisparity(["Drama", "Comedy", "other"], K, user_groups=user_groups)
    res = bd.perform(split).system.iloc[0]
    for metric in bd.expand():
        group, cat = metric._cells()[0]
        assert res[str(metric)] == pytest.approx(bias["BD"][(group, cat)], rel=TOL)


@pytest.mark.parametrize("system", ["pop", "knn"])
def test_beyond_accuracy(experiment, system):
    pred, truth, train = _top(experiment, system), experiment["truth"], experiment["train"]
    other = _top(experiment, "knn" if system == "pop" else "pop")
    sets = pd.DataFrame({"genres": experiment["genres"]})
    split = rk.Split(pred, truth, train=train, item_features=sets, catalog=list(experiment["items"]))
    # ExposureGini: LensKit's formula over the catalog
    gini = rk.ExposureGini(K).with_convention("lenskit")
    assert _system(gini, split) == pytest.approx(
        _lenskit_exposure_gini(pred, 0.85, K, list(experiment["items"])), rel=TOL)
    # Serendipity: MS Recommenders' code, per user and system
    ms = _ms_user_serendipity(pred, truth, train, K)
    got = _users(rk.Serendipity(K), split)
    _close(got, ms)
    assert _system(rk.Serendipity(K), split) == pytest.approx(ms.mean(), rel=TOL)
    # Miscalibration (Steck): a user's value reads that user's history and list only, so every
    # third user keeps the loop short
    mine = [frame[frame["user_id"] % 3 == 0] for frame in (pred, truth, train)]
    loop = oracles.miscalibration(*mine, sets, K)
    calibration = rk.Miscalibration(K).perform(rk.Split(mine[0], mine[1], train=mine[2], item_features=sets))
    _close(calibration.users[str(rk.Miscalibration(K))], loop.dropna())
    assert calibration.system.iloc[0, 0] == pytest.approx(loop.mean(), rel=TOL)
    # Surprisal and Unexpectedness (RePlay): the definitions as loops
    for metric, loop in ((rk.Surprisal(K), oracles.surprisal(pred, truth, train, K)),
                         (rk.Unexpectedness(K, baseline=other), oracles.unexpectedness(pred, truth, other, K))):
        values = _users(metric, split)
        _close(values, loop.dropna())
        assert _system(metric, split) == pytest.approx(loop.mean(), rel=TOL), str(metric)


def test_both_recommenders_differ(experiment):
    # the two systems are not the same ranking in disguise (else each check would run once)
    pop, knn = _top(experiment, "pop"), _top(experiment, "knn")
    assert (pop["item_id"].to_numpy() != knn["item_id"].to_numpy()).mean() > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        ndcg = [_system(rk.NDCGAtK(K), rk.Split(p, experiment["truth"])) for p in (pop, knn)]
    assert 0 < ndcg[0] < ndcg[1]  # item-kNN beats popularity on MovieLens-100K
