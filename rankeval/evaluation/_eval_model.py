"""EvalModel: many splits and many metrics in one call, one join per split.

An EvalModel is an evaluation plan (:class:`~rankeval.engines.EvalPlan`, what to compute on
which truth, built from the arguments by :func:`~rankeval.evaluation._plan.build_plan`) and
an engine that runs it (:mod:`rankeval.engines`: in memory, or on Spark).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import Split
from ..data.internal import MissingUsers, exact_mean
from ..engines import Engine, EvalPlan, LocalEngine, engine_for
from ..engines.internal import PROGRESS_MIN_ROWS, shows_progress
from ..metrics import RankingMetric
from ..metrics.sampled import SampledCandidates
from ..rank import TopK
from ._model_lists import lists_as_frames, rank_for_evaluation
from ._plan import (
    build_plan,
    check_metrics,
    check_split_names,
    frames_per_split,
    plan_of_splits,
    with_sampled,
    with_truth_items,
)

__all__ = ["EvalModel", "check_metrics", "check_split_names", "with_sampled", "shows_progress",
           "PROGRESS_MIN_ROWS", "system_frame"]


class EvalModel:
    """Evaluate many metrics over one or many splits, sharing one join per split.

    Parameters
    ----------
    pred_list : DataFrame, TopK or list of them
        The recommendation lists: one ``pred`` frame per split (fold), in the order of
        ``truth_list``; a single DataFrame is a one-split list. See :class:`~rankeval.Split`
        for the columns. A :class:`~rankeval.rank.TopK` (the lists of
        :func:`rankeval.rank.top_k`) stands for its pred frame, read as integer codes (no
        Python object per listed row) under this call's column names, ranked as it lists them.
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

    def __init__(self, pred_list: pd.DataFrame | TopK | Sequence[pd.DataFrame | TopK],
                 truth_list: pd.DataFrame | Sequence[pd.DataFrame], metric_list: Sequence[RankingMetric], *,
                 split_names: Sequence[str] | None = None, missing_users: MissingUsers | None = None,
                 progress: bool | None = None, n_buckets: int | None = None, convention: str | None = None,
                 train: Any = None, catalog: Any = None, item_features: Any = None, side: Any = None,
                 sampled: SampledCandidates | None = None, estimator: str = "bias_variance",
                 gamma: float | None = None, item_groups: Any = None, truth_items: str = "all",
                 **split_options: Any) -> None:
        # a TopK of rankeval.rank becomes a frame of codes here: no Python object per listed row
        preds = frames_per_split(lists_as_frames(pred_list, truth_list, split_options, "pred_list", convention),
                                 "pred_list")
        plan = build_plan(truth_list, metric_list, split_names=split_names, missing_users=missing_users,
                          convention=convention, train=train, catalog=catalog, item_features=item_features,
                          side=side, item_groups=item_groups, sampled=sampled, estimator=estimator, gamma=gamma,
                          progress=progress, n_buckets=n_buckets, split_options=split_options)
        if len(preds) != len(plan.truths):
            raise ValueError(f"`pred_list` has {len(preds)} frames but `truth_list` has {len(plan.truths)}: "
                             f"pass one pred and one truth frame per split")
        if not preds:
            raise ValueError("`pred_list` is empty: pass at least one split")
        plan, preds = with_truth_items(plan, preds, truth_items)
        # every split is validated (and, in memory, joined) now, so bad input fails here, not in fit()
        self._setup(plan, engine_for(plan, preds))

    @classmethod
    def from_model(cls, user_vectors: Any, item_vectors: Any, truth_list: Any, metric_list: Sequence[RankingMetric],
                   *, k: int, user_ids: Any = None, item_ids: Any = None, similarity: str = "dot",
                   exclude: Any = None, candidates: Any = None, ties: Any = "row_order", memory: int | str = "1GiB",
                   progress: bool | None = None, **options: Any) -> EvalModel:
        r"""Rank every user's exact top-``k`` items from a model's vectors and evaluate them, in one call.

        The lists are those of :func:`rankeval.rank.top_k` (scores :math:`s_{ui} = x_u \cdot y_i`,
        or their cosine; the ``k`` best items that may be listed, ties by ``ties``), handed to the
        evaluation as integer codes: ``EvalModel.from_model(U, V, test, metrics, k=100,
        exclude=train)`` gives the values of ``EvalModel(top_k(U, V, 100, exclude=train).to_frame(),
        test, metrics)``, bit for bit, without a pred frame of the caller's ids.

        Parameters
        ----------
        user_vectors : array-like
            One row per user (``n_users x d``), as :func:`~rankeval.rank.top_k` takes them.
        item_vectors : array-like
            One row per item (``n_items x d``).
        truth_list : DataFrame or Splits
            The held-out ratings of one split (a Splits object with one split also gives its
            train as ``train`` side data, as in :class:`EvalModel`).
        metric_list : list of RankingMetric
            Metrics to compute; their names must be unique.
        k : int
            The length of every list (shorter for users with fewer items that may be listed).
        user_ids : array-like or None, default None
            The id of each row of ``user_vectors``, of the truth's kind; None: 0, 1, ... .
        item_ids : array-like or None, default None
            The id of each row of ``item_vectors``; None: 0, 1, ... .
        similarity : {"dot", "cosine"}
            The score of a user and an item.
        exclude : DataFrame or None, default None
            (user, item) rows never listed, normally the training interactions, in the truth's
            user and item columns (``truth_user_col``, ``truth_item_col``, as ``train``).
        candidates : array-like, DataFrame or None, default None
            The items that may be listed: item ids for every user, or (user, item) rows in the
            truth's columns; None: every item.
        ties : {"row_order", "item_id", "item_id_desc"}
            How the ranking orders tied scores (the rows of ``item_vectors``, or the item ids
            ascending or descending); the ranks it writes are the lists' order for every metric.
        memory : int or str, default "1GiB"
            The most memory the ranking adds (bytes, or '1GiB', '512MB'); docs/rank.md gives the model.
        progress : bool or None, default None
            Progress bars of the ranking and of the evaluation (None: on a terminal, for large inputs).
        **options
            Passed to :class:`EvalModel` (``missing_users``, ``convention``, ``train``, ``catalog``,
            ``split_names``, ``truth_items``, the column names, ...).

        Returns
        -------
        EvalModel
            One split, ready for :meth:`fit`.

        Raises
        ------
        ValueError
            What :func:`~rankeval.rank.top_k` refuses (vectors, ids, budget), a truth of several
            splits, ids of a kind the truth's never equal, and what :class:`EvalModel` refuses.

        Examples
        --------
        >>> import numpy as np, pandas as pd, rankeval as rk
        >>> users, items = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[3.0, 1.0], [1.0, 2.0], [2.0, 2.0]])
        >>> train = pd.DataFrame({"user_id": ["a"], "item_id": ["x"]})
        >>> test = pd.DataFrame({"user_id": ["a", "b"], "item_id": ["y", "z"], "score": [1.0, 1.0]})
        >>> model = rk.EvalModel.from_model(users, items, test, [rk.MRR()], k=2, user_ids=["a", "b"],
        ...                                 item_ids=["x", "y", "z"], exclude=train)
        >>> model.fit()[1]["MRR"].tolist()
        [0.5, 0.5]
        """
        lists = rank_for_evaluation(user_vectors, item_vectors, truth_list, options, k=k, user_ids=user_ids,
                                    item_ids=item_ids, similarity=similarity, exclude=exclude,
                                    candidates=candidates, ties=ties, memory=memory, progress=progress)
        return cls(lists, truth_list, metric_list, progress=progress, **options)

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
        plan = plan_of_splits(splits, metric_list, progress=progress, convention=convention)
        model = cls.__new__(cls)
        model._setup(plan, LocalEngine(plan))
        return model

    def _setup(self, plan: EvalPlan, engine: Engine) -> None:
        """The one way a model is made: a plan and the engine that runs it."""
        self.plan = plan
        self._engine = engine
        self._fitted: tuple[pd.DataFrame, Any] | None = None

    # ------------------------------------------------------------------ the plan
    @property
    def metrics(self) -> list[RankingMetric]:
        """The metrics computed, one per column (after the convention and the sampled design)."""
        return list(self.plan.metrics)

    @property
    def split_names(self) -> list[str]:
        """The names of the splits, in order."""
        return list(self.plan.split_names)

    @property
    def missing_users(self) -> MissingUsers:
        """The rule for truth users without recommendations."""
        return self.plan.missing_users

    @property
    def convention(self) -> str:
        """The convention in force (``"rankeval"`` without one)."""
        return self.plan.convention

    @property
    def progress(self) -> bool | None:
        """The progress setting (None: on a terminal, for large inputs)."""
        return self.plan.progress

    @property
    def n_buckets(self) -> int | None:
        """The Spark engine's buckets of users per split (None: its default)."""
        return self.plan.n_buckets

    # ------------------------------------------------------------------ running
    def splits(self) -> list[Split]:
        """The validated splits, one join each, shared by every metric and every fit."""
        return self._engine.splits()

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
        run = self._engine.run(self.plan, user_id_list, stacklevel=2)
        sys_result = system_frame(run.rows, self.plan, run.counts)
        self._fitted = (sys_result, run.users)
        return sys_result, run.users

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
        splits = self._engine.group_splits()
        metrics = [str(m) for m in self.metrics if m.system_is_user_mean and not m.system_level]
        groups = groups_per_split(user_groups, splits, self.split_names, pop_percentage)
        return group_table(self._fitted[1], groups, self.split_names, metrics, baseline=baseline, test=test)

    def __repr__(self) -> str:
        return (f"EvalModel({len(self.split_names)} splits {self.split_names}, metrics="
                f"{[str(m) for m in self.metrics]}, missing_users={self.missing_users!r}, "
                f"convention={self.convention!r})")


def system_frame(rows: list[dict[str, float]], plan: EvalPlan,
                 counts: dict[str, dict[str, int]] | None = None) -> pd.DataFrame:
    """One row per split, then their unweighted mean (NaN split rows left out).

    ``attrs["n_users"]`` keeps, per split and metric, the users behind the value (users
    whose value is NaN are left out of a mean), as plain dicts so that frames still
    concatenate.
    """
    sys_result = pd.DataFrame(rows, index=pd.Index(list(plan.split_names), name="split"), columns=plan.names)
    # the exact mean: a float sum of split values near the float range would overflow
    sys_result.loc["mean"] = [exact_mean(sys_result[c].to_numpy(dtype=np.float64)) for c in sys_result.columns]
    sys_result.attrs["convention"] = plan.convention
    if counts is not None:
        sys_result.attrs["n_users"] = counts
    return sys_result
