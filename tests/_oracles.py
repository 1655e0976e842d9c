"""Slow, obviously-correct reference implementations of rankeval's metrics.

Written from the definitions of the data model and the metrics only (docs/metrics.md and
the docstrings' formulas, never from the library's code), with
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

import decimal
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
    "set_metric",
    "set_metric_micro",
    "error",
    "error_micro",
    "error_sum",
    "counts",
    "bpref",
    "rbp",
    "err",
    "gini",
    "shannon_entropy",
    "mean_of",
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
    the metric definition is silent on negative scores). The list's own DCG keeps them.
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
        if method == "pearson":
            return _exact_pearson(xs, ys)
        # Kendall and Spearman depend on the order only: pandas' average ranks keep every
        # value comparable (old scipy ranks inf as NaN; float corr overflows on 1e300)
        xr = pd.Series(xs, dtype=float).rank()
        yr = pd.Series(ys, dtype=float).rank()
        value = xr.corr(yr, method="pearson" if method == "spearman" else method)
        return NAN if value is None or math.isnan(value) else float(value)

    return _per_user(pred, truth, one)


def _exact_pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson's r in exact rational arithmetic, one rounding at the end (NaN with an infinity)."""
    if not all(math.isfinite(v) for v in (*xs, *ys)):
        return NAN
    fx, fy = [Fraction(v) for v in xs], [Fraction(v) for v in ys]
    mx, my = sum(fx, Fraction(0)) / len(fx), sum(fy, Fraction(0)) / len(fy)
    sxy = sum(((a - mx) * (b - my) for a, b in zip(fx, fy)), Fraction(0))
    sxx = sum(((a - mx) ** 2 for a in fx), Fraction(0))
    syy = sum(((b - my) ** 2 for b in fy), Fraction(0))
    r2 = sxy * sxy / (sxx * syy)
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        r = (decimal.Decimal(r2.numerator) / decimal.Decimal(r2.denominator)).sqrt()
    value = min(float(r), 1.0)
    return value if sxy >= 0 else -value  # (copysign would round sxy, ~1e600, to a float)


# --------------------------------------------------------------------------- #
# set metrics over whole lists, counts, errors, bpref, RBP, ERR
# --------------------------------------------------------------------------- #
# Each ``*_counts`` oracle returns, per evaluated user, the counts the metric is made of
# (a dict per user, None where the user's value is undefined); the per-user oracle is a
# function of them and the micro oracle applies the same function to their sums.
def _set_counts(listed, user_truth, relevant_threshold, k=None, denominator="listed_all"):
    rel, m_u = _relevance(listed, user_truth, relevant_threshold)
    cut = _cut(rel, k)
    hits = sum(cut)
    if denominator == "k":
        retrieved = k
    else:  # the items actually in the (cut) list
        retrieved = len(cut)
    return {"hits": hits, "retrieved": retrieved, "relevant": m_u}


def _f(beta, c):
    p = c["hits"] / c["retrieved"] if c["retrieved"] else 0.0
    r = c["hits"] / c["relevant"] if c["relevant"] else 0.0
    if p + r == 0:
        return 0.0
    return (1 + beta**2) * p * r / (beta**2 * p + r)


def set_counts(pred, truth, kind, k=None, relevant_threshold=None, denominator=None, no_relevant="nan") -> dict:
    """user -> counts dict (None when the user has no relevant item and no_relevant='nan')."""
    lists, truths = _pred_lists(pred), _truth_dicts(truth)
    out = {}
    for u in evaluated_users(pred, truth):
        listed, user_truth = lists[u], truths[u]
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if kind == "rprec":
            cut = rel[:m_u]
            c = {"hits": sum(cut), "retrieved": m_u if denominator in (None, "relevant") else len(cut),
                 "relevant": m_u}
        elif kind == "r_at_k":  # R@k: m_u (denominator "relevant") or min(m_u, k) ("min_k")
            c = _set_counts(listed, user_truth, relevant_threshold, k)
            c["relevant"] = m_u if denominator in (None, "relevant") else min(m_u, k)
        elif kind == "f_at_k" or kind == "p_at_k":
            c = _set_counts(listed, user_truth, relevant_threshold, k, denominator or "k")
        else:
            c = _set_counts(listed, user_truth, relevant_threshold, k)
        out[u] = None if (m_u == 0 and no_relevant == "nan") else c
    return out


