"""rankeval against RecBole 1.2.1's own outputs, stored in tests/reference/recbole/.

``tests/reference/recbole/generate.py`` ran RecBole's real evaluation path (``Dataset``,
``data_preparation``, ``Collector``, ``Evaluator``; ``recbole==1.2.1`` with the CPU torch it
imports, in its own venv; neither is a test dependency) on the seeded dataset stored next to
it, with ``pred.csv``'s scores in place of a model's: 300 test users, lists of 5-25 items
with distinct scores (150 shorter than 10, each with every truth item listed), 400 training
items. Per user it stored the ``metric_info`` row of each top-k metric, and the system values
of ``Evaluator.evaluate``. This module does not import recbole or torch.

The ``recbole`` convention preset must reproduce every stored number to 1e-12:

| RecBole metric | rankeval under the preset | per user | system |
|---|---|---|---|
| ``hit@k``, ``mrr@k``, ``ndcg@k`` | ``HitRateAtK(k)``, ``MRRAtK(k)``, ``NDCGAtK(k)`` | yes | yes |
| ``map@k``, ``precision@k``, ``recall@k`` | ``MAPAtK(k)``, ``PrecisionAtK(k)``, ``RecallAtK(k)`` | yes | yes |
| ``giniindex@k`` | ``GiniIndex(k)``, catalog: see below | — | yes |

The other beyond-accuracy metrics have no preset entry (they raise under it) and are
compared with rankeval's own metrics, as their docstrings describe:

| RecBole metric | rankeval | compared |
|---|---|---|
| ``itemcoverage@k`` | ``CatalogCoverage(k)``, catalog: see below | system |
| ``shannonentropy@k`` | ``ShannonEntropy(k, base=math.e, per_item=True)`` | system |
| ``averagepopularity@k`` | ``AveragePopularity(k)`` | per user, system |
| ``tailpercentage@k`` (``tail_ratio`` t) | ``TailShare(k, head=1 - t)``, catalog = the training items | per user, system, where no popularity tie straddles the cut |

Where rankeval differs, and why:

- **The catalog of ``itemcoverage`` and ``giniindex`` holds RecBole's padding item.**
  RecBole divides by ``data.num_items`` = ``dataset.num("item_id")``, the number of item
  tokens *including* ``[PAD]`` (id 0, which is never recommended): 401 here, for 400 items.
  rankeval's ``GiniIndex(k)`` under the preset and ``CatalogCoverage(k)`` reproduce RecBole
  exactly when the catalog is every item plus one item that is never recommended; with the
  catalog the docstrings suggest ("every item of the dataset", 400 here) they differ (tested:
  coverage by a factor 401 / 400).
- **Ties in the tail.** RecBole's ``TailPercentage`` takes as tail the ``int(n * t)`` first
  training items sorted by (count, internal id) ascending: among the items of equal count at
  the cut, those with the smaller internal ids (RecBole's remapping of the item tokens) are
  tail. rankeval's ``TailShare`` breaks such ties by item id, the smaller ids into the head.
  The two agree when no count straddles the cut: tested for t = 0.25; at t = 0.125 and 0.5 a
  tie straddles it and the values differ (tested at k = 5: 0.0593 against rankeval's 0.0547,
  and 0.2500 against 0.2507).
- RecBole ranks the whole catalog; a list shorter than k is completed with unlisted items.
  The dataset keeps those from being hits (the short lists hold every truth item), so the
  preset's P@k (hits / k) and the other metrics agree on them.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.exceptions import RankevalWarning

REF = Path(__file__).parent / "reference" / "recbole"
TOL = 1e-12
KS = (5, 10)
BEYOND_KS = (1, 3, 5)
TAIL_RATIOS = (0.125, 0.25, 0.5)


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / name, dtype={"user_id": str, "item_id": str, "metric": str})


PRED = _read("pred.csv")
TRUTH = _read("truth.csv")
TRAIN = _read("train.csv")
PEER_USERS = _read("recbole_per_user.csv")
PEER_SYSTEM = _read("recbole_system.csv").set_index("metric")["value"]
PROVENANCE = json.loads((REF / "provenance.json").read_text())
ITEMS = sorted(set(TRAIN.item_id))  # every item of the dataset (all in train here)
PAD = "[PAD]"                       # RecBole's padding token, counted in num_items
TEST_USERS = sorted(set(PRED.user_id) & set(TRUTH.user_id))

PRESET = [(f"{name}@{k}", cls(k).with_convention("recbole")) for k in KS for name, cls in [
    ("hit", rk.HitRateAtK), ("mrr", rk.MRRAtK), ("ndcg", rk.NDCGAtK), ("map", rk.MAPAtK),
    ("precision", rk.PrecisionAtK), ("recall", rk.RecallAtK)]]


def _theirs(label: str) -> pd.Series:
    return PEER_USERS[PEER_USERS.metric == label].set_index("user_id")["value"]


def _perform(metric: rk.RankingMetric, **side) -> rk.MetricResult:
    # RecBole's test users: those with a list and truth rows (see generate.py)
    pred = PRED[PRED.user_id.isin(TEST_USERS)]
    truth = TRUTH[TRUTH.user_id.isin(TEST_USERS)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return metric.perform(rk.Split(pred, truth, **side))


def _assert_users(ours: pd.Series, theirs: pd.Series, label: str) -> None:
    ours = ours.set_axis(ours.index.astype(str))
    assert sorted(ours.index) == sorted(theirs.index), label
    diff = np.abs(ours.reindex(theirs.index).to_numpy(float) - theirs.to_numpy(float))
    assert not np.isnan(diff).any(), label
    assert diff.max() <= TOL, f"{label}: max |rankeval - RecBole| = {diff.max():.3g} (user {theirs.index[diff.argmax()]})"


def _system(result: rk.MetricResult) -> float:
    return float(result.system.iloc[0, 0])


def test_reference_data_exercises_the_cases():
    assert PROVENANCE["version"] == "1.2.1" and len(TEST_USERS) == 300
    lengths = PRED.groupby("user_id").size()
    short = lengths[lengths < max(KS)].index
    assert len(short) > 100 and lengths.min() >= max(BEYOND_KS)
    listed = set(zip(PRED.user_id, PRED.item_id))
    short_truth = TRUTH[TRUTH.user_id.isin(short)]
    assert all(p in listed for p in zip(short_truth.user_id, short_truth.item_id))  # never a hit beyond the list
    assert (PRED.groupby("user_id")["score"].nunique() == lengths).all()  # distinct scores
    assert len(ITEMS) == 400 and not TRAIN.duplicated().any()
    assert {run["num_items"] for run in PROVENANCE["runs"].values()} == {len(ITEMS) + 1}


def test_every_reference_is_checked():
    labels = {label for label, _ in PRESET}
    beyond = {f"{name}@{k}" for k in BEYOND_KS for name in
              ("itemcoverage", "giniindex", "shannonentropy", "averagepopularity")}
    tails = {f"tailpercentage(tail_ratio={t})@{k}" for t in TAIL_RATIOS for k in BEYOND_KS}
    assert set(PEER_SYSTEM.index) == labels | beyond | tails
    assert set(PEER_USERS.metric) == labels | tails | {f"averagepopularity@{k}" for k in BEYOND_KS}


@pytest.mark.parametrize("label, metric", [pytest.param(*row, id=row[0]) for row in PRESET])
def test_preset_matches_recbole_per_user_and_system(label, metric):
    result = _perform(metric)
    _assert_users(result.users[str(metric)], _theirs(label), label)
    assert abs(_system(result) - PEER_SYSTEM[label]) <= TOL


@pytest.mark.parametrize("k", BEYOND_KS)
def test_gini_and_coverage_count_recboles_padding_item(k):
    gini = rk.GiniIndex(k).with_convention("recbole")
    assert gini.items == "catalog"
    with_pad = {"catalog": [*ITEMS, PAD], "train": TRAIN}
    assert abs(_system(_perform(gini, **with_pad)) - PEER_SYSTEM[f"giniindex@{k}"]) <= TOL
    assert abs(_system(_perform(rk.CatalogCoverage(k), **with_pad)) - PEER_SYSTEM[f"itemcoverage@{k}"]) <= TOL
    # the catalog of the real items alone: not RecBole's numbers
    items_only = {"catalog": ITEMS, "train": TRAIN}
    coverage = _system(_perform(rk.CatalogCoverage(k), **items_only))
    assert abs(coverage * len(ITEMS) / (len(ITEMS) + 1) - PEER_SYSTEM[f"itemcoverage@{k}"]) <= TOL
    assert abs(_system(_perform(gini, **items_only)) - PEER_SYSTEM[f"giniindex@{k}"]) > 1e-4


@pytest.mark.parametrize("k", BEYOND_KS)
def test_entropy_and_average_popularity(k):
    entropy = _perform(rk.ShannonEntropy(k, base=math.e, per_item=True))
    assert abs(_system(entropy) - PEER_SYSTEM[f"shannonentropy@{k}"]) <= TOL
    arp = _perform(rk.AveragePopularity(k), train=TRAIN)
    _assert_users(arp.users[f"ARP@{k}"], _theirs(f"averagepopularity@{k}"), f"averagepopularity@{k}")
    assert abs(_system(arp) - PEER_SYSTEM[f"averagepopularity@{k}"]) <= TOL


def _tie_straddles_the_cut(tail_ratio: float) -> bool:
    counts = TRAIN.groupby("item_id").size().sort_values()
    cut = int(len(counts) * tail_ratio)
    return bool(counts.iloc[cut - 1] == counts.iloc[cut])


COMPARED_TAILS = [t for t in TAIL_RATIOS if not _tie_straddles_the_cut(t)]
STRADDLING_TAILS = [t for t in TAIL_RATIOS if _tie_straddles_the_cut(t)]


@pytest.mark.parametrize("tail_ratio", COMPARED_TAILS)
@pytest.mark.parametrize("k", BEYOND_KS)
def test_tail_percentage_is_tail_share_when_no_tie_straddles_the_cut(k, tail_ratio):
    label = f"tailpercentage(tail_ratio={tail_ratio})@{k}"
    metric = rk.TailShare(k, head=1 - tail_ratio)
    result = _perform(metric, train=TRAIN, catalog=ITEMS)
    _assert_users(result.users[str(metric)], _theirs(label), label)
    assert abs(_system(result) - PEER_SYSTEM[label]) <= TOL


@pytest.mark.parametrize("tail_ratio", STRADDLING_TAILS)
def test_tail_percentage_splits_a_tie_at_the_cut_otherwise(tail_ratio):
    # the items of the tied count at the cut go to the tail in RecBole, to the head in rankeval
    k = max(BEYOND_KS)
    label = f"tailpercentage(tail_ratio={tail_ratio})@{k}"
    result = _perform(rk.TailShare(k, head=1 - tail_ratio), train=TRAIN, catalog=ITEMS)
    assert abs(_system(result) - PEER_SYSTEM[label]) > 1e-4


def test_some_tail_ratio_is_compared():
    assert COMPARED_TAILS and STRADDLING_TAILS
