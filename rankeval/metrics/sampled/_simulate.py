"""simulate: what the sampled protocol and each estimator would report, from full-catalog ranks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._base import RankingMetric
from ._metric import DEFAULT_GAMMA, rank_value
from ._tables import ESTIMATORS, estimator_table

__all__ = ["simulate"]


def _as_ranks(full_ranks: Any) -> dict[str, NDArray[np.int64]]:
    models = full_ranks if isinstance(full_ranks, Mapping) else {"model": full_ranks}
    if not models:
        raise ValueError("`full_ranks` is empty: pass one array of ranks per model")
    out = {}
    for name, ranks in models.items():
        r = np.asarray(ranks)
        if r.ndim != 1 or len(r) == 0 or not np.issubdtype(r.dtype, np.number) or np.isnan(r).any() \
                or (r != np.floor(r)).any() or (r < 1).any():
            raise ValueError(f"`full_ranks`[{name!r}] must be a non-empty 1-D array of whole ranks >= 1")
        out[str(name)] = r.astype(np.int64)
    return out


def _draw(rng: np.random.Generator, ranks: NDArray[np.int64], n: NDArray[np.int64], m: int) -> NDArray[np.int64]:
    """Sampled ranks: 1 + the negatives drawn (m of the n - 1 others) among the r - 1 items above."""
    return 1 + rng.hypergeometric(ranks - 1, n - ranks, m)


def simulate(full_ranks: Mapping[str, Any] | Any, n_items: int | Sequence[int] | NDArray[np.integer],
             n_negatives: int, metrics: Iterable[RankingMetric], *, seeds: Iterable[int] = range(20),
             estimators: Sequence[str] = ESTIMATORS, gamma: float = DEFAULT_GAMMA) -> pd.DataFrame:
    r"""Draw the sampled ranks the protocol would have given and compare every estimator with the truth.

    For each seed, each user's positive at full rank :math:`r_u` among ``n_items`` items gets the
    sampled rank :math:`1 + \mathrm{Hypergeometric}(n - 1, r_u - 1, m)` (``m`` = ``n_negatives``
    uniform negatives without replacement); each estimator's system value is the mean of
    :math:`\tilde M(\tilde r_u)`, the full value the mean of :math:`M(r_u)`.

    Parameters
    ----------
    full_ranks : mapping of model name to array of ranks, or one array
        The 1-based full-catalog rank of each user's positive, per model.
    n_items : int or array
        Items each positive competes with (itself included), for all users or per user.
    n_negatives : int
        Negatives sampled for each user's list (``m``), fewer than ``n_items``.
    metrics : list of RankingMetric
        Metrics with an estimator (HR@k, R@k, NDCG@k, MRR(@k), MAP(@k)).
    seeds : iterable of int
        One simulated draw per seed (the default: 20 draws, seeds 0 to 19).
    estimators : sequence of str
        The estimators compared (the default: every one, ``ESTIMATORS``).
    gamma : float
        The bias-variance estimator's weight of the variance.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, estimator, model): ``full``, ``mean`` (over seeds), ``bias``
        (mean - full), ``sd`` (over seeds, ddof=1), ``rmse``, and, per (metric, estimator),
        ``kendall_tau`` (mean over seeds of Kendall's tau between the models' full values and
        their estimates) and ``order_kept`` (share of seeds ordering every model as the full
        values do). Empty ``kendall_tau`` with one model.
    """
    models = _as_ranks(full_ranks)
    metrics = list(metrics)
    seeds = list(seeds)
    if not seeds:
        raise ValueError("`seeds` is empty: pass at least one seed")
    bad = [e for e in estimators if e not in ESTIMATORS]
    if bad:
        raise ValueError(f"`estimators` has {bad}, not in {list(ESTIMATORS)}")
    values = {str(m): rank_value(m) for m in metrics}
    sizes = {name: np.broadcast_to(np.asarray(n_items, dtype=np.int64), r.shape) for name, r in models.items()}
    for name, r in models.items():
        if (r > sizes[name]).any() or (sizes[name] <= n_negatives).any():
            raise ValueError(f"`full_ranks`[{name!r}] has ranks above `n_items`, or `n_items` is not above "
                             f"`n_negatives`={n_negatives}")
    # (metric, estimator, model) -> one system value per seed
    estimates: dict[tuple[str, str, str], NDArray[np.float64]] = {}
    for name, r in models.items():
        n = sizes[name]
        uniq, which = np.unique(n, return_inverse=True)
        for i, seed in enumerate(seeds):
            s = _draw(np.random.default_rng(seed), r, n, n_negatives)
            for metric, value in values.items():
                for est in estimators:
                    tables = np.stack([estimator_table(int(u), n_negatives, value, est, gamma) for u in uniq])
                    estimates.setdefault((metric, est, name), np.empty(len(seeds)))[i] = \
                        tables[which, s - 1].mean()
    return _summary(models, values, estimators, estimates)


def _summary(models: dict[str, NDArray[np.int64]], values: dict[str, Any], estimators: Sequence[str],
             estimates: dict[tuple[str, str, str], NDArray[np.float64]]) -> pd.DataFrame:
    rows = []
    for metric, value in values.items():
        full = {name: float(value(r.astype(np.float64)).mean()) for name, r in models.items()}
        for est in estimators:
            per_seed = np.array([estimates[(metric, est, name)] for name in models])  # models x seeds
            tau, kept = np.nan, np.nan
            if len(models) > 1:
                truth = np.array(list(full.values()))
                taus = [stats.kendalltau(truth, per_seed[:, j]).statistic for j in range(per_seed.shape[1])]
                tau = float(np.mean(taus))
                kept = float(np.mean([(np.argsort(-per_seed[:, j], kind="stable")
                                       == np.argsort(-truth, kind="stable")).all()
                                      for j in range(per_seed.shape[1])]))
            for i, name in enumerate(models):
                est_values = per_seed[i]
                sd = float(est_values.std(ddof=1)) if len(est_values) > 1 else np.nan
                rows.append({"metric": metric, "estimator": est, "model": name, "full": full[name],
                             "mean": float(est_values.mean()), "bias": float(est_values.mean() - full[name]),
                             "sd": sd, "rmse": float(np.sqrt(np.mean((est_values - full[name]) ** 2))),
                             "kendall_tau": tau, "order_kept": kept})
    return pd.DataFrame(rows)
