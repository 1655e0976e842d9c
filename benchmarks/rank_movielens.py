"""MovieLens-100K end to end with rankeval.rank: a PureSVD model, full-catalog lists, and the sampled estimate.

Leave-last-one-out (``rk.split.temporal_holdout(n_last=1)``, 943 users); PureSVD with 32
factors (the truncated SVD of the binary train matrix: user vectors ``U_32 S_32``, item
vectors ``V_32``); every user's top 100 with the user's train items excluded (a re-rated test
item stays a candidate), HR@10 and NDCG@10 on the full catalog: ranked and evaluated in one call by
``EvalModel.from_model`` (checked equal to ``rankeval.rank.top_k`` then ``EvalModel`` on its pred frame). Then the protocol of 100 uniform negatives on the same model, for ``--seeds``
draws: each user's positive and 100 items drawn from those not in their train, scored by the
same vectors, evaluated naive and corrected (``SampledCandidates``, ``bias_variance``).

    PYTHONPATH=. python benchmarks/rank_movielens.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rankeval as rk
from rankeval.rank import top_k
from rankeval.sampled import SampledCandidates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sampled_movielens import movielens_100k  # noqa: E402  (the cached, checksummed ML-100K)

METRICS = [rk.HitRateAtK(10), rk.NDCGAtK(10)]


def pure_svd(train: pd.DataFrame, users: pd.Index, items: pd.Index, factors: int = 32):
    """User and item vectors of PureSVD: the truncated SVD of the binary train matrix."""
    x = np.zeros((len(users), len(items)))
    x[users.get_indexer(train["user_id"]), items.get_indexer(train["item_id"])] = 1.0
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    return u[:, :factors] * s[:factors], vt[:factors].T


def sampled_lists(u_vec, i_vec, users, items, seen, test, rng):
    """Each user's positive and 100 uniform negatives from the items not in their train, with model scores."""
    positive = items.get_indexer(test.loc[users, "item_id"])
    rows, cols = [], []
    for u in range(len(users)):  # 943 users: a plain loop is the clearest way to draw without replacement
        allowed = np.flatnonzero(~seen[u])
        allowed = allowed[allowed != positive[u]]
        rows.append(np.full(101, u))
        cols.append(np.r_[positive[u], rng.choice(allowed, 100, replace=False)])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    scores = np.einsum("ij,ij->i", u_vec[rows], i_vec[cols])
    return pd.DataFrame({"user_id": users[rows], "item_id": items[cols], "score": scores})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    frame = movielens_100k()
    split = rk.split.temporal_holdout(frame, n_last=1)
    train, test = split.trains[0], split.tests[0]
    users = pd.Index(sorted(test["user_id"].unique()))
    items = pd.Index(sorted(frame["item_id"].unique()))
    train = train[train["user_id"].isin(users)]
    u_vec, i_vec = pure_svd(train, users, items)
    # a re-rated test item stays a candidate, as in the sampled protocol below
    exclude = train.merge(test[["user_id", "item_id"]], how="left", indicator=True)
    exclude = exclude[exclude["_merge"] == "left_only"][["user_id", "item_id"]]
    truth = test[["user_id", "item_id"]].assign(score=1.0)
    t0 = time.perf_counter()
    model = rk.EvalModel.from_model(u_vec, i_vec, truth, METRICS, k=100, user_ids=users, item_ids=items,
                                    exclude=exclude)
    full, _ = model.fit()
    took = time.perf_counter() - t0
    print(f"{len(users)} users x {len(items)} items, {len(exclude):,} train pairs excluded; "
          f"EvalModel.from_model(k=100) ranked and evaluated in {took * 1e3:.0f} ms")
    # the lists as top_k gives them, through their pred frame: the same values, bit for bit
    lists = top_k(u_vec, i_vec, 100, user_ids=users, item_ids=items, exclude=exclude)
    pd.testing.assert_frame_equal(full, rk.EvalModel(lists.to_frame(), truth, METRICS).fit()[0], check_exact=True)
    print("full catalog:", {c: round(float(full[c].iloc[0]), 4) for c in full.columns})
    seen = np.zeros((len(users), len(items)), dtype=bool)
    seen[users.get_indexer(exclude["user_id"]), items.get_indexer(exclude["item_id"])] = True
    n_items = pd.Series((~seen).sum(axis=1), index=users)
    design = SampledCandidates(n_items=n_items, n_negatives=100)
    rows = []
    for seed in range(args.seeds):
        pred = sampled_lists(u_vec, i_vec, users, items, seen, test.set_index("user_id"),
                             np.random.default_rng(seed))
        result, _ = rk.EvalModel(pred, truth, METRICS, sampled=design, estimator="bias_variance").fit()
        rows.append(result.iloc[0])
    table = pd.DataFrame(rows)
    print(f"sampled (100 uniform negatives), mean and sd over {args.seeds} seeds:")
    for col in table.columns:
        print(f"  {col:14s} {table[col].mean():.4f} +- {table[col].std(ddof=1):.4f}")


if __name__ == "__main__":
    main()
