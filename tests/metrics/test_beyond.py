"""Beyond-accuracy metrics: hand-computed values, RecBole's and Elliot's formulas, the oracle, validation.

ClayRS's own outputs are checked in ``test_beyond_clayrs.py``. RecBole and Elliot are not
installed (heavy): their functions are transcribed below from their source, cited per
function, and run on the same data as rankeval.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval as rk
from rankeval.exceptions import RankevalWarning
from rankeval.groups import popularity_groups
from tests import _oracles as oracles
from tests.strategies import frames

# the toy lists here recommend items the users have in train on purpose (popularity and novelty
# need such items); that is the ProtocolWarning's subject, tested in tests/test_protocol_checks.py
pytestmark = pytest.mark.filterwarnings("ignore::rankeval.exceptions.ProtocolWarning")

TOL = 1e-12
SQ = 1 / math.sqrt(2)


# --------------------------------------------------------------------------- toy data
#   train: u1 a b | u2 a c | u3 a | u4 d      -> pop a=3, b=c=d=1, e=0; 4 training users
#   truth: u1 c=5 e=1 (mean 3: c relevant) | u2 b=4 | u3 c=3
#   lists: u1 a b c | u2 a d | u3 e a b       -> catalog (default) a b c d e
TRAIN = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u4"], "item_id": list("abacad")})
TRUTH = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u3"], "item_id": list("cebc"), "score": [5.0, 1.0, 4.0, 3.0]})
PRED = pd.DataFrame({"user_id": ["u1"] * 3 + ["u2"] * 2 + ["u3"] * 3, "item_id": list("abcadeab"),
                     "score": [3.0, 2.0, 1.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
SETS = pd.DataFrame({"genres": [{"x"}, {"x", "y"}, {"y"}, {"z"}, set()]}, index=list("abcde"))
VECTORS = pd.DataFrame({"f1": [1.0, 0.0, 1.0, 0.0, 2.0], "f2": [0.0, 1.0, 1.0, 0.0, 0.0]}, index=list("abcde"))
L2 = math.log2
EPC_U1 = 0.5 * 0.75 / (1 + 1 / L2(3) + 0.5)  # c relevant at position 3, pop 1 of 4


def toy(**side):
    return rk.Split(PRED, TRUTH, **({"train": TRAIN} | side))


def users(metric, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        res = metric.perform(split)
    return res.users[str(metric)].to_dict(), float(res.system.iloc[0, 0])


@pytest.mark.parametrize("metric, expected", [
    pytest.param(rk.AveragePopularity(), {"u1": 5 / 3, "u2": 2.0, "u3": 4 / 3}, id="ARP"),
    pytest.param(rk.AveragePopularity(1), {"u1": 3.0, "u2": 3.0, "u3": 0.0}, id="ARP@1"),
    pytest.param(rk.AveragePopularity(10), {"u1": 5 / 3, "u2": 2.0, "u3": 4 / 3}, id="ARP@10-short-lists"),
    pytest.param(rk.TailShare(head=0.4), {"u1": 1 / 3, "u2": 1 / 2, "u3": 1 / 3}, id="TailShare-head-a-b-tie-by-id"),
    pytest.param(rk.TailShare(2, head=0.4), {"u1": 0.0, "u2": 1 / 2, "u3": 1 / 2}, id="TailShare@2"),
    pytest.param(rk.TailShare(head=0.5, head_by="interactions"), {"u1": 2 / 3, "u2": 1 / 2, "u3": 2 / 3},
                 id="TailShare-interactions-head-a"),
    pytest.param(rk.Novelty(), {"u1": (L2(4 / 3) + 4) / 3, "u2": (L2(4 / 3) + 2) / 2, "u3": (L2(4 / 3) + 4) / 3},
                 id="Novelty-unseen-e-counts-log2-4"),
    pytest.param(rk.Novelty(definition="epc"), {"u1": EPC_U1, "u2": 0.0, "u3": 0.0}, id="EPC"),
    pytest.param(rk.Novelty(2, definition="epc"), {"u1": 0.0, "u2": 0.0, "u3": 0.0}, id="EPC@2"),
])
def test_per_user_reference_values(metric, expected):
    got, system = users(metric, toy())
    assert got == pytest.approx(expected, abs=TOL, rel=0)
    assert system == pytest.approx(np.mean(list(expected.values())), abs=TOL)


@pytest.mark.parametrize("features, expected", [
    pytest.param(SETS, {"u1": 2 / 3, "u2": 1.0, "u3": 0.5}, id="jaccard-empty-set-left-out"),
    pytest.param(VECTORS, {"u1": (1 + 2 * (1 - SQ)) / 3, "u2": np.nan, "u3": 2 / 3}, id="cosine-zero-vector-left-out"),
])
def test_intra_list_diversity_reference_values(features, expected):
    split = rk.Split(PRED, TRUTH, item_features=features)
    with pytest.warns(RankevalWarning, match=r"ILD: 1 of 8 listed items have no features .*\['[de]'\]"):
        got = rk.IntraListDiversity().perform(split).users["ILD"].to_dict()
    assert got == pytest.approx(expected, abs=TOL, rel=0, nan_ok=True)


@pytest.mark.parametrize("metric, expected", [
    pytest.param(rk.CatalogCoverage(), 1.0, id="Coverage"),
    pytest.param(rk.CatalogCoverage(1), 2 / 5, id="Coverage@1"),
    pytest.param(rk.GiniIndex(), 10 / 40, id="Gini-counts-1-1-1-2-3"),
    pytest.param(rk.GiniIndex(1), 1 / 6, id="Gini@1-a-twice-e-once"),
    pytest.param(rk.ShannonEntropy(), 3 / 8 * L2(8 / 3) + 1 / 2 + 9 / 8, id="Entropy-bits"),
    pytest.param(rk.ShannonEntropy(base=math.e, per_item=True),
                 (3 / 8 * math.log(8 / 3) + 1 / 4 * math.log(4) + 3 / 8 * math.log(8)) / 5, id="Entropy-recbole"),
    pytest.param(rk.DeltaGap({"g": ["u1", "u2"]}), -1 / 12, id="DeltaGap"),
])
def test_system_level_reference_values(metric, expected):
    res = metric.perform(toy())
    assert float(res.system.iloc[0, 0]) == pytest.approx(expected, abs=TOL, rel=0)


def test_gini_over_the_catalog_counts_unrecommended_items_as_zero():
    # counts 0 (f), 1, 1, 1, 2, 3 over 6 catalog items: (-3 - 1 + 1 + 6 + 15) / (6 * 8)
    split = rk.Split(PRED, TRUTH, catalog=list("abcdef"))
    assert float(rk.GiniIndex(items="catalog").perform(split).system.iloc[0, 0]) == 18 / 48
    assert float(rk.CatalogCoverage().perform(split).system.iloc[0, 0]) == 5 / 6


def test_system_level_metrics_have_no_per_user_values_in_evalmodel():
    model = rk.EvalModel(PRED, TRUTH, [rk.CatalogCoverage(), rk.GiniIndex(), rk.AveragePopularity()], train=TRAIN)
    sys_result, users_result = model.fit()
    assert list(users_result.columns) == ["ARP"]
    assert list(sys_result.columns) == ["Coverage", "Gini", "ARP"]
    assert sys_result.attrs["n_users"]["fold1"] == {"Coverage": 3, "Gini": 3, "ARP": 3}


def test_several_cutoffs_in_one_metric():
    split = toy()
    res = rk.CatalogCoverage(k=[1, 3]).perform(split)
    assert res.system.to_dict("records") == [{"Coverage@1": 0.4, "Coverage@3": 1.0}]
    res = rk.AveragePopularity(k=[1, 2]).perform(split)
    assert res.users.loc["u2"].tolist() == [3.0, 2.0]


def test_names_parse_back():
    for metric in [rk.CatalogCoverage(10), rk.GiniIndex(), rk.ShannonEntropy(5), rk.AveragePopularity(10),
                   rk.TailShare(10), rk.Novelty(10), rk.Novelty(10, definition="epc"), rk.IntraListDiversity(10)]:
        assert str(rk.parse_metric(str(metric))) == str(metric)
        assert rk.parse_metric(str(metric)) == metric
    assert str(rk.Novelty(definition="epc")) == "EPC"
    assert [str(m) for m in rk.DeltaGap({"a": 0.5, "b": 0.5}, k=10).expand()] == ["DeltaGap@10[a]",
                                                                                   "DeltaGap@10[b]"]


def test_higher_is_better_and_system_is_user_mean():
    assert not rk.GiniIndex.higher_is_better and not rk.AveragePopularity.higher_is_better
    assert rk.TailShare.higher_is_better and rk.Novelty.higher_is_better
    assert not rk.CatalogCoverage().system_is_user_mean and rk.Novelty().system_is_user_mean


# --------------------------------------------------------------------------- RecBole's formulas
# Transcribed from RecBole (github RUCAIBox/RecBole, recbole/evaluator/metrics.py); rec.items
# is the (n_users, K) matrix of internal item ids, data.count_items the training counts.
def recbole_item_coverage(item_matrix, num_items):  # ItemCoverage.get_coverage
    unique_count = np.unique(item_matrix).shape[0]
    return unique_count / num_items


def recbole_average_popularity(item_matrix, item_count):  # AveragePopularity.get_pop + metric_info
    value = np.zeros_like(item_matrix, dtype=float)
    for i in range(item_matrix.shape[0]):
        row = item_matrix[i, :]
        for j in range(row.shape[0]):
            value[i][j] = item_count.get(row[j], 0)
    return value.cumsum(axis=1) / np.arange(1, value.shape[1] + 1)


def recbole_shannon_entropy(item_matrix):  # ShannonEntropy.get_entropy
    item_count = dict(Counter(item_matrix.flatten()))
    total_num = item_matrix.shape[0] * item_matrix.shape[1]
    result = 0.0
    for cnt in item_count.values():
        p = cnt / total_num
        result += -p * np.log(p)
    return result / len(item_count)


def recbole_gini(item_matrix, num_items):  # GiniIndex.get_gini
    item_count = dict(Counter(item_matrix.flatten()))
    sorted_count = np.array(sorted(item_count.values()))
    num_recommended_items = sorted_count.shape[0]
    total_num = item_matrix.shape[0] * item_matrix.shape[1]
    idx = np.arange(num_items - num_recommended_items + 1, num_items + 1)
    gini_index = np.sum((2 * idx - num_items - 1) * sorted_count) / total_num
    gini_index /= num_items
    return gini_index


def recbole_tail_percentage(item_matrix, count_items, tail):  # TailPercentage.get_tail + metric_info
    if tail > 1:
        tail_items = [item for item, cnt in count_items.items() if cnt <= tail]
    else:
        count_items = sorted(count_items.items(), key=lambda kv: (kv[1], kv[0]))
        cut = max(int(len(count_items) * tail), 1)
        count_items = count_items[:cut]
        tail_items = [item for item, cnt in count_items]
    value = np.zeros_like(item_matrix, dtype=float)
    for i in range(item_matrix.shape[0]):
        row = item_matrix[i, :]
        for j in range(row.shape[0]):
            value[i][j] = 1 if row[j] in tail_items else 0
    return value.cumsum(axis=1) / np.arange(1, value.shape[1] + 1)


def _peer_data(seed, n_users=30, n_items=20, length=8):
    """Integer item ids 1..n_items (RecBole's internal ids, 0 is padding), every list `length` long,
    distinct training popularities (a permutation of 1..n_items) so no tie straddles any cut."""
    rng = np.random.default_rng(seed)
    pops = rng.permutation(np.arange(1, n_items + 1))
    train = pd.DataFrame([(u, i + 1) for i, p in enumerate(pops) for u in rng.choice(n_users, p, replace=False)],
                         columns=["user_id", "item_id"])
    matrix = np.stack([rng.choice(np.arange(1, n_items + 1), length, replace=False) for _ in range(n_users)])
    pred = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), length), "item_id": matrix.ravel(),
                         "score": np.tile(np.arange(length, 0, -1), n_users).astype(float)})
    truth_items = [rng.choice(np.arange(1, n_items + 1), 4, replace=False) for _ in range(n_users)]
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 4), "item_id": np.concatenate(truth_items),
                          "score": rng.integers(1, 6, 4 * n_users).astype(float)})
    counts = dict(Counter(train["item_id"].tolist()))
    return train, pred, truth, matrix, counts


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 5, 8])
def test_recbole_formulas(seed, k):
    train, pred, truth, matrix, counts = _peer_data(seed)
    n_items = 20
    catalog = list(range(1, n_items + 1))
    split = rk.Split(pred, truth, train=train, catalog=catalog)

    def system(metric):
        return float(metric.perform(split).system.iloc[0, 0])

    top = matrix[:, :k]
    assert system(rk.CatalogCoverage(k)) == pytest.approx(recbole_item_coverage(top, n_items), abs=TOL)
    assert system(rk.GiniIndex(k, items="catalog")) == pytest.approx(recbole_gini(top, n_items), abs=TOL)
    assert system(rk.GiniIndex(k).with_convention("recbole")) == pytest.approx(recbole_gini(top, n_items), abs=TOL)
    assert system(rk.ShannonEntropy(k, base=math.e, per_item=True)) == pytest.approx(
        recbole_shannon_entropy(top), abs=TOL)
    arp = rk.AveragePopularity(k).perform(split).users["ARP@%d" % k].to_numpy()
    np.testing.assert_allclose(arp, recbole_average_popularity(matrix, counts)[:, k - 1], atol=TOL, rtol=0)
    for tail in (0.25, 0.5, 0.1):  # tail * n_items whole: RecBole's int() and rankeval's round() agree
        share = rk.TailShare(k, head=1 - tail).perform(split).users.iloc[:, 0].to_numpy()
        np.testing.assert_allclose(share, recbole_tail_percentage(matrix, counts, tail)[:, k - 1], atol=TOL, rtol=0)


# --------------------------------------------------------------------------- Elliot's formulas
# Transcribed from Elliot (github sisinflab/elliot): elliot/evaluation/popularity_utils/popularity.py
# (Popularity: distinct users per item, short head covering pop_ratio of the transactions),
# metrics/bias/arp/arp.py, metrics/bias/aplt/aplt.py, metrics/novelty/EPC/epc.py,
# metrics/coverage/item_coverage/item_coverage.py, metrics/diversity/gini_index/gini_index.py.
def elliot_popularity(train):
    return {i: len(g) for i, g in train.groupby("item_id")["user_id"].agg(set).items()}


def elliot_long_tail(pop_items, transactions, pop_ratio=0.8):
    sorted_pop = dict(sorted(pop_items.items(), key=lambda kv: kv[1], reverse=True))
    short_head, limit = [], transactions * pop_ratio
    for i, pop in sorted_pop.items():
        short_head.append(i)
        limit -= pop
        if limit <= 0:
            break
    return [i for i in sorted_pop if i not in short_head]


def elliot_arp(recs, cutoff, pop_items):
    return {u: sum(pop_items[i] for i in r[:cutoff]) / len(r[:cutoff]) for u, r in recs.items()}


def elliot_aplt(recs, cutoff, long_tail):
    return {u: len(set(r[:cutoff]) & set(long_tail)) / len(r[:cutoff]) for u, r in recs.items()}


def elliot_epc(recs, cutoff, relevant, train):
    item_count = Counter(i for items in train.groupby("user_id")["item_id"].agg(set) for i in items)
    num_users = train["user_id"].nunique()
    novelty = {i: 1 - (v / num_users) for i, v in item_count.items()}
    out = {}
    for u, r in recs.items():
        if not len(relevant.get(u, [])):
            continue
        nov = norm = 0.0
        for rank, i in enumerate(r[:cutoff]):
            disc = 1 / math.log(rank + 2) * math.log(2)
            nov += (1 if i in relevant[u] else 0) * disc * novelty.get(i, 1)
            norm += disc
        out[u] = nov / norm if norm > 0 else nov
    return out


def elliot_gini(recs, cutoff, num_items):
    item_count, free_norm = {}, 0
    for r in recs.values():
        free_norm += len(r[:cutoff])
        for i in r[:cutoff]:
            item_count[i] = item_count.get(i, 0) + 1
    n_rec = len(item_count)
    gini = sum((2 * (j + (num_items - n_rec) + 1) - num_items - 1) * (cs / free_norm)
               for j, cs in enumerate(sorted(item_count.values())))
    return 1 - gini / (num_items - 1)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("k", [3, 8])
def test_elliot_formulas(seed, k):
    train, pred, truth, matrix, _ = _peer_data(seed)
    n_items = 20
    split = rk.Split(pred, truth, train=train, catalog=sorted(train["item_id"].unique()))
    recs = {u: list(matrix[u]) for u in range(len(matrix))}
    pop = elliot_popularity(train)

    def per_user(metric):
        return metric.perform(split).users.iloc[:, 0].to_dict()

    assert per_user(rk.AveragePopularity(k)) == pytest.approx(elliot_arp(recs, k, pop), abs=TOL, rel=0)
    long_tail = elliot_long_tail(pop, len(train))
    assert per_user(rk.TailShare(k, head=0.8, head_by="interactions")) == pytest.approx(
        elliot_aplt(recs, k, long_tail), abs=TOL, rel=0)
    relevant = {u: set(g.loc[g.score >= 3, "item_id"]) for u, g in truth.groupby("user_id")}
    ours = per_user(rk.Novelty(k, definition="epc", relevant_threshold=3))
    theirs = elliot_epc(recs, k, relevant, train)
    assert {u: v for u, v in ours.items() if not np.isnan(v)} == pytest.approx(theirs, abs=TOL, rel=0)
    assert set(u for u, v in ours.items() if np.isnan(v)) == set(recs) - set(theirs)
    gini = float(rk.GiniIndex(k, items="catalog").perform(split).system.iloc[0, 0])
    assert 1 - gini * n_items / (n_items - 1) == pytest.approx(elliot_gini(recs, k, n_items), abs=TOL)
    coverage = float(rk.CatalogCoverage(k).perform(split).system.iloc[0, 0])
    assert round(coverage * n_items) == len({i for r in recs.values() for i in r[:k]})


# --------------------------------------------------------------------------- the oracle
@st.composite
def side_frames(draw):
    """(pred, truth, train, catalog or None, item_features): ids of the same kind as pred's."""
    pred, truth = draw(frames())
    listed = list(pd.unique(pd.Series(pred["item_id"].tolist() + truth["item_id"].tolist(), dtype=object)))
    is_int = isinstance(listed[0], (int, np.integer))
    extra = [10_000 + j for j in range(4)] if is_int else [f"z{j}" for j in range(4)]
    pool = listed + extra
    people = list(pd.unique(pd.Series(pred["user_id"].tolist() + truth["user_id"].tolist(), dtype=object)))
    people += [90_000 + j for j in range(3)] if isinstance(people[0], (int, np.integer)) else ["zz0", "zz1", "zz2"]
    rows = []
    for u in draw(st.lists(st.sampled_from(people), min_size=1, max_size=8, unique=True)):
        items = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))  # repeats: counted once
        rows += [(u, i) for i in items]
    train = pd.DataFrame(rows, columns=["user_id", "item_id"])
    if is_int:
        train = train.astype({"item_id": "int64"})
    if isinstance(people[0], (int, np.integer)):
        train = train.astype({"user_id": "int64"})
    train = train.iloc[draw(st.permutations(range(len(train))))].reset_index(drop=True)
    catalog = draw(st.one_of(st.none(), st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool))))
    with_features = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
    if draw(st.booleans()):
        values = draw(st.lists(st.lists(st.integers(-2, 3), min_size=3, max_size=3),
                               min_size=len(with_features), max_size=len(with_features)))
        features = pd.DataFrame(values, index=pd.Index(with_features), columns=["f1", "f2", "f3"], dtype=float)
    else:
        values = draw(st.lists(st.sets(st.sampled_from("abcde"), max_size=4), min_size=len(with_features),
                               max_size=len(with_features)))
        features = pd.DataFrame({"tags": values}, index=pd.Index(with_features))
    if is_int:
        features.index = features.index.astype("int64")
    return pred, truth, train, catalog, features


