r"""Unexpectedness against a baseline system's lists, and surprisal (RePlay).

:math:`L_u` the first k items of user u's list, :math:`B_u` the first k items of the
baseline's list for u, :math:`U` the users of ``train``, :math:`pop_i` the number of
distinct training users who had item i.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from ...data import internal as data_internal
from ...data.internal import SCORE_ORDERS, check_choice, is_frame, require_columns, row_item_codes, to_pandas
from .._side_metric import SideMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["Unexpectedness", "Surprisal", "baseline_lists", "order_baseline", "OrderedBaseline", "BASELINES"]

#: the tie rules of a baseline's scores (Split's ``ties``)
TIE_RULES = ("row_order", "item_id", "item_id_desc")
#: where SideData keeps the baselines that compare resolves by system name
BASELINES = "baselines"
#: widest baseline list (within the cutoff) checked against a table of each user's items;
#: past it, one sort of the baseline's keys costs less than a pass over the rows per column
DENSE_WIDTH = 32


def _take(values: Any, at: NDArray[np.integer]) -> Any:
    return values.take(at) if isinstance(values, ExtensionArray) else values[at]


@dataclass(frozen=True, eq=False)
class OrderedBaseline:
    """A baseline system's lists, grouped by user and in list order.

    Run r (user ``users[r]``) holds rows ``offsets[r]:offsets[r + 1]`` of ``items``: its
    items at positions 1, 2, ... A frame already in list order is kept as it held its ids
    (Arrow strings stay in Arrow memory), a reordered one as a categorical of its items:
    the ids are hashed against a split's codes only when a metric reads them.
    """

    users: Any
    offsets: NDArray[np.int64]
    items: Any

    def __len__(self) -> int:
        return len(self.items)

    def frame(self) -> pd.DataFrame:
        """The lists as ``user``, ``item``, ``position`` (1-based), one row per item."""
        lengths = np.diff(self.offsets)
        run = np.repeat(np.arange(len(lengths)), lengths)

        def column(values: Any) -> NDArray[Any]:
            return pd.Series(values, copy=False).to_numpy() if isinstance(values, ExtensionArray) else values

        return pd.DataFrame({"user": column(_take(self.users, run)), "item": column(self.items),
                             "position": np.arange(len(run)) - self.offsets[run] + 1})


def order_baseline(frame: Any, user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                   rank_col: str = "rank", what: str = "baseline", score_order: str = "descending",
                   ties: str = "row_order") -> OrderedBaseline:
    """A baseline system's lists, ordered by ``rank_col`` if present, else by ``score_col``
    descending (ascending under ``score_order="ascending"``; ties in row order, or by item id
    as :class:`~rankeval.Split`'s ``ties``), else row order; users in order of first appearance."""
    df = to_pandas(frame, what)
    require_columns(df, what, [user_col, item_col])
    check_choice("score_order", score_order, SCORE_ORDERS)
    if check_choice("ties", ties, TIE_RULES) != "row_order" and rank_col not in df.columns and score_col in df.columns:
        df = df.iloc[_tie_order(df[item_col], ties)]  # score ties then fall in item order
    if rank_col in df.columns:
        key = df[rank_col].to_numpy(dtype=np.float64)
    elif score_col in df.columns:
        key = df[score_col].to_numpy(dtype=np.float64)
        key = key if score_order == "ascending" else -key
    else:
        key = np.zeros(len(df))
    users, items = data_internal.id_values(df[user_col]), data_internal.id_values(df[item_col])
    starts = _runs_in_order(users, key)
    if starts is not None:
        return OrderedBaseline(_take(users, starts), np.append(starts, len(df)).astype(np.int64), items)
    codes, _ = data_internal.factorize(users)
    order = _list_order(codes, key)
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]) if len(order) else order
    # the items are coded before they are reordered: moving integer codes costs a fraction
    # of moving every row's string (the codes keep the ids: a categorical)
    item_codes, item_uniques = data_internal.factorize(items)
    items = pd.Categorical.from_codes(item_codes[order], categories=pd.Index(item_uniques))
    return OrderedBaseline(_take(users, order[starts]), np.append(starts, len(df)).astype(np.int64), items)


def _tie_order(items: pd.Series, ties: str) -> NDArray[np.intp]:
    """Rows by item id ascending (``"item_id"``), or by its text descending (``"item_id_desc"``,
    trec_eval's), stably: the order :class:`~rankeval.Split` breaks score ties in."""
    if ties == "item_id_desc":
        return np.argsort(items.astype(str).to_numpy(dtype=object), kind="stable")[::-1].copy()
    try:
        return np.argsort(items.to_numpy(), kind="stable")
    except TypeError as exc:
        raise ValueError(f"item ids of mixed types cannot be ordered for ties='item_id': {exc}") from exc


