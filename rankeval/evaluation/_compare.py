"""compare(): paired, corrected, reproducible significance tests between recommenders."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..data.internal import MISSING_USERS, MissingUsers, check_choice, check_number
from ..engines import EvalPlan, engine_for
from ..engines.internal import LIST_CHECKS, SPLIT_CHECKS, sharing_truth
from ..exceptions import DroppedUnitsWarning, RankevalWarning
from ..metrics import RankingMetric
from ..metrics.sampled import SampledCandidates
from ..stats import PAIRED_TESTS, check_margin, cohen_dz, mean_difference, paired_test, stable_mean
from ._eval_model import shows_progress, system_frame
from ._model_lists import lists_as_frames
from ._plan import build_plan, frames_per_split, with_truth_items
from ._result import TEST_COLUMNS, ComparisonResult
from ._seeds import SeedRuns

__all__ = ["compare", "ComparisonResult", "TESTS", "CORRECTIONS"]

TESTS = PAIRED_TESTS
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", None)
#: the most resamples compare accepts (enough for a p-value's Monte Carlo error below 1e-4)
MAX_RESAMPLES = 100_000_000
#: per (metric, system): its value on every (split, user) unit, NaN where it has none
UnitValues = dict[tuple[str, str], np.ndarray]


def _concat_ids(parts: list[np.ndarray]) -> np.ndarray:
    """The ids of several systems in one array, never through float64.

    numpy concatenates int64 with uint64 as float64, where ids beyond 2**53 collide
    (2**62 and 2**62 + 1 would be one unit); such mixes are kept as Python ints.
    """
    kinds = {p.dtype for p in parts}
    if len(kinds) <= 1:
        return np.concatenate(parts)
    if all(k.kind in "iu" for k in kinds):
        merged = np.concatenate([p.astype(object) for p in parts])
        try:
            return merged.astype(np.int64)
        except OverflowError:
            return merged
    return np.concatenate([p.astype(object) for p in parts])


def _distinct_indexes(indexes: list[pd.Index]) -> list[pd.Index]:
    """``indexes`` without those equal (same ids, same order, same dtype) to an earlier one:
    the union of their ids, in order of first appearance, is unchanged."""
    kept: list[pd.Index] = []
    for index in indexes:
        if not any(index.dtype == k.dtype and index.equals(k) for k in kept):
            kept.append(index)
    return kept


def _sorted_ids(values: np.ndarray) -> np.ndarray:
    unique = pd.unique(values)
    try:
        return np.asarray(pd.Index(unique).sort_values())
    except TypeError:  # ids of mixed types: order by type, then text
        return np.asarray(sorted(unique, key=lambda x: (type(x).__name__, str(x))), dtype=object)


def compare(systems: Mapping[str, pd.DataFrame | Sequence[pd.DataFrame]],
            truth: pd.DataFrame | Sequence[pd.DataFrame], metrics: Sequence[RankingMetric], *,
            test: str = "paired_t", correction: str | None = "holm", baseline: str | None = None,
            alpha: float = 0.05, n_resamples: int = 10_000, seed: int = 0, ci_method: str = "bca",
            missing_users: MissingUsers | None = None, split_names: Sequence[str] | None = None,
            progress: bool | None = None, n_buckets: int | None = None, convention: str | None = None,
            train: Any = None, catalog: Any = None, item_features: Any = None, side: Any = None,
            sampled: SampledCandidates | None = None, estimator: str = "bias_variance",
            gamma: float | None = None, item_groups: Any = None, equivalence_margin: Any = None,
            truth_items: str = "all",
            **split_options: Any) -> ComparisonResult:
    """Compare recommenders with paired significance tests over (split, user) units.

    Every system is evaluated on the same truth; for every metric and every pair of
    systems, the per-user values are paired by (split, user) and tested.

    Parameters
    ----------
    systems : mapping of name -> DataFrame or list of DataFrame, or of name -> mapping
        Each system's lists, one frame per split (as ``truth``); or ``{seed: lists}``, its training
        seeds' runs, tested on the per-user values averaged over seeds (docs/compare.md). A
        :class:`~rankeval.rank.TopK` (from :func:`rankeval.rank.top_k`) stands for a frame, read
        as integer codes, as in :class:`~rankeval.EvalModel`.
    truth : DataFrame, list of DataFrame or Splits
        Held-out ratings, one frame per split; or a :class:`~rankeval.split.Splits`, whose
        tests are the truth, trains the ``train`` side data and names the split names (as
        in :class:`~rankeval.EvalModel`). With ``train``, the audit's cheap checks run and
        warn with counts (:class:`~rankeval.ProtocolWarning`).
    metrics : list of RankingMetric
        Metrics to compare (unique names).
    test : {"paired_t", "wilcoxon", "randomization"}
        ``scipy.stats.ttest_rel(b, a)``; ``scipy.stats.wilcoxon(b, a)`` (signed rank,
        statistic W = min(R+, R-)); or a paired sign-flip randomization test of the mean
        difference (``scipy.stats.permutation_test(permutation_type="samples")``'s
        definition). All two-sided.
    correction : {"holm", "bonferroni", "fdr_bh", None}
        Multiple-testing correction over every (metric, pair) test of the call.
    baseline : str, optional
        Compare every other system with this one (it is always ``system_a``); default:
        every pair, in the order given.
    alpha : float
        Significance level, in (0, 1); the bootstrap CI has confidence ``1 - alpha``.
    n_resamples : int
        Resamples of the randomization test and of the bootstrap CI; at least
        ``ceil(2 / alpha)`` (40 at ``alpha = 0.05``), below which no randomization p-value
        can fall under ``alpha`` and the CI's tails hold no resample.
    seed : int
        Seed of every random draw: the same inputs and seed give the same numbers.
    ci_method : {"bca", "percentile", "basic"}
        Bootstrap interval of every ``diff``, as ``scipy.stats.bootstrap(method=...)``.
    missing_users : {None, "ignore", "zero", "error"}
        Truth users a system has no list for (see :class:`~rankeval.EvalModel`). None: the
        ``convention``'s rule, ``"ignore"`` without one.
    convention : str, optional
        A peer's definitions for every metric and split option (see
        :mod:`rankeval.conventions`); recorded in ``ComparisonResult.convention``.
    split_names : list of str, optional
        Split names (default ``fold1``, ...).
    progress : bool, optional
        Progress bars (default: on a terminal, for large inputs).
    n_buckets : int, optional
        Spark inputs only: buckets of users per split (see :class:`~rankeval.EvalModel`).
    train : DataFrame or list of DataFrame, optional
        Side data of the beyond-accuracy and fairness metrics (docs/beyond_accuracy.md):
        the interactions the systems learned from, for every split or one per split, as
        :class:`~rankeval.EvalModel`'s. Given once for every system, validated once and
        shared by every system's splits (local frames, also with Spark inputs); with it,
        the audit's cheap checks warn.
    catalog : iterable, Series or DataFrame, or a list of them, optional
        Side data: the recommendable items, for every split or one per split; None: every
        item of ``train`` and of the split's truth (when ``train`` is given).
    item_features : DataFrame or list of DataFrame, optional
        Side data: a frame indexed by item id (numeric vector columns, or one column of
        category sets), for the diversity metrics.
    side : SideData or list of SideData, optional
        Side data already validated, instead of ``train``, ``catalog``, ``item_features``
        and ``item_groups``.
    sampled : SampledCandidates, optional
        The lists are sampled candidates: every metric is tested as its estimate of the
        full-catalog value and as its naive value (``<metric>-naive``), see
        :class:`~rankeval.EvalModel`.
    estimator : {"bias_variance", "minimal_bias", "rescaled", "naive"}
        With ``sampled``: the estimator of the full-catalog metric (``"naive"``: only the
        naive column).
    item_groups : Series, mapping or DataFrame, or a list of them, optional
        Side data: item id -> group label (a provider, a genre), for the fairness metrics.
    gamma : float, optional
        With ``sampled`` and the bias-variance estimator: the weight of the variance, in
        [0, 1]; None (the default) is 0.1 (:data:`~rankeval.sampled.DEFAULT_GAMMA`).
    equivalence_margin : float, str or mapping of metric -> float or str, optional
        Test every pair for equivalence within ± this margin (absolute, or ``"1%"`` of system a's
        mean): :meth:`ComparisonResult.equivalence_test` with the comparison's ``test``.
    truth_items : {"all", "repeat", "explore"}
        The truth rows every metric is computed on: all, the repeat items (pairs in the
        split's ``train``) or the new ones, as in :class:`~rankeval.EvalModel` (the truth
        is restricted once, for every system).
    **split_options
        Column names, ``score_order`` and ``ties``, passed to every :class:`~rankeval.Split`.

    Returns
    -------
    ComparisonResult

    Notes
    -----
    Units are ``(split, user)``. A test uses the units where both systems have a value;
    the others (NaN in either system, or a user one system did not list) are counted in
    a :class:`~rankeval.DroppedUnitsWarning`. ``mean_a``, ``mean_b`` and ``diff`` are
    pooled over the paired units of all splits. The CI is that of the ordinary paired
    bootstrap (a test's ``n`` paired units drawn ``n`` times with replacement, exact at
    every ``n``), BCa by default, as ``scipy.stats.bootstrap`` computes it. Its draws
    depend only on ``seed`` and ``n`` and the randomization test's signs only on ``seed``
    and the split, so a test's numbers do not change when other systems or metrics are
    added, nor with the rows' order. When every paired difference is 0, every test gives
    p = 1 and the CI is [0, 0]; with fewer than 2 paired units a test has no statistic,
    p-value or CI (NaN, with a :class:`~rankeval.RankevalWarning` naming metric and pair).
    A metric whose system value is not the mean of its users' values has nothing to pair
    per unit: the system-level metrics (``CatalogCoverage``, ``GiniIndex``,
    ``ShannonEntropy``, ``DeltaGap``: ``system_level = True``), micro averages
    (``average="micro"``) and the counts' ``average="sum"`` (see
    :meth:`~rankeval.RankingMetric.system_parts`). They are evaluated on every system and
    listed in ``ComparisonResult.system_values`` (mean over splits), with no test; to test
    a micro-averaged metric, compare its ``average="macro"`` form, which has the same
    per-user values. The per-user beyond-accuracy metrics (``ARP``, ``TailShare``,
    ``Novelty``, ``ILD``) are tested like any metric.
    """
    test, alpha, ci_method = _check_test_options(test, correction, alpha, ci_method, n_resamples, seed,
                                                 missing_users)
    check_margin(equivalence_margin)  # before any system runs
    names = _check_system_names(systems, baseline)
    systems, names, runs = SeedRuns.expand(systems, names)  # every training seed's run: a system of its own
    # a TopK of rankeval.rank becomes a frame of codes here: no Python object per listed row
    preds = {name: frames_per_split(lists_as_frames(frames, truth, split_options, f"systems['{name}']", convention),
                                    f"systems['{name}']") for name, frames in zip(names, systems.values())}
    # one plan for every system: the truth, side data, baselines and metrics are read once
    plan = build_plan(truth, metrics, systems=preds, metric_argument="metrics", truth_argument="truth",
                      split_names=split_names, missing_users=missing_users, convention=convention, train=train,
                      catalog=catalog, item_features=item_features, side=side, item_groups=item_groups,
                      sampled=sampled, estimator=estimator, gamma=gamma, progress=progress, n_buckets=n_buckets,
                      split_options=split_options, baseline=baseline)
    plan, preds = with_truth_items(plan, preds, truth_items)  # once, for every system
    # a micro average (pooled counts), a sum or a value over items (coverage, Gini, DeltaGap) is
    # no mean of per-user values: there is nothing to pair per (split, user), so it is listed
    # per system (ComparisonResult.system_values), never tested
    listed = [str(m) for m in plan.metrics if not _is_tested(m)]
    metric_names = [str(m) for m in plan.metrics if _is_tested(m)]
    users, split_values = _evaluate_systems(plan, names, preds, listed)
    split_labels = list(plan.split_names)
    values, evaluated, sizes, universe_ids = _unit_values(users, split_labels, names, metric_names)
    values, evaluated, split_values, names, seeds = runs.collapse(values, evaluated, split_values, metric_names)
    units = _units_frame(values, evaluated, sizes, universe_ids, split_labels)
    n_units = int(sum(sizes))

    pairs = ([(str(baseline), n) for n in names if n != str(baseline)] if baseline is not None
             else list(combinations(names, 2)))
    from ..stats import ResamplingPlan, adjust_pvalues

    higher = {str(m): m.higher_is_better for m in plan.metrics}
    _warn_infinite_units(values, metric_names, pairs)
    with np.errstate(invalid="ignore", over="ignore"):  # infinite values: said above, NaN statistics below
        table, dropped = _run_tests(values, evaluated, metric_names, pairs, higher, test, alpha,
                                    ResamplingPlan(sizes, int(seed), int(n_resamples)), ci_method,
                                    progress=shows_progress(progress, n_units * int(n_resamples) // 16))
    _warn_untested_units(table, dropped)
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), correction)
    table["significant"] = table["p_adjusted"] < alpha
    system_values = pd.DataFrame({m: [float(split_values[s].loc["mean", m]) for s in names] for m in listed},
                                 index=pd.Index(names, name="system"), columns=pd.Index(listed, dtype=object))
    result = ComparisonResult(table=table[TEST_COLUMNS], units=units, systems=tuple(names),
                              metrics=tuple(metric_names), test=test, correction=correction, alpha=float(alpha),
                              n_resamples=int(n_resamples), seed=int(seed), higher_is_better=higher,
                              convention=plan.convention, ci_method=ci_method, system_values=system_values)
    return result.with_sureness(equivalence_margin, seeds)


def _check_test_options(test: str, correction: str | None, alpha: float, ci_method: str, n_resamples: int,
                        seed: int, missing_users: MissingUsers | None) -> tuple[str, float, str]:
    """The test, ``alpha`` and ``ci_method`` checked (the other options only checked), in argument order."""
    test = check_choice("test", test, TESTS)
    if correction is not None:
        check_choice("correction", correction, [c for c in CORRECTIONS if c is not None])
    alpha = check_number("alpha", alpha)
    from ..stats import CI_METHODS, min_resamples
    ci_method = check_choice("ci_method", ci_method, CI_METHODS)
    if float(alpha) < 2.0 / MAX_RESAMPLES:
        raise ValueError(f"`alpha` = {alpha!r} is too small to test: it needs ceil(2 / alpha) resamples, more than "
                         f"the {MAX_RESAMPLES:,} allowed (the smallest alpha is {2.0 / MAX_RESAMPLES:g})")
    fewest = min_resamples(float(alpha))
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < fewest:
        raise ValueError(f"`n_resamples` must be an integer >= {fewest} (= ceil(2 / alpha) at alpha = {alpha:g}: "
                         f"with fewer, no randomization p-value can fall below alpha and the bootstrap CI's tails "
                         f"hold no resample), got {n_resamples!r}")
    if n_resamples > MAX_RESAMPLES:
        # resamples are drawn in batches, but a count this large would run for days
        raise ValueError(f"`n_resamples` must be at most {MAX_RESAMPLES:,} (Monte Carlo error ~ "
                         f"1/sqrt(n_resamples) is then below 1e-4), got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, got {seed!r}")
    if missing_users is not None:
        check_choice("missing_users", missing_users, MISSING_USERS)
    return test, alpha, ci_method


def _check_system_names(systems: Any, baseline: str | None) -> list[str]:
    """The systems' names as strings: at least two, distinct, the baseline among them."""
    if not isinstance(systems, Mapping):
        raise TypeError(f"`systems` must be a mapping of name -> DataFrame(s), got {type(systems).__name__}")
    names = [str(n) for n in systems]
    if len(names) < 2:
        raise ValueError(f"`systems` needs at least two systems to compare, got {len(names)}: {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"`systems` names must be distinct as strings, got {names}")
    if baseline is not None and str(baseline) not in names:
        raise ValueError(f"`baseline` {baseline!r} is not among the systems {names}")
    return names


def _evaluate_systems(plan: EvalPlan, names: list[str], preds: dict[str, list[Any]], listed: list[str]
                      ) -> tuple[dict[str, list[pd.DataFrame | None]], dict[str, pd.DataFrame]]:
    """Every system run by one engine on the plan's truth: its per-user values (one frame per
    split, indexed by user, collected from Spark) and its per-split values of the ``listed`` metrics.

    Each system's lists are checked against train; the split-level checks (test against
    train) run once, on the first system's engine. Errors and rankeval's warnings name the
    system they are about.
    """
    users: dict[str, list[pd.DataFrame | None]] = {}
    split_values: dict[str, pd.DataFrame] = {}
    # the lists' checks per system, the splits' once (truth_items='repeat' turns some off)
    # each split's truth ids hashed once for every system's join (local engine)
    per_system = dataclasses.replace(sharing_truth(plan, preds.values()),
                                     protocol_checks=tuple(c for c in LIST_CHECKS if c in plan.protocol_checks))
    first = None
    for name in names:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                engine = engine_for(per_system, preds[name])
                run = engine.run(per_system, stacked=False)
                split_values[name] = system_frame(run.rows, plan, run.counts)[listed]
            except ValueError as exc:  # which system's lists are at fault
                raise ValueError(f"system {name!r}: {exc}") from exc
        for w in caught:  # say which system a warning is about
            message = f"system {name!r}: {w.message}" if issubclass(w.category, RankevalWarning) else w.message
            warnings.warn_explicit(message, w.category, w.filename, w.lineno)
        users[name] = run.users
        # only the first system's splits are kept (for the split-level checks): the others' memory is freed
        first = engine if first is None else first
        del engine, run
    assert first is not None
    first.check_protocol(plan, tuple(c for c in SPLIT_CHECKS if c in plan.protocol_checks), stacklevel=3)
    return users, split_values


def _unit_values(users: dict[str, list[pd.DataFrame | None]], split_labels: list[str], names: list[str],
                 metric_names: list[str]
                 ) -> tuple[UnitValues, dict[str, np.ndarray], tuple[int, ...], list[np.ndarray]]:
    """Per (metric, system), its value on every unit (NaN where it has none); per system, the
    units it evaluated; the number of units of each split and their user ids."""
    # the unit universe: every user some system was evaluated on, sorted by (split position, user id);
    # users no system scored (truth-only users left out) are no units, so adding them changes nothing
    universe_ids = []
    for s in range(len(split_labels)):
        parts = [frames[s] for frames in users.values()]
        indexes = _distinct_indexes([part.index for part in parts if part is not None])
        ids = [index.to_numpy() for index in indexes]
        universe_ids.append(_sorted_ids(_concat_ids(ids)) if ids else np.array([], dtype=object))
    sizes = tuple(len(u) for u in universe_ids)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    n_units = int(starts[-1])
    values: dict[tuple[str, str], np.ndarray] = {}
    for metric in metric_names:  # metric-major, as the table
        for name in names:
            values[(metric, name)] = np.full(n_units, np.nan)
    evaluated: dict[str, np.ndarray] = {}  # units each system evaluated (its value may be NaN)
    universe = [pd.Index(ids) for ids in universe_ids]  # one hash table per split, shared by the systems
    found: dict[int, list[tuple[pd.Index, np.ndarray]]] = {s: [] for s in range(len(universe))}
    for name in names:
        evaluated[name] = np.zeros(n_units, dtype=bool)
        for s, part in enumerate(users[name]):
            if part is None:
                continue
            # systems that list the same users in the same order (the usual case) share one lookup
            rows = next((r for index, r in found[s] if index.dtype == part.index.dtype and index.equals(part.index)),
                        None)
            if rows is None:
                rows = starts[s] + universe[s].get_indexer(part.index)
                found[s].append((part.index, rows))
            evaluated[name][rows] = True
            for metric in metric_names:
                values[(metric, name)][rows] = part[metric].to_numpy()
    return values, evaluated, sizes, universe_ids


def _units_frame(values: UnitValues, evaluated: dict[str, np.ndarray],
                 sizes: tuple[int, ...], universe_ids: list[np.ndarray], split_labels: list[str]) -> pd.DataFrame:
    """``ComparisonResult.units``: one row per unit some system evaluated, one column per (metric, system)."""
    n_units = int(sum(sizes))
    present = np.zeros(n_units, dtype=bool)
    for seen in evaluated.values():
        present |= seen
    unit_split = np.repeat(np.arange(len(sizes)), sizes)
    units = pd.DataFrame({("split", ""): np.asarray(split_labels, dtype=object)[unit_split][present],
                          ("user_id", ""): _concat_ids(universe_ids)[present] if n_units else []})
    for key, v in values.items():
        units[key] = v[present]
    units.columns = pd.MultiIndex.from_tuples(units.columns)
    return units


def _warn_untested_units(table: pd.DataFrame, dropped: list[tuple[tuple[str, str, str], int]]) -> None:
    """Warn (at compare's caller) of tests with fewer than 2 paired units and of units left out of tests."""
    too_few = [(m, a, b) for (m, a, b), n in table["n"].items() if n < 2]
    if too_few:
        shown = "; ".join(f"{m} {a} vs {b} ({int(table.loc[(m, a, b), 'n'])} unit(s))" for m, a, b in too_few[:10])
        warnings.warn(RankevalWarning(
            f"{len(too_few)} test(s) have fewer than 2 paired units, so no statistic, p-value or CI (NaN): "
            f"{shown}"), stacklevel=3)
    if dropped:
        shown = "; ".join(f"{m} {a} vs {b}: {k}" for (m, a, b), k in dropped[:10])
        warnings.warn(DroppedUnitsWarning(
            f"{sum(k for _, k in dropped)} (split, user) units were left out of {len(dropped)} test(s) because "
            f"a system has no value there (NaN, or the user is not in its lists): {shown}"), stacklevel=3)


def _warn_infinite_units(values: UnitValues, metrics: list[str], pairs: list[tuple[str, str]]) -> None:
    """Warn (at compare's caller) of tests whose paired units hold an infinite value."""
    found = []
    for metric in metrics:
        for a, b in pairs:
            xa, xb = values[(metric, a)], values[(metric, b)]
            paired = ~np.isnan(xa) & ~np.isnan(xb)
            n = int(np.count_nonzero(paired & (np.isinf(xa) | np.isinf(xb))))
            if n:
                found.append(f"{metric} {a} vs {b}: {n}")
    if found:
        warnings.warn(RankevalWarning(
            f"{len(found)} test(s) pair units with an infinite value, so their means and differences are "
            f"infinite or NaN and their statistics, p-values and CIs may be NaN: {'; '.join(found[:10])}"),
            stacklevel=3)


def _is_tested(metric: RankingMetric) -> bool:
    """Whether compare pairs ``metric`` per (split, user): its system value is the mean of its users' values."""
    return metric.system_is_user_mean and not metric.system_level


def _run_tests(values: dict[tuple[str, str], np.ndarray], evaluated: dict[str, np.ndarray], metrics: list[str],
               pairs: list[tuple[str, str]],
               higher: Mapping[str, bool], test: str, alpha: float, plan: Any, ci_method: str = "bca",
               progress: bool = False) -> tuple[pd.DataFrame, list[tuple[tuple[str, str, str], int]]]:
    rows, keys, dropped = [], [], []
    column_index: dict[Any, int] = {}
    columns: list[np.ndarray] = []
    resample_pairs, positions = [], []

    def column(key: Any, data: np.ndarray) -> int:
        if key not in column_index:
            column_index[key] = len(columns)
            columns.append(data)
        return column_index[key]

    for metric in metrics:
        for a, b in pairs:
            xa, xb = values[(metric, a)], values[(metric, b)]
            paired = ~np.isnan(xa) & ~np.isnan(xb)
            # a unit either system evaluated but the test cannot use: NaN in a or b, or unlisted
            lost = (evaluated[a] | evaluated[b]) & ~paired
            if lost.any():
                dropped.append(((metric, a, b), int(lost.sum())))
            pos = np.flatnonzero(paired)
            va, vb = xa[pos], xb[pos]
            d = vb - va
            n = len(d)
            sign = 1 if higher[metric] else -1
            row = {"mean_a": stable_mean(va), "mean_b": stable_mean(vb), "diff": mean_difference(va, vb, d), "n": n,
                   "wins": int(np.count_nonzero(sign * d > 0)), "ties": int(np.count_nonzero(d == 0)),
                   "losses": int(np.count_nonzero(sign * d < 0)), "effect_size": cohen_dz(d)}
            row["statistic"], row["p_value"] = paired_test(va, vb, test, d)
            rows.append(row)
            keys.append((metric, a, b))
            # columns for the resampling engine: both systems' values, 0 off the paired units
            mask_key = paired.tobytes()
            m_col = column(("mask", mask_key), paired.astype(np.float64))
            a_col = column((metric, a, mask_key), np.where(paired, xa, 0.0))
            b_col = column((metric, b, mask_key), np.where(paired, xb, 0.0))
            resample_pairs.append((a_col, b_col, m_col))
            positions.append(pos)

    from ..stats import resample_tests

    if not keys:  # only system-level metrics: nothing to test
        index = pd.MultiIndex.from_arrays([[], [], []], names=["metric", "system_a", "system_b"])
        table = pd.DataFrame({c: pd.Series([], dtype=bool if c == "significant" else np.float64)
                              for c in TEST_COLUMNS}, index=index)
        for c in ("n", "wins", "ties", "losses"):
            table[c] = table[c].astype(np.int64)
        return table, dropped
    matrix = np.column_stack(columns) if columns else np.zeros((plan.n_units, 0))
    res = resample_tests(plan, matrix, resample_pairs, positions, alpha, randomization=test == "randomization",
                         ci_method=ci_method, progress=progress)
    table = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(keys, names=["metric", "system_a", "system_b"]))
    table["ci_low"], table["ci_high"] = res.ci_low, res.ci_high
    if test == "randomization":
        table["p_value"] = res.p_value
    return table, dropped
