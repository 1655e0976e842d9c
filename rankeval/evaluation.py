"""EvalModel: many splits and many metrics in one call, one join per split."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._validation import check_choice
from .data import MISSING_USERS, MissingUsers, Split
from .exceptions import MissingUsersWarning
from .metrics import RankingMetric

__all__ = ["EvalModel"]

#: inputs larger than this (pred rows over all splits) get a progress bar on a terminal
PROGRESS_MIN_ROWS = 2_000_000


def _as_list(frames: Any, what: str) -> list[pd.DataFrame]:
    if isinstance(frames, pd.DataFrame):
        return [frames]
    if isinstance(frames, (str, bytes)) or not isinstance(frames, Iterable):
        raise TypeError(f"`{what}` must be a DataFrame or a list of DataFrames, got {type(frames).__name__}")
    frames = list(frames)
    for i, df in enumerate(frames):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"`{what}`[{i}] must be a pandas DataFrame, got {type(df).__name__}")
    return frames


def check_metrics(metric_list: Any) -> list[RankingMetric]:
    """A non-empty list of metrics with unique names."""
    if isinstance(metric_list, RankingMetric):
        metric_list = [metric_list]
    metrics = list(metric_list)
    if not metrics:
        raise ValueError("`metric_list` is empty: pass at least one metric")
    for i, m in enumerate(metrics):
        if not isinstance(m, RankingMetric):
            raise TypeError(f"`metric_list`[{i}] must be a RankingMetric, got {type(m).__name__}")
    names = [str(m) for m in metrics]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"`metric_list` has repeated metric names {repeated}; every metric needs its own "
                         f"column: pass name= to tell them apart, e.g. NDCGAtK(10, gains='exponential', "
                         f"name='NDCG@10-exp')")
    return metrics


class EvalModel:
    """Evaluate many metrics over one or many splits, sharing one join per split.

    Parameters
    ----------
    pred_list, truth_list : DataFrame or list of DataFrame
        One ``pred`` / ``truth`` frame per split (fold), in the same order; a single
        DataFrame is a one-split list. See :class:`~rankeval.Split` for the columns.
    metric_list : list of RankingMetric
        Metrics to compute; their names (``str(metric)``) must be unique.
    split_names : list of str, optional
        Names of the splits in the results; default ``fold1``, ``fold2``, ...
    missing_users : {"ignore", "zero", "error"}
        Truth users without recommendations: left out with a warning that counts them,
        scored 0 on every metric (``trec_eval -c``), or a ValueError naming up to 10.
    progress : bool, optional
        Show a progress bar over splits x metrics. Default: only on a terminal and only
        for inputs of more than 2 million recommendation rows.
    **split_options
        Passed to every :class:`~rankeval.Split` (``user_col``, ``item_col``,
        ``score_col``, ``rank_col``, ``ties``).

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
                 split_names: Sequence[str] | None = None, missing_users: MissingUsers = "ignore",
                 progress: bool | None = None, **split_options: Any) -> None:
        preds = _as_list(pred_list, "pred_list")
        truths = _as_list(truth_list, "truth_list")
        if len(preds) != len(truths):
            raise ValueError(f"`pred_list` has {len(preds)} frames but `truth_list` has {len(truths)}: "
                             f"pass one pred and one truth frame per split")
        if not preds:
            raise ValueError("`pred_list` is empty: pass at least one split")
        self.metrics = check_metrics(metric_list)
        self.split_names = self._names(split_names, len(preds))
        self.missing_users: MissingUsers = check_choice(  # type: ignore[assignment]
            "missing_users", missing_users, MISSING_USERS)
        self.progress = progress
        # every split is validated and joined now, so bad input fails here, not in fit()
        self._splits = [Split(p, t, name=name, missing_users=self.missing_users, **split_options)
                        for p, t, name in zip(preds, truths, self.split_names)]

    @classmethod
    def from_splits(cls, splits: Split | Sequence[Split], metric_list: Sequence[RankingMetric], *,
                    progress: bool | None = None) -> EvalModel:
        """Evaluate already-built splits (their names, columns and options are kept)."""
        splits = [splits] if isinstance(splits, Split) else list(splits)
        if not splits:
            raise ValueError("`splits` is empty: pass at least one Split")
        for i, s in enumerate(splits):
            if not isinstance(s, Split):
                raise TypeError(f"`splits`[{i}] must be a Split, got {type(s).__name__}")
        model = cls.__new__(cls)
        model.metrics = check_metrics(metric_list)
        names = [s.name if s.name is not None else f"fold{i + 1}" for i, s in enumerate(splits)]
        model.split_names = cls._names(names, len(splits))
        model.missing_users = splits[0].missing_users
        model.progress = progress
        model._splits = splits
        return model

    @staticmethod
    def _names(names: Sequence[str] | None, n: int) -> list[str]:
        if names is None:
            return [f"fold{i + 1}" for i in range(n)]
        names = [str(x) for x in names]
        if len(names) != n:
            raise ValueError(f"`split_names` has {len(names)} names for {n} splits")
        if len(set(names)) != n or "mean" in names:
            raise ValueError(f"`split_names` must be distinct and not 'mean', got {names}")
        return names

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
            One column per metric, in the order given.
        users_result : DataFrame
            MultiIndex ``(split, user_id)``; one column per metric.
        """
        splits = self._restricted(user_id_list) if user_id_list is not None else self.splits()
        names = [str(m) for m in self.metrics]
        bar = self._progress_bar(splits)
        system_rows, user_frames = [], []
        try:
            for split, split_name in zip(splits, self.split_names):
                columns, systems = {}, {}
                for metric in self.metrics:
                    if bar is not None:
                        bar.set_postfix_str(f"{split_name} {metric}", refresh=False)
                    result = metric.perform(split)
                    columns[str(metric)] = result.users[str(metric)]
                    systems[str(metric)] = result.system.iloc[0, 0]
                    if bar is not None:
                        bar.update()
                users = pd.DataFrame(columns)
                users.index = pd.MultiIndex.from_arrays(
                    [np.full(len(users), split_name, dtype=object), users.index], names=["split", users.index.name])
                user_frames.append(users)
                system_rows.append(systems)
        finally:
            if bar is not None:
                bar.close()
        sys_result = pd.DataFrame(system_rows, index=pd.Index(self.split_names, name="split"), columns=names)
        sys_result.loc["mean"] = sys_result.mean(axis=0, skipna=True)
        users_result = pd.concat(user_frames)[names]
        return sys_result, users_result

    def _restricted(self, user_id_list: Iterable[Any]) -> list[Split]:
        wanted = pd.unique(pd.Series(list(user_id_list), dtype=object))
        restricted, found = [], set()
        for split in self.splits():
            col = split.columns.user
            keep_pred = split.pred[col].isin(wanted)
            keep_truth = split.truth[col].isin(wanted)
            found.update(split.pred.loc[keep_pred, col].unique().tolist())
            found.update(split.truth.loc[keep_truth, col].unique().tolist())
            pred, truth = split.pred[keep_pred], split.truth[keep_truth]
            if len(pred) == 0 or len(truth) == 0:
                raise ValueError(f"`user_id_list` leaves split {split.name!r} with no user to evaluate "
                                 f"({int(keep_pred.sum())} pred rows, {int(keep_truth.sum())} truth rows match)")
            c = split.columns
            restricted.append(Split(pred, truth, name=split.name, user_col=c.user, item_col=c.item,
                                    score_col=c.score, rank_col=c.rank, ties=split.ties,
                                    missing_users=split.missing_users))
        unknown = [u for u in wanted.tolist() if u not in found]
        if unknown:
            warnings.warn(MissingUsersWarning(
                f"{len(unknown)} id(s) of `user_id_list` appear in no split and are ignored, e.g. {unknown[:10]}"),
                stacklevel=3)
        return restricted

    def _progress_bar(self, splits: list[Split]) -> Any:
        show = self.progress
        if show is None:
            rows = sum(len(s.pred) for s in splits)
            show = rows > PROGRESS_MIN_ROWS and sys.stderr.isatty()
        if not show:
            return None
        from tqdm.auto import tqdm
        return tqdm(total=len(splits) * len(self.metrics), desc="rankeval", unit="metric")

    def __repr__(self) -> str:
        return (f"EvalModel({len(self.split_names)} splits {self.split_names}, metrics="
                f"{[str(m) for m in self.metrics]}, missing_users={self.missing_users!r})")
