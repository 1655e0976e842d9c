"""Hypothesis strategies for (pred, truth) frame pairs.

Small on purpose (<= 8 users, <= 12 listed items per user but for a rare list of 21-26), but full of the
corners the metrics must get right: score ties, a ``rank`` column (dense or with
gaps) with or without a ``score`` column, lists with neither, unjudged listed
items, pred-only and truth-only users, lists shorter and longer than k, integer
and float truth scores (including values whose mean does not round exactly),
str / int / categorical ids, and pred rows grouped by user or shuffled.

Every generated pair has at least one user present in both frames.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

__all__ = ["frames", "thresholds", "ranks_as_scores", "HIGH_THRESHOLD"]

# Above every truth score drawn below: every user has m_u == 0.
HIGH_THRESHOLD = 1e6

N_ITEMS = 16  # item universe: small, so lists and truth overlap a lot

# Truth score pools. Sums of these are exact in float64 whatever the order.
_INT_SCORES = [0, 1, 2, 3, 4, 5]
_FLOAT_SCORE_POOLS = [
    [0.0, 0.5, 1.0, 2.5, 4.0, 5.0],
    [1.0, 2.0, 3.0],
    [-1.0, 0.0, 1.0, 3.5],
    [0.0],
]
# Non-dyadic values: with ``constant_users`` each user's truth scores are all
# equal to one of these, whose mean (0.1 * 3 / 3 > 0.1) only the clamp into
# [min, max] keeps fully relevant.
_CONSTANT_SCORES = [0.1, 0.3, 0.7, 1.1]
# Mixed non-dyadic values: the rounded mean depends on the summation order
# (0.1 + 0.2 + 0.3 vs 0.3 + 0.2 + 0.1). Drawn unless ``rounding_sensitive=False``.
_ROUNDING_POOLS = [
    [0.1, 0.2, 0.3, 0.7],
    [0.7, 0.7000000000000001],
    [1 / 3, 2 / 3, 0.1, 1e-17],
]
# Predicted scores: tiny pools make ties, a wide pool makes them rare.
_PRED_SCORE_POOLS = [
    [1.0],
    [0.0, 1.0],
    [0.25, 0.5, 0.75],
    [float(x) for x in np.linspace(-3, 3, 40)],
]


def thresholds() -> st.SearchStrategy:
    """None (per-user mean) most often, else a fixed number (sometimes above all scores)."""
    return st.one_of(
        st.none(),
        st.none(),
        st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5, 3.0, HIGH_THRESHOLD]),
    )


def _ids(kind: str, codes: list[int]) -> list:
    if kind == "int":
        return [int(c) * 7 + 3 for c in codes]  # not 0..n: ids are not positions
    return [f"u{c:02d}" if kind == "str_user" else f"i{c:02d}" for c in codes]


def _to_id_column(values: list, kind: str, categorical: bool, int_dtype: str = "int64") -> pd.Series:
    if categorical:
        return pd.Series(pd.Categorical(values))
    if kind == "int":
        return pd.Series(values, dtype=int_dtype)
    return pd.Series(values, dtype=object)


def _decorate(draw, df: pd.DataFrame) -> pd.DataFrame:
    """Things an engine must ignore: an extra column, index labels that are not 0..n-1."""
    if draw(st.integers(0, 3)) == 0:
        df = df.assign(timestamp=pd.to_datetime(np.arange(len(df), dtype=np.int64)[::-1], unit="s"))
    index_kind = draw(st.sampled_from(["range", "range", "permuted", "offset", "str"]))
    if index_kind == "permuted":
        df.index = pd.Index(draw(st.permutations(range(len(df)))), dtype="int64")
    elif index_kind == "offset":
        df.index = pd.RangeIndex(100, 100 + 2 * len(df), 2)
    elif index_kind == "str":
        df.index = pd.Index([f"r{j}" for j in range(len(df))][::-1], dtype=object)
    return df


@st.composite
def frames(draw, *, allow_no_score: bool = True, allow_missing_users: bool = True, rounding_sensitive: bool = True):
    """Draw ``(pred, truth)``.

    ``rounding_sensitive=True`` (default) also draws truth scores such as 0.1, 0.2, 0.3
    mixed within one user, whose float mean depends on the summation order.

    pred columns: ``user_id``, ``item_id``, then optionally ``score`` and/or ``rank``.
    truth columns: ``user_id``, ``item_id``, ``score``.
    """
    id_kind = draw(st.sampled_from(["int", "str"]))
    cat_pred = draw(st.booleans()) and draw(st.booleans())
    cat_truth = draw(st.booleans()) and draw(st.booleans())

    n_common = draw(st.integers(1, 6))
    n_pred_only = draw(st.integers(0, 1)) if allow_missing_users else 0
    n_truth_only = draw(st.integers(0, 1)) if allow_missing_users else 0
    n_users = n_common + n_pred_only + n_truth_only
    user_codes = draw(st.permutations(range(n_users)))
    common = user_codes[:n_common]
    pred_users = common + user_codes[n_common : n_common + n_pred_only]
    truth_users = common + user_codes[n_common + n_pred_only :]

    # ---------------------------------------------------------------- truth
    int_truth = draw(st.booleans())
    pools = _FLOAT_SCORE_POOLS + (_ROUNDING_POOLS if rounding_sensitive else [])
    pool = _INT_SCORES if int_truth else draw(st.sampled_from(pools + ["constant_users"]))
    t_user, t_item, t_score = [], [], []
    for u in truth_users:
        n = draw(st.integers(1, 8))
        items = draw(st.lists(st.integers(0, N_ITEMS - 1), min_size=n, max_size=n, unique=True))
        user_pool = [draw(st.sampled_from(_CONSTANT_SCORES))] if pool == "constant_users" else pool
        for i in items:
            t_user.append(u)
            t_item.append(i)
            t_score.append(draw(st.sampled_from(user_pool)))
    t_order = draw(st.permutations(range(len(t_user))))
    truth = pd.DataFrame(
        {
            "user_id": _to_id_column(
                _ids("int" if id_kind == "int" else "str_user", [t_user[j] for j in t_order]),
                id_kind,
                cat_truth,
                draw(st.sampled_from(["int64", "int64", "int32"])),
            ),
            "item_id": _to_id_column(_ids("int" if id_kind == "int" else "str_item", [t_item[j] for j in t_order]), id_kind, cat_truth),
            "score": pd.Series([t_score[j] for j in t_order], dtype="int64" if int_truth else "float64"),
        }
    )
    truth = _decorate(draw, truth)

    # ----------------------------------------------------------------- pred
    score_mode = draw(st.sampled_from(["score", "score", "rank", "both", "none"] if allow_no_score else ["score", "rank", "both"]))
    has_score = score_mode in ("score", "both")
    has_rank = score_mode in ("rank", "both")
    rank_gaps = draw(st.booleans())
    pred_pool = draw(st.sampled_from(_PRED_SCORE_POOLS))

    blocks = []  # one list of row dicts per user, rows in "list order" of generation
    for u in pred_users:
        if draw(st.integers(0, 9)) == 0:  # now and then a list longer than k=20
            n = draw(st.integers(21, 26))
            items = draw(st.permutations(range(2 * N_ITEMS)))[:n]
        else:
            n = draw(st.integers(1, 12))
            items = draw(st.lists(st.integers(0, N_ITEMS - 1), min_size=n, max_size=n, unique=True))
        if rank_gaps:
            ranks = sorted(draw(st.lists(st.integers(1, 40), min_size=n, max_size=n, unique=True)))
        else:
            ranks = list(range(1, n + 1))
        ranks = draw(st.permutations(ranks))
        rows = []
        for j, i in enumerate(items):
            row = {"user_id": u, "item_id": i}
            if has_score:
                row["score"] = draw(st.sampled_from(pred_pool))
            if has_rank:
                row["rank"] = ranks[j]
            rows.append(row)
        blocks.append(rows)

    layout = draw(st.sampled_from(["grouped", "grouped_shuffled_users", "shuffled"]))
    if layout == "grouped":
        rows = [r for b in blocks for r in b]
    elif layout == "grouped_shuffled_users":
        order = draw(st.permutations(range(len(blocks))))
        rows = [r for j in order for r in blocks[j]]
    else:
        flat = [r for b in blocks for r in b]
        rows = [flat[j] for j in draw(st.permutations(range(len(flat))))]

    data = {
        "user_id": _to_id_column(_ids("int" if id_kind == "int" else "str_user", [r["user_id"] for r in rows]), id_kind, cat_pred),
        "item_id": _to_id_column(_ids("int" if id_kind == "int" else "str_item", [r["item_id"] for r in rows]), id_kind, cat_pred),
    }
    if has_score:
        int_scores = all(float(x).is_integer() for x in pred_pool) and draw(st.booleans())
        data["score"] = pd.Series([r["score"] for r in rows], dtype="int64" if int_scores else "float64")
    if has_rank:
        data["rank"] = pd.Series([r["rank"] for r in rows], dtype=draw(st.sampled_from(["int64", "int64", "float64"])))
    pred = _decorate(draw, pd.DataFrame(data))
    return pred, truth


@st.composite
def ranks_as_scores(draw):
    """Draw ``(pred, truth)`` from :func:`frames` with every list's ranks 1..n_u in ``score``
    (no ``rank`` column): each user's rows get a drawn permutation of 1..n_u, as int64 or float64."""
    pred, truth = draw(frames(allow_no_score=False))
    pred = pred.drop(columns=[c for c in ("score", "rank") if c in pred.columns])
    drawn = pd.Series(draw(st.permutations(range(len(pred)))), index=pred.index)
    ranks = drawn.groupby(pred["user_id"].to_numpy(), sort=False).rank(method="first")
    dtype = draw(st.sampled_from(["int64", "float64"]))
    return pred.assign(score=ranks.to_numpy().astype(dtype)), truth
