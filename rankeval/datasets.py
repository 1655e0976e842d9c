"""Small seeded sample data, generated on demand (no file to download, nothing licensed).

:func:`make_ratings` draws users' ratings from a latent-factor model, so some items are
liked by many users and tastes differ; :func:`train_test_folds` splits them into folds;
:func:`recommend` produces the lists of three reference recommenders.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

__all__ = ["make_ratings", "train_test_folds", "recommend", "sample_split"]

RECOMMENDERS = ("popularity", "random", "noisy_oracle")


def make_ratings(n_users: int = 500, n_items: int = 300, ratings_per_user: int = 40, *,
                 seed: int = 0) -> pd.DataFrame:
    """Ratings 1-5 (``user_id``, ``item_id``, ``score``) from a seeded latent-factor model.

    Ids are strings (``u0001``, ``i0042``). Items have a popularity bias, so a
    popularity recommender beats a random one, as on real data.
    """
    rng = np.random.default_rng(seed)
    dim = 4
    user_f = rng.normal(size=(n_users, dim))
    item_f = rng.normal(size=(n_items, dim))
    item_bias = rng.normal(0.0, 0.8, n_items)
    popularity = np.exp(item_bias) / np.exp(item_bias).sum()
    for_user = min(ratings_per_user, n_items)
    # each user rates a popularity-biased sample of distinct items (Gumbel top-k trick)
    keys = np.log(popularity)[None, :] + rng.gumbel(size=(n_users, n_items))
    rated = np.argsort(-keys, axis=1)[:, :for_user]
    users = np.repeat(np.arange(n_users), for_user)
    items = rated.ravel()
    affinity = (user_f[users] * item_f[items]).sum(axis=1) / np.sqrt(dim) + item_bias[items]
    noise = rng.normal(0.0, 0.7, len(items))
    score = np.clip(np.round(3.0 + affinity + noise), 1, 5)
    rows = pd.DataFrame({
        "user_id": np.char.add("u", np.char.zfill(users.astype(str), 4)).astype(object),
        "item_id": np.char.add("i", np.char.zfill(items.astype(str), 4)).astype(object),
        "score": score.astype(np.float64),
    })
    return rows


def train_test_folds(ratings: pd.DataFrame, n_folds: int = 5, *, seed: int = 0
                     ) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """Yield ``(train, test)`` for ``n_folds`` folds, each user's ratings split evenly."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(ratings))
    shuffled = ratings.iloc[order]
    fold = shuffled.groupby("user_id", sort=False).cumcount().to_numpy() % n_folds
    for f in range(n_folds):
        test = shuffled[fold == f].sort_index()
        train = shuffled[fold != f].sort_index()
        yield train, test


def recommend(train: pd.DataFrame, test: pd.DataFrame, kind: str, n: int = 20, *,
              seed: int = 0) -> pd.DataFrame:
    """Top-``n`` lists (``user_id``, ``item_id``, ``score``) for every test user.

    ``kind`` is ``"popularity"`` (most rated training items), ``"random"``, or
    ``"noisy_oracle"`` (the test ratings plus noise: a strong but imperfect recommender).
    Items the user rated in training are never recommended.
    """
    if kind not in RECOMMENDERS:
        raise ValueError(f"`kind` must be one of {list(RECOMMENDERS)}, got {kind!r}")
    rng = np.random.default_rng(seed)
    items = np.sort(pd.unique(pd.concat([train["item_id"], test["item_id"]])))
    users = pd.unique(test["user_id"])
    n_items = len(items)
    item_index = pd.Index(items)
    if kind == "popularity":
        counts = train["item_id"].value_counts().reindex(items, fill_value=0).to_numpy()
        base = np.broadcast_to(counts.astype(float), (len(users), n_items)).copy()
    elif kind == "random":
        base = rng.random((len(users), n_items))
    else:
        base = rng.normal(0.0, 1.5, (len(users), n_items))
        u = pd.Index(users).get_indexer(test["user_id"])
        base[u, item_index.get_indexer(test["item_id"])] += test["score"].to_numpy()
    seen = train[train["user_id"].isin(users)]
    base[pd.Index(users).get_indexer(seen["user_id"]), item_index.get_indexer(seen["item_id"])] = -np.inf
    top = np.argsort(-base, axis=1, kind="stable")[:, :n]
    return pd.DataFrame({
        "user_id": np.repeat(users, n),
        "item_id": items[top.ravel()],
        "score": np.take_along_axis(base, top, axis=1).ravel(),
    })


def sample_split(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One ``(pred, truth)`` pair: the noisy oracle's lists against the first fold's test ratings."""
    ratings = make_ratings(seed=seed)
    train, test = next(train_test_folds(ratings, seed=seed))
    return recommend(train, test, "noisy_oracle", seed=seed), test