def _runs_in_order(users: Any, key: NDArray[np.float64]) -> NDArray[np.int64] | None:
    """Where each user's run starts when the frame is already in list order, else None.

    A recommender writes its lists grouped by user and ranked: then the sort by (user,
    key, row) is the identity, and checking that costs one pass instead of a sort. Missing
    user ids, a user in two runs or a key going down within a run take the sort.
    """
    if len(users) < 2:
        return None
    starts = data_internal.long_runs(users, 2)  # None unless in runs (of 2 rows or more on average)
    if starts is None:
        return None
    firsts = _take(users, starts)
    if np.any(pd.isna(firsts)) or len(pd.unique(firsts)) != len(starts):
        return None
    steps = key[1:] >= key[:-1]  # NaN: False
    steps[starts[1:] - 1] = True
    return starts.astype(np.int64) if bool(steps.all()) else None


def _list_order(codes: NDArray[np.signedinteger[Any]], key: NDArray[np.float64]) -> NDArray[np.int64]:
    """Rows by user code, then key, ties in row order: ``np.lexsort((rows, key, codes))``.

    Without NaN keys, by the radix passes of ``np.sort`` in :func:`rankeval.data._keys.lexsort`
    on the key's bits (ascending, -0.0 equal to 0.0 as in ``np.lexsort``): several times
    faster on millions of rows than ``np.lexsort``'s indirect comparisons.
    """
    if np.isnan(key).any():
        return np.lexsort((np.arange(len(key)), key, codes)).astype(np.int64)
    # code -1: a missing id
    return data_internal.lexsort([data_internal.descending_float_key(-key), codes.astype(np.int64) + 1])


def baseline_lists(frame: Any, user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                   rank_col: str = "rank", what: str = "baseline", score_order: str = "descending") -> pd.DataFrame:
    """A baseline system's lists as ``user``, ``item``, ``position`` (1-based): ordered by
    ``rank_col`` if present, else by ``score_col`` descending (ascending under
    ``score_order="ascending"``; ties in row order), else row order."""
    return order_baseline(frame, user_col, item_col, score_col, rank_col, what, score_order).frame()


