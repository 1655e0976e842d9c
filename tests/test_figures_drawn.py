"""What every figure draws, read from its matplotlib artists, against the data-values beside it
and against numbers computed here with plain numpy, pandas and scipy.

The report's tests (tests/test_report.py) check each figure's ``data-values`` JSON, but that
JSON is built beside the drawing, not from it: a curve drawn at k + 1 or a box whose drawn
median is the mean would leave it unchanged. Here each figure function is called directly
(Agg backend, small data, no browser) and what it drew is read back:

- the metric@k curves (``rankeval.page._figures.curves_figure``): each line's x and y, the
  ticks and their labels, each band's lower and upper edge;
- the per-user boxes and violins (``comparison_figure``, i.e. ``ComparisonResult.plot``,
  and ``evaluation_distribution``): each box's median line, box edges (quartiles), whiskers
  (matplotlib's rule: the furthest value within 1.5 IQR of the box), mean marker and fliers;
  each violin's mean, minimum and maximum; each difference's marker, CI bar and fill;
- the critical-difference diagram: each system's line (its mean rank) and label, the CD
  scale bar, the group bars, the rank axis' numbers.

The popularity figures (``rankeval.plot``) have no data-values; tests/test_beyond_plots.py
reads their artists (curve, points, medians, means) against popularity counted by hand.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ._drawn import band_edges, box_at, box_stats, violins
from ._require import require

require("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

import rankeval as rk  # noqa: E402
from rankeval import ComparisonResult, RankevalWarning  # noqa: E402
from rankeval.datasets import make_ratings, recommend, train_test_folds  # noqa: E402
from rankeval.page._figure_data import critical_difference_values  # noqa: E402
from rankeval.page._figures import (  # noqa: E402
    comparison_distributions,
    curve_bands,
    curves_figure,
    cutoff_groups,
    evaluation_distribution,
)
from rankeval.page._view import from_comparison, from_evaluation  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:Conversion of an array with ndim > 0:DeprecationWarning")]

SYSTEMS = {"pop": "popularity", "rand": "random", "oracle": "noisy_oracle"}
METRICS = [rk.NDCGAtK(1), rk.NDCGAtK(3), rk.NDCGAtK(5), rk.MRR()]
BANDS = {"n_bootstrap": 200, "confidence": 0.95, "seed": 4}
BOX_WIDTH = 0.6  # the boxes' width in both box figures


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    """Two folds of 30 users, three systems' lists of 8 items (distinct scores)."""
    ratings = make_ratings(n_users=30, n_items=40, ratings_per_user=8, seed=5)
    lists: dict[str, list[pd.DataFrame]] = {name: [] for name in SYSTEMS}
    truths = []
    for s, (train, test) in enumerate(train_test_folds(ratings, n_folds=2, seed=5)):
        truths.append(test)
        for j, (name, kind) in enumerate(SYSTEMS.items()):
            rec = recommend(train, test, kind, n=8, seed=10 * j + s)
            rec["score"] = 8.0 - rec.groupby("user_id", sort=False).cumcount().to_numpy()
            lists[name].append(rec)
    return lists, truths


@pytest.fixture(scope="module")
def res(data):
    lists, truths = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.compare(lists, truths, METRICS, n_resamples=200)


@pytest.fixture(scope="module")
def single(data):
    """One system's EvalModel.fit() frames (sys_result, users_result)."""
    lists, truths = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankevalWarning)
        return rk.EvalModel(lists["oracle"], truths, METRICS).fit()


