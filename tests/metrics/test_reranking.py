"""RBO and LIP against a reference system's lists: LensKit 2026.4.0's own functions, a plain loop, by hand.

LensKit 2026.4.0 needs Python >= 3.12.5, and no such interpreter can be installed here (none
among this machine's Debian packages; PyPI's fetch their builds from elsewhere): its ``rank_biased_overlap`` and ``least_item_promoted`` run
in this interpreter from the source files of its wheel, unchanged, with only the imports
that cannot be met stubbed (``tests/metrics/_lenskit2026.py`` names each stub and what it
stands for). A missing wheel skips those tests, or fails them under ``RANKEVAL_REQUIRE_PEERS``.
"""

from __future__ import annotations

import io
import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from rankeval.metrics.beyond import _reranking as reranking
from tests._require import unavailable
from tests.metrics import _lenskit2026

P_DEFAULT = 0.85


# --------------------------------------------------------------------------- data and the plain loop
def random_lists(seed: int, n_users: int = 40, n_items: int = 30, int_ids: bool = False, tied: bool = False
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(pred, truth, reference): lists of 1-14 distinct items with distinct scores (or scores
    drawn from {1, 2, 3} when ``tied``; rows shuffled); reference lists of 1-18 items ranked 1.. (rows shuffled), for most users and
    for a few users without a list; one truth row per listed user."""
    rng = np.random.default_rng(seed)
    items = np.arange(n_items) if int_ids else np.array([f"i{j}" for j in range(n_items)], dtype=object)
    pred, ref = [], []
    for u in range(n_users):
        n = int(rng.integers(1, 15))
        chosen = items[rng.permutation(n_items)[:n]]
        scores = rng.integers(1, 4, n) if tied else rng.permutation(n) + 0.5
        pred += [(u, i, float(s)) for i, s in zip(chosen, scores)]
        if rng.random() < 0.85:
            # the reference shares some items with the list, in another order
            pool = np.concatenate([chosen, items[rng.permutation(n_items)[:6]]])
            pool = pd.unique(pool[rng.permutation(len(pool))])
            m = int(rng.integers(1, min(len(pool), 18) + 1))
            ref += [(u, i, r + 1) for r, i in enumerate(pool[:m])]
    for u in range(n_users, n_users + 3):  # reference users without a list
        ref += [(u, i, r + 1) for r, i in enumerate(items[:4])]
    pred_df = pd.DataFrame(pred, columns=["user_id", "item_id", "score"]).sample(frac=1.0, random_state=seed)
    ref_df = pd.DataFrame(ref, columns=["user_id", "item_id", "rank"]).sample(frac=1.0, random_state=seed + 1)
    truth = pred_df.groupby("user_id", as_index=False).first()[["user_id", "item_id"]].assign(score=1.0)
    return pred_df.reset_index(drop=True), truth, ref_df.reset_index(drop=True)


def ordered(pred: pd.DataFrame, ref: pd.DataFrame) -> tuple[dict, dict]:
    """Each user's list (score descending) and reference list (rank ascending), as Python lists."""
    lists = {u: g.sort_values("score", ascending=False, kind="stable")["item_id"].tolist()
             for u, g in pred.groupby("user_id")}
    refs = {u: g.sort_values("rank", kind="stable")["item_id"].tolist() for u, g in ref.groupby("user_id")}
    return lists, refs


def rbo_loop(listed: list, reference: list, k: int, p: float) -> float:
    """sum_d p^(d-1) |L[:d] & R[:d]| / d  /  sum_d p^(d-1), d = 1..k, one depth at a time."""
    total = weights = 0.0
    for d in range(1, k + 1):
        w = p ** (d - 1)
        total += w * len(set(listed[:d]) & set(reference[:d])) / d
        weights += w
    return total / weights


def lip_loop(listed: list, reference: list, k: int) -> float:
    """max(0, deepest 1-based reference position of the list's first k items - 1 - k)."""
    deepest = max((reference.index(i) + 1 for i in listed[:k] if i in reference), default=0)
    return float(max(0, deepest - 1 - k))


def oracle(pred: pd.DataFrame, ref: pd.DataFrame, metric: str, k: int, p: float = P_DEFAULT) -> pd.Series:
    lists, refs = ordered(pred, ref)
    out = {}
    for u, listed in lists.items():
        if u not in refs:
            out[u] = np.nan
        else:
            out[u] = rbo_loop(listed, refs[u], k, p) if metric == "RBO" else lip_loop(listed, refs[u], k)
    return pd.Series(out, dtype=float)


def users(metric: rk.RankingMetric, pred: pd.DataFrame, truth: pd.DataFrame) -> pd.Series:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return metric.perform(rk.Split(pred, truth)).users[str(metric)]


def same(got: pd.Series, expected: pd.Series) -> None:
    np.testing.assert_allclose(got.reindex(expected.index).to_numpy(), expected.to_numpy(), rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------- by hand
def test_rbo_by_hand():
    # L = a b c, R = b a d, p = 1/2, k = 3: A_1 = 0, A_2 = 2/2, A_3 = 2/3
    # RBO = (1 * 0 + 1/2 * 1 + 1/4 * 2/3) / (1 + 1/2 + 1/4) = (2/3) / (7/4) = 8/21
    pred = pd.DataFrame({"user_id": [1, 1, 1], "item_id": list("abc"), "score": [3.0, 2.0, 1.0]})
    ref = pd.DataFrame({"user_id": [1, 1, 1], "item_id": list("bad"), "rank": [1, 2, 3]})
    truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    got = users(rk.RBO(3, weight=rk.GeometricWeight(0.5), reference=ref), pred, truth)
    assert got.loc[1] == pytest.approx(8 / 21, rel=1e-15)
    # equal lists shorter than k still divide by d: L = R = a b, k = 3, uniform weights
    # (1 + 1 + 2/3) / 3 = 8/9
    two = pred.iloc[:2]
    same_ref = ref.assign(item_id=list("abz"))
    got = users(rk.RBO(3, weight=rk.UniformWeight(), reference=same_ref), two, truth)
    assert got.loc[1] == pytest.approx(8 / 9, rel=1e-15)
    # equal lists of k items or more: 1
    assert users(rk.RBO(2, reference=same_ref), two, truth).loc[1] == pytest.approx(1.0, rel=1e-15)


def test_lip_by_hand():
    # R = a..l (12 items); k = 2; top 2 of L = k, a: k is at position 11 -> 11 - 1 - 2 = 8 (LensKit: max(2, 10) - 2)
    ref = pd.DataFrame({"user_id": [1] * 12 + [2] * 3, "item_id": list("abcdefghijkl") + list("abc"),
                        "rank": list(range(1, 13)) + [1, 2, 3]})
    pred = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": ["k", "a", "l", "z", "y", "a"],
                         "rank": [1, 2, 3, 1, 2, 1]})
    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a", "z", "a"], "score": [1.0, 1.0, 1.0]})
    got = users(rk.LIP(2, reference=ref), pred, truth)
    # user 2: nothing of its list in the reference -> 0; user 3: no reference list -> NaN
    assert got.loc[1] == 8.0 and got.loc[2] == 0.0 and np.isnan(got.loc[3])
    # from position k + 1 = 3 the item scores 0, as LensKit's code: L = c at k = 2
    got = users(rk.LIP(2, reference=ref), pred.assign(item_id=["c", "a", "l", "z", "y", "a"]), truth)
    assert got.loc[1] == 0.0
    got = users(rk.LIP(1, reference=ref), pred.assign(item_id=["d", "a", "l", "z", "y", "a"]), truth)
    assert got.loc[1] == 2.0  # position 4 at k = 1: 4 - 1 - 1