def _value_of(kind, beta):
    def value(c):
        if kind in ("precision", "p_at_k", "rprec"):
            return c["hits"] / c["retrieved"] if c["retrieved"] else 0.0
        if kind in ("recall", "r_at_k"):
            return c["hits"] / c["relevant"] if c["relevant"] else 0.0
        return _f(beta, c)
    return value


def set_metric(pred, truth, kind, k=None, beta=1.0, relevant_threshold=None, denominator=None,
               no_relevant="nan") -> pd.Series:
    """Precision / Recall / F (k=None: whole list), F@k, R-precision per user."""
    counts = set_counts(pred, truth, kind, k, relevant_threshold, denominator, no_relevant)
    value = _value_of(kind, beta)
    users = evaluated_users(pred, truth)
    return pd.Series([NAN if counts[u] is None else (0.0 if counts[u]["relevant"] == 0 else value(counts[u]))
                      for u in users], index=pd.Index(users, dtype=object), dtype=float)


def set_metric_micro(pred, truth, kind, k=None, beta=1.0, relevant_threshold=None, denominator=None,
                     no_relevant="nan") -> float:
    """ClayRS's micro average: the metric of the counts summed over the defined users."""
    counts = [c for c in set_counts(pred, truth, kind, k, relevant_threshold, denominator, no_relevant).values()
              if c is not None]
    if not counts:
        return NAN
    total = {name: sum(c[name] for c in counts) for name in counts[0]}
    return _value_of(kind, beta)(total)


def _error_pairs(pred, truth) -> dict:
    """user -> [(predicted, truth)] over the listed items that are in truth."""
    lists, truths = _pred_lists(pred), _truth_dicts(truth)
    return {u: [(s, truths[u][i]) for i, s in lists[u] if i in truths[u]] for u in evaluated_users(pred, truth)}


def _exact_float(value: Fraction, *, root: bool = False) -> float:
    """``value`` (or its square root) rounded once to a float; beyond the float range: inf."""
    if root:
        with decimal.localcontext() as ctx:
            ctx.prec, ctx.Emax, ctx.Emin = 60, 10**6, -(10**6)
            root_value = (decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)).sqrt()
            return float(root_value)  # Decimal -> float: correctly rounded, inf past the range
    try:
        return float(value)
    except OverflowError:  # a mean of squares beyond 1.8e308 (errors of 1e200): inf
        return math.inf


def _mean_error(pairs, kind) -> float:
    """MAE / MSE / RMSE of (predicted, truth) pairs in exact arithmetic, one rounding at the end.

    An infinite predicted score is an infinite error (truth scores are finite); squares of
    errors of 1e200 do not overflow on the way (only an MSE beyond the float range is inf).
    """
    if not pairs:
        return NAN
    if any(math.isinf(p) for p, _ in pairs):
        return math.inf
    diffs = [Fraction(p) - Fraction(t) for p, t in pairs]
    total = sum((abs(d) if kind == "mae" else d * d for d in diffs), Fraction(0))
    return _exact_float(total / len(diffs), root=kind == "rmse")


def error(pred, truth, kind) -> pd.Series:
    """MAE / MSE / RMSE per user over the listed, judged items; NaN without one."""
    pairs = _error_pairs(pred, truth)
    values = [_mean_error(user_pairs, kind) for user_pairs in pairs.values()]
    return pd.Series(values, index=pd.Index(list(pairs), dtype=object), dtype=float)


def error_sum(pred, truth, kind) -> Fraction:
    """The exact sum of the judged pairs' |error| (``"mae"``) or squared error, those of an
    infinite predicted score left out."""
    pairs = [pair for user_pairs in _error_pairs(pred, truth).values() for pair in user_pairs]
    diffs = [Fraction(p) - Fraction(t) for p, t in pairs if not math.isinf(p)]
    return sum((abs(d) if kind == "mae" else d * d for d in diffs), Fraction(0))


def error_micro(pred, truth, kind) -> float:
    """The error over every judged pair of every user."""
    return _mean_error([pair for user_pairs in _error_pairs(pred, truth).values() for pair in user_pairs], kind)


