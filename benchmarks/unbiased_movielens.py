"""Plain, IPS, SNIPS and stratified values on MovieLens-100K for three recommenders (docs/unbiased.md).

MovieLens-100K comes from RecBole 1.2.1's wheel on PyPI, fetched once and checked against its
SHA-256 (``benchmarks/sampled_movielens.py``'s loader). Protocol: a random 20% of each user's
ratings held out (``rk.split.random_holdout``, seed 0, cold items dropped); a held-out rating
>= 4 is relevant. Three recommenders trained on the binary train matrix in numpy -- popularity,
item-kNN (cosine, every neighbour) and random -- list their 10 best items outside the user's
train. Each metric is shown plain, as IPS and as SNIPS with the normalised popularity
``(n_i / max n)^0.5`` of train and with Yang et al.'s power law (gamma fitted), and as the
stratum-weighted value of 4 popularity strata (propensity: the normalised popularity).

    PYTHONPATH=. python benchmarks/unbiased_movielens.py   # prints the markdown table
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sampled_movielens import movielens_100k, scores_of_models

import rankeval as rk
from rankeval.unbiased import Propensity, Unbiased, fit_power_law_exponent, stratified

K = 10
THRESHOLD = 4.0


def top_lists(scores: np.ndarray, seen: np.ndarray, users: pd.Index, items: pd.Index) -> pd.DataFrame:
    """Each user's ``K`` best items outside their train (ties: the lower item index first)."""
    s = np.where(seen > 0, -np.inf, scores)
    top = np.argsort(-s, axis=1, kind="stable")[:, :K]
    return pd.DataFrame({"user_id": np.repeat(users.to_numpy(), K), "item_id": items.to_numpy()[top.ravel()],
                         "score": -np.tile(np.arange(K, dtype=float), len(users))})


def main() -> pd.DataFrame:
    frame = movielens_100k()
    split = rk.split.random_holdout(frame, test_size=0.2, seed=0, drop_cold_items=True)
    train, test = split.trains[0], split.tests[0]
    users = pd.Index(sorted(test["user_id"].unique()))
    items = pd.Index(sorted(train["item_id"].unique()))
    train = train[train["user_id"].isin(users)]
    scores, seen = scores_of_models(train, users, items)
    plain = [rk.RecallAtK(K, relevant_threshold=THRESHOLD), rk.NDCGAtK(K, gains="binary", relevant_threshold=THRESHOLD),
             rk.MAPAtK(K, relevant_threshold=THRESHOLD), rk.MRR(relevant_threshold=THRESHOLD)]
    popularity = Propensity.popularity(0.5)
    power_law = Propensity.power_law()
    metrics = list(plain)
    for model, tag in ((popularity, "pop"), (power_law, "yang")):
        for estimator in ("ips", "snips"):
            metrics += [Unbiased(m, model, estimator, name=f"{m}-{estimator.upper()}-{tag}") for m in plain]
    counts = train.drop_duplicates(["user_id", "item_id"])["item_id"].value_counts()
    propensities = np.sqrt(counts / counts.max())
    rows, per_stratum = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        for name in ("popularity", "item-kNN", "random"):
            pred = top_lists(scores[name], seen, users, items)
            sys_result, _ = rk.EvalModel(pred, test, metrics, train=train).fit()
            row = sys_result.loc["mean"].to_dict()
            strata = stratified(pred, test, plain, propensities, 4)
            row.update({f"{m}-strata": strata.loc["strata", str(m)] for m in plain})
            rows[name] = row
            per_stratum[name] = strata[["R@10", "NDCG@10"]]
    table = pd.DataFrame(rows)
    print(f"gamma fitted to train's popularity: {fit_power_law_exponent(counts.to_numpy()):.4f}")
    print(f"strata sizes (truth rows of the popularity system's split): {strata['size'].to_dict()}")
    print(table.to_markdown(floatfmt=".4f"))
    print(pd.concat(per_stratum, axis=1).to_markdown(floatfmt=".4f"))
    return table


if __name__ == "__main__":
    main()