class Unexpectedness(SideMetric):
    r"""Share of the list that a baseline system did not recommend (RePlay's ``Unexpectedness``).

    .. math:: Unexpectedness_u = 1 - \frac{|L_u \cap B_u|}{k}

    (:math:`|L_u|` instead of k without a cutoff). RePlay's
    ``replay/metrics/unexpectedness.py``, ``_get_metric_value_by_user``: ``1 -
    len(set(recs[:k]) & set(base_recs[:k])) / k``, so a list shorter than k still
    divides by k.

    Parameters
    ----------
    k : int, optional
        Cutoff of both lists; None (default): whole lists.
    baseline : DataFrame or str
        Required (None is refused): the baseline system's lists (``user_col``, ``item_col``
        and ``rank_col`` or ``score_col``: ordered as a ``pred`` frame, ties in row order),
        used for every split; or, inside :func:`~rankeval.compare`, the name of another
        system of the comparison, whose lists of the same split are the baseline.
    no_baseline : {"nan", "zero"}
        Value of a user the baseline has no list for: NaN (default, left out of the
        mean) or 0 (RePlay).
    user_col : str, default "user_id"
        The user id column of a baseline frame.
    item_col : str, default "item_id"
        The item id column of a baseline frame.
    score_col : str, default "score"
        The score column of a baseline frame (higher first), which orders its lists when it
        has no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of a baseline frame (1 first), which orders its lists when present.
    score_order : {"descending", "ascending"}
        Whether a baseline frame's higher (default) or lower scores come first.
    name : str, optional
        Overrides the name ``"Unexpectedness"``.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> base = pd.DataFrame({"user_id": [1, 1], "item_id": ["b", "c"], "score": [2.0, 1.0]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> metric = rk.Unexpectedness(2, baseline=base)
    >>> print(f"{metric.perform(rk.Split(pred, truth)).users.iloc[0, 0]:.4f}")  # b is in both
    0.5000
    """

    stem = "Unexpectedness"

    def __init__(self, k: int | None = None, baseline: Any = None, no_baseline: str = "nan", *,
                 user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                 rank_col: str = "rank", score_order: str = "descending", name: str | None = None) -> None:
        super().__init__(k, None, name)
        if baseline is None:
            raise ValueError("Unexpectedness needs `baseline`: the baseline system's lists (a DataFrame), or inside "
                             "compare the name of one of its systems")
        if not (isinstance(baseline, str) or is_frame(baseline)):
            raise TypeError(f"`baseline` must be a DataFrame or a system name, got {type(baseline).__name__}")
        self.baseline = baseline
        self.no_baseline = check_choice("no_baseline", no_baseline, ("nan", "zero"))
        self.user_col, self.item_col, self.score_col, self.rank_col = user_col, item_col, score_col, rank_col
        self.score_order = check_choice("score_order", score_order, SCORE_ORDERS)
        self._lists = None if isinstance(baseline, str) else order_baseline(
            baseline, user_col, item_col, score_col, rank_col, score_order=score_order)

    def _params(self) -> dict[str, Any]:
        params = super()._params()
        if not isinstance(self.baseline, str):  # a frame: shown (and compared) by identity
            params["baseline"] = f"<{type(self.baseline).__name__} of {len(self._lists)} rows>"  # type: ignore[arg-type]
        return params

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def order_baseline(self, frame: pd.DataFrame, what: str, **columns: Any) -> OrderedBaseline:
        """The lists of the system :attr:`baseline` names, ordered once for every split's metric.

        Parameters
        ----------
        frame : DataFrame
            The baseline system's lists of one split.
        what : str
            How errors name the frame (e.g. ``systems['pop']``).
        **columns
            The lists' column options (``user_col``, ``item_col``, ``score_col``,
            ``rank_col``, ``score_order``).

        Returns
        -------
        OrderedBaseline
            The lists ordered as :func:`order_baseline` orders them.
        """
        return order_baseline(frame, **columns, what=what)

    def _baseline(self, lists: RankedLists) -> OrderedBaseline:
        if self._lists is not None:
            return self._lists
        from ...data.internal import side_of

        bound = side_of(lists)
        found = {} if bound is None else bound.side.baselines
        if self.baseline not in found:
            raise ValueError(f"{self}: `baseline` {self.baseline!r} names a system of compare(); outside compare "
                             f"pass the baseline's lists as a DataFrame")
        return found[self.baseline]

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        table, keys, has_base = self._coded(lists)
        rows = self._rows(lists)
        if table is not None:
            n_hit = _hits_in_table(lists, rows, table)
        else:
            n_hit = _hits_in_keys(lists, rows, keys)
        denominator = float(self.k) if self.k is not None else lists.n_listed.astype(np.float64)
        values = 1.0 - n_hit / denominator
        return np.where(has_base, values, np.nan if self.no_baseline == "nan" else 0.0)

    def _coded(self, lists: RankedLists) -> tuple[Any, Any, NDArray[np.bool_]]:
        """The baseline coded against ``lists`` (:func:`_code_baseline`), cached per split,
        baseline and cutoff (the id lookups cost most)."""
        ordered = self._baseline(lists)
        cache = lists.split_cache.setdefault("baselines", {})
        found = cache.get((id(ordered), self.k))
        if found is None or found[0] is not ordered:
            found = cache[(id(ordered), self.k)] = (ordered, *_code_baseline(ordered, lists, self.k))
        return found[1], found[2], found[3]


def _code_baseline(ordered: OrderedBaseline, lists: RankedLists, k: int | None
                   ) -> tuple[NDArray[np.signedinteger[Any]] | None, NDArray[np.int64] | None, NDArray[np.bool_]]:
    """The baseline's first k items per evaluated user, as item codes of ``lists``.

    Returns a table (row j: every user's j-th baseline item, -1 where there is none or the
    item is not in ``lists``; one column per user of ``lists``) when the lists are at most ``DENSE_WIDTH`` long within
    the cutoff, else the sorted (user, item) keys; and which users have a baseline list.
    """
    lengths = np.diff(ordered.offsets)
    user = pd.Index(lists.user_ids).get_indexer(ordered.users)  # one lookup per user's run
    has_base = np.zeros(lists.n_users, dtype=bool)
    has_base[user[user >= 0]] = True
    take = np.where(user >= 0, lengths if k is None else np.minimum(lengths, k), 0)
    width = int(take.max()) if len(take) else 0
    # only the rows of evaluated users within the cutoff are hashed, each distinct item once
    ends = np.cumsum(take)
    position = np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - take, take)
    at = np.repeat(ordered.offsets[:-1], take) + position
    items = ordered.items if len(at) == len(ordered.items) else _take(ordered.items, at)
    codes, uniques = data_internal.factorize(items)
    item = np.append(pd.Index(lists.item_uniques).get_indexer(uniques), -1).astype(codes.dtype)[codes]
    row_user, known = np.repeat(user, take), item >= 0
    # two runs naming one user (ids equal only to the split's index) would share a column: keys then
    if width <= DENSE_WIDTH and np.count_nonzero(has_base) == np.count_nonzero(user >= 0):
        table = np.full((width, lists.n_users), -1, dtype=item.dtype)
        table[position[known], row_user[known]] = item[known]
        return table, None, has_base
    keys = np.sort(row_user[known].astype(np.int64) * max(len(lists.item_uniques), 1) + item[known])
    return None, keys, has_base