def counts(pred, truth, kind, relevant_threshold=None) -> pd.Series:
    """trec_eval's num_ret, num_rel, num_rel_ret per user."""
    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        return {"num_ret": len(listed), "num_rel": m_u, "num_rel_ret": sum(rel)}[kind]
    return _per_user(pred, truth, one)


def _no_relevant_value(no_relevant: str) -> float:
    return NAN if no_relevant == "nan" else 0.0


def bpref(pred, truth, relevant_threshold=None, no_relevant="nan") -> pd.Series:
    """trec_eval's m_bpref.c, loop for loop: judged items only."""
    def one(listed, user_truth):
        rel_flags = [_is_relevant(s, user_truth, relevant_threshold) for s in user_truth.values()]
        num_rel = sum(rel_flags)
        num_nonrel = len(rel_flags) - num_rel
        if num_rel == 0:
            return _no_relevant_value(no_relevant)
        nonrel_so_far, total = 0, 0.0
        for item, _ in listed:
            if item not in user_truth:
                continue  # unjudged: skipped
            if not _is_relevant(user_truth[item], user_truth, relevant_threshold):
                nonrel_so_far += 1
            elif nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
            else:
                total += 1.0
        return total / num_rel
    return _per_user(pred, truth, one)


def rbp(pred, truth, p=0.8, relevant_threshold=None, gains="binary", no_relevant="nan") -> pd.Series:
    """(1 - p) * sum of rel(i) * p**(i - 1) (times the grade with ``gains="graded"``), in exact
    arithmetic (grades of 1e300 and -1e300 in one list do not cancel by rounding)."""
    weight = Fraction(p)

    def one(listed, user_truth):
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return _no_relevant_value(no_relevant)
        total = Fraction(0)
        for i, ((item, _), r) in enumerate(zip(listed, rel)):
            if r:
                total += (Fraction(user_truth[item]) if gains == "graded" else 1) * weight**i
        return float((1 - weight) * total)
    return _per_user(pred, truth, one)


def _err_context() -> decimal.Context:
    """80 digits and an exponent range far beyond float64's: 2**-3000 and 2**3000 are plain numbers."""
    return decimal.Context(prec=80, Emax=10**7, Emin=-(10**7))


def _stop_probability(grade: float, g_max: float) -> decimal.Decimal:
    """ERR's R = (2**g - 1) / 2**g_max with g and g_max clipped at 0, to 80 digits.

    2**g - 1 is exp(g ln 2) - 1, from its series for tiny g (2**1e-300 - 1 is 6.9e-301, not
    the 0 that 2.0**1e-300 - 1.0 gives); a g_max beyond 4000 (1e300) makes 2**-g_max
    negligible, leaving 2**(g - g_max) with the exponent subtracted exactly.
    """
    ctx = _err_context()
    g, g_max = max(grade, 0.0), max(g_max, 0.0)
    if g == 0:
        return decimal.Decimal(0)
    two = decimal.Decimal(2)
    if g_max > 4000:
        d = Fraction(g) - Fraction(g_max)
        if d < -4000:
            return decimal.Decimal(0)
        return ctx.power(two, ctx.divide(decimal.Decimal(d.numerator), decimal.Decimal(d.denominator)))
    x = ctx.multiply(ctx.create_decimal(g), ctx.ln(two))
    if x < decimal.Decimal("1e-20"):
        expm1 = ctx.add(x, ctx.divide(ctx.multiply(x, x), 2))  # the next term is below 1e-40 of x
    else:
        expm1 = ctx.subtract(ctx.exp(x), 1)  # loses at most 20 of the 80 digits
    return ctx.divide(expm1, ctx.power(two, ctx.create_decimal(g_max)))


def err(pred, truth, k, max_grade=None, no_relevant="nan") -> pd.Series:
    """gdeval.pl's ERR loop: R = (2^g - 1) / 2^max_grade with g clipped at 0, in 80-digit
    decimal arithmetic (no overflow for grades of 1e300, no cancellation for grades of 1e-300)."""
    g_max = float(truth["score"].max()) if max_grade is None else max_grade

    def one(listed, user_truth):
        if max(user_truth.values()) <= 0:
            return _no_relevant_value(no_relevant)
        with decimal.localcontext(_err_context()):
            score, decay = decimal.Decimal(0), decimal.Decimal(1)
            for i, (item, _) in enumerate(listed[:k], start=1):
                r = _stop_probability(user_truth.get(item, 0.0), g_max)
                score += r * decay / i
                decay *= 1 - r
            return float(score)
    return _per_user(pred, truth, one)


