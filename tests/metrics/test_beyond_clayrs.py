"""rankeval's beyond-accuracy metrics against ClayRS 0.5.1's own outputs (tests/reference/clayrs_beyond/).

``tests/reference/clayrs_beyond/generate.py`` ran the real ClayRS (its own venv, not a
test dependency) on the seeded frames stored next to it: ``GiniIndex``,
``PredictionCoverage``, ``CatalogCoverage`` and ``DeltaGap`` of a popularity and a random
recommender, and ClayRS's popularity groups (``split_user_in_groups``). This module does
not import clayrs; it asserts every system value within 1e-12 (coverage: ClayRS's
percentage rounded to 2 decimals, exactly) and the same groups.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.groups import popularity_groups

REF = Path(__file__).parent.parent / "reference" / "clayrs_beyond"
TOL = 1e-12
SETTINGS = {
    "clayrs_default": ({"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}, 0.2),
    "two_groups": ({"mainstream": 0.3, "rest": 0.7}, 0.1),
}


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(REF / f"{name}.csv", dtype={"user_id": str, "item_id": str})


TRAIN, TRUTH, CATALOG = _read("train"), _read("truth"), _read("catalog")
SYSTEM = pd.read_csv(REF / "clayrs_system.csv")
GROUPS = _read("groups")


def _split(system: str) -> rk.Split:
    return rk.Split(_read(f"pred_{system}"), TRUTH, train=TRAIN, catalog=CATALOG)


def _clayrs(system: str, metric: str, column: str) -> float:
    row = SYSTEM[(SYSTEM.system == system) & (SYSTEM.metric == metric) & (SYSTEM.column == column)]
    assert len(row) == 1, (system, metric, column)
    return float(row.value.iloc[0])


def _value(metric: rk.RankingMetric, split: rk.Split, column: str | None = None) -> float:
    system = metric.perform(split).system
    return float(system.loc["sys", column or str(metric)])


@pytest.mark.parametrize("system", ["pop", "random"])
@pytest.mark.parametrize("k", [None, 5, 10])
def test_gini_index_equals_clayrs(system, k):
    label = "GiniIndex()" if k is None else f"GiniIndex(top_n={k})"
    column = "Gini" if k is None else f"Gini - Top {k}"
    expected = _clayrs(system, label, column)
    assert _value(rk.GiniIndex(k), _split(system)) == pytest.approx(expected, abs=TOL, rel=0)
    assert _value(rk.GiniIndex(k).with_convention("clayrs"), _split(system)) == pytest.approx(expected, abs=TOL, rel=0)


@pytest.mark.parametrize("system", ["pop", "random"])
@pytest.mark.parametrize("k", [None, 5, 10])
def test_catalog_coverage_equals_clayrs_percentage(system, k):
    if k is None:
        label, column = "PredictionCoverage(catalog)", "PredictionCoverage"
    else:
        label, column = f"CatalogCoverage(catalog, top_n={k})", f"CatalogCoverage - Top {k}"
    share = _value(rk.CatalogCoverage(k), _split(system))
    assert round(100 * share, 2) == _clayrs(system, label, column)
    assert abs(100 * share - _clayrs(system, label, column)) <= 0.005


@pytest.mark.parametrize("system", ["pop", "random"])
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("k", [None, 5, 10])
def test_delta_gap_equals_clayrs(system, setting, k):
    groups, pct = SETTINGS[setting]
    metric = rk.DeltaGap(groups, k=k, pop_percentage=pct)
    result = metric.perform(_split(system)).system
    assert list(result.columns) == [f"DeltaGap{'' if k is None else f'@{k}'}[{g}]" for g in groups]
    for g in groups:
        column = f"DeltaGap | {g}" if k is None else f"DeltaGap - Top {k} | {g}"
        ours = float(result[f"DeltaGap{'' if k is None else f'@{k}'}[{g}]"].iloc[0])
        expected = _clayrs(system, f"DeltaGap({setting}, top_n={k})", column)
        assert ours == pytest.approx(expected, abs=TOL, rel=0), (g, ours, expected)


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_popularity_groups_equal_clayrs(setting):
    groups, pct = SETTINGS[setting]
    ours = popularity_groups(TRAIN, groups, pop_percentage=pct)
    assert list(ours) == list(groups)
    for g in groups:
        expected = sorted(GROUPS.loc[(GROUPS.setting == setting) & (GROUPS.group == g), "user_id"])
        assert sorted(ours[g].tolist()) == expected


def test_delta_gap_in_evalmodel_one_column_per_group():
    groups, pct = SETTINGS["clayrs_default"]
    model = rk.EvalModel(_read("pred_pop"), TRUTH, [rk.DeltaGap(groups, k=10), rk.NDCGAtK(10)], train=TRAIN)
    sys_result, users_result = model.fit()
    assert [c for c in sys_result.columns if c.startswith("DeltaGap")] == [f"DeltaGap@10[{g}]" for g in groups]
    assert list(users_result.columns) == ["NDCG@10"]  # no per-user value for a system-level metric
    n_users = sys_result.attrs["n_users"]["fold1"]
    assert [n_users[f"DeltaGap@10[{g}]"] for g in groups] == [12, 12, 36]
    expected = _clayrs("pop", "DeltaGap(clayrs_default, top_n=10)", "DeltaGap - Top 10 | niche")
    assert sys_result.loc["fold1", "DeltaGap@10[niche]"] == pytest.approx(expected, abs=TOL, rel=0)


def test_reference_files_are_what_the_generator_describes():
    assert TRAIN.duplicated(["user_id", "item_id"]).sum() == 0
    assert set(TRUTH.user_id) == set(TRAIN.user_id) == set(_read("pred_pop").user_id)
    assert len(CATALOG) == 150 and not set(_read("pred_random").item_id) - set(CATALOG.item_id)
    assert re.fullmatch(r"[0-9.]+", str(pd.read_json(REF / "provenance.json", typ="series")["clayrs"]))
    assert np.isfinite(SYSTEM.value).all()