# --------------------------------------------------------------------------- the plain loop
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), k=st.sampled_from([1, 2, 3, 5, 10, 20]),
       p=st.sampled_from([P_DEFAULT, 0.5, 0.95]), int_ids=st.booleans(), dense=st.sampled_from([32, 8, 0]))
def test_rbo_and_lip_match_the_plain_loop(seed, k, p, int_ids, dense):
    # dense: the longest reference list held as a table (longer ones: sorted keys)
    pred, truth, ref = random_lists(seed, int_ids=int_ids)
    with mock.patch.object(reranking, "DENSE_DEPTH", dense):
        rbo = users(rk.RBO(k, weight=rk.GeometricWeight(p), reference=ref), pred, truth)
        lip = users(rk.LIP(k, reference=ref), pred, truth)
    same(rbo, oracle(pred, ref, "RBO", k, p))
    same(lip, oracle(pred, ref, "LIP", k))


def test_several_cutoffs_in_one_pass():
    pred, truth, ref = random_lists(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        for cls in (rk.RBO, rk.LIP):
            got = rk.EvalModel(pred, truth, [cls(k=[2, 5], reference=ref)]).fit()[1]
            for k in (2, 5):
                same(got[f"{cls.stem}@{k}"].droplevel(0), oracle(pred, ref, cls.stem, k))


# --------------------------------------------------------------------------- LensKit 2026.4.0's own code
@pytest.fixture(scope="module")
def lenskit():
    path = _lenskit2026.wheel()
    if path is None:
        unavailable("lenskit", "LensKit 2026.4.0's wheel could not be fetched with pip")
    return _lenskit2026.load(path)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k, p", [(10, None), (3, 0.5), (20, 0.95), (1, None)])
def test_equal_to_lenskit_2026(lenskit, seed, k, p):
    pred, truth, ref = random_lists(seed, int_ids=seed == 2)
    lists, refs = ordered(pred, ref)
    weight = None if p is None else lenskit.GeometricRankWeight(p)
    rbo = {u: lenskit.rank_biased_overlap(lenskit.ItemList(refs[u]), lenskit.ItemList(listed), weight=weight, n=k)
           for u, listed in lists.items() if u in refs}
    lip = {u: lenskit.least_item_promoted(lenskit.ItemList(refs[u]), lenskit.ItemList(listed), n=k)
           for u, listed in lists.items() if u in refs}
    ours = rk.RBO(k, reference=ref) if p is None else rk.RBO(k, weight=rk.GeometricWeight(p), reference=ref)
    same(users(ours, pred, truth), pd.Series(rbo, dtype=float))
    got = users(rk.LIP(k, reference=ref), pred, truth)
    assert got.reindex(list(lip)).tolist() == [float(v) for v in lip.values()]
    assert got.drop(list(lip)).isna().all()  # no reference list: NaN (LensKit's LIP of an empty reference)


def test_lenskit_defaults_are_ours(lenskit):
    import inspect

    rbo = inspect.signature(lenskit.rank_biased_overlap).parameters
    lip = inspect.signature(lenskit.least_item_promoted).parameters
    assert rbo["n"].default == rk.RBO().k == lip["n"].default == rk.LIP().k == 10
    assert lenskit.GeometricRankWeight().patience == rk.RBO().weight.patience == P_DEFAULT


# --------------------------------------------------------------------------- compare, names, errors
def test_compare_reads_the_baseline_systems_lists_per_split():
    splits = [random_lists(s) for s in (4, 5)]
    truths = [t for _, t, _ in splits]
    base = [p for p, _, _ in splits]
    rerank = [random_lists(s + 10)[0] for s in (4, 5)]
    metrics = [rk.RBO(5), rk.LIP(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = rk.compare({"base": base, "rerank": rerank}, truths, metrics, baseline="base", n_resamples=100)
        named = rk.compare({"rerank": rerank, "base": base}, truths,
                           [rk.RBO(5, reference="base"), rk.LIP(3, reference="base")], n_resamples=100)
    units = res.units.set_index(["split", "user_id"])
    other = named.units.set_index(["split", "user_id"])
    for label, b, r in zip(["fold1", "fold2"], base, rerank):
        ref = b.rename(columns={"score": "rank"}).assign(rank=lambda f: -f["rank"])
        for metric, k in (("RBO", 5), ("LIP", 3)):
            col = f"{metric}@{k}"
            same(units.loc[label, (col, "rerank")], oracle(r, ref, metric, k))
            same(units.loc[label, (col, "base")], oracle(b, ref, metric, k))
            pd.testing.assert_series_equal(other.loc[label, (col, "rerank")], units.loc[label, (col, "rerank")])
    assert set(res.table.index.get_level_values("metric")) == {"RBO@5", "LIP@3"}


def ranked(pred: pd.DataFrame, ties: str) -> pd.DataFrame:
    """``pred`` with a ``rank`` column instead of its scores: score descending, ties by item id
    ascending (``"item_id"``) or by its text descending (``"item_id_desc"``)."""
    if ties == "item_id":
        order = pred.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    else:
        keyed = pred.assign(text=pred["item_id"].astype(str))
        order = keyed.sort_values(["user_id", "score", "text"], ascending=[True, False, False])
    return order.assign(rank=order.groupby("user_id").cumcount() + 1)[["user_id", "item_id", "rank"]]


@pytest.mark.parametrize("ties", ["item_id", "item_id_desc"])
def test_compare_orders_the_baseline_lists_with_the_tie_rule_of_the_systems(ties):
    pred, truth, _ = random_lists(9, tied=True)
    other = random_lists(10, tied=True)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = rk.compare({"a": pred, "b": other}, truth, [rk.RBO(5), rk.LIP(3)], baseline="a", n_resamples=100,
                         ties=ties)
    units = res.units.set_index(["split", "user_id"]).loc["fold1"]
    reference = ranked(pred, ties)
    # the baseline against its own lists, ordered as its split orders them: LIP 0, RBO of equal lists
    lengths = pred.groupby("user_id").size()
    assert (units[("LIP@3", "a")] == 0.0).all()
    same(units[("RBO@5", "a")], pd.Series({u: rbo_loop(list(range(n)), list(range(n)), 5, P_DEFAULT)
                                           for u, n in lengths.items()}))
    other_ranked = ranked(other, ties).rename(columns={"rank": "score"}).assign(score=lambda f: -f["score"])
    same(units[("RBO@5", "b")], oracle(other_ranked, reference, "RBO", 5))
    same(units[("LIP@3", "b")], oracle(other_ranked, reference, "LIP", 3))


def test_compare_without_a_reference_system_says_how_to_name_one():
    pred, truth, _ = random_lists(1)
    with pytest.raises(ValueError, match=r"RBO@10 compares each system's lists with the lists of a reference system: "
                                         r"name that system with `baseline` \(or RBO\(reference='name'\) in Python\)"):
        rk.compare({"a": pred, "b": pred}, truth, [rk.RBO()], n_resamples=100)
    with pytest.raises(ValueError, match=r"LIP@10 compares each list with a reference system's list, and none was "
                                         r"given: pass reference= a DataFrame"):
        users(rk.LIP(), pred, truth)
    with pytest.raises(ValueError, match=r"`reference` 'pop' names a system of compare\(\)"):
        users(rk.RBO(reference="pop"), pred, truth)


def test_names_round_trip_and_directions():
    assert str(rk.RBO()) == "RBO@10" and str(rk.LIP(5)) == "LIP@5"
    assert rk.parse_metric("RBO@10") == rk.RBO() and rk.parse_metric("RBO") == rk.RBO(10)
    assert rk.parse_metric("LIP") == rk.LIP() and rk.parse_metric("lip@3") == rk.LIP(3)
    assert {"RBO", "RBO@k", "LIP", "LIP@k"} <= set(rk.metric_names())
    assert rk.RBO.higher_is_better and not rk.LIP.higher_is_better


def test_bad_input_is_named():
    pred, truth, ref = random_lists(2)
    with pytest.raises(ValueError, match=r"`k` of RBO must be a depth >= 1 \(LensKit's n, default 10\), got None"):
        rk.RBO(None)
    with pytest.raises(TypeError, match=r"`reference` must be a DataFrame"):
        rk.LIP(reference=3)
    with pytest.raises(ValueError, match=r"`weight` must be a rank weighting"):
        rk.RBO(weight="geometric")
    twice = pd.concat([ref, ref.iloc[[0]]])
    user, item = ref.iloc[0]["user_id"], ref.iloc[0]["item_id"]
    for dense in (32, 0):  # a table of the lists, or their sorted keys: the same message
        with mock.patch.object(reranking, "DENSE_DEPTH", dense), pytest.raises(
                ValueError, match=rf"`reference` lists an item twice for 1 \(user, item\) pair\(s\), e\.g\. "
                                  rf"item '{item}' of user {user}: a list holds each item once"):
            users(rk.RBO(reference=twice), pred, truth)
    thrice = pd.concat([ref, ref.iloc[[0, 0, 1]]])  # two pairs: one of them three times
    for dense in (32, 0):
        with mock.patch.object(reranking, "DENSE_DEPTH", dense), pytest.raises(
                ValueError, match=r"`reference` lists an item twice for 2 \(user, item\) pair\(s\)"):
            users(rk.LIP(reference=thrice), pred, truth)
    with pytest.raises(ValueError, match=r"`reference` is missing column"):
        rk.RBO(reference=ref.drop(columns="item_id"))


def test_reference_rows_in_any_order_and_unknown_items_give_the_same_bits():
    pred, truth, ref = random_lists(6)
    extra = pd.DataFrame({"user_id": [0, 0], "item_id": ["zz1", "zz2"], "rank": [100, 101]})
    a = users(rk.RBO(20, reference=ref), pred, truth)
    b = users(rk.RBO(20, reference=pd.concat([ref, extra]).iloc[::-1]), pred, truth)
    pd.testing.assert_series_equal(a, b, check_exact=True)


# --------------------------------------------------------------------------- Spark
def test_spark_gives_the_same_bits(spark):
    # tied scores: Spark breaks them by item id, as Split(ties="item_id") does, in the lists and the reference
    pred, truth, ref = random_lists(7, n_users=60, tied=True)
    base = random_lists(8, n_users=60, tied=True)[0]
    metrics = [rk.RBO(5, reference=ref), rk.LIP(3, reference=ref)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        local = rk.EvalModel(pred, truth, metrics, ties="item_id").fit()
        for buckets in (1, 4):
            sys_result, got = rk.EvalModel(spark.createDataFrame(pred), spark.createDataFrame(truth), metrics,
                                           n_buckets=buckets).fit()
            pd.testing.assert_frame_equal(sys_result, local[0], check_exact=True)
            got = got.toPandas().set_index(["split", "user_id"]).sort_index()
            np.testing.assert_array_equal(got.to_numpy(), local[1].sort_index().to_numpy())
        compared = [rk.RBO(5), rk.LIP(3)]
        local_cmp = rk.compare({"a": pred, "b": base}, truth, compared, baseline="a", n_resamples=100,
                               ties="item_id")
        spark_cmp = rk.compare({"a": spark.createDataFrame(pred), "b": spark.createDataFrame(base)},
                               spark.createDataFrame(truth), compared, baseline="a", n_resamples=100)
    pd.testing.assert_frame_equal(spark_cmp.table, local_cmp.table, check_exact=True)
    units = local_cmp.units.set_index(["split", "user_id"]).loc["fold1"]
    base_ranked = ranked(base, "item_id").rename(columns={"rank": "score"}).assign(score=lambda f: -f["score"])
    same(units[("RBO@5", "b")], oracle(base_ranked, ranked(pred, "item_id"), "RBO", 5))


# --------------------------------------------------------------------------- command line
def test_cli_compare_takes_the_names_and_reads_the_baseline(tmp_path, monkeypatch, capsys):
    from rankeval.cli import main
    from rankeval.io._files import EXACT_FLOATS

    pred, truth, _ = random_lists(11)
    other = random_lists(12)[0]
    monkeypatch.chdir(tmp_path)
    for name, frame in (("a", pred), ("b", other), ("truth", truth)):
        frame.assign(user_id=frame["user_id"].astype(str)).to_csv(f"{name}.csv", index=False)
    args = ["compare", "--system", "a=a.csv", "--system", "b=b.csv", "--truth", "truth.csv", "--n-resamples", "100",
            "-m", "RBO@5", "-m", "LIP", "--format", "csv"]
    assert main([*args, "--baseline", "a"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), **EXACT_FLOATS).set_index("metric")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = rk.compare({"a": pred.astype({"user_id": str}), "b": other.astype({"user_id": str})},
                         truth.astype({"user_id": str}), [rk.RBO(5), rk.LIP()], baseline="a", n_resamples=100)
    for metric in ("RBO@5", "LIP@10"):
        assert table.loc[metric, "mean_b"] == res.table.loc[(metric, "a", "b"), "mean_b"]
        assert table.loc[metric, "mean_a"] == res.table.loc[(metric, "a", "b"), "mean_a"]
    assert main(args) != 0
    err = capsys.readouterr().err
    assert "RBO@5 compares each system's lists with the lists of a reference system: name that system with " \
           "--baseline (or RBO(reference='name') in Python)" in err