def _split(pred, truth, train, catalog, features):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.Split(pred, truth, train=train, catalog=catalog, item_features=features)


def _users(metric, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        col = metric.perform(split).users[str(metric)]
    return col


def _same(fast, slow):
    slow = slow.reindex(fast.index)
    np.testing.assert_allclose(fast.to_numpy(), slow.to_numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)


CUTS = st.sampled_from([None, 1, 3, 20])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=side_frames(), k=CUTS, head=st.sampled_from([0.2, 0.5, 1.0]))
def test_per_user_metrics_match_the_oracle(data, k, head):
    pred, truth, train, catalog, features = data
    split = _split(*data)
    _same(_users(rk.AveragePopularity(k), split), oracles.average_popularity(pred, truth, train, k))
    _same(_users(rk.TailShare(k, head=head), split), oracles.tail_share(pred, truth, train, catalog, k, head))
    _same(_users(rk.TailShare(k, head=head, head_by="interactions"), split),
          oracles.tail_share(pred, truth, train, catalog, k, head, "interactions"))
    _same(_users(rk.Novelty(k), split), oracles.novelty(pred, truth, train, k))
    _same(_users(rk.Novelty(k, definition="epc"), split), oracles.novelty(pred, truth, train, k, "epc"))
    _same(_users(rk.Novelty(k, definition="epc", relevant_threshold=2.0, no_relevant="zero"), split),
          oracles.novelty(pred, truth, train, k, "epc", 2.0, "zero"))
    _same(_users(rk.IntraListDiversity(k), split), oracles.intra_list_diversity(pred, truth, features, k))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=side_frames(), k=CUTS)