def mean_of(values) -> float:
    """The mean of the non-NaN ``values``, exact and rounded once: +inf when +inf is among
    them, -inf for -inf, NaN for both (and for no value at all)."""
    kept = [float(v) for v in values if not math.isnan(v)]
    if not kept:
        return NAN
    pos, neg = math.inf in kept, -math.inf in kept
    if pos or neg:
        return NAN if (pos and neg) else (math.inf if pos else -math.inf)
    return float(sum((Fraction(v) for v in kept), Fraction(0)) / len(kept))


# --------------------------------------------------------------------------- #
# beyond accuracy: written from the definitions in docs/beyond_accuracy.md and the
# docstrings' formulas, with plain loops over users, items and pairs
# --------------------------------------------------------------------------- #
def _train_pop(train) -> dict:
    """item -> number of distinct training users who had it."""
    users: dict = {}
    for u, i in zip(train["user_id"].tolist(), train["item_id"].tolist()):
        users.setdefault(i, set()).add(u)
    return {i: len(us) for i, us in users.items()}


def _n_train_users(train) -> int:
    return len(set(train["user_id"].tolist()))


def default_catalog(train, truth) -> list:
    """Every item of train, then every item of truth not in train."""
    out, seen = [], set()
    for i in train["item_id"].tolist() + truth["item_id"].tolist():
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _by_popularity(items, pop) -> list:
    """Items by popularity descending, ties by id ascending."""
    return sorted(items, key=lambda i: (-pop.get(i, 0), i))


def head_items(train, catalog, head, head_by="items") -> set:
    pop = _train_pop(train)
    ordered = _by_popularity(list(dict.fromkeys(catalog)), pop)
    if head_by == "items":
        return set(ordered[:round(head * len(ordered))])
    total = sum(pop.get(i, 0) for i in ordered)
    taken: list = []
    acc = 0
    for i in ordered:
        if acc >= head * total and taken:
            break
        taken.append(i)
        acc += pop.get(i, 0)
        if acc >= head * total:
            break
    return set(taken)


def average_popularity(pred, truth, train, k=None) -> pd.Series:
    pop = _train_pop(train)

    def one(listed, user_truth):
        top = _cut(listed, k)
        return sum(pop.get(i, 0) for i, _ in top) / len(top)
    return _per_user(pred, truth, one)


def tail_share(pred, truth, train, catalog=None, k=None, head=0.2, head_by="items") -> pd.Series:
    catalog = default_catalog(train, truth) if catalog is None else list(catalog)
    tail = set(catalog) - head_items(train, catalog, head, head_by)

    def one(listed, user_truth):
        top = _cut(listed, k)
        return sum(1 for i, _ in top if i in tail) / len(top)
    return _per_user(pred, truth, one)


def novelty(pred, truth, train, k=None, definition="self_information", relevant_threshold=None,
            no_relevant="nan") -> pd.Series:
    pop = _train_pop(train)
    n = _n_train_users(train)

    def one(listed, user_truth):
        top = _cut(listed, k)
        if definition == "self_information":
            return sum(-math.log2(max(pop.get(i, 0), 1) / n) for i, _ in top) / len(top)
        rel, m_u = _relevance(listed, user_truth, relevant_threshold)
        if m_u == 0:
            return NAN if no_relevant == "nan" else 0.0
        num = den = 0.0
        for r, (i, _) in enumerate(top, start=1):
            disc = 1.0 / math.log2(r + 1)
            num += disc * rel[r - 1] * (1.0 - pop.get(i, 0) / n)
            den += disc
        return num / den
    return _per_user(pred, truth, one)


def _feature_lookup(features):
    """item -> unit vector or frozenset (items without usable features absent)."""
    out = {}
    if features.shape[1] == 1 and features.iloc[:, 0].dtype == object:
        for item, s in features.iloc[:, 0].items():
            if len(set(s)):
                out[item] = frozenset(s)
        return out
    for item, row in features.iterrows():
        v = row.to_numpy(dtype=float)
        if np.any(v != 0):
            out[item] = v
    return out


