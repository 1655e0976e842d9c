"""The seeded dataset that the peers' ``generate.py`` scripts evaluate (numpy and pandas only).

Each ``tests/reference/<peer>/generate.py`` imports this module in the peer's own venv,
writes the frames to CSV files in its folder, reads them back, and runs the peer on what
it read. The tests read the same CSV files, so the data is fixed by the files, not by
this module. Nothing here imports rankeval or a peer.

``make_dataset(seed, ...)`` returns ``pred``, ``truth``, ``train`` and ``features``:

- ``pred``: ``user_id, item_id, score``. Per listed user a list of 1-25 items (about a
  quarter shorter than 5 and about half shorter than 10; ``min_len`` raises the
  floor). Scores are distinct within a user, except for about a quarter of the users
  (``ties=True``), whose scores are drawn from {1, 2, 3}, so that several items tie.
  The rows are shuffled: each tool has to sort the lists itself, and tied items keep
  the order of their rows (see the test modules).
- ``truth``: ``user_id, item_id, score``, integer ratings 1-5. Every listed user with
  truth has 1-14 truth items: 0-6 of them listed (a hit), the others not listed. About
  one user in eight has none of their truth items listed. Every truth row is relevant
  for the all-relevant peers (RecBole, Microsoft Recommenders, LensKit).
- A few truth-only users (``t0``, ``t1``, ...: truth rows, no list) and pred-only
  users (``p0``, ...: a list, no truth row).
- ``train``: ``user_id, item_id``, 3-30 training items per user (also the truth-only
  users), drawn with a popularity skew. A user's training items are never in that
  user's list or truth (Microsoft Recommenders' novelty and coverage functions raise
  otherwise). Every listed item is some user's training item, so the training items are
  a catalog that holds every recommendation.
- ``features``: ``item_id, f0 ... f5``, a non-negative vector per catalog item, never
  all zero (cosine similarity is defined for every pair).

``short_lists_fully_judged=True`` (RecBole): a user whose list is shorter than
``short_below`` has every truth item in the list, so that filling the rest of a
full-catalog top-k with unlisted items can never add a hit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

N_FEATURES = 6


def make_dataset(seed: int, *, n_users: int = 300, n_items: int = 400, min_len: int = 1,
                 ties: bool = True, n_truth_only: int = 8, n_pred_only: int = 4,
                 short_lists_fully_judged: bool = False, short_below: int = 10,
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j}" for j in range(n_items)], dtype=object)  # ids of different lengths
    weight = 1.0 / (rng.permutation(n_items) + 5.0) ** 0.9               # popularity skew
    weight /= weight.sum()

    def draw(n: int, exclude: set, pool: np.ndarray | None = None) -> list:
        cand = np.array([i for i in (items if pool is None else pool) if i not in exclude], dtype=object)
        w = weight[[int(i[1:]) for i in cand]]
        n = min(n, len(cand))
        return list(rng.choice(cand, size=n, replace=False, p=w / w.sum()))

    users = [f"u{u}" for u in range(n_users)]
    t_users = [f"t{u}" for u in range(n_truth_only)]
    p_users = [f"p{u}" for u in range(n_pred_only)]
    train_rows = []
    train_of: dict[str, list] = {}
    for u in users + t_users:
        train_of[u] = draw(int(rng.integers(3, 31)), set())
        train_rows += [(u, i) for i in train_of[u]]
    trained = np.array(sorted(set(i for _, i in train_rows), key=lambda s: int(s[1:])), dtype=object)

    pred_rows, truth_rows = [], []
    for u in users + p_users:
        r = rng.random()
        n_list = int(rng.integers(1, 5) if r < 0.25 else rng.integers(5, 10) if r < 0.5 else rng.integers(10, 26))
        n_list = max(n_list, min_len)
        seen = set(train_of.get(u, []))
        listed = draw(n_list, seen, trained)
        tied = ties and rng.random() < 0.25
        scores = (rng.integers(1, 4, len(listed)).astype(float) if tied
                  else rng.choice(np.arange(1, 10_000), len(listed), replace=False) / 100.0)
        pred_rows += [(u, i, float(s)) for i, s in zip(listed, scores)]
        if u in p_users:
            continue
        short = short_lists_fully_judged and len(listed) < short_below
        n_hit = 0 if rng.random() < 0.125 else int(rng.integers(0, min(len(listed), 6) + 1))
        if short:
            n_hit = max(n_hit, 1)
        hits = list(rng.choice(np.array(listed, dtype=object), n_hit, replace=False)) if n_hit else []
        n_miss = 0 if short else int(rng.integers(0 if hits else 1, 9))
        misses = draw(n_miss, seen | set(listed))
        truth_rows += [(u, i, float(rng.integers(1, 6))) for i in hits + misses]
    for u in t_users:
        truth_rows += [(u, i, float(rng.integers(1, 6))) for i in draw(int(rng.integers(2, 7)), set(train_of[u]))]

    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    pred = pred.iloc[rng.permutation(len(pred))].reset_index(drop=True)
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    truth = truth.iloc[rng.permutation(len(truth))].reset_index(drop=True)
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    vectors = rng.random((n_items, N_FEATURES)) * (rng.random((n_items, N_FEATURES)) < 0.6)
    vectors[vectors.sum(axis=1) == 0, 0] = 1.0
    features = pd.DataFrame(np.round(vectors, 3), columns=[f"f{j}" for j in range(N_FEATURES)])
    features.insert(0, "item_id", items)
    check(pred, truth, train)
    return pred, truth, train, features


def check(pred: pd.DataFrame, truth: pd.DataFrame, train: pd.DataFrame) -> None:
    """What every peer needs: no duplicate pairs, no listed or truth item in the user's train."""
    for name, df in (("pred", pred), ("truth", truth), ("train", train)):
        assert not df.duplicated(["user_id", "item_id"]).any(), name
    pairs = set(zip(train.user_id, train.item_id))
    assert not any(p in pairs for p in zip(pred.user_id, pred.item_id))
    assert not any(p in pairs for p in zip(truth.user_id, truth.item_id))
    assert set(pred.item_id) <= set(train.item_id)


def summary(pred: pd.DataFrame, truth: pd.DataFrame) -> dict:
    """What the data exercises, for provenance.json."""
    lens = pred.groupby("user_id").size()
    both = sorted(set(pred.user_id) & set(truth.user_id))
    hits = pred.merge(truth, on=["user_id", "item_id"]).groupby("user_id").size().reindex(both, fill_value=0)
    tied = pred.groupby("user_id")["score"].apply(lambda s: not s.is_unique)
    return {
        "users_with_list_and_truth": len(both),
        "truth_only_users": sorted(set(truth.user_id) - set(pred.user_id)),
        "pred_only_users": sorted(set(pred.user_id) - set(truth.user_id)),
        "pred_rows": len(pred), "truth_rows": len(truth),
        "list_length": {"min": int(lens.min()), "max": int(lens.max()), "lt_5": int((lens < 5).sum()),
                        "lt_10": int((lens < 10).sum())},
        "users_with_tied_scores": int(tied.sum()),
        "users_with_no_truth_item_listed": int((hits == 0).sum()),
    }