def test_system_level_metrics_match_the_oracle(data, k):
    pred, truth, train, catalog, features = data
    split = _split(*data)
    cat = oracles.default_catalog(train, truth) if catalog is None else catalog

    def system(metric):
        return float(metric.perform(split).system.iloc[0, 0])

    assert system(rk.CatalogCoverage(k)) == pytest.approx(oracles.catalog_coverage(pred, truth, cat, k), abs=TOL)
    assert system(rk.GiniIndex(k)) == oracles.gini(pred, truth, k)  # exact: one rounding
    assert system(rk.GiniIndex(k, items="catalog")) == pytest.approx(oracles.gini(pred, truth, k, cat), abs=0,
                                                                      nan_ok=True)
    assert system(rk.ShannonEntropy(k)) == pytest.approx(oracles.shannon_entropy(pred, truth, k), abs=TOL)
    users = oracles.evaluated_users(pred, truth)
    groups = {"first": users[: len(users) // 2], "rest": users[len(users) // 2:]}
    expected = oracles.delta_gap(pred, truth, train, groups, k)
    got = rk.DeltaGap(groups, k=k).perform(split).system.iloc[0].tolist()
    np.testing.assert_allclose(got, [expected["first"], expected["rest"]], rtol=1e-12, atol=TOL, equal_nan=True)


@settings(max_examples=100, deadline=None)
@given(data=side_frames(), pct=st.sampled_from([0.1, 0.2, 0.5, 1.0]))
def test_popularity_groups_match_the_oracle(data, pct):
    train = data[2]
    shares = {"a": 0.2, "b": 0.2, "c": 0.6}
    if train["user_id"].nunique() < 3:
        with pytest.raises(ValueError, match=r"too few for 3 groups"):
            popularity_groups(train, shares, pct)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        ours = popularity_groups(train, shares, pct)
    expected = oracles.popularity_groups(train, shares, pct)
    assert {g: ix.tolist() for g, ix in ours.items()} == expected


@settings(max_examples=60, deadline=None)
@given(data=side_frames(), seed=st.integers(0, 2**16))
def test_row_order_of_side_data_changes_no_bit(data, seed):
    pred, truth, train, catalog, features = data
    rng = np.random.default_rng(seed)
    shuffled = train.iloc[rng.permutation(len(train))]
    feats = features.iloc[rng.permutation(len(features))]
    metrics = [rk.TailShare(3, head=0.5), rk.GiniIndex(items="catalog"), rk.IntraListDiversity(),
               rk.ShannonEntropy(), rk.AveragePopularity(),
               rk.DeltaGap({"a": 0.5, "b": 0.5}) if train["user_id"].nunique() >= 2 else rk.Novelty()]
    for m in metrics:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RankevalWarning)
            a = m.perform(_split(pred, truth, train, catalog, features))
            b = m.perform(_split(pred, truth, shuffled, catalog, feats))
        pd.testing.assert_frame_equal(a.system, b.system, check_exact=True)
        pd.testing.assert_frame_equal(a.users, b.users, check_exact=True)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("metric, argument", [
    (rk.AveragePopularity(10), "train="), (rk.Novelty(), "train="), (rk.TailShare(), "train="),
    (rk.CatalogCoverage(), "catalog="), (rk.GiniIndex(items="catalog"), "catalog="),
    (rk.IntraListDiversity(), "item_features="), (rk.DeltaGap({"a": 1.0}), "train="),
])
def test_a_metric_without_its_side_data_names_the_argument(metric, argument):
    with pytest.raises(ValueError, match=rf"needs side data: pass {argument}"):
        metric.perform(rk.Split(PRED, TRUTH))
    with pytest.raises(ValueError, match=rf"needs side data \(split 'fold1'\): pass {argument}"):
        rk.EvalModel(PRED, TRUTH, [metric])


def test_metrics_without_side_data_need_none():
    split = rk.Split(PRED, TRUTH)
    assert float(rk.GiniIndex().perform(split).system.iloc[0, 0]) == 0.25
    assert float(rk.ShannonEntropy().perform(split).system.iloc[0, 0]) > 0


@pytest.mark.parametrize("side, match", [
    (dict(train=TRAIN.assign(item_id=[None, "b", "a", "c", "a", "d"])),
     r"`train`\['item_id'\] has 1 missing value\(s\) at rows \[0\]"),
    (dict(train=TRAIN.assign(user_id=[["u"], "u1", "u2", "u2", "u3", "u4"])),
     r"`train`\['user_id'\] holds values that cannot be ids \(list\) at rows \[0\]"),
    (dict(train=TRAIN.drop(columns="user_id")), r"`train` is missing column\(s\) \['user_id'\]"),
    (dict(train=TRAIN.iloc[:0]), r"`train` is empty"),
    (dict(train=TRAIN.assign(score=["x"] * 6)), r"`train`\['score'\] must be numeric"),
    (dict(train=TRAIN.assign(item_id=[1, 2, 1, 3, 1, 4])),
     r"`pred`\['item_id'\] holds text \(dtype .*\) but `train`\['item_id'\] holds numbers \(dtype int64"),
    (dict(catalog=[1, 2, 3]), r"`pred`\['item_id'\] holds text .* but `catalog`\['item_id'\] holds numbers"),
    (dict(catalog=["a", None]), r"`catalog`\['item_id'\] has 1 missing value\(s\) at rows \[1\]"),
    (dict(catalog=[]), r"`catalog` is empty"),
    (dict(item_features=VECTORS.set_axis([1, 2, 3, 4, 5])),
     r"`pred`\['item_id'\] holds text .* but `item_features`\['item_id'\] holds numbers"),
    (dict(item_features=VECTORS.set_axis(list("abcda"))), r"^`item_features` repeats 1 item id in 2 rows: 'a' at positions 0 and 4; give one row per item$"),
    (dict(item_features=VECTORS.assign(f1=[1.0, np.nan, 0, 0, 0])),
     r"`item_features` has 1 NaN or infinite value\(s\), e\.g\. in column 'f1' for items \['b'\]"),
    (dict(item_features=VECTORS.assign(f3=list("vwxyz"))), r"`item_features`\['f3'\] must be numeric"),
    (dict(item_features=pd.DataFrame({"g": list("vwxyz")}, index=list("abcde"))),
     r"`item_features`\['g'\] holds text, not category sets: split it first"),
    (dict(item_features=pd.DataFrame({"g": [{"x"}, 3, {"y"}, {"z"}, set()]}, index=list("abcde"))),
     r"`item_features`\['g'\] must hold a set of categories per item, got int for items \['b'\]"),
    (dict(item_features=VECTORS.set_axis(["a", None, "c", "d", "e"])),
     r"`item_features` has 1 missing item id\(s\) in its index at positions \[1\]"),
])
def test_side_data_is_validated(side, match):
    with pytest.raises(ValueError, match=match):
        rk.Split(PRED, TRUTH, **side)


def test_side_and_its_parts_are_exclusive_and_typed():
    with pytest.raises(ValueError, match="either `side` or"):
        rk.Split(PRED, TRUTH, train=TRAIN, side=rk.SideData(train=TRAIN))
    with pytest.raises(TypeError, match="`side` must be a rankeval.SideData"):
        rk.Split(PRED, TRUTH, side=TRAIN)
    with pytest.raises(TypeError, match="`train` must be a DataFrame"):
        rk.SideData(train=[("u1", "a")])


def test_duplicate_training_rows_count_once():
    doubled = pd.concat([TRAIN, TRAIN.iloc[[0, 0, 5]]])
    side = rk.SideData(train=doubled)
    assert side.item_popularity().to_dict() == {"a": 3, "b": 1, "c": 1, "d": 1}
    assert users(rk.AveragePopularity(), toy(train=doubled)) == users(rk.AveragePopularity(), toy())


def test_default_catalog_is_train_and_truth_items():
    split = toy()
    assert split.side.catalog.tolist() == list("abcde")
    assert rk.Split(PRED, TRUTH, catalog=list("ab")).side.catalog.tolist() == ["a", "b"]
    assert rk.Split(PRED, TRUTH).side is None


def test_catalog_forms():
    for catalog in (list("abcde"), set("abcde"), pd.Series(list("abcde")), pd.Index(list("abcde")),
                    pd.DataFrame({"item_id": list("abcde")}), pd.DataFrame({"x": list("abcdee")}), np.array(list("abcde"))):
        split = rk.Split(PRED, TRUTH, catalog=catalog)
        assert sorted(split.side.catalog.tolist()) == list("abcde")
    with pytest.raises(ValueError, match="without a 'item_id' column and with 2 columns"):
        rk.SideData(catalog=pd.DataFrame({"x": [1], "y": [2]}))


def test_features_with_an_item_id_column():
    frame = VECTORS.reset_index().rename(columns={"index": "item_id"})
    with pytest.warns(rk.MissingUsersWarning, match="2 `truth` user"):  # u2, u3 have no list here
        split = rk.Split(PRED.iloc[:3], TRUTH, item_features=frame)
    a = rk.IntraListDiversity().perform(split).users
    assert a.iloc[0, 0] == pytest.approx((1 + 2 * (1 - SQ)) / 3, abs=TOL)


def test_user_id_kinds_of_train_are_checked():
    with pytest.raises(ValueError, match=r"`train`\['user_id'\] holds numbers"):
        rk.Split(PRED, TRUTH, train=TRAIN.assign(user_id=[1, 1, 2, 2, 3, 4]))


@pytest.mark.parametrize("kwargs, match", [
    (dict(head=0), r"`head` must be a number in \(0, 1\]"),
    (dict(head=1.5), r"`head` must be a number in \(0, 1\]"),
    (dict(head_by="users"), r"`head_by` must be one of \['items', 'interactions'\]"),
])
def test_tail_share_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rk.TailShare(10, **kwargs)


def test_metric_parameters_are_checked():
    with pytest.raises(ValueError, match=r"`items` must be one of \['recommended', 'catalog'\]"):
        rk.GiniIndex(items="all")
    with pytest.raises(ValueError, match=r"`base` must be a finite number > 0 other than 1"):
        rk.ShannonEntropy(base=1)
    with pytest.raises(ValueError, match=r"`definition` must be one of"):
        rk.Novelty(definition="efd")
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1"):
        rk.IntraListDiversity(0)
    with pytest.raises(ValueError, match=r"the shares of `user_groups` add up to 0.9, not 1"):
        rk.DeltaGap({"a": 0.5, "b": 0.4})
    with pytest.raises(ValueError, match=r"puts 1 user\(s\) in more than one group"):
        rk.DeltaGap({"a": ["u1", "u2"], "b": ["u2"]})
    with pytest.raises(ValueError, match=r"`group` 'c' is not among the groups \['a', 'b'\]"):
        rk.DeltaGap({"a": 0.5, "b": 0.5}, group="c")
    with pytest.raises(ValueError, match=r"DeltaGap takes one cutoff"):
        rk.DeltaGap({"a": 1.0}, k=[5, 10]).expand()
    with pytest.raises(ValueError, match=r"`pop_percentage` must be a number in \(0, 1\]"):
        rk.DeltaGap({"a": 1.0}, pop_percentage=0)


def test_popularity_groups_validation_and_empty_groups():
    with pytest.raises(ValueError, match=r"`train` has 4 users, too few for 5 groups"):
        popularity_groups(TRAIN, {str(j): 0.2 for j in range(5)})
    with pytest.warns(RankevalWarning, match=r"popularity group 'tiny' gets no user"):
        groups = popularity_groups(TRAIN, {"tiny": 0.1, "rest": 0.9})
    assert groups["tiny"].tolist() == [] and sorted(groups["rest"]) == ["u1", "u2", "u3", "u4"]


def test_popularity_groups_break_ties_by_id_not_row_order():
    # u2 and u3 tie (ratio 1/2); the top item is "a" (3 users); u1 has only "a"
    train = pd.DataFrame({"user_id": ["u3", "u3", "u2", "u2", "u1", "u4"], "item_id": list("axayab")})
    groups = popularity_groups(train, {"top": 0.5, "rest": 0.5}, pop_percentage=0.2)
    assert groups["top"].tolist() == ["u1", "u2"]
    reordered = popularity_groups(train.iloc[::-1], {"top": 0.5, "rest": 0.5}, pop_percentage=0.2)
    assert groups["top"].tolist() == reordered["top"].tolist()


# --------------------------------------------------------------------------- EvalModel, compare, by_group
def test_evalmodel_side_data_per_split_or_for_all():
    catalog_a, catalog_b = list("abcde"), list("abcdefghij")
    model = rk.EvalModel([PRED, PRED], [TRUTH, TRUTH], [rk.CatalogCoverage()], catalog=[catalog_a, catalog_b])
    assert model.fit()[0]["Coverage"].tolist() == [1.0, 0.5, 0.75]
    model = rk.EvalModel([PRED, PRED], [TRUTH, TRUTH], [rk.CatalogCoverage()], catalog=catalog_b)
    assert model.fit()[0]["Coverage"].tolist() == [0.5, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"`train` has 3 entries for 2 splits"):
        rk.EvalModel([PRED, PRED], [TRUTH, TRUTH], [rk.AveragePopularity()], train=[TRAIN, TRAIN, TRAIN])


def test_user_id_list_keeps_the_full_default_catalog():
    model = rk.EvalModel(PRED, TRUTH, [rk.CatalogCoverage()], train=TRAIN)
    with pytest.warns(rk.LowOverlapWarning, match="only 0 of 2"):  # u2's list holds none of its truth
        sys_result, _ = model.fit(user_id_list=["u2"])
    assert sys_result.loc["fold1", "Coverage"] == 2 / 5  # a, d of a b c d e (truth of every user)


def test_by_group_values_gaps_and_tests():
    model = rk.EvalModel(PRED, TRUTH, [rk.AveragePopularity(), rk.GiniIndex(), rk.NDCG()], train=TRAIN)
    with pytest.raises(ValueError, match=r"call fit\(\) before by_group\(\)"):
        model.by_group({"a": ["u1"], "b": ["u2", "u3"]})
    model.fit()
    table = model.by_group({"a": ["u1"], "b": ["u2", "u3"]})
    assert table.index.names == ["split", "metric", "group"]
    assert list(table.index.get_level_values("metric").unique()) == ["ARP", "NDCG"]  # no system-level metric
    row = table.loc[("fold1", "ARP", "b")]
    assert row["n_users"] == 2 and row["value"] == pytest.approx(5 / 3) and row["baseline"] == "a"
    assert row["gap"] == pytest.approx(5 / 3 - 5 / 3, abs=TOL)
    from scipy import stats
    ref = stats.mannwhitneyu([2.0, 4 / 3], [5 / 3], alternative="two-sided")
    assert (row["statistic"], row["p_value"]) == pytest.approx((ref.statistic, ref.pvalue))
    assert np.isnan(table.loc[("fold1", "ARP", "a"), "gap"])
    welch = model.by_group({"a": ["u1", "u3"], "b": ["u2"]}, test="welch")
    assert np.isnan(welch.loc[("fold1", "ARP", "b"), "p_value"])  # Welch needs 2 users a group
    with pytest.raises(ValueError, match=r"no user of `user_groups` \['a'\] was evaluated"):
        model.by_group({"a": [1, 2]})
    with pytest.raises(ValueError, match=r"`baseline` 'c' is not among the groups"):
        model.by_group({"a": ["u1"], "b": ["u2"]}, baseline="c")


def test_by_group_with_popularity_shares_uses_each_split_train():
    model = rk.EvalModel(PRED, TRUTH, [rk.AveragePopularity()], train=TRAIN)
    model.fit()
    table = model.by_group({"top": 0.5, "rest": 0.5}, pop_percentage=0.25)
    # top item "a": ratios u1 1/2, u2 1/2, u3 1, u4 0 -> top = u3, u1 (tie by id); rest = u2, u4 (u4 has no list)
    assert table["n_users"].tolist() == [2, 1]
    no_train = rk.EvalModel(PRED, TRUTH, [rk.NDCG()])
    no_train.fit()
    with pytest.raises(ValueError, match=r"split 'fold1' has no train"):
        no_train.by_group({"top": 0.5, "rest": 0.5})


def test_compare_side_data_and_system_level_metrics():
    # y's scores reversed, + 0.5: the whole numbers 1..n in rising rows would read as ranks (RanksAsScoresWarning)
    systems = {"x": PRED, "y": PRED.assign(score=PRED["score"][::-1].to_numpy() + 0.5)}
    res = rk.compare(systems, TRUTH, [rk.AveragePopularity(2), rk.Novelty(2)], train=TRAIN, n_resamples=200)
    assert set(res.table.index.get_level_values(0)) == {"ARP@2", "Novelty@2"}
    # system-level metrics are listed per system, not tested (tests/test_beyond_compare.py)
    res = rk.compare(systems, TRUTH, [rk.CatalogCoverage()], train=TRAIN, n_resamples=200)
    assert res.table.empty and list(res.system_values.columns) == ["Coverage"]


def test_side_data_popularity_groups_need_shares_adding_up_to_one():
    side = rk.SideData(TRAIN)
    with pytest.raises(ValueError, match=r"the shares of `groups` add up to 0.7, not 1"):
        side.popularity_groups({"a": 0.5, "b": 0.2}, 0.2)