# ------------------------------------------------------------------------------------ helpers
def _assert_box(drawn: dict, values: np.ndarray, written: dict) -> None:
    """A drawn box against the values' statistics (computed here) and against its data-values entry."""
    want = box_stats(values)
    for key in ("median", "q1", "q3", "whislo", "whishi", "mean"):
        assert drawn[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key
        assert drawn[key] == pytest.approx(written[key], rel=1e-12, abs=1e-15), key
    assert drawn["whisker_from"] == pytest.approx((want["q1"], want["q3"]), rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(drawn["fliers"], want["fliers"], rtol=1e-12)
    assert written["fliers"] == len(drawn["fliers"]) and written["n"] == np.count_nonzero(~np.isnan(values))


def _stem_k(name: str) -> int:
    return int(name.rsplit("@", 1)[1])


def _complete(res, metric: str) -> np.ndarray:
    x = np.column_stack([res.units[(metric, s)].to_numpy(dtype=float) for s in res.systems])
    return x[~np.isnan(x).any(axis=1)]


def _nemenyi_by_hand(x: np.ndarray, alpha: float, higher: bool) -> tuple[np.ndarray, float, list[list[int]]]:
    """Mean ranks (pandas' row ranks, 1 = best), Demšar's CD, and the maximal runs of systems (in rank order,
    two or more) no pair of which the Nemenyi test separates (studentized range p-value >= alpha)."""
    n, k = x.shape
    ranks = pd.DataFrame(x).rank(axis=1, ascending=not higher, method="average").mean(axis=0).to_numpy()
    se = math.sqrt(k * (k + 1) / (6 * n))
    cd = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2) * se
    order = list(np.argsort(ranks, kind="stable"))

    def apart(a: int, b: int) -> bool:
        return stats.studentized_range.sf(abs(ranks[a] - ranks[b]) * math.sqrt(2) / se, k, np.inf) < alpha

    groups: list[list[int]] = []
    for i in range(k):
        j = i
        while j + 1 < k and not any(apart(order[m], order[j + 1]) for m in range(i, j + 1)):
            j += 1
        if j > i and not (groups and set(order[i:j + 1]) <= set(groups[-1])):
            groups.append(order[i:j + 1])
    return ranks, cd, groups


# ------------------------------------------------------------------------------------ the curves
def _assert_curves(fig, values: dict, systems, expected_means) -> None:
    """Each panel: ticks at the cutoffs labelled with them, one line per system through (k, mean at k), one band
    per system whose edges are the written ci_low / ci_high; the written values equal the drawn ones."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == [p["stem"] for p in values["panels"]]
    for ax, panel in zip(axes, values["panels"]):
        ks = np.array([_stem_k(m) for m in panel["metrics"]], dtype=float)
        assert panel["k"] == [int(k) for k in ks]  # the written cutoffs are the metrics' own
        np.testing.assert_array_equal(ax.get_xticks(), ks)
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(int(k)) for k in ks]
        assert [line.get_label() for line in ax.lines] == list(systems)
        bands = list(ax.collections)
        assert len(bands) == len(systems)
        for line, band, written in zip(ax.lines, bands, panel["lines"]):
            system = line.get_label()
            assert written["system"] == system
            np.testing.assert_array_equal(line.get_xdata(), ks)
            want = [expected_means(metric, system) for metric in panel["metrics"]]
            np.testing.assert_allclose(line.get_ydata(), want, rtol=1e-12)
            np.testing.assert_array_equal(line.get_ydata(), written["value"])
            low, high = band_edges(band, ks)
            np.testing.assert_array_equal(low, written["ci_low"])
            np.testing.assert_array_equal(high, written["ci_high"])
            assert to_rgba(band.get_facecolor()[0], 1.0) == to_rgba(line.get_color(), 1.0)


def test_comparison_curves_draw_each_mean_at_its_cutoff(res):
    """A comparison's curves: the pooled per-user mean (NaN left out) at k = 1, 3, 5, ticks 1, 3, 5."""
    view = from_comparison(res)
    groups = cutoff_groups(view.metrics)
    assert list(groups) == ["NDCG"]
    fig, values = curves_figure(view, groups, **BANDS)
    _assert_curves(fig, values, res.systems, lambda m, s: np.nanmean(res.units[(m, s)].to_numpy(dtype=float)))
    bands, _ = curve_bands(view, groups, **BANDS)  # the drawn band is the one the API computes
    for line in values["panels"][0]["lines"]:
        part = bands[bands["system"] == line["system"]]
        np.testing.assert_array_equal(part["ci_low"], line["ci_low"])
        np.testing.assert_array_equal(part["ci_high"], line["ci_high"])


def test_single_system_curves_draw_the_mean_of_split_means(single):
    """One system: the value at k is the plain mean of each split's mean over its users."""
    sys_result, users_result = single
    view = from_evaluation(sys_result, users_result, "oracle", None)
    fig, values = curves_figure(view, cutoff_groups(view.metrics), **BANDS)

    def split_means(metric, _system):
        return users_result[metric].groupby(level=0).mean().mean()

    _assert_curves(fig, values, ("oracle",), split_means)
    for metric in ("NDCG@1", "NDCG@3", "NDCG@5"):
        assert split_means(metric, None) == pytest.approx(sys_result.loc["mean", metric], rel=1e-12)


# ------------------------------------------------------------------------------------ boxes and violins
@pytest.mark.parametrize("kind", ["box", "violin"])
def test_comparison_figure_draws_each_systems_per_user_values(res, kind):
    """ComparisonResult.plot (as the page draws it): per metric one box (or violin) per system, at x = 1..k."""
    [(fig, values)] = comparison_distributions(res, kind)
    top = fig.axes[:len(res.metrics)]
    for ax, panel, metric in zip(top, values["panels"], res.metrics):
        assert ax.get_title() == panel["metric"] == metric
        assert [t.get_text() for t in ax.get_xticklabels()] == list(res.systems)
        np.testing.assert_array_equal(ax.get_xticks(), np.arange(1, len(res.systems) + 1))
        per_user = [res.units[(metric, s)].to_numpy(dtype=float) for s in res.systems]
        if kind == "box":
            for p, (x, written) in enumerate(zip(per_user, panel["systems"]), start=1):
                _assert_box(box_at(ax, p, BOX_WIDTH), x, written)
        else:
            drawn = violins(ax)
            np.testing.assert_array_equal(drawn["x"], np.arange(1, len(res.systems) + 1))
            for name, reduce in (("mean", np.nanmean), ("max", np.nanmax), ("min", np.nanmin)):
                np.testing.assert_allclose(drawn[name], [reduce(x) for x in per_user], rtol=1e-12)
                np.testing.assert_allclose(drawn[name], [w[name] for w in panel["systems"]], rtol=1e-12)


def test_comparison_figure_draws_each_difference_and_its_ci(res):
    """The lower panels: each pair's marker at the paired mean difference b − a (here by hand), its bar from the
    API's ci_low to ci_high, filled when significant, labelled ``b − a``; the same as the data-values."""
    [(fig, values)] = comparison_distributions(res, "box")
    bottom = fig.axes[len(res.metrics):]
    written = {(d["metric"], d["a"], d["b"]): d for d in values["differences"]}
    for j, (ax, metric) in enumerate(zip(bottom, res.metrics)):
        rows = res.table.xs(metric, level="metric")
        containers = ax.containers
        assert len(containers) == len(rows)
        if j == 0:
            assert [t.get_text() for t in ax.get_yticklabels()] == [f"{b} − {a}" for a, b in rows.index]
        for (a, b), container, yi in zip(rows.index, containers, ax.get_yticks()):
            marker, _caps, (bar,) = container.lines
            d = res.units[(metric, b)].to_numpy(dtype=float) - res.units[(metric, a)].to_numpy(dtype=float)
            x = marker.get_xdata()[0]
            assert x == pytest.approx(np.nanmean(d), rel=1e-12, abs=1e-15)
            assert marker.get_ydata()[0] == yi
            [[(low, y0), (high, y1)]] = bar.get_segments()
            assert y0 == y1 == yi
            row, w = rows.loc[(a, b)], written[(metric, a, b)]
            assert (low, x, high) == pytest.approx((row["ci_low"], row["diff"], row["ci_high"]), rel=1e-12)
            assert (low, x, high) == pytest.approx((w["ci_low"], w["diff"], w["ci_high"]), rel=1e-12)
            filled = to_rgba(marker.get_markerfacecolor()) != to_rgba("white")
            assert filled == bool(row["significant"]) == w["significant"]


@pytest.mark.parametrize("kind", ["box", "violin"])
def test_single_system_distribution_draws_each_metrics_per_user_values(single, kind):
    """One system: one box (or violin) per metric, at x = 1..m, labelled with the metric."""
    sys_result, users_result = single
    view = from_evaluation(sys_result, users_result, "oracle", None)
    fig, values = evaluation_distribution(view, kind)
    [ax] = fig.axes
    metrics = list(users_result.columns)
    assert [t.get_text() for t in ax.get_xticklabels()] == metrics
    panel_values = [p["systems"][0] for p in values["panels"]]  # one system: its entry of each metric's panel
    assert [p["metric"] for p in values["panels"]] == metrics
    per_user = [users_result[m].to_numpy(dtype=float) for m in metrics]
    if kind == "box":
        for p, (x, written) in enumerate(zip(per_user, panel_values), start=1):
            _assert_box(box_at(ax, p, BOX_WIDTH), x, written)
    else:
        drawn = violins(ax)
        np.testing.assert_array_equal(drawn["x"], np.arange(1, len(metrics) + 1))
        for name, reduce in (("mean", np.nanmean), ("max", np.nanmax), ("min", np.nanmin)):
            np.testing.assert_allclose(drawn[name], [reduce(x) for x in per_user], rtol=1e-12)
            np.testing.assert_allclose(drawn[name], [w[name] for w in panel_values], rtol=1e-12)


def test_box_reader_sees_a_median_apart_from_the_mean():
    """The check above can tell a median from a mean: on skewed values they differ, and the drawn box has the
    median (a box test whose data had median == mean could not catch one drawn for the other)."""
    x = np.array([0.0, 0.0, 0.1, 0.2, 1.0, 1.0, 5.0])
    fig, ax = plt.subplots()
    ax.boxplot([x], positions=[1], patch_artist=True, showmeans=True, widths=BOX_WIDTH,
               meanprops={"marker": "D"})
    drawn, want = box_at(ax, 1, BOX_WIDTH), box_stats(x)
    assert drawn["median"] == want["median"] == 0.2 and drawn["mean"] == pytest.approx(x.mean())
    assert drawn["whishi"] == 1.0 and list(drawn["fliers"]) == [5.0]


# ------------------------------------------------------------------------------------ critical difference
def _assert_cd(ax, res, metric: str, alpha: float) -> None:
    """Each system's line starts on the axis at its mean rank (pandas' row ranks, by hand), its label names it
    with that rank; the scale bar is Demšar's CD long from rank 1; each group bar spans a maximal run of
    systems the Nemenyi test does not separate (0.04 beyond its ends); the axis is numbered 1..k. The
    data-values read from the diagram say the same, and so do the API's mean_ranks() and nemenyi()."""
    x = _complete(res, metric)
    higher = res.higher_is_better.get(metric, True)
    ranks, cd, groups = _nemenyi_by_hand(x, alpha, higher)
    systems = list(res.systems)
    lines = [line for line in ax.lines if line.get_gid() == "cd-system"]
    labels = [t for t in ax.texts if t.get_gid() == "cd-label"]
    assert len(lines) == len(labels) == len(systems)
    drawn = {}
    for line, label in zip(lines, labels):
        name, shown = label.get_text().rsplit(" (", 1)
        xs, ys = line.get_xdata(), line.get_ydata()
        assert ys[0] == 0 and xs[0] == xs[1] and ys[1] == ys[2] == label.get_position()[1]
        drawn[name] = xs[0]
        assert shown == f"{ranks[systems.index(name)]:.2f})"
    assert set(drawn) == set(systems)
    np.testing.assert_allclose([drawn[s] for s in systems], ranks, rtol=1e-12)
    np.testing.assert_allclose([drawn[s] for s in systems], res.mean_ranks().loc[metric, systems], rtol=1e-12)
    [bar, *ends] = [line for line in ax.lines if line.get_gid() == "cd-scale"]
    assert sorted(bar.get_xdata()) == pytest.approx([1.0, 1.0 + cd], rel=1e-12)
    assert sorted(e.get_xdata()[0] for e in ends) == pytest.approx([1.0, 1.0 + cd], rel=1e-12)
    assert float(res.nemenyi(alpha=alpha)["critical_difference"].iloc[0]) == pytest.approx(cd, rel=1e-12)
    bars = [sorted(line.get_xdata()) for line in ax.lines if line.get_gid() == "cd-group"]
    assert len(bars) == len(groups)
    np.testing.assert_allclose(np.reshape(bars, (-1, 2)), np.reshape(
        [[ranks[g[0]] - 0.04, ranks[g[-1]] + 0.04] for g in groups], (-1, 2)), rtol=1e-12)
    numbers = [(t.get_position()[0], t.get_text()) for t in ax.texts if t.get_text().isdigit()]
    assert numbers == [(float(r), str(r)) for r in range(1, len(systems) + 1)]
    written = critical_difference_values(ax, metric, alpha)
    assert written["mean_ranks"] == pytest.approx(dict(zip(systems, ranks)), rel=1e-12)
    assert written["critical_difference"] == pytest.approx(cd, rel=1e-12)
    assert [sorted(g) for g in written["groups"]] == [sorted(systems[i] for i in g) for g in groups]


def _matrix_result(x: np.ndarray, systems: tuple[str, ...], alpha: float = 0.05) -> ComparisonResult:
    units = pd.DataFrame({("split", ""): ["fold1"] * len(x), ("user_id", ""): np.arange(len(x))})
    for j, s in enumerate(systems):
        units[("AUC", s)] = x[:, j]
    units.columns = pd.MultiIndex.from_tuples(units.columns)
    return ComparisonResult(table=pd.DataFrame(), units=units, systems=systems, metrics=("AUC",), test="paired_t",
                            correction="holm", alpha=alpha, n_resamples=1000, seed=0)


@pytest.mark.parametrize("metric", ["NDCG@5", "MRR"])
def test_critical_difference_diagram_of_a_comparison(res, metric):
    ax = res.plot_critical_difference(metric)
    _assert_cd(ax, res, metric, res.alpha)


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_critical_difference_diagram_with_several_groups(alpha):
    """Five systems whose per-unit order is mostly fixed, with noise: ranks apart enough for two or more
    overlapping group bars, listed in an order other than their ranks'."""
    rng = np.random.default_rng(11)
    x = np.array([0.3, 0.1, 0.5, 0.2, 0.45]) + rng.normal(0, 0.12, size=(14, 5))
    res = _matrix_result(x, ("c", "a", "e", "b", "d"), alpha)
    _, _, groups = _nemenyi_by_hand(_complete(res, "AUC"), alpha, True)
    assert len(groups) >= 2  # the case is worth drawing: several bars
    _assert_cd(res.plot_critical_difference("AUC", alpha=alpha), res, "AUC", alpha)
