"""rankeval against ClayRS 0.5.1's own outputs, stored in tests/reference/clayrs/.

``tests/reference/clayrs/generate.py`` ran the real ClayRS (in its own venv; it is not a
test dependency) on the seeded dataset stored next to it (``pred.csv`` and ``truth.csv``,
45 users). It wrote ClayRS's per-user values (``clayrs_per_user.csv``) and system values
(``clayrs_system.csv``) for NDCG, NDCG@5, NDCG@10, Precision, P@5, R@5, MAP, MAP@5, MRR,
MRR@5, Recall, FMeasure (beta 1 and 2), FMeasureAtK(5) and RPrecision, every classification
metric also with ``sys_average="micro"`` (rankeval's ``average="micro"``), and MAE, MSE and
RMSE. Each binary metric was run at the user-mean threshold and at
``relevant_threshold=3``. The generator's docstring gives what ClayRS's source does
(ordering, relevance, denominators, users without a relevant item).

This module does not import clayrs. It evaluates the same frames with the ``clayrs``
convention preset and asserts, for each metric:

- the same users;
- NaN for the same users;
- every value within 1e-12;
- the system value within 1e-12.

It also asserts that the preset resolves to the explicit parameters listed in
``MAPPING``. (ClayRS's whole-list ``Precision`` is rankeval's ``Precision``, which equals
``PrecisionAtK(k, denominator="listed")`` with k at least the longest list.)

One known difference does not show on this data. ClayRS's default threshold is the float
``np.nanmean`` of the user's ratings, while rankeval decides ``score >= mean`` exactly.
They can differ when the float mean rounds above a rating equal to the exact mean. For
example, ratings 0.1, 0.1, 0.1 have a float mean of 0.10000000000000002: ClayRS finds no
relevant item and gives NaN, while rankeval finds all three relevant. The stored ratings
are multiples of 0.5, so every mean is exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk

REF = Path(__file__).parent / "reference" / "clayrs"
TOL = 1e-12


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / name, dtype={"user_id": str, "item_id": str, "metric": str})


PRED = _read("pred.csv")
TRUTH = _read("truth.csv")
CLAYRS_USERS = _read("clayrs_per_user.csv")
CLAYRS_SYSTEM = _read("clayrs_system.csv").set_index("metric")["value"]
LONGEST = int(PRED.groupby("user_id").size().max())  # ClayRS's Precision: the whole list


def _mapping() -> list[tuple[str, rk.RankingMetric, rk.RankingMetric]]:
    """(ClayRS call, rankeval metric under the 'clayrs' preset, the same with explicit parameters)."""
    ndcg = {"gains": "linear", "ideal": "ranked", "discount": "log2", "judged_only": True, "no_relevant": "nan"}
    rows = [
        ("NDCG()", rk.NDCG(), rk.NDCG(**ndcg)),
        ("NDCGAtK(k=5)", rk.NDCGAtK(5), rk.NDCGAtK(5, **ndcg)),
        ("NDCGAtK(k=10)", rk.NDCGAtK(10), rk.NDCGAtK(10, **ndcg)),
    ]
    for t in (None, 3):
        nan = {"relevant_threshold": t, "no_relevant": "nan"}
        rows += [
            (f"Precision(relevant_threshold={t})", rk.Precision(relevant_threshold=t), rk.Precision(**nan)),
            (f"PrecisionAtK(k=5, relevant_threshold={t})", rk.PrecisionAtK(5, relevant_threshold=t),
             rk.PrecisionAtK(5, denominator="listed", **nan)),
            (f"RecallAtK(k=5, relevant_threshold={t})", rk.RecallAtK(5, relevant_threshold=t),
             rk.RecallAtK(5, denominator="relevant", **nan)),
            (f"MAP(relevant_threshold={t})", rk.MAP(relevant_threshold=t),
             rk.MAP(denominator="relevant", **nan)),
            (f"MAPAtK(k=5, relevant_threshold={t})", rk.MAPAtK(5, relevant_threshold=t),
             rk.MAPAtK(5, denominator="relevant", **nan)),
            (f"MRR(relevant_threshold={t})", rk.MRR(relevant_threshold=t), rk.MRR(**nan)),
            (f"MRRAtK(k=5, relevant_threshold={t})", rk.MRRAtK(5, relevant_threshold=t), rk.MRRAtK(5, **nan)),
        ]
        # the other classification metrics, with ClayRS's sys_average as rankeval's average
        for avg in ("macro", "micro"):
            tag = "" if avg == "macro" else ", sys_average=micro"
            a = {"average": avg}
            if avg == "micro":
                rows += [
                    (f"Precision(relevant_threshold={t}{tag})", rk.Precision(relevant_threshold=t, **a),
                     rk.Precision(**nan, **a)),
                    (f"PrecisionAtK(k=5, relevant_threshold={t}{tag})", rk.PrecisionAtK(5, relevant_threshold=t, **a),
                     rk.PrecisionAtK(5, denominator="listed", **nan, **a)),
                    (f"RecallAtK(k=5, relevant_threshold={t}{tag})", rk.RecallAtK(5, relevant_threshold=t, **a),
                     rk.RecallAtK(5, denominator="relevant", **nan, **a)),
                ]
            rows += [
                (f"Recall(relevant_threshold={t}{tag})", rk.Recall(relevant_threshold=t, **a), rk.Recall(**nan, **a)),
                (f"FMeasure(relevant_threshold={t}{tag})", rk.FMeasure(relevant_threshold=t, **a),
                 rk.FMeasure(1.0, **nan, **a)),
                (f"FMeasure(relevant_threshold={t}, beta=2{tag})", rk.FMeasure(2, relevant_threshold=t, **a),
                 rk.FMeasure(2.0, **nan, **a)),
                (f"FMeasureAtK(k=5, relevant_threshold={t}{tag})", rk.FMeasureAtK(5, relevant_threshold=t, **a),
                 rk.FMeasureAtK(5, denominator="listed", **nan, **a)),
                (f"RPrecision(relevant_threshold={t}{tag})", rk.RPrecision(relevant_threshold=t, **a),
                 rk.RPrecision(denominator="listed", **nan, **a)),
            ]
    rows += [("MAE()", rk.MAE(), rk.MAE()), ("MSE()", rk.MSE(), rk.MSE()), ("RMSE()", rk.RMSE(), rk.RMSE())]
    return [(label, metric.with_convention("clayrs"), explicit) for label, metric, explicit in rows]


MAPPING = _mapping()


@pytest.fixture(scope="module")
def split() -> rk.Split:
    return rk.Split(PRED, TRUTH)


def test_reference_data_is_what_clayrs_needs():
    # ClayRS ranks by row order: rankeval (by score) sees the same lists only if the rows are
    # sorted by score, with distinct scores; ClayRS raises unless pred and truth hold the same users
    by_user = PRED.groupby("user_id", sort=False)["score"]
    assert by_user.apply(lambda s: s.is_monotonic_decreasing and s.is_unique).all()
    assert set(PRED.user_id) == set(TRUTH.user_id) == set(CLAYRS_USERS.user_id)
    assert not PRED.duplicated(["user_id", "item_id"]).any()
    assert not TRUTH.duplicated(["user_id", "item_id"]).any()
    assert LONGEST == 30 and PRED.groupby("user_id").size().min() < 5


def test_every_reference_is_checked():
    assert sorted(label for label, _, _ in MAPPING) == sorted(CLAYRS_USERS.metric.unique())
    assert sorted(CLAYRS_SYSTEM.index) == sorted(CLAYRS_USERS.metric.unique())
    assert CLAYRS_USERS.groupby("metric").size().eq(PRED.user_id.nunique()).all()


@pytest.mark.parametrize("label, metric, explicit", [pytest.param(*row, id=row[0]) for row in MAPPING])
def test_preset_is_the_documented_mapping(label, metric, explicit):
    assert metric == explicit, f"{label}: preset gives {metric!r}, expected {explicit!r}"


@pytest.mark.parametrize("label, metric", [pytest.param(label, metric, id=label) for label, metric, _ in MAPPING])
def test_matches_clayrs_per_user_and_system(split, label, metric):
    result = metric.perform(split)
    ours = result.users[str(metric)]
    theirs = CLAYRS_USERS[CLAYRS_USERS.metric == label].set_index("user_id")["value"]

    assert sorted(ours.index.astype(str)) == sorted(theirs.index)
    ours = ours.set_axis(ours.index.astype(str)).reindex(theirs.index).to_numpy(float)
    theirs_values = theirs.to_numpy(float)
    nan_ours, nan_theirs = np.isnan(ours), np.isnan(theirs_values)
    assert (nan_ours == nan_theirs).all(), (
        f"{label}: NaN for rankeval only {list(theirs.index[nan_ours & ~nan_theirs])}, "
        f"for ClayRS only {list(theirs.index[nan_theirs & ~nan_ours])}")
    diff = np.abs(ours[~nan_ours] - theirs_values[~nan_theirs])
    worst = theirs.index[~nan_theirs][np.argmax(diff)] if len(diff) else None
    assert diff.max() <= TOL, f"{label}: max |rankeval - ClayRS| = {diff.max():.3g} (user {worst})"

    assert abs(float(result.system.loc["sys", str(metric)]) - CLAYRS_SYSTEM[label]) <= TOL


def test_reference_has_the_edge_cases():
    """The references exercise NaN users (NDCG: no judged / all-zero listed items; binary
    metrics: no relevant item at threshold 3), zeros and ones, so a wrong no_relevant or
    denominator cannot pass by accident."""
    v = CLAYRS_USERS.set_index(["metric", "user_id"])["value"]
    assert np.isnan(v["NDCG()"][["s_unjudged", "s_zero"]]).all()
    for name in ("Precision", "MAP", "MRR"):
        assert np.isnan(v[f"{name}(relevant_threshold=3)"][["u5", "u17", "u26"]]).all()
        assert not np.isnan(v[f"{name}(relevant_threshold=None)"]).any()
    assert v["MRR(relevant_threshold=None)"]["s_missed"] == 0
    assert v["MAP(relevant_threshold=None)"]["s_single"] == 0.5  # one relevant item, at position 2
    # P@5 divides by the listed items: s_threes lists 3 items, 2 of them relevant
    assert v["PrecisionAtK(k=5, relevant_threshold=3)"]["s_threes"] == pytest.approx(2 / 3, abs=TOL)
