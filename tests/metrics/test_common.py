"""Properties every metric must have, checked over a registry of all built-in metrics
(scikit-learn's test_common idea): names, repr, NaN policy, row-order and id-type
invariance, cutoffs, result frames."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval import Split

ALL_METRICS = [
    rk.NDCG(), rk.NDCGAtK(3), rk.NDCG(gains="exponential", ideal="ranked"), rk.NDCGAtK(2, judged_only=True),
    rk.NDCG(gains="binary", ideal="min_k_ones"), rk.DCG(), rk.DCGAtK(2, discount="jarvelin"),
    rk.MAP(), rk.MAPAtK(2), rk.MRR(), rk.MRRAtK(2), rk.PrecisionAtK(2), rk.RecallAtK(2), rk.HitRateAtK(2),
    rk.Correlation(), rk.Correlation("spearman"), rk.Correlation("kendall", top_n=3),
]
IDS = [repr(m) for m in ALL_METRICS]


@pytest.fixture
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    rows, truth_rows = [], []
    for u in range(12):
        items = rng.choice(30, size=rng.integers(1, 9), replace=False)
        scores = rng.permutation(len(items)).astype(float)  # distinct within a user
        rows += [(f"u{u}", f"i{i}", s) for i, s in zip(items, scores)]
        rated = rng.choice(30, size=rng.integers(1, 8), replace=False)
        truth_rows += [(f"u{u}", f"i{i}", float(rng.integers(0, 5))) for i in rated]
    return (pd.DataFrame(rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]))


def _values(metric, pred, truth, **kw) -> pd.Series:
    return metric.perform(Split(pred, truth, **kw)).users[str(metric)]


@pytest.mark.parametrize("metric", ALL_METRICS, ids=IDS)
def test_name_repr_and_result_frames(metric, frames):
    name = str(metric)
    assert re.fullmatch(r"(NDCG|DCG|MAP|MRR|P|R|HR|pearson|spearman|kendall)(@\d+)?", name)
    assert ("@" in name) == (metric.k is not None)
    assert repr(metric).startswith(type(metric).__name__ + "(")
    res = metric.perform(Split(*frames))
    assert list(res.users.columns) == [name] and list(res.system.columns) == [name]
    assert res.users.index.name == "user_id" and res.users[name].dtype == np.float64
    assert list(res.system.index) == ["sys"]
    values = res.users[name].to_numpy()
    expected = np.nanmean(values) if not np.isnan(values).all() else np.nan
    np.testing.assert_allclose(res.system.loc["sys", name], expected, rtol=1e-12)


@pytest.mark.parametrize("metric", ALL_METRICS, ids=IDS)
def test_name_override(metric, frames):
    renamed = type(metric)(**{**metric._params(), "name": "custom"})
    assert str(renamed) == "custom"
    res = renamed.perform(Split(*frames))
    pd.testing.assert_series_equal(res.users["custom"], metric.perform(Split(*frames)).users[str(metric)],
                                   check_names=False)


@pytest.mark.parametrize("metric", ALL_METRICS, ids=IDS)
def test_row_order_of_the_input_does_not_matter(metric, frames):
    pred, truth = frames
    base = _values(metric, pred, truth)
    shuffled = _values(metric, pred.sample(frac=1.0, random_state=3), truth.sample(frac=1.0, random_state=4))
    pd.testing.assert_series_equal(shuffled.sort_index(), base.sort_index(), rtol=1e-12)


@pytest.mark.parametrize("metric", ALL_METRICS, ids=IDS)
def test_id_dtype_does_not_matter(metric, frames):
    pred, truth = frames
    base = _values(metric, pred, truth).sort_index()
    as_int = {c: (lambda s: s.str[1:].astype(int)) for c in ("user_id", "item_id")}
    ints = _values(metric, pred.assign(**{c: f(pred[c]) for c, f in as_int.items()}),
                   truth.assign(**{c: f(truth[c]) for c, f in as_int.items()}))
    np.testing.assert_allclose(ints.loc[base.index.str[1:].astype(int)].to_numpy(), base.to_numpy(), rtol=1e-12)
    cats = _values(metric, pred.astype({"user_id": "category", "item_id": "category"}),
                   truth.astype({"user_id": "category"}))
    np.testing.assert_allclose(cats.loc[base.index].to_numpy(), base.to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("metric", ALL_METRICS, ids=IDS)
def test_rank_column_gives_the_score_order(metric, frames):
    pred, truth = frames
    ranked = pred.assign(rank=pred.groupby("user_id")["score"].rank(ascending=False, method="first").astype(int))
    if "kendall" in str(metric) or "pearson" in str(metric) or "spearman" in str(metric):
        ranked = ranked.drop(columns="score")  # correlations then use -rank: a different predictor
        if "pearson" in str(metric):
            return
    pd.testing.assert_series_equal(_values(metric, ranked.sample(frac=1.0, random_state=5), truth).sort_index(),
                                   _values(metric, pred, truth).sort_index(), rtol=1e-12)


CUTOFF_PAIRS = [
    (rk.NDCGAtK(1000), rk.NDCG()), (rk.DCGAtK(1000), rk.DCG()), (rk.MAPAtK(1000), rk.MAP()),
    (rk.MRRAtK(1000), rk.MRR()), (rk.Correlation(top_n=1000), rk.Correlation()),
    (rk.NDCGAtK(1000, ideal="ranked", judged_only=True), rk.NDCG(ideal="ranked", judged_only=True)),
    (rk.PrecisionAtK(1000, denominator="listed"), None), (rk.RecallAtK(1000), None), (rk.HitRateAtK(1000), None),
]


@pytest.mark.parametrize("at_k, whole", CUTOFF_PAIRS, ids=[repr(p[0]) for p in CUTOFF_PAIRS])
def test_k_beyond_the_longest_list_is_no_cutoff(at_k, whole, frames):
    pred, truth = frames
    got = _values(at_k, pred, truth)
    if whole is not None:
        np.testing.assert_allclose(got.to_numpy(), _values(whole, pred, truth).to_numpy(), rtol=1e-12)
    else:
        # the whole-list versions by hand, with pandas alone: relevant = a truth score at least the
        # user's mean truth score; hits over the list / listed, / m_u, > 0
        relevant = truth[truth["score"] >= truth.groupby("user_id")["score"].transform("mean")]
        m = relevant.groupby("user_id").size()
        listed = pred.groupby("user_id").size()
        hits = pred.merge(relevant[["user_id", "item_id"]], on=["user_id", "item_id"]).groupby("user_id").size()
        users = got.index
        hits, listed = hits.reindex(users, fill_value=0), listed.reindex(users)
        m = m.reindex(users, fill_value=0)
        expected = {"P": hits / listed, "R": hits / m, "HR": (hits > 0).astype(float)}[at_k.stem]
        expected = expected.where(m > 0, np.nan)
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(dtype=float), rtol=1e-12)


@pytest.mark.parametrize("metric", [m for m in ALL_METRICS if m.needs_relevant], ids=lambda m: repr(m))
def test_users_without_relevant_items_are_nan_or_zero(metric, frames):
    pred, truth = frames
    res = metric.perform(Split(pred, truth.assign(score=1.0)), )
    assert not res.users.isna().any().any()  # every item relevant under the user-mean threshold
    params = {**metric._params(), "relevant_threshold": 99.0}
    assert type(metric)(**params).perform(Split(pred, truth)).users.isna().all().all()
    zero = type(metric)(**{**params, "no_relevant": "zero"}).perform(Split(pred, truth))
    assert (zero.users == 0).all().all() and zero.system.loc["sys"].item() == 0.0


def test_metrics_are_value_objects():
    assert rk.NDCGAtK(10) == rk.NDCGAtK(10)
    assert rk.NDCGAtK(10) != rk.NDCGAtK(5)
    assert rk.MAP() != rk.MAP(relevant_threshold=3)
    assert len({rk.MRRAtK(3), rk.MRRAtK(3)}) == 1
    assert repr(rk.NDCGAtK(10, gains="exponential")) == (
        "NDCGAtK(k=10, gains='exponential', discount_log=np.log2, ideal='truth', judged_only=False, "
        "relevant_threshold=None, discount='log2', negative_grades='keep', no_relevant='nan', name=None)")
    assert str(rk.Correlation("kendall", top_n=10)) == "kendall@10"
    assert str(rk.PrecisionAtK(10)) == "P@10" and str(rk.RecallAtK(5)) == "R@5" and str(rk.HitRateAtK(1)) == "HR@1"


def test_custom_metric_from_design(frames):
    class JudgedAtK(rk.RankingMetric):
        stem = "Judged"

        def per_user(self, lists):
            top = lists.position <= self.k
            judged = ~np.isnan(lists.truth_score)
            return lists.segment_sum(top & judged) / self.k

    pred, truth = frames
    metric = JudgedAtK(k=3)
    assert str(metric) == "Judged@3"
    got = metric.perform(Split(pred, truth)).users["Judged@3"]
    merged = pred.merge(truth, on=["user_id", "item_id"], how="left", suffixes=("", "_t"))
    merged["pos"] = merged.groupby("user_id")["score"].rank(ascending=False, method="first")
    merged = merged[merged["user_id"].isin(truth["user_id"])]
    expected = merged.assign(j=(merged["pos"] <= 3) & merged["score_t"].notna()).groupby("user_id")["j"].sum() / 3
    pd.testing.assert_series_equal(got.sort_index(), expected.sort_index(), check_names=False)
    with pytest.raises(ValueError, match="`k` must be an integer >= 1"):
        JudgedAtK(k=0)


def test_per_user_of_the_wrong_shape_is_a_type_error(frames):
    class Broken(rk.RankingMetric):
        stem = "Broken"

        def per_user(self, lists):
            return np.zeros(lists.n_users + 1)

    with pytest.raises(TypeError, match=r"Broken.per_user returned shape \(13,\), expected \(12,\)"):
        Broken().perform(Split(*frames))
