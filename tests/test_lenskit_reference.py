"""rankeval against LensKit 2025.8.1's own outputs, stored in tests/reference/lenskit/.

``tests/reference/lenskit/generate.py`` ran the real LensKit (``lenskit==2025.8.1`` with the
CPU torch it requires, in its own venv; neither is a test dependency) on the seeded dataset
stored next to it: 300 users with a list and test items, 8 truth-only users, 4 pred-only
users, lists of 1-25 items, tied scores for about a quarter of the users, rows shuffled.
LensKit ranked each list itself (``ItemList(...).top_n()``, stored in
``lenskit_ranking.csv``) and measured it with ``RunAnalysis`` (per-user
``list_metrics()``, system ``list_summary()["mean"]``). This module does not import lenskit.

The ``lenskit`` convention preset must reproduce every stored per-user and system value to
1e-12:

| LensKit metric | rankeval under the preset |
|---|---|
| ``Precision(n)``, ``Precision()`` | ``PrecisionAtK(n)``, ``PrecisionAtK(longest list)`` |
| ``Recall(n)``, ``Recall()`` | ``RecallAtK(n)``, ``RecallAtK(longest list)`` (no user has more test items) |
| ``AveragePrecision(n)``, ``AveragePrecision()`` | ``MAPAtK(n)``, ``MAP()`` |
| ``RecipRank(n)``, ``RecipRank()`` | ``MRRAtK(n)``, ``MRR()`` |
| ``Hit(n)`` | ``HitRateAtK(n)`` |
| ``NDCG(n)``, ``NDCG()`` | ``NDCGAtK(n)``, ``NDCG()`` |
| ``DCG(n)``, ``DCG()`` | ``DCGAtK(n)``, ``DCG()`` |
| ``NDCG(n, gain="rating")``, ``NDCG(gain="rating")`` | ``NDCGAtK(n, gains="linear", ideal="truth")``, the same without n |

``RBP()`` (patience 0.85) has no preset counterpart (``RBP`` raises under the preset); it
equals rankeval's ``RBP(p=0.85, relevant_threshold=-inf)`` (tested). ``RBP(n)`` (RBP of the
list cut at n) has no rankeval counterpart and is not compared.

Where rankeval's preset differs from LensKit, and why:

- **Ties.** LensKit's ``ItemList.top_n()`` (what ``TopNRanker`` does) sorts with an unstable
  sort (``lenskit._accel.data.argsort_descending``): tied scores do not keep their row order,
  nor any other rule we found, though the order is deterministic. The preset's
  ``ties="row_order"`` therefore reproduces LensKit's lists only where no tie is reordered.
  The per-user comparison is run twice: on ``pred.csv``'s scores for the users whose
  LensKit order equals the row order, and on LensKit's own ranks (``rank`` column from
  ``lenskit_ranking.csv``) for every user. The users whose order differs are counted, and
  their values differ on some metric (tested).
- **Lists without test items.** ``RunAnalysis`` measures every output list. A list whose user
  has no test item makes ``AveragePrecision`` raise ``ZeroDivisionError``; without that
  metric, such lists get Precision and DCG 0 and NaN elsewhere, and ``list_summary`` fills
  NaN with 0, so every system value becomes rankeval's times 300 / 304 here. rankeval leaves
  pred-only users out under every convention (tested on ``lenskit_with_pred_only.csv``).
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

REF = Path(__file__).parent / "reference" / "lenskit"
TOL = 1e-12
NS = (5, 10)


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / name, dtype={"user_id": str, "item_id": str, "metric": str})


PRED = _read("pred.csv")
TRUTH = _read("truth.csv")
RANKING = _read("lenskit_ranking.csv")
PEER_USERS = _read("lenskit_per_user.csv")
PEER_SYSTEM = _read("lenskit_system.csv").set_index("metric")["value"]
WITH_PRED_ONLY = _read("lenskit_with_pred_only.csv")
PROVENANCE = json.loads((REF / "provenance.json").read_text())
LONGEST = int(PRED.groupby("user_id").size().max())
EVALUATED = sorted(set(PRED.user_id) & set(TRUTH.user_id))


def _stable_order(pred: pd.DataFrame) -> pd.DataFrame:
    return pred.sort_values("score", ascending=False, kind="stable")


def _users_in_row_order() -> list[str]:
    """Users whose LensKit ranking equals the ranking by score with ties in row order."""
    ours = {u: list(_stable_order(g).item_id) for u, g in PRED.groupby("user_id")}
    theirs = {u: list(g.sort_values("rank").item_id) for u, g in RANKING.groupby("user_id")}
    return sorted(u for u in EVALUATED if ours[u] == theirs[u])


SAME_ORDER = _users_in_row_order()


def _mapping() -> list[tuple[str, rk.RankingMetric]]:
    rows = [("Precision", rk.PrecisionAtK(LONGEST)), ("Recall", rk.RecallAtK(LONGEST)),
            ("AveragePrecision", rk.MAP()), ("RecipRank", rk.MRR()), ("NDCG", rk.NDCG()), ("DCG", rk.DCG()),
            ("NDCG[gain=rating]", rk.NDCG(gains="linear", ideal="truth"))]
    for n in NS:
        rows += [(f"Precision@{n}", rk.PrecisionAtK(n)), (f"Recall@{n}", rk.RecallAtK(n)),
                 (f"AveragePrecision@{n}", rk.MAPAtK(n)), (f"RecipRank@{n}", rk.MRRAtK(n)),
                 (f"Hit@{n}", rk.HitRateAtK(n)), (f"NDCG@{n}", rk.NDCGAtK(n)), (f"DCG@{n}", rk.DCGAtK(n)),
                 (f"NDCG@{n}[gain=rating]", rk.NDCGAtK(n, gains="linear", ideal="truth"))]
    return [(label, metric.with_convention("lenskit")) for label, metric in rows]


MAPPING = _mapping()
EXPLICIT = [("RBP", rk.RBP(p=0.85, relevant_threshold=-math.inf))]  # no preset counterpart
NOT_COMPARED = {"RBP@5", "RBP@10"}  # no rankeval counterpart: RBP of the list cut at n


def _theirs(label: str) -> pd.Series:
    return PEER_USERS[PEER_USERS.metric == label].set_index("user_id")["value"]


def _perform(metric: rk.RankingMetric, pred: pd.DataFrame) -> rk.MetricResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)  # the pred-only / truth-only users
        return metric.perform(rk.Split(pred, TRUTH))


def _assert_users(ours: pd.Series, theirs: pd.Series, label: str) -> None:
    ours = ours.set_axis(ours.index.astype(str)).reindex(theirs.index).to_numpy(float)
    assert not np.isnan(ours).any() and not theirs.isna().any(), label
    diff = np.abs(ours - theirs.to_numpy(float))
    assert diff.max() <= TOL, f"{label}: max |rankeval - LensKit| = {diff.max():.3g} (user {theirs.index[diff.argmax()]})"


def test_reference_data_exercises_the_cases():
    assert PROVENANCE["version"] == "2025.8.1" and len(EVALUATED) == 300
    lengths = PRED.groupby("user_id").size()
    assert (lengths < 5).sum() > 20 and LONGEST == 25
    assert TRUTH.groupby("user_id").size().max() <= LONGEST  # Recall(): min(m_u, longest) = m_u
    tied = PRED.groupby("user_id")["score"].nunique() < lengths
    assert tied.sum() > 50
    assert len(SAME_ORDER) < len(EVALUATED)  # LensKit reorders some ties ...
    assert len(SAME_ORDER) > 250             # ... but not most lists


def test_every_reference_is_checked():
    labels = {label for label, _ in MAPPING} | {label for label, _ in EXPLICIT} | NOT_COMPARED
    assert labels == set(PEER_SYSTEM.index) == set(PEER_USERS.metric)
    assert PEER_USERS.groupby("metric").size().eq(300).all()


@pytest.mark.parametrize("label, metric", [pytest.param(*row, id=row[0]) for row in MAPPING + EXPLICIT])
def test_matches_lenskit_on_its_own_ranking(label, metric):
    ranked = RANKING[["user_id", "item_id", "rank"]]  # LensKit's top_n() order, no score column
    result = _perform(metric, ranked)
    _assert_users(result.users[str(metric)], _theirs(label), label)
    system = float(result.system.loc["sys", str(metric)])
    assert abs(system - PEER_SYSTEM[label]) <= TOL, f"{label}: {system!r} != {PEER_SYSTEM[label]!r}"


@pytest.mark.parametrize("label, metric", [pytest.param(*row, id=row[0]) for row in MAPPING + EXPLICIT])
def test_matches_lenskit_from_the_scores_where_no_tie_is_reordered(label, metric):
    ours = _perform(metric, PRED).users[str(metric)]
    ours = ours[ours.index.astype(str).isin(SAME_ORDER)]
    _assert_users(ours, _theirs(label).loc[SAME_ORDER], label)


def test_lenskit_breaks_ties_out_of_row_order():
    reordered = sorted(set(EVALUATED) - set(SAME_ORDER))
    differ = set()
    for label, metric in MAPPING:
        ours = _perform(metric, PRED).users[str(metric)]
        ours = ours.set_axis(ours.index.astype(str))
        gap = (ours[reordered] - _theirs(label)[reordered]).abs()
        differ |= set(gap.index[gap > 1e-9])
    assert differ and differ <= set(reordered)


def test_pred_only_lists_count_zero_in_lenskit_and_are_left_out_by_rankeval():
    pred_only = sorted(set(PRED.user_id) - set(TRUTH.user_id))
    assert len(pred_only) == 4
    rows = WITH_PRED_ONLY.set_index(["metric", "user_id"])["value"]
    n, n_all = len(EVALUATED), len(EVALUATED) + len(pred_only)
    for label in WITH_PRED_ONLY.metric.unique():
        assert not label.startswith("AveragePrecision")  # it raises ZeroDivisionError on such lists
        theirs = rows[label].drop("sys")
        assert set(theirs.index) == set(pred_only)
        assert ((theirs == 0) if label.startswith(("Precision", "DCG")) else theirs.isna()).all(), label
        assert abs(rows[(label, "sys")] - PEER_SYSTEM[label] * n / n_all) <= TOL, label