def intra_list_diversity(pred, truth, features, k=None) -> pd.Series:
    from scipy.spatial import distance

    lookup = _feature_lookup(features)

    def one(listed, user_truth):
        xs = [lookup[i] for i, _ in _cut(listed, k) if i in lookup]
        if len(xs) < 2:
            return NAN
        total, pairs = 0.0, 0
        for a in range(len(xs)):
            for b in range(a + 1, len(xs)):
                if isinstance(xs[a], frozenset):
                    total += 1.0 - len(xs[a] & xs[b]) / len(xs[a] | xs[b])
                else:
                    total += distance.cosine(xs[a], xs[b])
                pairs += 1
        return total / pairs
    return _per_user(pred, truth, one)


def _recommended_counts(pred, truth, k=None) -> dict:
    lists = _pred_lists(pred)
    counts: dict = {}
    for u in evaluated_users(pred, truth):
        for i, _ in _cut(lists[u], k):
            counts[i] = counts.get(i, 0) + 1
    return counts


def catalog_coverage(pred, truth, catalog, k=None) -> float:
    catalog = set(catalog)
    return len(set(_recommended_counts(pred, truth, k)) & catalog) / len(catalog)


def gini(pred, truth, k=None, catalog=None) -> float:
    """Over the recommended items (catalog None), or every catalog item (0 when never recommended)."""
    counts = _recommended_counts(pred, truth, k)
    if catalog is not None:
        catalog = set(catalog)
        x = sorted([counts.get(i, 0) for i in catalog])
    else:
        x = sorted(counts.values())
    n, total = len(x), sum(x)
    if total == 0:
        return NAN
    return float(Fraction(sum((2 * i - n - 1) * xi for i, xi in enumerate(x, start=1)), n * total))


def shannon_entropy(pred, truth, k=None, base=2.0, per_item=False) -> float:
    counts = _recommended_counts(pred, truth, k)
    total = sum(counts.values())
    h = -sum((c / total) * math.log(c / total, base) for c in counts.values())
    return h / len(counts) if per_item else h


def popularity_groups(train, groups, pop_percentage=0.2) -> dict:
    """ClayRS's split_user_in_groups, ties by id ascending instead of first appearance."""
    pop = _train_pop(train)
    top = set(_by_popularity(list(pop), pop)[:round(len(pop) * pop_percentage)])
    profiles: dict = {}
    for u, i in zip(train["user_id"].tolist(), train["item_id"].tolist()):
        profiles.setdefault(u, set()).add(i)
    ratio = {u: len(items & top) / len(items) for u, items in profiles.items()}
    users = sorted(ratio, key=lambda u: (-ratio[u], u))
    out, last, acc = {}, 0, 0.0
    for name, share in groups.items():
        acc += share
        cut = round(len(users) * acc)
        out[name] = users[last:cut] if cut else []
        last = max(last, cut)
    return out


def delta_gap(pred, truth, train, groups, k=None) -> dict:
    """group -> ClayRS's DeltaGap (popularity and profiles from train); groups: name -> user ids."""
    pop = _train_pop(train)
    n = _n_train_users(train)
    lists = _pred_lists(pred)
    profiles: dict = {}
    for u, i in zip(train["user_id"].tolist(), train["item_id"].tolist()):
        profiles.setdefault(u, set()).add(i)
    evaluated = set(evaluated_users(pred, truth))
    out = {}
    for name, members in groups.items():
        valid = [u for u in members if u in evaluated and u in profiles]
        if not valid:
            out[name] = NAN
            continue
        recs = sum(sum(pop.get(i, 0) / n for i, _ in _cut(lists[u], k)) / len(_cut(lists[u], k)) for u in valid)
        prof = sum(sum(pop[i] / n for i in profiles[u]) / len(profiles[u]) for u in valid)
        out[name] = 0.0 if prof == 0 else (recs / len(valid) - prof / len(valid)) / (prof / len(valid))
    return out


