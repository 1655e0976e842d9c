"""Sampled metrics on MovieLens-100K: naive vs corrected vs full, for four recommenders (docs/sampled.md).

MovieLens-100K comes from RecBole 1.2.1's wheel on PyPI (``recbole/dataset_example/ml-100k/
ml-100k.inter``), fetched once with ``pip download`` into ``RANKEVAL_DATA_CACHE`` (default
``~/.cache/rankeval``) and checked against its SHA-256, as tests/test_split_movielens.py does.

Protocol: leave-last-one-out (``rk.split.temporal_holdout(n_last=1)``); each user's positive
competes with every item not in the user's train (``n_items`` per user); four recommenders
trained on train in numpy (popularity, item-kNN, PureSVD, random) score every item, which gives
the full rank of each positive; ``rk.sampled.simulate`` draws the ranks the 100-uniform-negatives
protocol would have given, for 20 seeds, and reports every estimator against the full value.

    PYTHONPATH=. python benchmarks/sampled_movielens.py   # writes docs/img/sampled_movielens.png
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

import rankeval as rk
from rankeval.datasets import read_movielens

WHEEL = "recbole-1.2.1-py3-none-any.whl"
WHEEL_SHA256 = "9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407"
MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"
ROOT = Path(__file__).resolve().parents[1]


def movielens_100k() -> pd.DataFrame:
    cache = Path(os.environ.get("RANKEVAL_DATA_CACHE", Path.home() / ".cache" / "rankeval"))
    wheel = cache / WHEEL
    if not wheel.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "recbole==1.2.1",
                        "-d", str(cache)], check=True, timeout=300)
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == WHEEL_SHA256
    target = cache / "ml-100k.inter"
    with zipfile.ZipFile(wheel) as archive:
        target.write_bytes(archive.read(MEMBER))
    return read_movielens(target)


def scores_of_models(train: pd.DataFrame, users: pd.Index, items: pd.Index) -> dict[str, np.ndarray]:
    """Users x items score matrices of the four recommenders, from the binary train matrix."""
    x = np.zeros((len(users), len(items)))
    x[users.get_indexer(train["user_id"]), items.get_indexer(train["item_id"])] = 1.0
    popularity = np.broadcast_to(x.sum(axis=0), x.shape)
    norms = np.sqrt(x.sum(axis=0))
    norms[norms == 0] = 1.0
    cosine = (x.T @ x) / np.outer(norms, norms)
    np.fill_diagonal(cosine, 0.0)
    knn = x @ cosine
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    svd = (u[:, :32] * s[:32]) @ vt[:32]  # PureSVD, 32 factors
    random = np.random.default_rng(0).random(x.shape)
    return {"popularity": popularity, "item-kNN": knn, "PureSVD": svd, "random": random}, x


def full_ranks(scores: np.ndarray, seen: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Rank of each user's positive among the items not in their train (ties broken at random, seeded)."""
    jitter = np.random.default_rng(1).random(scores.shape) * 1e-9 * (np.abs(scores).max() + 1)
    s = np.where(seen > 0, -np.inf, scores + jitter)
    mine = s[np.arange(len(s)), positive]
    return 1 + (s > mine[:, None]).sum(axis=1)


def main() -> pd.DataFrame:
    frame = movielens_100k()
    split = rk.split.temporal_holdout(frame, n_last=1)
    train, test = split.trains[0], split.tests[0]
    users = pd.Index(sorted(test["user_id"].unique()))
    items = pd.Index(sorted(frame["item_id"].unique()))
    train = train[train["user_id"].isin(users)]
    models, seen = scores_of_models(train, users, items)
    test = test.set_index("user_id").loc[users]
    positive = items.get_indexer(test["item_id"])
    seen[np.arange(len(users)), positive] = 0  # a re-rated item: the positive stays a candidate
    n_items = (seen == 0).sum(axis=1)
    ranks = {name: full_ranks(s, seen, positive) for name, s in models.items()}
    table = rk.sampled.simulate(ranks, n_items, 100, [rk.HitRateAtK(10), rk.NDCGAtK(10)], seeds=range(20))
    _plot(table, ROOT / "docs" / "img" / "sampled_movielens.png")
    print(f"{len(users)} users, {len(items)} items, n_items per user {n_items.min()}..{n_items.max()}")
    return table


def _plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = ["naive", "rescaled", "bias_variance"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, metric in zip(axes, ["HR@10", "NDCG@10"]):
        part = table[table["metric"] == metric]
        models = list(dict.fromkeys(part["model"]))
        x = np.arange(len(models))
        full = part.drop_duplicates("model").set_index("model").loc[models, "full"]
        ax.plot(x, full, "k*", markersize=12, label="full catalog")
        for j, est in enumerate(shown):
            rows = part[part["estimator"] == est].set_index("model").loc[models]
            ax.errorbar(x + 0.12 * (j - 1), rows["mean"], yerr=rows["sd"], fmt="o", capsize=3, label=est)
        ax.set_xticks(x, models)
        ax.set_yscale("log")
        ax.set_title(f"{metric}: 100 uniform negatives, 20 seeds (mean ± sd)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    result = main()
    pd.set_option("display.width", 200)
    cols = ["metric", "estimator", "model", "full", "mean", "bias", "sd", "rmse", "kendall_tau", "order_kept"]
    print(result[cols].to_markdown(index=False, floatfmt=".4f"))
