"""The popularity plots of rankeval.plot: the data they draw equals popularity counted independently."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from ._drawn import box_at, box_stats
from ._require import require

require("matplotlib")
from scipy import stats  # noqa: E402

import rankeval as rk  # noqa: E402
from rankeval import plot  # noqa: E402
from rankeval.datasets import make_ratings, recommend, train_test_folds  # noqa: E402
from rankeval.exceptions import RankevalWarning  # noqa: E402
from rankeval.groups import popularity_groups  # noqa: E402

RATINGS = make_ratings(150, 90, 15, seed=7)
TRAIN, TEST = next(train_test_folds(RATINGS, 4, seed=7))
POP = recommend(TRAIN, TEST, "popularity", 12, seed=7)
RND = recommend(TRAIN, TEST, "random", 12, seed=7)
# an item no training user had, recommended to one user: popularity 0
EXTRA = pd.concat([RND, pd.DataFrame({"user_id": [RND["user_id"].iloc[0]], "item_id": ["new"], "score": [9.0]})],
                  ignore_index=True)


@pytest.fixture(autouse=True)
def close_figures():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


def popularity(train):
    """Distinct training users per item, the naive way."""
    return train.drop_duplicates(["user_id", "item_id"]).groupby("item_id")["user_id"].count()


def top_k(pred, k):
    ordered = pred.sort_values(["user_id", "score"], ascending=[True, False], kind="stable")
    return ordered.groupby("user_id").head(k)


def ordered_items(pop):
    """Items by popularity descending, ties by id ascending."""
    frame = pd.DataFrame({"item": pop.index, "pop": pop.to_numpy()})
    return frame.sort_values(["pop", "item"], ascending=[False, True])


@pytest.mark.parametrize("k", [None, 5])
@pytest.mark.parametrize("pred", [POP, EXTRA], ids=["popularity", "random+unseen-item"])
def test_long_tail_draws_the_popularity_curve_and_marks_recommended_items(pred, k):
    fig = plot.long_tail(TRAIN, pred, k=k)
    ax = fig.axes[0]
    recs = pred if k is None else top_k(pred, k)
    pop = popularity(TRAIN)
    items = pop.index.union(pd.Index(recs["item_id"].unique()))
    order = ordered_items(pop.reindex(items, fill_value=0))
    x, y = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    np.testing.assert_array_equal(x, np.arange(1, len(items) + 1))
    np.testing.assert_array_equal(y, order["pop"].to_numpy(dtype=float))
    marked = order["item"].isin(recs["item_id"]).to_numpy()
    points = ax.collections[-1].get_offsets()
    np.testing.assert_array_equal(points[:, 0], x[marked])
    np.testing.assert_array_equal(points[:, 1], y[marked])
    n_head = round(0.2 * len(items))
    in_tail = int(marked[n_head:].sum())
    assert f"{int(marked.sum())} items, {in_tail} in the long tail" in ax.get_legend().get_texts()[1].get_text()
    if pred is EXTRA:
        assert y[-1] == 0 and marked[-1]  # the unseen item: last, popularity 0, marked


def test_long_tail_over_a_catalog_and_alone(tmp_path):
    catalog = sorted(TRAIN["item_id"].unique()) + ["zz1", "zz2"]
    fig = plot.long_tail(TRAIN, catalog=catalog, path=tmp_path / "tail.png", head=0.5, log_y=True)
    ax = fig.axes[0]
    assert len(ax.lines[0].get_xdata()) == len(catalog) and list(ax.lines[0].get_ydata()[-2:]) == [0, 0]
    assert ax.get_yscale() == "log"
    assert (tmp_path / "tail.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_profile_vs_recommendation_popularity_draws_each_groups_users(tmp_path):
    fig = plot.profile_vs_recommendation_popularity(TRAIN, POP, k=10, path=tmp_path / "p.png")
    ax = fig.axes[0]
    groups = popularity_groups(TRAIN)
    pop = popularity(TRAIN)
    n_users = TRAIN["user_id"].nunique()
    share = pop / n_users
    distinct = TRAIN.drop_duplicates(["user_id", "item_id"])
    profile = distinct.assign(s=distinct["item_id"].map(share)).groupby("user_id")["s"].mean()
    recs_top = top_k(POP, 10)
    recs = recs_top.assign(s=recs_top["item_id"].map(share).fillna(0.0)).groupby("user_id")["s"].mean()
    means = [line for line in ax.lines if line.get_label() == "mean"][0].get_ydata()
    medians = [line.get_ydata()[0] for line in ax.lines if line.get_gid() == "median"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    texts = [t.get_text() for t in ax.texts]
    split = rk.Split(POP, TEST, train=TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        gaps = rk.DeltaGap({g: list(ids) for g, ids in groups.items()}, 10).perform(split).system
    for g, (name, ids) in enumerate(groups.items()):
        members = [u for u in ids if u in recs.index and u in profile.index]
        p, r = profile.loc[members].to_numpy(), recs.loc[members].to_numpy()
        assert means[2 * g] == pytest.approx(p.mean(), rel=1e-12)
        assert means[2 * g + 1] == pytest.approx(r.mean(), rel=1e-12)
        assert np.median(p) == pytest.approx(medians[2 * g], rel=1e-12)
        assert np.median(r) == pytest.approx(medians[2 * g + 1], rel=1e-12)
        for x, values in ((3 * g + 1, p), (3 * g + 2, r)):  # each drawn box: quartiles, whiskers, fliers
            drawn, want = box_at(ax, x, 0.75, mean=False), box_stats(values)
            for key in ("median", "q1", "q3", "whislo", "whishi"):
                assert drawn[key] == pytest.approx(want[key], rel=1e-12), (name, x, key)
            np.testing.assert_allclose(drawn["fliers"], want["fliers"], rtol=1e-12)
        assert labels[g] == f"{name}\n({len(members)} users)"
        gap = gaps.loc["sys", f"DeltaGap@10[{name}]"]
        assert texts[g] == f"ΔGAP {gap:+.2f}".replace("-", "−")
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_profile_vs_recommendation_popularity_explicit_groups_and_series():
    users = sorted(POP["user_id"].unique())
    explicit = {"first": users[:20], "rest": users[20:]}
    series = pd.Series(["first"] * 20 + ["rest"] * (len(users) - 20), index=users)
    a = plot.profile_vs_recommendation_popularity(TRAIN, POP, explicit).axes[0]
    b = plot.profile_vs_recommendation_popularity(TRAIN, POP, series).axes[0]
    mean = [line for line in a.lines if line.get_label() == "mean"][0].get_ydata()
    np.testing.assert_array_equal(mean, [line for line in b.lines if line.get_label() == "mean"][0].get_ydata())
    assert len(mean) == 4 and [t.get_text().split("\n")[0] for t in a.get_xticklabels()] == ["first", "rest"]


@pytest.mark.parametrize("unrecommended", [True, False])
@pytest.mark.parametrize("pred", [POP, EXTRA], ids=["popularity", "random+unseen-item"])
def test_popularity_vs_frequency_points_and_correlation(pred, unrecommended):
    fig = plot.popularity_vs_frequency(TRAIN, pred, k=10, unrecommended=unrecommended)
    ax = fig.axes[0]
    pop = popularity(TRAIN)
    freq = top_k(pred, 10)["item_id"].value_counts()
    items = pop.index.union(freq.index)
    p = pop.reindex(items, fill_value=0).to_numpy(dtype=float)
    f = freq.reindex(items, fill_value=0).to_numpy(dtype=float)
    drawn = (p > 0) & (f > 0)
    points = ax.collections[0].get_offsets()
    order = np.lexsort((points[:, 1], points[:, 0]))
    expected = np.column_stack([p[drawn], f[drawn]])
    np.testing.assert_array_equal(points[order], expected[np.lexsort((expected[:, 1], expected[:, 0]))])
    used = np.ones(len(items), bool) if unrecommended else f > 0
    rho = stats.spearmanr(p[used], f[used]).statistic
    r = stats.pearsonr(p[used], f[used]).statistic
    found = re.search(r"Spearman ρ = (-?[\d.]+), Pearson r = (-?[\d.]+)", ax.get_title())
    assert found is not None, ax.get_title()
    assert float(found[1]) == round(rho, 4) and float(found[2]) == round(r, 4)
    assert ax.get_xscale() == ax.get_yscale() == "log"
    note = ax.texts[0].get_text()
    assert f"{int(used.sum())}" in note and (f"{int((~drawn).sum())} with popularity or frequency 0" in note)


def test_popularity_bias_shows_in_the_correlation():
    def rho(pred):
        title = plot.popularity_vs_frequency(TRAIN, pred, k=10, unrecommended=False).axes[0].get_title()
        return float(re.search(r"Spearman ρ = (-?[\d.]+)", title)[1])
    assert rho(POP) > 0.4 > 0.2 > rho(RND)


def test_rank_column_orders_the_lists():
    ranked = POP.assign(rank=POP.groupby("user_id").cumcount(ascending=False) + 1).drop(columns="score")
    reversed_top = plot.top_k_lists(ranked, 3)
    expected = POP.groupby("user_id").tail(3)
    assert set(map(tuple, reversed_top.to_numpy())) == set(map(tuple, expected[["user_id", "item_id"]].to_numpy()))


@pytest.mark.parametrize("call, match", [
    (lambda: plot.long_tail(TRAIN, POP.drop(columns="item_id")), r"`recommendations` is missing column"),
    (lambda: plot.long_tail(TRAIN.drop(columns="user_id")), r"`train` is missing column"),
    (lambda: plot.long_tail(TRAIN, head=0), r"`head` must be a number in \(0, 1\]"),
    (lambda: plot.popularity_vs_frequency(TRAIN, POP, k=0), r"`k`"),
    (lambda: plot.profile_vs_recommendation_popularity(TRAIN, POP, {"a": 0.5, "b": 0.6}), r"add up to 1.1"),
])
def test_bad_arguments_are_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