# --------------------------------------------------------------------------- #
# AUC family, log loss, exposure
# --------------------------------------------------------------------------- #
def _auc_rows(listed, user_truth, relevant_threshold, negatives, ties):
    """Per listed row: (order key, positive, negative); the key is the score (ties count 1/2)
    or minus the position (the list decides)."""
    out = []
    for pos, (item, score) in enumerate(listed, start=1):
        judged = item in user_truth
        positive = judged and _is_relevant(user_truth[item], user_truth, relevant_threshold)
        negative = not positive and (negatives == "listed" or judged)
        key = score if (ties == "half" and score is not None) else -pos
        out.append((key, positive, negative, pos))
    return out


def _credit(rows, j, extra):
    key = rows[j][0]
    return (sum(1.0 if key > r[0] else 0.5 if key == r[0] else 0.0 for r in rows if r[2]) + (1 if extra else 0))


def auc(pred, truth, k=None, relevant_threshold=None, negatives="listed", ties="half", extra=False) -> pd.Series:
    """Every (positive, negative) pair of the first k rows, one by one."""
    def one(listed, user_truth):
        rows = _auc_rows(_cut(listed, k), user_truth, relevant_threshold, negatives, ties)
        p = sum(r[1] for r in rows)
        n = sum(r[2] for r in rows) + (1 if extra else 0)
        if p == 0 or n == 0:
            return NAN
        return sum(_credit(rows, j, extra) for j, r in enumerate(rows) if r[1]) / (p * n)
    return _per_user(pred, truth, one)


def gauc_weights(pred, truth, k=None, relevant_threshold=None) -> pd.Series:
    """Positives in the first k rows, per user."""
    def one(listed, user_truth):
        return sum(_auc_rows(_cut(listed, k), user_truth, relevant_threshold, "listed", "half")[j][1]
                   for j in range(len(_cut(listed, k))))
    return _per_user(pred, truth, one)


def lauc(pred, truth, k, relevant_threshold=None, negatives="listed", ties="half", extra=False) -> pd.Series:
    """Elliot's limited AUC: credits of the positives within k, over min(k, m_u) and all negatives."""
    def one(listed, user_truth):
        rows = _auc_rows(listed, user_truth, relevant_threshold, negatives, ties)
        _, m_u = _relevance(listed, user_truth, relevant_threshold)
        n = sum(r[2] for r in rows) + (1 if extra else 0)
        m = min(k, m_u)
        if m == 0 or n == 0:
            return NAN
        return sum(_credit(rows, j, extra) for j, r in enumerate(rows) if r[1] and r[3] <= k) / (m * n)
    return _per_user(pred, truth, one)


def _logloss_terms(listed, user_truth, relevant_threshold, eps):
    out = []
    for item, score in listed:
        if item in user_truth:
            y = user_truth[item] if relevant_threshold is None else float(user_truth[item] >= relevant_threshold)
            p = min(max(score, eps), 1.0 - eps)
            out.append(-math.log(p) if y == 1.0 else -math.log(1.0 - p))
    return out


def logloss(pred, truth, relevant_threshold=None, eps=2.220446049250313e-16) -> pd.Series:
    def one(listed, user_truth):
        terms = _logloss_terms(listed, user_truth, relevant_threshold, eps)
        return sum(terms) / len(terms) if terms else NAN
    return _per_user(pred, truth, one)


def logloss_micro(pred, truth, relevant_threshold=None, eps=2.220446049250313e-16) -> float:
    lists, truths = _pred_lists(pred), _truth_dicts(truth)
    terms = [t for u in evaluated_users(pred, truth)
             for t in _logloss_terms(lists[u], truths[u], relevant_threshold, eps)]
    return math.fsum(terms) / len(terms) if terms else NAN


def exposure_gini(pred, truth, weight, k=None) -> float:
    """Exposure per recommended item (the weights of its positions), then the Gini index."""
    lists = _pred_lists(pred)
    exposure: dict = {}
    for u in evaluated_users(pred, truth):
        for pos, (item, _) in enumerate(_cut(lists[u], k), start=1):
            exposure[item] = exposure.get(item, 0.0) + float(weight.weights([pos])[0])
    x = sorted(exposure.values())
    n, total = len(x), math.fsum(x)
    if n == 0 or total == 0:
        return NAN
    return math.fsum((2 * i - n - 1) * xi for i, xi in enumerate(x, start=1)) / (n * total)
