"""EvalModel: many splits and many metrics in one call, one join per split."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..conventions import get_convention
from ..data._columns import COLUMN_OPTIONS, SCORE_ORDERS, Columns
from ..data._exact import exact_mean
from ..data._frames import FRAME_KINDS, is_frame, is_spark_frame, to_pandas
from ..data._keys import same_id_dtype
from ..data._sides import check_metrics_side, sides_per_split
from ..data._split import MISSING_USERS, TIES, MissingUsers, Split
from ..data._truth_items import select_truth
from ..data._validation import check_choice
from ..engines._pandas import evaluate_split
from ..exceptions import MissingUsersWarning
from ..metrics import RankingMetric
from ..metrics.beyond import system_level_counts
from ..metrics.sampled import (
    DEFAULT_GAMMA,
    SampledCandidates,
    check_sampled_options,
    sampled_columns,
    table_progress,
)
from ..split._split_checks import catalog_findings
from ._protocol import protocol_findings, spark_findings, spark_trains, splits_as_truth, warn_protocol

__all__ = ["EvalModel"]

#: inputs larger than this (pred rows over all splits) get a progress bar on a terminal
PROGRESS_MIN_ROWS = 2_000_000


def check_split_names(names: Sequence[str] | None, n: int) -> list[str]:
    """The names of ``n`` splits as strings (default ``fold1``, ...): distinct, and not ``"mean"``."""
    if names is None:
        return [f"fold{i + 1}" for i in range(n)]
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"`split_names` must be a list of names, one per split, got {type(names).__name__}")
    names = [str(x) for x in names]
    if len(names) != n:
        raise ValueError(f"`split_names` has {len(names)} names for {n} splits")
    if len(set(names)) != n or "mean" in names:
        raise ValueError(f"`split_names` must be distinct and not 'mean', got {names}")
    return names


def shows_progress(progress: bool | None, rows: int) -> bool:
    """Progress is shown when asked for (``progress=True``), or by default for inputs of
    more than ``rows`` rows on a terminal."""
    if progress is not None:
        return bool(progress)
    return rows > PROGRESS_MIN_ROWS and sys.stderr.isatty()


def _as_list(frames: Any, what: str) -> list[Any]:
    """One frame per split; local kinds (polars, Arrow) become pandas once, Spark frames stay."""
    if is_frame(frames):
        frames = [frames]
    elif isinstance(frames, (str, bytes)) or not isinstance(frames, Iterable):
        raise TypeError(f"`{what}` must be a DataFrame or a list of DataFrames ({FRAME_KINDS}), "
                        f"got {type(frames).__name__}")
    frames = list(frames)
    for i, df in enumerate(frames):
        if not is_frame(df):
            raise TypeError(f"`{what}`[{i}] must be {FRAME_KINDS}, got {type(df).__name__}")
    return [df if is_spark_frame(df) else to_pandas(df, what) for df in frames]


def check_metrics(metric_list: Any, argument: str = "metric_list") -> list[RankingMetric]:
    """A non-empty list of metrics with unique names, metrics with several cutoffs expanded (one per cutoff)."""
    if isinstance(metric_list, RankingMetric):
        metric_list = [metric_list]
    if isinstance(metric_list, (str, bytes)) or not isinstance(metric_list, Iterable):
        hint = " (parse text with rankeval.parse_metric)" if isinstance(metric_list, str) else ""
        raise TypeError(f"`{argument}` must be a list of RankingMetric, got {type(metric_list).__name__}{hint}")
    metrics = list(metric_list)
    if not metrics:
        raise ValueError(f"`{argument}` is empty: pass at least one metric")
    for i, m in enumerate(metrics):
        if not isinstance(m, RankingMetric):
            raise TypeError(f"`{argument}`[{i}] must be a RankingMetric, got {type(m).__name__}")
    # NDCGAtK(k=[1, 5, 10]) is one column per cutoff, computed in one pass per split
    metrics = [one for m in metrics for one in m.expand()]
    names = [str(m) for m in metrics]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"`{argument}` has repeated metric names {repeated}; every metric needs its own "
                         f"column: pass name= to tell them apart, e.g. NDCGAtK(10, gains='exponential', "
                         f"name='NDCG@10-exp')")
    return metrics


def with_sampled(metrics: list[RankingMetric], sampled: SampledCandidates | None, estimator: str,
                 gamma: float | None = None) -> list[RankingMetric]:
    """Sampled-candidate lists: each metric as its corrected estimate and its naive value (``-naive``).

    ``gamma`` None is :data:`~rankeval.sampled.DEFAULT_GAMMA`; given, it needs ``sampled`` and
    the bias-variance estimator (the only one it weighs), else a ValueError.
    """
    estimator, checked = check_sampled_options(estimator, DEFAULT_GAMMA if gamma is None else gamma)
    if sampled is None:
        for given, option in ((estimator != "bias_variance", f"`estimator`={estimator!r}"),
                              (gamma is not None, f"`gamma`={gamma!r}")):
            if given:
                raise ValueError(f"{option} needs `sampled=`: pass the sampling design, "
                                 f"rankeval.sampled.SampledCandidates(n_items, n_negatives)")
        return metrics
    if gamma is not None and estimator != "bias_variance":
        raise ValueError(f"`gamma`={gamma!r} weighs the variance of the bias-variance estimator only; "
                         f"`estimator`={estimator!r} has no use for it: drop gamma or pass "
                         f"estimator='bias_variance'")
    return check_metrics(sampled_columns(metrics, sampled, estimator, checked))


class EvalModel:
    """Evaluate many metrics over one or many splits, sharing one join per split.

    Parameters
    ----------
    pred_list : DataFrame or list of DataFrame
        The recommendation lists: one ``pred`` frame per split (fold), in the order of
        ``truth_list``; a single DataFrame is a one-split list. See :class:`~rankeval.Split`
        for the columns.
    truth_list : DataFrame, list of DataFrame or Splits
        The held-out ratings: one ``truth`` frame per split, in the order of ``pred_list``;
        a single DataFrame is a one-split list. A :class:`~rankeval.split.Splits` (from
        :mod:`rankeval.split`) gives its test frames as the truth, its train frames as the
        ``train`` side data, its names as the split names (unless ``split_names`` is given),
        its user and item columns as the default ``user_col`` / ``item_col`` and its score
        column as the default ``truth_score_col``.
    metric_list : list of RankingMetric
        Metrics to compute; their names (``str(metric)``) must be unique.
    split_names : list of str, optional
        Names of the splits in the results; default ``fold1``, ``fold2``, ...
    missing_users : {None, "ignore", "zero", "error"}
        Truth users without recommendations: left out with a warning that counts them
        (``"ignore"``), scored 0 on every metric (``trec_eval -c``), or a ValueError
        naming up to 10. None: the ``convention``'s rule, ``"ignore"`` without one.
    convention : str, optional
        A peer's definitions (:mod:`rankeval.conventions`: ``"trec_eval"``, ``"ranx"``,
        ``"clayrs"``, ``"recbole"``, ``"spark_mllib"``, ``"ms_recommenders"``,
        ``"lenskit"``): every metric is replaced by ``metric.with_convention(name)`` and
        the tie rule and ``missing_users`` follow the preset, unless passed explicitly.
        Recorded in ``sys_result.attrs["convention"]``.
    progress : bool, optional
        Show a progress bar over splits x metrics. Default: only on a terminal and only
        for inputs of more than 2 million recommendation rows. The estimator tables of a
        ``sampled`` design with a per-user ``n_items`` have a bar of their own, shown once
        they take over a second (by default on a terminal; never with ``False``).
    n_buckets : int, optional
        Spark only: how many buckets of users each split is cut into (default: the
        cluster's parallelism, or more for large inputs: about 2 million listed rows a
        bucket). See docs/scaling.md.
    train : DataFrame or list of DataFrame, optional
        Side data (:class:`~rankeval.SideData`, docs/beyond_accuracy.md): the interactions
        the recommender learned from, for popularity, novelty and user groups; one frame
        for every split or a list with one per split. A local frame also with Spark inputs
        (shipped to every bucket; a Spark frame is a ValueError). With ``train`` (or a
        Splits truth), :meth:`fit` also runs the audit's cheap checks on local inputs and
        warns (:class:`~rankeval.ProtocolWarning`, with counts) when lists recommend items
        the user already has in train, test pairs are in train, or test users have no
        train row.
    catalog : iterable, Series or DataFrame, or a list of them, optional
        Side data: the recommendable items, for every split or one per split; None: every
        item of ``train`` and of the split's truth (when ``train`` is given).
    item_features : DataFrame or list of DataFrame, optional
        Side data: a frame indexed by item id (numeric vector columns, or one column of
        category sets), for the diversity metrics; for every split or one per split.
    side : SideData or list of SideData, optional
        Side data already validated, instead of ``train``, ``catalog``, ``item_features``
        and ``item_groups``; for every split or one per split.
    sampled : SampledCandidates, optional
        The lists are sampled candidates (one positive + ``n_negatives`` sampled negatives
        per user): every metric becomes its estimate of the full-catalog value (column
        named as the metric) and its naive sampled value (column ``<metric>-naive``); see
        docs/sampled.md.
    estimator : {"bias_variance", "minimal_bias", "rescaled", "naive"}
        With ``sampled``: the estimator of the full-catalog metric (``"naive"``: only the
        naive column).
    item_groups : Series, mapping or DataFrame, or a list of them, optional
        Side data: item id -> group label (a provider, a genre), for the fairness metrics;
        for every split or one per split.
    gamma : float, optional
        With ``sampled`` and ``estimator="bias_variance"``: the weight of the variance, in
        [0, 1], as :class:`~rankeval.sampled.SampledMetric`'s ``gamma``; None (the
        default) is :data:`~rankeval.sampled.DEFAULT_GAMMA` (0.1). Given with another
        estimator, or without ``sampled``, it is a ValueError.
    truth_items : {"all", "repeat", "explore"}
        The truth rows every metric is computed on: all; only those whose ``(user,
        item)`` pair is in the split's ``train`` (items the user had before: repeat
        consumption); or only the others (items new to the user). ``"repeat"`` and
        ``"explore"`` need ``train`` (or a Splits truth, or side data with train). A user
        without a truth row of the kind is left out with their lists (a
        :class:`~rankeval.MissingUsersWarning` counts them); a mean-score relevance
        threshold is the mean of the rows kept. See docs/evalmodel.md.
    **split_options
        Passed to every :class:`~rankeval.Split` (``user_col``, ``item_col``,
        ``score_col``, ``score_order``, ``rank_col``, ``truth_user_col``,
        ``truth_item_col``, ``truth_score_col``, ``ties``).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "c"], "score": [.9, .8, .7]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["b", "c"], "score": [4.0, 5.0]})
    >>> sys_result, users_result = rk.EvalModel([pred, pred], [truth, truth], [rk.MRR()]).fit()
    >>> print(sys_result)
           MRR
    split
    fold1 0.75
    fold2 0.75
    mean  0.75
    """

    def __init__(self, pred_list: pd.DataFrame | Sequence[pd.DataFrame],
                 truth_list: pd.DataFrame | Sequence[pd.DataFrame], metric_list: Sequence[RankingMetric], *,
                 split_names: Sequence[str] | None = None, missing_users: MissingUsers | None = None,
                 progress: bool | None = None, n_buckets: int | None = None, convention: str | None = None,
                 train: Any = None, catalog: Any = None, item_features: Any = None, side: Any = None,
                 sampled: SampledCandidates | None = None, estimator: str = "bias_variance", truth_items: str = "all",
                 gamma: float | None = None, item_groups: Any = None, **split_options: Any) -> None:
        truth_list, train, split_names, split_options = splits_as_truth(truth_list, train, split_names, split_options)
        train, self._spark_trains = spark_trains(train)
        preds, truths = _as_list(pred_list, "pred_list"), _as_list(truth_list, "truth_list")
        if len(preds) != len(truths):
            raise ValueError(f"`pred_list` has {len(preds)} frames but `truth_list` has {len(truths)}: "
                             f"pass one pred and one truth frame per split")
        if not preds:
            raise ValueError("`pred_list` is empty: pass at least one split")
        named = Columns.from_options(split_options)  # train= comes with the truth's names
        truths, preds = select_truth(truth_items, truths, preds, self._spark_trains or train, side, named)
        self.convention = "rankeval" if convention is None else get_convention(convention).name
        self.metrics = check_metrics(metric_list)
        if convention is not None:
            # a peer's definitions: every metric and the split options follow the preset,
            # except what the caller passed explicitly
            preset = get_convention(convention)
            self.metrics = check_metrics([m.with_convention(convention) for m in self.metrics])
            split_options = {"ties": preset.ties, **split_options}
            if missing_users is None:
                # the type: ignore below: the preset's value is one of MISSING_USERS, a plain str to mypy
                missing_users = preset.missing_users  # type: ignore[assignment]
        self.metrics = with_sampled(self.metrics, sampled, estimator, gamma)
        self.split_names = check_split_names(split_names, len(preds))
        # the type: ignore below: check_choice returns one of MISSING_USERS, a plain str to mypy
        self.missing_users: MissingUsers = check_choice(  # type: ignore[assignment]
            "missing_users", "ignore" if missing_users is None else missing_users, MISSING_USERS)
        self.progress = progress
        self.n_buckets = n_buckets
        self._split_options = split_options
        self._spark_frames: list[tuple[Any, Any]] | None = None
        self._fitted: tuple[pd.DataFrame, Any] | None = None
        # the cheap checks fit() runs when train is known (compare runs the split-level ones itself, once)
        # with repeat items only, listing train items and test pairs in train are the point
        self._protocol_checks: tuple[str, ...] = ("cold",) if truth_items == "repeat" else ("seen", "overlap", "cold")
        spark = any(is_spark_frame(df) for df in preds + truths)
        if any(is_spark_frame(x) for x in (train, catalog, item_features, item_groups)):
            raise ValueError("side data (train=, catalog=, item_features=) must be local frames (pandas, polars, "
                             "Arrow), also with Spark pred and truth: it is validated once on the driver and "
                             "shipped to every bucket; collect a Spark frame with .toPandas() first")
        sides = sides_per_split(len(preds), train, catalog, item_features, side, user_col=named.truth_user,
                                item_col=named.truth_item, score_col=named.truth_score, item_groups=item_groups)
        self._spark_sides: list[Any] = []
        if spark:
            # the Spark engine: validated and joined bucket by bucket on the cluster, in fit()
            unknown = set(split_options) - {*COLUMN_OPTIONS, "ties"}
            if unknown:
                raise TypeError(f"EvalModel got unexpected keyword argument(s) {sorted(unknown)}")
            check_choice("ties", split_options.get("ties", "row_order"), TIES)
            check_choice("score_order", named.score_order, SCORE_ORDERS)
            self._spark_frames = list(zip(preds, truths))
            self._spark_sides = sides
            self._splits: list[Split] = []
            check_metrics_side(self.metrics, sides, self.split_names)
            return
        # every split is validated and joined now, so bad input fails here, not in fit()
        self._splits = []
        bar = self._bar(sum(len(p) for p in preds), total=len(preds), desc="rankeval: validate + join",
                        unit="split")
        try:
            for p, t, name, split_side in zip(preds, truths, self.split_names, sides):
                try:
                    self._splits.append(Split(p, t, name=name, missing_users=self.missing_users, side=split_side,
                                              **split_options))
                except ValueError as exc:
                    if len(preds) == 1:
                        raise
                    raise ValueError(f"split {name!r}: {exc}") from exc
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()
        check_metrics_side(self.metrics, [sp.side for sp in self._splits], self.split_names)

    @classmethod
    def from_splits(cls, splits: Split | Sequence[Split], metric_list: Sequence[RankingMetric], *,
                    progress: bool | None = None, convention: str | None = None) -> EvalModel:
        """Evaluate already-built splits (their names, columns and options are kept).

        ``convention`` converts the metrics and is recorded in the results; the splits keep
        the tie rule and ``missing_users`` they were built with (build them with the
        preset's, e.g. ``Split(..., ties="item_id_desc")`` for trec_eval).

        Parameters
        ----------
        splits : Split or list of Split
            The splits, evaluated in this order; a split without a name is ``fold<i>``.
        metric_list : list of RankingMetric
            Metrics to compute; their names (``str(metric)``) must be unique.
        progress : bool, optional
            Show a progress bar, as :class:`EvalModel`'s ``progress``.
        convention : str, optional
            A peer's definitions for every metric (:mod:`rankeval.conventions`).
        """
        splits = [splits] if isinstance(splits, Split) else list(splits)
        if not splits:
            raise ValueError("`splits` is empty: pass at least one Split")
        for i, s in enumerate(splits):
            if not isinstance(s, Split):
                raise TypeError(f"`splits`[{i}] must be a Split, got {type(s).__name__}")
        model = cls.__new__(cls)
        model.metrics = check_metrics(metric_list)
        if convention is not None:
            model.metrics = check_metrics([m.with_convention(convention) for m in model.metrics])
        names = [s.name if s.name is not None else f"fold{i + 1}" for i, s in enumerate(splits)]
        model.split_names = check_split_names(names, len(splits))
        model.missing_users = splits[0].missing_users
        model.convention = "rankeval" if convention is None else get_convention(convention).name
        model.progress = progress
        model.n_buckets = None
        model._split_options = {}
        model._spark_frames = None
        model._spark_sides = []
        model._fitted = None
        model._protocol_checks = ("seen", "overlap", "cold")
        model._splits = splits
        check_metrics_side(model.metrics, [s.side for s in splits], model.split_names)
        return model

    # ------------------------------------------------------------------ running
    def splits(self) -> list[Split]:
        """The validated splits, one join each, shared by every metric and every fit."""
        return list(self._splits)

    def fit(self, user_id_list: Iterable[Any] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Compute every metric on every split.

        Parameters
        ----------
        user_id_list : iterable, optional
            Evaluate only these users (ids not found in any split are reported in a warning).

        Returns
        -------
        sys_result : DataFrame
            Index ``split``: one row per split (the mean over its users, NaN users left
            out), then ``mean``, the unweighted mean of the split rows (NaN rows left out).
            One column per metric, in the order given. ``sys_result.attrs["n_users"]`` is
            ``{split: {metric: n}}``, the number of users behind each split's value (users
            with an undefined value, e.g. no relevant item, are not counted);
            ``pd.DataFrame(sys_result.attrs["n_users"]).T`` shows it as a table.
            ``sys_result.attrs["convention"]`` names the convention in force.
        users_result : DataFrame
            MultiIndex ``(split, user_id)``; one column per metric. With Spark inputs, a
            Spark DataFrame with columns ``split``, ``user_id`` and one per metric.
        """
        if self._spark_frames is not None:
            return self._fit_spark(user_id_list)
        splits = self._restricted(user_id_list) if user_id_list is not None else self.splits()
        warn_protocol(protocol_findings(splits, self.split_names, self._protocol_checks), stacklevel=2)
        warn_protocol(catalog_findings(splits, self.split_names), stacklevel=2)  # items that do not exist
        names = [str(m) for m in self.metrics]
        bar = self._progress_bar(splits)
        system_rows, user_frames, counts = [], [], {}
        try:
            for split, split_name in zip(splits, self.split_names):
                # the sampled-candidate tables of a per-user n_items show their own bar, once they take a second
                with table_progress(self.progress):
                    users, systems = evaluate_split(split, self.metrics, bar)
                counts[split_name] = {n: int(c) for n, c in users.notna().sum().items()}
                counts[split_name].update(system_level_counts(self.metrics, split))
                users.index = pd.MultiIndex.from_arrays(
                    [np.full(len(users), split_name, dtype=object), users.index], names=["split", users.index.name])
                user_frames.append(users)
                system_rows.append(systems)
        finally:
            if bar is not None:
                bar.close()
        sys_result = self._system_frame(system_rows, names, counts)
        levels = same_id_dtype([f.index.levels[1] for f in user_frames])
        for frame, level in zip(user_frames, levels):
            frame.index = frame.index.set_levels(level, level=1, verify_integrity=False)
        # system-level metrics (coverage, Gini, ...) have no per-user value
        users_result = pd.concat(user_frames)[[n for n, m in zip(names, self.metrics)
                                               if not getattr(m, "system_level", False)]]
        users_result.attrs["convention"] = self.convention
        self._fitted = (sys_result, users_result)
        return sys_result, users_result

    def _system_frame(self, rows: list[dict[str, float]], names: list[str],
                      counts: dict[str, dict[str, int]] | None = None) -> pd.DataFrame:
        """One row per split, then their unweighted mean (NaN split rows left out).

        ``attrs["n_users"]`` keeps, per split and metric, the users behind the value (users
        whose value is NaN are left out of a mean), as plain dicts so that frames still
        concatenate.
        """
        sys_result = pd.DataFrame(rows, index=pd.Index(self.split_names, name="split"), columns=names)
        # the exact mean: a float sum of split values near the float range would overflow
        sys_result.loc["mean"] = [exact_mean(sys_result[c].to_numpy(dtype=np.float64)) for c in sys_result.columns]
        sys_result.attrs["convention"] = self.convention
        if counts is not None:
            sys_result.attrs["n_users"] = counts
        return sys_result

    def _fit_spark(self, user_id_list: Iterable[Any] | None) -> tuple[pd.DataFrame, Any]:
        from ..engines._spark import evaluate_spark_split, resolve_side

        opts = self._split_options
        columns = Columns.from_options(opts)
        assert self._spark_frames is not None
        frames = self._spark_frames
        if self._spark_trains is not None:  # a Splits made on Spark: its trains checked against the lists
            warn_protocol(spark_findings(self._spark_trains, frames, self.split_names, self._protocol_checks,
                                         columns), stacklevel=3)
        # the default catalog comes from the whole truth of a split, also when users are restricted
        sides = [resolve_side(side, truth, columns.truth_item) for side, (_, truth) in zip(self._spark_sides, frames)]
        if user_id_list is not None:
            wanted = pd.unique(pd.Series(list(user_id_list), dtype=object)).tolist()
            frames = [(_keep_users(p, columns.user, wanted), _keep_users(t, columns.truth_user, wanted))
                      for p, t in frames]
            found: set[Any] = set()
            for pred, truth in frames:
                found.update(_distinct_users(pred, columns.user))
                found.update(_distinct_users(truth, columns.truth_user))
            unknown = [u for u in wanted if u not in found]
            if unknown:
                warnings.warn(MissingUsersWarning(
                    f"{len(unknown)} id(s) of `user_id_list` appear in no split and are ignored, e.g. "
                    f"{unknown[:10]}"), stacklevel=3)
        names = [str(m) for m in self.metrics]
        bar = None
        if self.progress:
            from .._progress import progress_bar
            bar = progress_bar(total=len(frames), desc="rankeval (spark)", unit="split")
        users_frames, rows, counts = [], [], {}
        try:
            for i, ((pred, truth), split_name) in enumerate(zip(frames, self.split_names)):
                users, system, counts[split_name] = evaluate_spark_split(
                    pred, truth, self.metrics, split_name=split_name, missing_users=self.missing_users,
                    columns=columns, ties=opts.get("ties", "row_order"), n_buckets=self.n_buckets,
                    side=sides[i] if sides else None)
                users_frames.append(users)
                rows.append(system)
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()
        sys_result = self._system_frame(rows, names, counts)
        users_result = users_frames[0]
        for more in users_frames[1:]:
            users_result = users_result.unionByName(more)
        return sys_result, users_result

    def _restricted(self, user_id_list: Iterable[Any]) -> list[Split]:
        wanted = pd.unique(pd.Series(list(user_id_list), dtype=object))
        restricted, found = [], set()
        for split in self.splits():
            c = split.columns
            keep_pred = _isin(split.pred[c.user], wanted)
            keep_truth = _isin(split.truth[c.truth_user], wanted)
            found.update(split.pred.loc[keep_pred, c.user].unique().tolist())
            found.update(split.truth.loc[keep_truth, c.truth_user].unique().tolist())
            pred, truth = split.pred[keep_pred], split.truth[keep_truth]
            if len(pred) == 0 or len(truth) == 0:
                raise ValueError(f"`user_id_list` leaves split {split.name!r} with no user to evaluate "
                                 f"({int(keep_pred.sum())} pred rows, {int(keep_truth.sum())} truth rows match)")
            restricted.append(Split(pred, truth, name=split.name, **c.as_options(), ties=split.ties,
                                    missing_users=split.missing_users, side=split.side))
        unknown = [u for u in wanted.tolist() if u not in found]
        if unknown:
            warnings.warn(MissingUsersWarning(
                f"{len(unknown)} id(s) of `user_id_list` appear in no split and are ignored, e.g. {unknown[:10]}"),
                stacklevel=3)
        return restricted

    def by_group(self, user_groups: Any, *, baseline: str | None = None, test: str = "mannwhitneyu",
                 pop_percentage: float = 0.2) -> pd.DataFrame:
        """Every per-user metric per (split, user group), after :meth:`fit`, with the gap between groups.

        Parameters
        ----------
        user_groups : mapping or Series
            name -> user ids (explicit groups, the same for every split; a user in two
            groups is a ValueError), a Series user id -> group name, or name -> share of
            users: ClayRS's popularity groups, made from each split's ``train``
            (:func:`rankeval.groups.popularity_groups`, e.g. ``{"blockbuster": 0.2,
            "niche": 0.2, "diverse": 0.6}``).
        baseline : str, optional
            The group every other group is compared with; default the first.
        test : {"mannwhitneyu", "welch"}
            Unpaired two-sided test of each gap: ``scipy.stats.mannwhitneyu(b, a)`` (the
            default: per-user values are bounded, skewed and full of ties, so a rank
            test, free of any normality assumption) or Welch's t test,
            ``scipy.stats.ttest_ind(b, a, equal_var=False)``.
        pop_percentage : float
            Share of "most popular" items when the groups are shares.

        Returns
        -------
        DataFrame
            Index ``(split, metric, group)``, one row per split of the last :meth:`fit`
            (splits are not pooled: the same user in several splits is no independent
            unit); columns ``n_users`` (users with a value), ``value`` (their mean),
            ``baseline`` (the group compared with, None on its own row), ``gap`` (value
            minus the baseline's), ``statistic`` and ``p_value`` of the test (NaN when a
            group has too few users: none for Mann-Whitney, fewer than 2 for Welch).
            Metrics without per-user values (system-level ones, micro averages) are left
            out. Users in no group are left out.
        """
        from ..groups import group_table, groups_per_split

        if self._fitted is None:
            raise ValueError("call fit() before by_group(): the groups are compared on its per-user values")
        if self._spark_frames is not None:
            raise ValueError("by_group is not yet supported on the Spark engine")
        metrics = [str(m) for m in self.metrics if m.system_is_user_mean and not getattr(m, "system_level", False)]
        groups = groups_per_split(user_groups, self._splits, self.split_names, pop_percentage)
        return group_table(self._fitted[1], groups, self.split_names, metrics, baseline=baseline, test=test)

    def _bar(self, rows: int, **options: Any) -> Any:
        """A tqdm bar when asked for (``progress=True``), or by default for large inputs on a terminal."""
        if not shows_progress(self.progress, rows):
            return None
        from .._progress import progress_bar
        return progress_bar(**options)

    def _progress_bar(self, splits: list[Split]) -> Any:
        return self._bar(sum(len(s.pred) for s in splits), total=len(splits) * len(self.metrics),
                         desc="rankeval: metrics", unit="metric")

    def __repr__(self) -> str:
        return (f"EvalModel({len(self.split_names)} splits {self.split_names}, metrics="
                f"{[str(m) for m in self.metrics]}, missing_users={self.missing_users!r}, "
                f"convention={self.convention!r})")


def _keep_users(df: Any, user_col: str, wanted: list[Any]) -> Any:
    if is_spark_frame(df):
        return df.filter(df[user_col].isin(wanted))
    return df[df[user_col].isin(wanted)]


def _distinct_users(df: Any, user_col: str) -> list[Any]:
    if is_spark_frame(df):
        return [row[0] for row in df.select(user_col).distinct().collect()]
    return df[user_col].unique().tolist()


def _isin(column: pd.Series, wanted: Any) -> pd.Series:
    """``column.isin(wanted)``, also where ``wanted`` holds ids the column's dtype cannot
    hold (an int beyond int64, a str among Arrow integers): those simply match nothing."""
    try:
        return column.isin(wanted)
    except (OverflowError, TypeError, ValueError):  # pyarrow's ArrowInvalid/ArrowTypeError subclass these
        return column.astype(object).isin(wanted)


def truth_score_col(split_options: Mapping[str, Any]) -> str:
    """The truth's (and train's) score column of a call's split options."""
    return Columns.from_options(split_options).truth_score
