"""The audit's cheap counts of a :class:`~rankeval.Split` with ``train``, from the codes it holds.

An evaluation given ``train`` warns about listed items the user already had in train, test
pairs also in train, and test users without train rows (:func:`~rankeval.split.cheap_checks`
on the split's frames). Hashing the frames again for that would cost more than the metrics
(every listed row's ids, 100M rows for a million users' top-100 lists). The split already
holds every listed row and every truth row of its evaluated users as integer codes, and its
side data holds the distinct training pairs; so the training pairs are regrouped by
evaluated user, in the lists' item codes, and every listed row and truth row is looked up
among its own user's training items (``BoundSide.train_items_by_user``, ``rows_in_sets``). Only the
rows of users the lists leave out (pred users without truth, truth users without a list)
are looked up by id. The counts equal :func:`~rankeval.split.cheap_checks` of the same
frames, and are kept with the split: an evaluation fitted twice counts once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data import SideData, Split
from ..data.internal import BoundSide, codes_in, id_values, rows_in_sets, side_of
from ._checks import cheap_counts

__all__ = ["split_cheap_counts", "catalog_findings"]


def split_cheap_counts(split: Split, checks: Sequence[str]) -> dict[str, int | None]:
    """:func:`~rankeval.split.cheap_checks` of a split's train, truth and pred, for ``checks``.

    Parameters
    ----------
    split : Split
        A split with ``train`` side data.
    checks : sequence of {"seen", "overlap", "cold"}
        The counts wanted; the keys of the others are None.

    Returns
    -------
    dict
        The keys of :func:`~rankeval.split.cheap_checks`.
    """
    lists = split.ranked_lists()
    bound = side_of(lists)
    assert bound is not None and bound.side.train is not None, "the checks need train side data"
    found = {}
    for check in checks:
        cache_key = f"protocol check: {check}"
        if cache_key not in lists.split_cache:
            lists.split_cache[cache_key] = _COUNTERS[check](split, bound)
        found[check] = lists.split_cache[cache_key]
    return cheap_counts(**found)


def _seen(split: Split, bound: BoundSide) -> tuple[int, int]:
    """Listed rows whose pair is a training pair, of all of pred's rows."""
    lists = split.ranked_lists()
    hits = int(np.count_nonzero(rows_in_sets(lists.offsets, lists.item_codes, *bound.train_items_by_user(lists))))
    c = split.columns
    hits += _pairs_in_train(bound.side, split.pred, c.user, c.item, lists.unevaluated_pred_rows)
    return hits, len(split.pred)


def _overlap(split: Split, bound: BoundSide) -> tuple[int, int]:
    """Truth pairs that are training pairs, of all truth pairs (a split's truth repeats none)."""
    lists = split.ranked_lists()
    hits = int(np.count_nonzero(bound.truth_in_train(lists)))
    c = split.columns
    hits += _pairs_in_train(bound.side, split.truth, c.truth_user, c.truth_item, lists.unlisted_truth_rows)
    return hits, len(split.truth)


def _cold(split: Split, bound: BoundSide) -> tuple[int, int]:
    """Truth users without a training row, of all truth users."""
    lists = split.ranked_lists()
    missing = lists.missing_user_ids
    cold = int(np.count_nonzero(bound.user_positions() < 0))
    if len(missing):
        at, _ = codes_in(bound.side.train_users, missing)
        cold += int(np.count_nonzero(at < 0))
    return cold, lists.n_users + len(missing)


_COUNTERS = {"seen": _seen, "overlap": _overlap, "cold": _cold}


def _pairs_in_train(train: SideData, frame: pd.DataFrame, user_col: str, item_col: str,
                    rows: NDArray[np.int64]) -> int:
    """How many of ``frame``'s rows ``rows`` hold a training pair, looked up by id."""
    if not len(rows):
        return 0
    users, _ = codes_in(train.train_users, id_values(frame[user_col].iloc[rows]))
    items, _ = codes_in(train.train_items, id_values(frame[item_col].iloc[rows]))
    pair_user, pair_item = train.train_pairs()
    n_items = len(train.train_items)
    keys = pair_user * n_items + pair_item  # sorted: the pairs are sorted by user, then item
    wanted = users.astype(np.int64) * n_items + items
    found = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return int(np.count_nonzero((users >= 0) & (items >= 0) & (keys[found] == wanted)))


def catalog_findings(splits: Sequence[Split], names: Sequence[str]) -> list[str]:
    """Per split whose side data has a given catalog: the listed rows whose item it does not hold,
    with the distinct items and users, as text (none: an empty list). Read from the split's own
    item codes and the catalog flag of each distinct listed item."""
    found = []
    for split, name in zip(splits, names):
        side = split.side
        if side is None or not side.catalog_given:
            continue
        lists = split.ranked_lists()
        bound = side_of(lists)
        assert bound is not None
        out = ~bound.in_catalog[lists.item_codes]
        count = int(np.count_nonzero(out))
        if count:
            user_of_row = np.repeat(np.arange(len(lists.offsets) - 1), np.diff(lists.offsets))
            users = len(np.unique(user_of_row[out]))
            items = len(np.unique(lists.item_codes[out]))
            found.append(f"split {name!r}: {count:,} of {len(out):,} listed rows ({count / len(out):.2%}) recommend "
                         f"{items:,} item(s) not in the `catalog`, for {users:,} user(s)")
    return found
