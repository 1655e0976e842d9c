"""Random (pred, truth) frames and the dict inputs of trec_eval, shared by the peer tests."""

from __future__ import annotations

import numpy as np
import pandas as pd


def peer_frames(seed: int, *, tied: bool = False, min_users: int = 50,
                float_grades: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded random (pred, truth) with string ids.

    Per listed user: 1-15 truth items with grades 0-3 (about 1 user in 8 has only
    grade 0: no relevant item at threshold 1); a list of 1-20 items (often shorter than
    k) mixing judged items and unjudged ones, so that some relevant truth items are not
    listed. Scores are distinct within a user (``tied=False``) or drawn from {1, 2, 3}
    (``tied=True``). Rows are shuffled, so rankeval has to sort the lists. A few
    truth-only and pred-only users are added.

    Item ids of different lengths ("i7", "i42", "i100") make string order differ from
    numeric order.
    """
    rng = np.random.default_rng(seed)
    # Python str objects (object dtype): Spark infers their type, trec_eval takes them as keys
    catalog = np.array([f"i{j}" for j in range(300)], dtype=object)
    grade = float if float_grades else int
    n_users = int(rng.integers(min_users, 201))
    pred_rows: list[tuple[str, str, float]] = []
    truth_rows: list[tuple[str, str, float]] = []
    for u in range(n_users):
        user = f"u{u}"
        n_truth = int(rng.integers(1, 16))
        perm = rng.permutation(len(catalog))
        truth_items = catalog[perm[:n_truth]]
        grades = rng.integers(0, 4, n_truth)
        if rng.random() < 0.125:
            grades[:] = 0
        truth_rows += [(user, i, grade(g)) for i, g in zip(truth_items, grades)]
        n_list = int(rng.integers(1, 21))
        n_judged = int(rng.integers(0, min(n_truth, n_list) + 1))
        listed = np.concatenate([rng.choice(truth_items, n_judged, replace=False),
                                 catalog[perm[n_truth:n_truth + n_list - n_judged]]])
        if tied:
            scores = rng.integers(1, 4, n_list).astype(float)
        else:
            scores = rng.choice(10_000, n_list, replace=False) / 100.0
        pred_rows += [(user, i, float(s)) for i, s in zip(listed, scores)]
    for u in range(int(rng.integers(1, 6))):  # truth users without a list
        truth_rows += [(f"t{u}", str(i), grade(rng.integers(0, 4))) for i in rng.choice(catalog, 3, replace=False)]
    for u in range(int(rng.integers(1, 6))):  # pred users without truth
        pred_rows += [(f"p{u}", str(i), float(s)) for s, i in enumerate(rng.choice(catalog, 4, replace=False))]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    pred = pred.iloc[rng.permutation(len(pred))].reset_index(drop=True)
    return pred, truth


def as_qrels(truth: pd.DataFrame) -> dict[str, dict[str, int]]:
    """trec_eval's {user: {item: grade}}."""
    out: dict[str, dict[str, int]] = {}
    for u, i, g in truth[["user_id", "item_id", "score"]].itertuples(index=False):
        out.setdefault(str(u), {})[str(i)] = int(g)
    return out


def as_run(pred: pd.DataFrame) -> dict[str, dict[str, float]]:
    """trec_eval's {user: {item: score}}."""
    out: dict[str, dict[str, float]] = {}
    for u, i, s in pred[["user_id", "item_id", "score"]].itertuples(index=False):
        out.setdefault(str(u), {})[str(i)] = float(s)
    return out


def rating_frames(seed: int = 18, n_users: int = 6) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded predicted ratings against 1-5 ratings: per user 6 rated items, a list of 6
    predictions of which 4 are rated (2 unjudged), scores with 3 decimals."""
    rng = np.random.default_rng(seed)
    pred_rows, truth_rows = [], []
    for u in range(n_users):
        items = rng.choice(30, size=8, replace=False)
        for i in items[:6]:
            truth_rows.append((f"u{u}", f"i{i}", float(rng.integers(1, 6))))
        for i in items[2:]:
            pred_rows.append((f"u{u}", f"i{i}", float(np.round(rng.uniform(0.5, 5.5), 3))))
    return (pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"]))
