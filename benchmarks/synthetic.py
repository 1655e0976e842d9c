"""Seeded synthetic evaluation data for the benchmarks.

Every user gets ``list_len`` distinct recommended items, grouped by user and sorted by
score descending (the shape a recommender writes), and ``n_truth`` distinct rated items
(integer ratings 1-5): half of them taken from the user's own list, so metrics see hits,
half outside it. Ids are strings (``u0000042``, ``i012345``) or ints.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

N_ITEMS = 49_999  # prime: user u's items (a_u + j * b_u) mod N_ITEMS are distinct for j < N_ITEMS


def make_data(n_users: int, list_len: int = 100, n_truth: int = 20, *, str_ids: bool = True,
              seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, N_ITEMS, n_users)
    b = rng.integers(1, N_ITEMS, n_users)

    j = np.tile(np.arange(list_len), n_users)
    user = np.repeat(np.arange(n_users), list_len)
    pred_item = (a[user] + j * b[user]) % N_ITEMS
    score = (list_len - j) / list_len + np.repeat(rng.random(n_users), list_len) * 1e-3

    # truth: n_truth // 2 positions drawn from the list, the rest just past its end
    n_in = n_truth // 2
    in_list = np.argsort(rng.random((n_users, list_len)), axis=1)[:, :n_in]
    beyond = list_len + np.arange(n_truth - n_in)
    tj = np.concatenate([in_list, np.broadcast_to(beyond, (n_users, n_truth - n_in))], axis=1).ravel()
    tuser = np.repeat(np.arange(n_users), n_truth)
    truth_item = (a[tuser] + tj * b[tuser]) % N_ITEMS
    rating = rng.integers(1, 6, n_users * n_truth).astype(np.float64)

    if str_ids:
        user_names = np.array([f"u{i:07d}" for i in range(n_users)], dtype=object)
        item_names = np.array([f"i{i:06d}" for i in range(N_ITEMS)], dtype=object)
        pu, pi, tu, ti = user_names[user], item_names[pred_item], user_names[tuser], item_names[truth_item]
    else:
        pu, pi, tu, ti = user, pred_item, tuser, truth_item
    pred = pd.DataFrame({"user_id": pu, "item_id": pi, "score": score})
    truth = pd.DataFrame({"user_id": tu, "item_id": ti, "score": rating})
    return pred, truth
