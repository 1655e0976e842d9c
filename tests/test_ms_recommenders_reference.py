"""rankeval against Microsoft Recommenders 1.2.1's own outputs, stored in tests/reference/ms_recommenders/.

``tests/reference/ms_recommenders/generate.py`` ran the real
``recommenders/evaluation/python_evaluation.py`` (``pip install --no-deps recommenders==1.2.1``
plus numpy, pandas 2.2 and scikit-learn, in its own venv; it is not a test dependency) on
the seeded dataset stored next to it: 300 users with a list and truth rows, 8 truth-only and
4 pred-only users, lists of 1-25 items (72 shorter than 5), tied scores for 48 users, rows
shuffled. Its docstring lists every call. This module does not import recommenders.

Per metric, the ``ms_recommenders`` convention preset must reproduce every stored number to
1e-12: the per-user values (the function called on one user's rows) and the system value
(the function on the whole frames).

| Recommenders call | rankeval | per user | system |
|---|---|---|---|
| ``precision_at_k(k)`` | ``PrecisionAtK(k)`` | yes | yes |
| ``recall_at_k(k)`` | ``RecallAtK(k)`` | yes | yes |
| ``map_at_k(k)`` | ``MAPAtK(k)`` | yes | yes |
| ``map(k)`` (``relevancy_method="top_k"``) | ``MAPAtK(k, denominator="relevant")`` | yes | yes |
| ``map(relevancy_method=None)`` | ``MAP()`` | yes | yes |
| ``ndcg_at_k(k)`` (binary) | ``NDCGAtK(k)`` | yes | with ``missing_users="zero"`` |
| ``ndcg_at_k(k, score_type="raw")`` | ``NDCGAtK(k, gains="linear")`` | yes | with ``missing_users="zero"`` |
| ``ndcg_at_k(k, score_type="exp")`` | ``NDCGAtK(k, gains="exponential")`` | yes | with ``missing_users="zero"`` |

The preset has no beyond-accuracy metrics (they raise ValueError under it). These
functions are compared with rankeval's own metrics instead, on the same lists
(``reco_df`` = the lists of the users with truth rows):

| Recommenders call | rankeval | compared |
|---|---|---|
| ``catalog_coverage`` | ``CatalogCoverage()`` with ``catalog`` = the training items | system |
| ``distributional_coverage`` | ``ShannonEntropy()`` (bits) | system |
| ``diversity``, ``user_diversity`` (``item_feature_vector``) | ``IntraListDiversity()`` on the vectors | per user, system |
| ``novelty`` | none: a different definition, see below | the relation between them |

Where rankeval differs, and why (none of these is a disagreement with the preset):

- ``ndcg_at_k``'s system value counts every truth user, those without a list as 0
  (an outer merge with the whole ``rating_true``), while the other functions divide by
  the users in both frames. rankeval's preset leaves truth-only users out (as the other
  functions do); ``missing_users="zero"`` reproduces ``ndcg_at_k`` (tested below, and the
  preset's default is shown to be larger).
- ``r_precision_at_k`` has no preset counterpart (``RPrecision`` raises under the preset).
  Its per-user value (hits in the first min(R, k) / R) is rankeval's
  ``RPrecision(denominator="relevant")`` for users with R <= k, but its system value is
  not the mean of its per-user values: users without a hit in their first k are dropped
  from the mean (they are missing from ``df_hit_count``), and users with hits in the first
  k but none in the first R are NaN (also when called on that user alone), skipped by
  ``.mean()``. This is tested as a property of Recommenders, not compared.
- ``novelty`` is the mean over every recommended row of ``-log2(c_i / N)``, with c_i the
  training rows of item i and N all training rows. rankeval's ``Novelty()`` is the mean
  over users of the mean of ``-log2(pop_i / |U|)``, with |U| the training users. With no
  repeated training pair (c_i = pop_i) they are related exactly:
  ``novelty = sum_u |L_u| Novelty_u / sum_u |L_u| + log2(N / |U|)`` (tested).
- ``serendipity`` and the co-occurrence similarity of ``diversity`` have no rankeval
  counterpart and were not run.
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

REF = Path(__file__).parent / "reference" / "ms_recommenders"
TOL = 1e-12
KS = (5, 10)


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / name, dtype={"user_id": str, "item_id": str, "metric": str})


PRED = _read("pred.csv")
TRUTH = _read("truth.csv")
TRAIN = _read("train.csv")
FEATURES = _read("features.csv").set_index("item_id")
PEER_USERS = _read("ms_recommenders_per_user.csv")
PEER_SYSTEM = _read("ms_recommenders_system.csv").set_index("metric")["value"]
PROVENANCE = json.loads((REF / "provenance.json").read_text())


def _mapping() -> list[tuple[str, rk.RankingMetric, bool]]:
    """(Recommenders call, rankeval metric under the preset, whether its system value counts
    truth-only users as 0)."""
    rows = [("map(relevancy_method=None)", rk.MAP(), False)]
    for k in KS:
        rows += [
            (f"precision_at_k(k={k})", rk.PrecisionAtK(k), False),
            (f"recall_at_k(k={k})", rk.RecallAtK(k), False),
            (f"map_at_k(k={k})", rk.MAPAtK(k), False),
            (f"map(k={k})", rk.MAPAtK(k, denominator="relevant"), False),
            (f"ndcg_at_k(k={k}, score_type=binary)", rk.NDCGAtK(k), True),
            (f"ndcg_at_k(k={k}, score_type=raw)", rk.NDCGAtK(k, gains="linear"), True),
            (f"ndcg_at_k(k={k}, score_type=exp)", rk.NDCGAtK(k, gains="exponential"), True),
        ]
    return [(label, metric.with_convention("ms_recommenders"), zero) for label, metric, zero in rows]


MAPPING = _mapping()
NOT_COMPARED = {f"r_precision_at_k(k={k})" for k in KS}  # no preset counterpart: see the docstring
BEYOND = {"catalog_coverage()", "distributional_coverage()", "novelty()",
          "diversity(item_sim_measure=item_feature_vector)",
          "user_diversity(item_sim_measure=item_feature_vector)"}


def _perform(metric: rk.RankingMetric, **split_options) -> rk.MetricResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)  # the pred-only / truth-only users
        return metric.perform(rk.Split(PRED, TRUTH, **split_options))


def _assert_users(ours: pd.Series, theirs: pd.Series, label: str) -> None:
    ours = ours.set_axis(ours.index.astype(str))
    assert sorted(ours.index) == sorted(theirs.index), label
    diff = np.abs(ours.reindex(theirs.index).to_numpy(float) - theirs.to_numpy(float))
    assert not np.isnan(diff).any(), label
    worst = theirs.index[np.argmax(diff)]
    assert diff.max() <= TOL, f"{label}: max |rankeval - Recommenders| = {diff.max():.3g} (user {worst})"


def _theirs(label: str) -> pd.Series:
    return PEER_USERS[PEER_USERS.metric == label].set_index("user_id")["value"]


def test_reference_data_exercises_the_cases():
    both = set(PRED.user_id) & set(TRUTH.user_id)
    assert len(both) == 300 and PROVENANCE["version"] == "1.2.1"
    assert set(TRUTH.user_id) - both and set(PRED.user_id) - both      # truth-only and pred-only users
    lengths = PRED.groupby("user_id").size()
    assert (lengths < 5).sum() > 20 and lengths.max() > 10
    assert (PRED.groupby("user_id")["score"].nunique() < lengths).sum() > 20  # tied scores
    assert not PRED.groupby("user_id")["score"].apply(lambda s: s.is_monotonic_decreasing).all()  # shuffled


def test_every_reference_is_checked():
    labels = {label for label, _, _ in MAPPING}
    assert labels | NOT_COMPARED | BEYOND == set(PEER_SYSTEM.index) | set(PEER_USERS.metric)
    for label in labels | NOT_COMPARED:
        assert len(_theirs(label)) == 300, label


@pytest.mark.parametrize("label, metric, truth_only_zero", [pytest.param(*row, id=row[0]) for row in MAPPING])
def test_preset_matches_recommenders_per_user_and_system(label, metric, truth_only_zero):
    result = _perform(metric)
    _assert_users(result.users[str(metric)], _theirs(label), label)
    system = float(result.system.loc["sys", str(metric)])
    if truth_only_zero:
        # ndcg_at_k averages over every truth user: the preset's default leaves the truth-only out
        assert system > PEER_SYSTEM[label] + 1e-3
        system = float(_perform(metric, missing_users="zero").system.loc["sys", str(metric)])
    assert abs(system - PEER_SYSTEM[label]) <= TOL, f"{label}: {system!r} != {PEER_SYSTEM[label]!r}"


def test_preset_parameters_behind_the_mapping():
    # the ideal list from the truth ratings and log2 (Recommenders' default natural log gives the same ratio)
    for label, metric, _ in MAPPING:
        if label.startswith("ndcg"):
            assert metric.ideal == "truth" and metric.discount == "log2"
            assert metric.gains == {"binary": "binary", "raw": "linear", "exp": "exponential"}[label[:-1].split("=")[-1]]
        assert metric.relevant_threshold == -math.inf  # every truth row is relevant


@pytest.mark.parametrize("k", KS)
def test_r_precision_at_k_is_rprecision_for_users_with_at_most_k_truth_items(k):
    label = f"r_precision_at_k(k={k})"
    theirs = _theirs(label)
    metric = rk.RPrecision(relevant_threshold=-math.inf, denominator="relevant")
    ours = _perform(metric).users[str(metric)]
    ours = ours.set_axis(ours.index.astype(str))
    # a user with hits in the first k but none in the first R is NaN in Recommenders (0 / 0 of
    # an empty groupby, even alone), 0 in rankeval
    nan = theirs.index[theirs.isna()]
    assert len(nan) > 0 and (ours[nan] == 0).all()
    n_truth = TRUTH.groupby("user_id").size()
    small = theirs[(n_truth.reindex(theirs.index) <= k) & theirs.notna()]
    assert len(small) > 100
    _assert_users(ours[small.index], small, label)
    # Recommenders' system value: the mean over the users with a hit in their first min(R, k) only
    with_hit = theirs[theirs > 0]
    assert abs(with_hit.mean() - PEER_SYSTEM[label]) <= TOL
    assert PEER_SYSTEM[label] > theirs.fillna(0).mean() + 1e-3


# --------------------------------------------------------------------------- beyond accuracy
def _beyond(metric: rk.RankingMetric, **side) -> rk.MetricResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return metric.perform(rk.Split(PRED, TRUTH, **side))


def test_catalog_coverage_is_coverage_over_the_training_items():
    res = _beyond(rk.CatalogCoverage(), train=TRAIN, catalog=sorted(set(TRAIN.item_id)))
    assert abs(float(res.system.iloc[0, 0]) - PEER_SYSTEM["catalog_coverage()"]) <= TOL


def test_distributional_coverage_is_shannon_entropy_in_bits():
    res = _beyond(rk.ShannonEntropy())
    assert abs(float(res.system.iloc[0, 0]) - PEER_SYSTEM["distributional_coverage()"]) <= TOL


def test_feature_vector_diversity_is_intra_list_diversity():
    label = "user_diversity(item_sim_measure=item_feature_vector)"
    res = _beyond(rk.IntraListDiversity(), item_features=FEATURES)
    ours = res.users["ILD"]
    # a user with one listed item has no pair: absent from Recommenders, NaN in rankeval
    assert ours.isna().sum() == (PRED[PRED.user_id.isin(set(TRUTH.user_id))].groupby("user_id").size() == 1).sum() > 0
    _assert_users(ours.dropna(), _theirs(label), label)
    system = float(res.system.iloc[0, 0])
    assert abs(system - PEER_SYSTEM["diversity(item_sim_measure=item_feature_vector)"]) <= TOL


def test_novelty_differs_by_its_normalisation_and_weighting():
    assert not TRAIN.duplicated().any()  # c_i (training rows) = pop_i (training users)
    res = _beyond(rk.Novelty(), train=TRAIN)
    ours = res.users["Novelty"]
    lengths = PRED.groupby("user_id").size().reindex(ours.index)
    n_rows, n_users = len(TRAIN), TRAIN.user_id.nunique()
    related = float((ours * lengths).sum() / lengths.sum()) + math.log2(n_rows / n_users)
    assert abs(related - PEER_SYSTEM["novelty()"]) <= 1e-12
    assert abs(float(res.system.iloc[0, 0]) - PEER_SYSTEM["novelty()"]) > 0.1  # not the same metric
