"""Slow, obviously-correct reference implementations of rankeval's metrics.

Written from DESIGN.md sections 1-3 only (never from the library's code), with
plain per-user Python loops, so the property tests in
``tests/metrics/test_oracle.py`` compare two independent derivations.

Every oracle takes ``(pred, truth, **params)``: ``pred`` has ``user_id``,
``item_id`` and optionally ``score`` (higher = better) and/or ``rank``
(1 = best); ``truth`` has ``user_id``, ``item_id``, ``score``. It returns a
``pd.Series`` of floats indexed by user id, one entry per evaluated user (a user
present in both frames), NaN where the metric is undefined for that user.

Conventions implemented (the library's defaults):

- list order: ``rank`` ascending if the column exists; else ``score``
  descending with ties kept in input row order; else input row order.
  Positions are 1-based indices into that order.
- relevance: ``relevant_threshold=None`` -> the user's mean truth score, the
  comparison ``score >= mean`` made exactly (``Fraction``: ``n * score >= sum``),
  so float rounding and truth row order never flip a decision; a number -> that
  threshold for everyone. Relevant iff truth score >= threshold; listed items
  absent from truth are never relevant.
- ``m_u`` = number of the user's relevant truth items, listed or not.
- NDCG's ideal list gives negative gains no weight (docs/decisions.md).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd

__all__ = [
    "average_precision",
    "reciprocal_rank",
    "precision_at_k",
    "recall_at_k",
    "hit_rate_at_k",
    "dcg",
    "ndcg",
    "correlation",
    "evaluated_users",
]

NAN = float("nan")


# --------------------------------------------------------------------------- #
# shared plumbing: one Python dict per frame, one loop per user
# --------------------------------------------------------------------------- #
def _pred_lists(pred: pd.DataFrame) -> dict:
    """user -> list of (item, predicted score or None) in list order."""
    users = pred["user_id"].tolist()
    items = pred["item_id"].tolist()
    has_score = "score" in pred.columns
    has_rank = "rank" in pred.columns
    scores = [float(s) for s in pred["score"].tolist()] if has_score else [None] * len(users)
    ranks = pred["rank"].tolist() if has_rank else [None] * len(users)

    rows: dict = {}
    for u, i, s, r in zip(users, items, scores, ranks):
        rows.setdefault(u, []).append((i, s, r))

    lists: dict = {}
    for u, user_rows in rows.items():  # user_rows are in input row order
        if has_rank:
            ordered = sorted(user_rows, key=lambda row: row[2])
        elif has_score:
            ordered = sorted(user_rows, key=lambda row: -row[1])  # sorted() is stable
        else:
            ordered = list(user_rows)
        lists[u] = [(i, s) for i, s, _ in ordered]
    return lists


def _truth_dicts(truth: pd.DataFrame) -> dict:
    """user -> {item: float truth score} (insertion = row order)."""
    out: dict = {}
    for u, i, s in zip(truth["user_id"].tolist(), truth["item_id"].tolist(), truth["score"].tolist()):
        out.setdefault(u, {})[i] = float(s)
    return out


def evaluated_users(pred: pd.DataFrame, truth: pd.DataFrame) -> list:
    """Users present in both frames, in order of first appearance in pred."""
    t = set(truth["user_id"].tolist())
    seen: list = []
    seen_set: set = set()
    for u in pred["user_id"].tolist():
        if u in t and u not in seen_set:
            seen.append(u)
            seen_set.add(u)
    return seen


def _is_relevant(score: float, user_truth: dict, relevant_threshold) -> bool:
    """``score >= threshold``; with ``relevant_threshold=None`` the threshold is the
    user's mean truth score, compared in exact rational arithmetic (so the decision
    depends neither on the order of the truth rows nor on float rounding: three
    ratings of 0.1 are all relevant, and of 0.1, 0.2, 0.3 the 0.2 is)."""
    if relevant_threshold is not None:
        return score >= relevant_threshold
    scores = list(user_truth.values())
    exact_sum = sum((Fraction(s) for s in scores), Fraction(0))
    return Fraction(score) * len(scores) >= exact_sum


def _per_user(pred, truth, fn) -> pd.Series:
    """Run ``fn(listed, user_truth)`` for every evaluated user."""
    lists = _pred_lists(pred)
    truths = _truth_dicts(truth)
    users = evaluated_users(pred, truth)
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for u in users:
            values.append(float(fn(lists[u], truths[u])))
    return pd.Series(values, index=pd.Index(users, dtype=object), dtype=float, name="oracle")


def _relevance(listed, user_truth, relevant_threshold):
    """(list of 0/1 per listed position, m_u)."""
    rel = [1 if (item in user_truth and _is_relevant(user_truth[item], user_truth, relevant_threshold)) else 0 for item, _ in listed]
    m_u = sum(1 for s in user_truth.values() if _is_relevant(s, user_truth, relevant_threshold))
    return rel, m_u


def _cut(seq, k):
    return list(seq) if k is None else list(seq)[:k]


# --------------------------------------------------------------------------- #
# binary metrics
# --------------------------------------------------------------------------- #
def average_precision(pred, truth, k=None, relevant_threshold=None) -> pd.Series:
    """MAP (k=None) / MAP@k: (1/m_u) * sum_{i<=k} P(i) * rel(i)."""

    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN
        total = 0.0
        hits = 0
        for i, r in enumerate(_cut(rel, k), start=1):
            if r:
                hits += 1
                total += hits / i
        return total / m_u

    return _per_user(pred, truth, one)


def reciprocal_rank(pred, truth, k=None, relevant_threshold=None) -> pd.Series:
    """MRR (k=None) / MRR@k: 1 / position of the first relevant item, 0 if none."""

    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN
        for i, r in enumerate(_cut(rel, k), start=1):
            if r:
                return 1.0 / i
        return 0.0

    return _per_user(pred, truth, one)


def precision_at_k(pred, truth, k, relevant_threshold=None) -> pd.Series:
    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN
        return sum(_cut(rel, k)) / k

    return _per_user(pred, truth, one)


def recall_at_k(pred, truth, k, relevant_threshold=None) -> pd.Series:
    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN
        return sum(_cut(rel, k)) / m_u

    return _per_user(pred, truth, one)


def hit_rate_at_k(pred, truth, k, relevant_threshold=None) -> pd.Series:
    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN
        return 1.0 if any(_cut(rel, k)) else 0.0

    return _per_user(pred, truth, one)


# --------------------------------------------------------------------------- #
# graded metrics
# --------------------------------------------------------------------------- #
def _gain(score: float, gains: str, relevant: bool) -> float:
    if gains == "linear":
        return score
    if gains == "exponential":
        return 2.0**score - 1.0
    if gains == "binary":
        return 1.0 if relevant else 0.0
    raise ValueError(gains)


def _dcg_of(gain_list, discount_log) -> float:
    total = 0.0
    for i, g in enumerate(gain_list, start=1):
        total += g / float(discount_log(i + 1))
    return total


def _listed_gains(listed, user_truth, gains, relevant_threshold):
    """Gain per listed position; 0 for items absent from truth."""
    out = []
    for item, _ in listed:
        if item in user_truth:
            s = user_truth[item]
            out.append(_gain(s, gains, _is_relevant(s, user_truth, relevant_threshold)))
        else:
            out.append(0.0)
    return out


def dcg(pred, truth, k=None, gains="linear", discount_log=np.log2, relevant_threshold=None) -> pd.Series:
    """DCG / DCG@k of the list as given (never NaN)."""

    def one(listed, user_truth):
        g = _listed_gains(listed, user_truth, gains, relevant_threshold)
        return _dcg_of(_cut(g, k), discount_log)

    return _per_user(pred, truth, one)


def ndcg(
    pred,
    truth,
    k=None,
    gains="linear",
    discount_log=np.log2,
    ideal="truth",
    judged_only=False,
    relevant_threshold=None,
    clip_negative_ideal=True,
) -> pd.Series:
    """NDCG / NDCG@k = DCG / IDCG; IDCG == 0 -> NaN.

    ``clip_negative_ideal``: the ideal list gives negative gains (negative truth
    scores) no weight, "the best list shows no disliked item" (docs/decisions.md;
    DESIGN §3 is silent on negative scores). The list's own DCG keeps them.
    """

    def one(listed, user_truth):
        if judged_only:
            listed = [(item, s) for item, s in listed if item in user_truth]
        g = _listed_gains(listed, user_truth, gains, relevant_threshold)
        dcg_value = _dcg_of(_cut(g, k), discount_log)
        if ideal == "truth":
            ideal_gains = [_gain(s, gains, _is_relevant(s, user_truth, relevant_threshold)) for s in user_truth.values()]
        elif ideal == "ranked":
            ideal_gains = list(g)  # the listed items' own gains (0 if unjudged)
        else:
            raise ValueError(ideal)
        if clip_negative_ideal:
            ideal_gains = [max(g, 0.0) for g in ideal_gains]
        ideal_gains = sorted(ideal_gains, reverse=True)
        idcg = _dcg_of(_cut(ideal_gains, k), discount_log)
        if idcg == 0:
            return NAN
        return dcg_value / idcg

    return _per_user(pred, truth, one)


# --------------------------------------------------------------------------- #
# correlation
# --------------------------------------------------------------------------- #
def correlation(pred, truth, method="pearson", top_n=None) -> pd.Series:
    """corr(predicted score, truth score) over the first top_n listed items in truth.

    The predicted score is the ``score`` column, or ``-position`` without one.
    """
    has_score = "score" in pred.columns

    def one(listed, user_truth):
        xs, ys = [], []
        for pos, (item, s) in enumerate(_cut(listed, top_n), start=1):
            if item in user_truth:
                xs.append(s if has_score else -float(pos))
                ys.append(user_truth[item])
        if len(set(xs)) < 2 or len(set(ys)) < 2:
            # no spread: undefined (pandas can return +-1e-16 here, from its float mean)
            return NAN
        value = pd.Series(xs, dtype=float).corr(pd.Series(ys, dtype=float), method=method)
        return NAN if value is None or math.isnan(value) else float(value)

    return _per_user(pred, truth, one)
