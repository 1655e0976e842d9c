"""compare() with side data: per-user beyond-accuracy metrics are tested, system-level ones listed."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankeval as rk
from rankeval.evaluation import TABLE_COLUMNS
from rankeval.datasets import make_ratings, recommend, train_test_folds
from rankeval.exceptions import RankevalWarning


def _data(n_folds=2):
    ratings = make_ratings(120, 80, 15, seed=3)
    folds = list(train_test_folds(ratings, n_folds, seed=3))[:2]
    trains = [tr for tr, _ in folds]
    truths = [te for _, te in folds]
    systems = {kind: [recommend(tr, te, kind, 10, seed=3) for tr, te in folds]
               for kind in ("popularity", "random", "noisy_oracle")}
    rng = np.random.default_rng(3)
    items = sorted(ratings["item_id"].unique())
    features = pd.DataFrame(rng.normal(size=(len(items), 5)), index=items, columns=[f"f{i}" for i in range(5)])
    return systems, truths, trains, features


SYSTEMS, TRUTHS, TRAINS, FEATURES = _data()
PER_USER = [rk.AveragePopularity(10), rk.TailShare(10), rk.Novelty(10), rk.IntraListDiversity(10), rk.NDCGAtK(10)]
LISTED = [rk.CatalogCoverage(10), rk.GiniIndex(10), rk.ShannonEntropy(10),
          rk.DeltaGap({"blockbuster": 0.2, "niche": 0.2, "diverse": 0.6}, 10), rk.PrecisionAtK(10, average="micro")]


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def result():
    return quiet(rk.compare, SYSTEMS, TRUTHS, PER_USER + LISTED, train=TRAINS, item_features=FEATURES,
                 n_resamples=200)


def test_per_user_metrics_are_tested_with_evalmodels_values(result):
    names = [str(m) for m in PER_USER]
    assert result.metrics == tuple(names)
    assert sorted(set(result.table.index.get_level_values("metric"))) == sorted(names)
    for system, preds in SYSTEMS.items():
        _, users = quiet(rk.EvalModel(preds, TRUTHS, PER_USER, train=TRAINS, item_features=FEATURES).fit)
        units = result.units.set_index(["split", "user_id"])
        for name in names:
            expected = users[name].dropna()
            got = units.loc[expected.index, (name, system)]
            np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


def test_system_level_metrics_are_listed_per_system_with_evalmodels_mean(result):
    names = ["Coverage@10", "Gini@10", "Entropy@10", "DeltaGap@10[blockbuster]", "DeltaGap@10[niche]",
             "DeltaGap@10[diverse]", "P@10-micro"]
    assert list(result.system_values.columns) == names
    assert list(result.system_values.index) == list(SYSTEMS) and result.system_values.index.name == "system"
    assert not set(names) & set(result.table.index.get_level_values("metric"))
    for system, preds in SYSTEMS.items():
        sys_result, _ = quiet(rk.EvalModel(preds, TRUTHS, LISTED, train=TRAINS).fit)
        for name in names:
            assert result.system_values.loc[system, name] == sys_result.loc["mean", name]
            assert sys_result.loc["mean", name] == np.mean(sys_result.loc[["fold1", "fold2"], name])
    # the popularity recommender covers less of the catalog than the random one
    assert result.system_values.loc["popularity", "Coverage@10"] < result.system_values.loc["random", "Coverage@10"]


def test_listed_metrics_change_no_bit_of_the_tests(result):
    alone = quiet(rk.compare, SYSTEMS, TRUTHS, PER_USER, train=TRAINS, item_features=FEATURES, n_resamples=200)
    pd.testing.assert_frame_equal(alone.table, result.table)
    pd.testing.assert_frame_equal(alone.units, result.units)
    assert alone.system_values.shape == (3, 0)
    assert alone.to_markdown().count("†") == 0


def test_one_side_for_all_splits_or_one_per_split():
    both = [TRAINS[0], TRAINS[0]]
    one = quiet(rk.compare, SYSTEMS, TRUTHS, [rk.Novelty(10), rk.CatalogCoverage(10)], train=TRAINS[0],
                n_resamples=40)
    listed = quiet(rk.compare, SYSTEMS, TRUTHS, [rk.Novelty(10), rk.CatalogCoverage(10)], train=both,
                   n_resamples=40)
    side = quiet(rk.compare, SYSTEMS, TRUTHS, [rk.Novelty(10), rk.CatalogCoverage(10)],
                 side=rk.SideData(train=TRAINS[0]), n_resamples=40)
    for other in (listed, side):
        pd.testing.assert_frame_equal(one.table, other.table)
        pd.testing.assert_frame_equal(one.system_values, other.system_values)
    per_split = quiet(rk.compare, SYSTEMS, TRUTHS, [rk.Novelty(10), rk.CatalogCoverage(10)], train=TRAINS,
                      n_resamples=40)
    assert not per_split.units.equals(one.units)  # fold 2 measured against its own train


@pytest.mark.parametrize("kwargs, match", [
    ({}, r"^Novelty@10 needs side data \(split 'fold1'\): pass train="),
    ({"train": TRAINS[:1]}, r"`train` has 1 entries for 2 splits"),
    ({"train": TRAINS[0], "side": rk.SideData(train=TRAINS[0])}, r"either `side` or `train`"),
    ({"train": TRAINS[0].drop(columns="item_id")}, r"`train` is missing column"),
])
def test_side_data_errors_name_the_argument_once(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rk.compare(SYSTEMS, TRUTHS, [rk.Novelty(10)], n_resamples=40, **kwargs)


def test_only_listed_metrics_give_an_empty_table_and_tables_without_marks():
    res = quiet(rk.compare, SYSTEMS, TRUTHS, [rk.CatalogCoverage(10), rk.GiniIndex(10)], train=TRAINS,
                n_resamples=40)
    assert res.table.empty and list(res.table.columns) == list(TABLE_COLUMNS)
    assert res.table.index.names == ["metric", "system_a", "system_b"] and res.metrics == ()
    md = res.to_markdown()
    assert md.splitlines()[0] == "| system | Coverage@10† | Gini@10† |"
    assert "**" not in md and "<sup>" not in md and "| metric | difference" not in md
    tex = res.to_latex()
    assert r"Coverage@10$^\dagger$" in tex and r"\textbf" not in tex and "Paired differences" not in tex
    with pytest.raises(ValueError, match="nothing to plot"):
        res.plot()


def test_markdown_and_latex_show_listed_values_plain(result):
    md = result.to_markdown(3)
    lines = md.splitlines()
    head = lines[0].strip("| ").split(" | ")
    assert head[:6] == ["system", "ARP@10", "TailShare@10", "Novelty@10", "ILD@10", "NDCG@10"]
    assert head[6:] == [f"{c}†" for c in result.system_values.columns]
    for line, system in zip(lines[2:5], SYSTEMS):
        cells = line.strip("| ").split(" | ")
        listed = cells[6:]
        assert listed == [f"{v:.3f}" for v in result.system_values.loc[system]]
        assert not any("**" in c or "<sup>" in c for c in listed)
    assert "†: no per-user value to pair" in md
    # the tested part is exactly what it was: bold best values and the difference table
    assert "**" in md and "| metric | difference | mean | CI | p (adjusted) | n |" in md
    tex = result.to_latex(3)
    assert r"P@10-micro$^\dagger$" in tex and r"$^\dagger$: no per-user value to pair" in tex
    assert tex.count(r"\begin{table}") == 3  # means, differences, effect sizes
