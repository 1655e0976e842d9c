"""Plain per-user loops for Miscalibration, Serendipity, Unexpectedness and Surprisal, and random data for them.

Each oracle is written from the definition (Steck 2018; MS Recommenders'
``python_evaluation.py``; RePlay's ``unexpectedness.py`` and ``surprisal.py``), one user at
a time, with dicts and sets: obviously correct, slow.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd

GENRES = ["drama", "comedy", "war", "noir", "kids"]


def random_data(seed: int, n_users: int = 12, n_items: int = 15, str_ids: bool = True):
    """pred (distinct scores), truth, train (with scores, some repeated pairs), genre sets, vectors."""
    rng = np.random.default_rng(seed)
    items = [f"i{j:02d}" if str_ids else j for j in range(n_items)]
    users = [f"u{j:02d}" if str_ids else j for j in range(n_users)]
    pred_rows, truth_rows, train_rows = [], [], []
    for u in users:
        listed = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
        scores = rng.permutation(len(listed)).astype(float)
        pred_rows += [(u, items[i], s) for i, s in zip(listed, scores)]
        rated = rng.choice(n_items, size=int(rng.integers(1, 5)), replace=False)
        truth_rows += [(u, items[i], float(rng.integers(1, 6))) for i in rated]
        if rng.random() < 0.85:  # some users have no history
            had = rng.choice(n_items, size=int(rng.integers(1, 7)), replace=True)
            train_rows += [(u, items[i], float(rng.integers(1, 6))) for i in had]
    if not train_rows:
        train_rows = [(users[0], items[0], 1.0)]
    pred = pd.DataFrame(pred_rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "score"])
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id", "score"])
    with_features = items[: n_items - 2]  # the last two items have no features
    sets = pd.DataFrame({"genres": [set(rng.choice(GENRES, size=int(rng.integers(0, 4)), replace=False).tolist())
                                    for _ in with_features]}, index=with_features)
    vectors = pd.DataFrame(rng.integers(-2, 3, size=(len(with_features), 3)).astype(float), index=with_features,
                           columns=["a", "b", "c"])
    return pred, truth, train, sets, vectors


def _lists(pred, truth, k):
    """user -> list of items (score descending, first k), for users in both pred and truth."""
    users = set(truth["user_id"])
    out = {}
    for u, g in pred.groupby("user_id", sort=False):
        if u in users:
            items = g.sort_values("score", ascending=False, kind="stable")["item_id"].tolist()
            out[u] = items if k is None else items[:k]
    return out


def _relevant(truth):
    rel = {}
    for u, g in truth.groupby("user_id"):
        mean = g["score"].mean()
        rel[u] = set(g.loc[g["score"] >= mean, "item_id"])
    return rel


def miscalibration(pred, truth, train, sets, k=None, alpha=0.01, rank_weight="uniform",
                   history_weight="uniform", base=math.e):
    genres = {i: set(g) for i, g in sets["genres"].items()}
    out = {}
    for u, items in _lists(pred, truth, k).items():
        hist = defaultdict(float)
        for _, row in train[train["user_id"] == u].iterrows():
            hist[row["item_id"]] += row["score"] if history_weight == "score" else 0.0
        p, p_tot = defaultdict(float), 0.0
        for i, w in hist.items():
            w = w if history_weight == "score" else 1.0
            if genres.get(i):
                p_tot += w
                for g in genres[i]:
                    p[g] += w / len(genres[i])
        q, q_tot = defaultdict(float), 0.0
        for r, i in enumerate(items, start=1):
            w = 1.0 if rank_weight == "uniform" else 1.0 / math.log2(r + 1)
            if genres.get(i):
                q_tot += w
                for g in genres[i]:
                    q[g] += w / len(genres[i])
        if p_tot == 0 or q_tot == 0:
            out[u] = np.nan
            continue
        kl = 0.0
        for g, mass in p.items():
            pg = mass / p_tot
            if pg == 0:
                continue
            qt = (1 - alpha) * q[g] / q_tot + alpha * pg
            kl += pg * (math.log(pg / qt) / math.log(base)) if qt > 0 else math.inf
        out[u] = kl
    return pd.Series(out, dtype=float)


def _cosine(a, b):
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    return 0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b)) / (na * nb)


def serendipity(pred, truth, train, k=None, features=None, relevance="binary"):
    history = {u: set(g["item_id"]) for u, g in train.groupby("user_id")}
    users_of = defaultdict(set)
    for u, items in history.items():
        for i in items:
            users_of[i].add(u)
    rel = _relevant(truth)

    def sim(i, h):
        if features is None:
            if not users_of[i] or not users_of[h]:
                return 0.0
            return len(users_of[i] & users_of[h]) / math.sqrt(len(users_of[i]) * len(users_of[h]))
        if i not in features.index or h not in features.index:
            return 0.0
        a, b = features.loc[i], features.loc[h]
        if isinstance(a.iloc[0], set):
            sa, sb = a.iloc[0], b.iloc[0]
            return 0.0 if not sa or not sb else len(sa & sb) / math.sqrt(len(sa) * len(sb))
        return _cosine(a.tolist(), b.tolist())

    out = {}
    for u, items in _lists(pred, truth, k).items():
        if u not in history:
            out[u] = np.nan
            continue
        vals = []
        for i in items:
            r = 1.0 if relevance == "none" else float(i in rel[u])
            vals.append(r * (1 - sum(sim(i, h) for h in history[u]) / len(history[u])))
        out[u] = sum(vals) / len(vals)
    return pd.Series(out, dtype=float)


def unexpectedness(pred, truth, base, k=None, no_baseline="nan"):
    base_lists = {u: g.sort_values("score", ascending=False, kind="stable")["item_id"].tolist()
                  for u, g in base.groupby("user_id")}
    out = {}
    for u, items in _lists(pred, truth, k).items():
        if u not in base_lists:
            out[u] = np.nan if no_baseline == "nan" else 0.0
            continue
        b = base_lists[u] if k is None else base_lists[u][:k]
        out[u] = 1.0 - len(set(items) & set(b)) / (k if k is not None else len(items))
    return pd.Series(out, dtype=float)


def surprisal(pred, truth, train, k=None):
    n = train["user_id"].nunique()
    pop = train.groupby("item_id")["user_id"].nunique().to_dict()
    out = {}
    for u, items in _lists(pred, truth, k).items():
        w = [math.log2(n / pop[i]) / math.log2(n) if i in pop else 1.0 for i in items]
        out[u] = sum(w) / (k if k is not None else len(items))
    return pd.Series(out, dtype=float)
