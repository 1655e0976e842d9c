"""rankeval against LensKit 0.14.4's own outputs, stored in tests/reference/lenskit014/.

LensKit 0.14.4 is the last release before the 2025 rewrite, and the only one that needs no
torch. ``tests/reference/lenskit014/generate.py`` ran it (in its own venv; it is not a test
dependency) on the seeded dataset stored next to it (300 users with a list and truth rows,
8 truth-only and 4 pred-only users, lists of 1-25 items, tied scores for about a quarter of
the users, rows shuffled): LensKit ranked the lists (``batch.recommend(TopN(...))``, stored in
``lenskit014_recs.csv``) and ``topn.RecListAnalysis`` measured them (bulk implementations).
It gives per-list values only. This module does not import lenskit.

rankeval's ``lenskit`` preset follows LensKit 2025 (``tests/test_lenskit_reference.py``).
Against 0.14.4 it reproduces, per user to 1e-12, on LensKit's own ranking:

| LensKit 0.14 | rankeval under the preset |
|---|---|
| ``precision`` (no k) | ``PrecisionAtK(longest list)`` |
| ``recall``, ``recall@k`` | ``RecallAtK(longest list)``, ``RecallAtK(k)`` |
| ``recip_rank``, ``recip_rank@k`` | ``MRR()``, ``MRRAtK(k)`` |
| ``hit@k`` | ``HitRateAtK(k)`` |
| ``ndcg``, ``ndcg@k`` (truth without ratings) | ``NDCG()``, ``NDCGAtK(k)`` |
| ``dcg`` | ``DCG()`` |
| ``ndcg``, ``ndcg@k`` (truth with a ``rating`` column) | ``NDCG(gains="linear", ideal="truth")``, ``NDCGAtK(k, ...)`` |

Where it differs, and why (each is tested):

- **``precision@k`` divides by k in 0.14.** Its bulk implementation (``_bulk_precision``,
  used whenever the recs have a ``rank`` column, as ``batch.recommend``'s do) divides by k,
  not by the list length; LensKit 2025 (and the single-list ``precision`` of 0.14) divide by
  the length of the list cut at k, as the preset does. They differ for every list shorter
  than k with a hit; ``PrecisionAtK(k, denominator="k")`` under the preset reproduces 0.14.
- **Ties.** ``TopN.recommend`` ranks with ``Series.nlargest``, which does not keep tied items
  in row order: from ``pred.csv``'s scores the preset (``ties="row_order"``) agrees for the
  users whose order LensKit kept, and differs for some of the others.
- **Pred-only lists** are measured: 0 for ``precision``, ``recip_rank`` and ``hit``, NaN for
  ``recall``, ``ndcg`` and ``dcg``. rankeval leaves such users out.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import rankeval as rk
from rankeval.exceptions import RankevalWarning

REF = Path(__file__).parent / "reference" / "lenskit014"
TOL = 1e-12
KS = (5, 10)


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / name, dtype={"user_id": str, "item_id": str, "user": str, "item": str, "metric": str})


PRED = _read("pred.csv")
TRUTH = _read("truth.csv")
RECS = _read("lenskit014_recs.csv").rename(columns={"user": "user_id", "item": "item_id"})
PEER_USERS = _read("lenskit014_per_user.csv")
PROVENANCE = json.loads((REF / "provenance.json").read_text())
LONGEST = int(PRED.groupby("user_id").size().max())
EVALUATED = sorted(set(PRED.user_id) & set(TRUTH.user_id))
PRED_ONLY = sorted(set(PRED.user_id) - set(TRUTH.user_id))


def _mapping() -> list[tuple[str, rk.RankingMetric]]:
    graded = {"gains": "linear", "ideal": "truth"}
    rows = [("precision", rk.PrecisionAtK(LONGEST)), ("recall", rk.RecallAtK(LONGEST)), ("recip_rank", rk.MRR()),
            ("ndcg", rk.NDCG()), ("dcg", rk.DCG()), ("ndcg[rating]", rk.NDCG(**graded))]
    for k in KS:
        rows += [(f"recall@{k}", rk.RecallAtK(k)), (f"recip_rank@{k}", rk.MRRAtK(k)), (f"hit@{k}", rk.HitRateAtK(k)),
                 (f"ndcg@{k}", rk.NDCGAtK(k)), (f"ndcg@{k}[rating]", rk.NDCGAtK(k, **graded))]
    return [(label, metric.with_convention("lenskit")) for label, metric in rows]


MAPPING = _mapping()
PRECISION_AT_K = [(f"precision@{k}", k) for k in KS]  # 0.14 divides by k: see the docstring


def _theirs(label: str) -> pd.Series:
    return PEER_USERS[PEER_USERS.metric == label].set_index("user_id")["value"]


def _users(metric: rk.RankingMetric, pred: pd.DataFrame) -> pd.Series:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)  # the pred-only / truth-only users
        ours = metric.perform(rk.Split(pred, TRUTH)).users[str(metric)]
    return ours.set_axis(ours.index.astype(str))


def _gap(ours: pd.Series, theirs: pd.Series) -> pd.Series:
    assert not ours.isna().any() and not theirs.isna().any()
    return (ours.reindex(theirs.index) - theirs).abs()


LENSKIT_RANKS = RECS[["user_id", "item_id", "rank"]]


def _same_order_users() -> list[str]:
    ours = {u: list(g.sort_values("score", ascending=False, kind="stable").item_id) for u, g in PRED.groupby("user_id")}
    theirs = {u: list(g.sort_values("rank").item_id) for u, g in RECS.groupby("user_id")}
    return sorted(u for u in EVALUATED if ours[u] == theirs[u])


SAME_ORDER = _same_order_users()


def test_reference_data_exercises_the_cases():
    assert PROVENANCE["version"] == "0.14.4" and len(EVALUATED) == 300 and len(PRED_ONLY) == 4
    assert len(RECS) == len(PRED) and TRUTH.groupby("user_id").size().max() <= LONGEST
    assert 250 < len(SAME_ORDER) < len(EVALUATED)  # LensKit reorders the ties of a few lists


def test_every_reference_is_checked():
    labels = {label for label, _ in MAPPING} | {label for label, _ in PRECISION_AT_K}
    assert labels == set(PEER_USERS.metric)
    assert PEER_USERS.groupby("metric").size().eq(len(EVALUATED) + len(PRED_ONLY)).all()


@pytest.mark.parametrize("label, metric", [pytest.param(*row, id=row[0]) for row in MAPPING])
def test_preset_matches_lenskit_014_on_its_own_ranking(label, metric):
    theirs = _theirs(label).loc[EVALUATED]
    gap = _gap(_users(metric, LENSKIT_RANKS), theirs)
    assert gap.max() <= TOL, f"{label}: max |rankeval - LensKit 0.14| = {gap.max():.3g} (user {gap.idxmax()})"


@pytest.mark.parametrize("label, metric", [pytest.param(*row, id=row[0]) for row in MAPPING])
def test_preset_matches_lenskit_014_from_the_scores_where_no_tie_is_reordered(label, metric):
    gap = _gap(_users(metric, PRED), _theirs(label).loc[SAME_ORDER])
    assert gap.max() <= TOL, f"{label}: max gap {gap.max():.3g} (user {gap.idxmax()})"


def test_lenskit_014_breaks_ties_out_of_row_order():
    reordered = sorted(set(EVALUATED) - set(SAME_ORDER))
    differ = set()
    for label, metric in MAPPING:
        gap = _gap(_users(metric, PRED), _theirs(label).loc[reordered])
        differ |= set(gap.index[gap > 1e-9])
    assert differ and differ <= set(reordered)


@pytest.mark.parametrize("label, k", PRECISION_AT_K)
def test_precision_at_k_of_lenskit_014_divides_by_k(label, k):
    theirs = _theirs(label).loc[EVALUATED]
    preset = rk.PrecisionAtK(k).with_convention("lenskit")
    assert preset.denominator == "listed"
    gap = _gap(_users(preset, LENSKIT_RANKS), theirs)
    lengths = RECS.groupby("user_id").size().reindex(theirs.index)
    assert (gap[lengths >= k] <= TOL).all()                # same where the list has k items
    assert (gap > TOL).sum() > 30 and (gap[gap > TOL].index.isin(lengths.index[lengths < k])).all()
    explicit = rk.PrecisionAtK(k, denominator="k").with_convention("lenskit")
    assert _gap(_users(explicit, LENSKIT_RANKS), theirs).max() <= TOL


def test_pred_only_lists_are_measured_by_lenskit_014():
    rows = PEER_USERS[PEER_USERS.user_id.isin(PRED_ONLY)]
    for label, values in rows.groupby("metric")["value"]:
        zero = label.startswith(("precision", "recip_rank", "hit"))
        assert ((values == 0) if zero else values.isna()).all(), label
