"""How sure is a comparison? MovieLens-100k, popularity vs item-kNN on a global time split.

MovieLens may not be redistributed: pass the path of ML-100K's ``u.data`` (from
https://grouplens.org/datasets/movielens/100k/) or RecBole's ``ml-100k.inter``::

    .venv/bin/python examples/how_sure.py ~/data/ml-100k/u.data

Train is every rating before the time that leaves the last 20 % of ratings in test; the
test users are those with a training rating (cold users have no item-kNN list). Both
systems list the 10 best unseen items. Item-kNN scores an item by the votes of the user's
training items that have it among their 20 most similar items (cosine); its many tied
scores are broken at random, by a seed. docs/compare.md shows this script's output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import rankeval as rk
from rankeval.datasets import read_movielens
from rankeval.split import global_temporal

K = 10


def top_lists(scores: np.ndarray, seen: np.ndarray, users: np.ndarray, items: np.ndarray,
              seed: int) -> pd.DataFrame:
    """Each user's K best unseen items; tied scores in a random order drawn with ``seed``."""
    tie_break = np.random.default_rng(seed).random(scores.shape)
    masked = np.where(seen, -np.inf, scores)
    order = np.lexsort((tie_break, -masked), axis=1)[:, :K]
    return pd.DataFrame({"user_id": np.repeat(users, K), "item_id": items[order].ravel(),
                         "score": np.take_along_axis(masked, order, axis=1).ravel(),
                         "rank": np.tile(np.arange(1, K + 1), len(users))})


def systems(train: pd.DataFrame, users: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seen, popularity scores, item-kNN vote scores) over users x items."""
    r = np.zeros((len(users), len(items)))
    r[np.searchsorted(users, train["user_id"]), np.searchsorted(items, train["item_id"])] = 1.0
    co = r.T @ r
    norms = np.sqrt(np.diag(co))
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.nan_to_num(co / np.outer(norms, norms))
    np.fill_diagonal(sim, 0.0)
    neighbours = np.argsort(-sim, axis=1, kind="stable")[:, :20]  # each item's 20 most similar items
    votes = np.zeros_like(sim)
    np.put_along_axis(votes, neighbours, 1.0, axis=1)
    return r > 0, np.broadcast_to(r.sum(axis=0), r.shape), r @ votes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="ML-100K u.data or ml-100k.inter")
    args = parser.parse_args(argv)
    ratings = read_movielens(args.path)
    split = global_temporal(ratings, test_size=0.2)
    train, test = split.trains[0], split.tests[0]
    test = test[test["user_id"].isin(train["user_id"])]
    users, items = np.sort(test["user_id"].unique()), np.sort(ratings["item_id"].unique())
    seen, popularity, knn = systems(train[train["user_id"].isin(users)], users, items)
    pop = top_lists(popularity, seen, users, items, seed=0)
    knns = {f"seed{s}": top_lists(knn, seen, users, items, seed=s) for s in range(5)}
    ndcg = rk.NDCGAtK(10)
    pd.set_option("display.width", 120)

    # 1. how large a difference could this test set detect, and how many users would 1 % need?
    res = rk.compare({"popularity": pop, "item-kNN": knns["seed0"]}, test, [ndcg], seed=0)
    print(res.table[["mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_value", "n"]].round(4).to_string())
    print(res.table[["rel_diff", "rel_ci_low", "rel_ci_high", "effect_size", "dz_ci_low", "dz_ci_high"]]
          .round(3).to_string())
    power = res.power(0.01, relative=True)
    print(power.table[["n", "sd", "mde", "mde_dz", "effect", "power", "n_needed"]].round(4).to_string())

    # 2. two near-identical systems: item-kNN with two tie-breaking seeds, equivalent within 1 %?
    twins = rk.compare({"item-kNN seed0": knns["seed0"], "item-kNN seed1": knns["seed1"]}, test, [ndcg],
                       seed=0, equivalence_margin="1%")
    print(twins.table[["diff", "ci_low", "ci_high", "p_value"]].round(4).to_string())
    print(twins.equivalence[["margin", "tost_low", "tost_high", "tost_p", "equivalent"]].round(4).to_string())
    wider = twins.equivalence_test("5%")
    print(wider[["margin", "tost_low", "tost_high", "tost_p", "equivalent"]].round(4).to_string())

    # 3. item-kNN's five seeds against popularity: does the difference beat the seed-to-seed spread?
    seeded = rk.compare({"popularity": pop, "item-kNN": knns}, test, [ndcg], seed=0)
    print(seeded.seeds.round(5).to_string())
    print(seeded.seed_pairs.round(4).to_string())


if __name__ == "__main__":
    main()