def _hits_in_table(lists: RankedLists, rows: NDArray[np.bool_], table: NDArray[np.signedinteger[Any]]
                   ) -> NDArray[np.float64]:
    """Per user, how many of the rows within the cutoff hold one of the user's baseline items.

    The rows are grouped by user in the order of the table's columns, so each row of the
    table is spread over the users' rows by a repeat (sequential), not gathered row by row.
    """
    every = bool(rows.all())
    counts = lists.n_listed if every else lists.segment_sum(rows).astype(np.int64)
    item = row_item_codes(lists)
    item = item if every else item[rows]
    hit = np.zeros(len(item), dtype=bool)
    for jth in table:  # an item repeated in a baseline list marks the same rows again: counted once
        hit |= np.repeat(jth, counts) == item
    return data_internal.segment_sum(hit, np.r_[0, np.cumsum(counts)])


def _hits_in_keys(lists: RankedLists, rows: NDArray[np.bool_], keys: NDArray[np.int64]) -> NDArray[np.float64]:
    """As :func:`_hits_in_table`, by a sorted search of each row's (user, item) key."""
    n_items = max(len(lists.item_uniques), 1)
    within = np.flatnonzero(rows)
    user = lists.user_of_row[within]
    row_keys = user.astype(np.int64) * n_items + row_item_codes(lists)[within]
    at = np.minimum(np.searchsorted(keys, row_keys), max(len(keys) - 1, 0))
    hit = keys[at] == row_keys if len(keys) else np.zeros(len(within), dtype=bool)
    return np.bincount(user, weights=hit, minlength=lists.n_users).astype(np.float64)


class Surprisal(SideMetric):
    r"""Normalised self-information of the recommended items (RePlay's ``Surprisal``).

    .. math::

        Surprisal_u = \frac{1}{k} \sum_{i \in L_u} \frac{-\log_2 (pop_i / |U|)}{\log_2 |U|}

    (:math:`|L_u|` instead of k without a cutoff); an item no training user had counts 1
    (RePlay: "cold items are treated as if they were rated by 1 user"). As RePlay's
    ``replay/metrics/surprisal.py`` (``_get_weights``: ``log2(n_users / len(users)) /
    log2(n_users)``, ``weights.get(i, 1)``; ``_get_metric_value_by_user``: the sum of
    the first k weights divided by k), so a list shorter than k still divides by k. It
    is :class:`Novelty` divided by :math:`\log_2 |U|`, with RePlay's denominator.

    Parameters
    ----------
    k : int, optional
        Cutoff; None (default): whole lists.
    name : str, optional
        Overrides the name ``"Surprisal"``.

    Notes
    -----
    Needs ``train=``. With a single training user :math:`\log_2 |U| = 0`: NaN for every
    user with a listed training item (RePlay divides by 0 too).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": ["a", "a", "b", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "d"]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["d"], "score": [1.0]})
    >>> split = rk.Split(pred, truth, train=train)
    >>> print(f"{rk.Surprisal().perform(split).users.iloc[0, 0]:.4f}")  # (log2(4/2)/log2(4) + 1) / 2
    0.7500
    """

    stem = "Surprisal"
    needs_side = ("train",)
    names = ("Surprisal",)

    def __init__(self, k: int | None = None, *, name: str | None = None) -> None:
        super().__init__(k, None, name)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        side = self.side_data(lists)
        pop = side.popularity[row_item_codes(lists)].astype(np.float64)
        n = float(side.n_train_users)
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = np.where(pop > 0, np.log2(n / np.maximum(pop, 1.0)) / np.log2(n), 1.0)
        rows = self._rows(lists)
        denominator = float(self.k) if self.k is not None else lists.n_listed.astype(np.float64)
        return lists.segment_sum(np.where(rows, weight, 0.0)) / denominator
