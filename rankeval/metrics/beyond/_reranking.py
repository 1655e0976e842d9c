r"""List comparison against a reference system's lists: rank-biased overlap and least item promoted.

Both are LensKit 2026.4.0's re-ranking metrics (``lenskit/metrics/reranking/_rbo.py``,
``rank_biased_overlap``; ``_lip.py``, ``least_item_promoted``), with their definitions and
defaults. :math:`L_u` is user u's list, :math:`R_u` the reference system's list for u (both
in list order, positions from 1), :math:`L_u[{:}d]` the first d items, :math:`r_u(i)` the
position of item i in :math:`R_u`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from ...data import internal as data_internal
from ...data.internal import SCORE_ORDERS, check_choice, is_frame, row_item_codes, show
from .._side_metric import SideMetric
from .._weighting import GeometricWeight, RankWeight, as_rank_weight
from ._unexpectedness import BASELINES, OrderedBaseline, order_baseline

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["RBO", "LIP"]

#: LensKit's depth of both metrics (``n=10``)
DEFAULT_DEPTH = 10


class _AgainstReference(SideMetric):
    """A metric of each user's list against the reference system's list for the same user."""

    def _set_reference(self, reference: Any, user_col: str, item_col: str, score_col: str, rank_col: str,
                       score_order: str) -> None:
        if self.k is None:
            raise ValueError(f"`k` of {type(self).__name__} must be a depth >= 1 (LensKit's n, default "
                             f"{DEFAULT_DEPTH}), got None")
        if not (reference is None or isinstance(reference, str) or is_frame(reference)):
            raise TypeError(f"`reference` must be a DataFrame of the reference system's lists, a system name of "
                            f"compare() or None, got {type(reference).__name__}")
        self.reference = reference
        self.user_col, self.item_col, self.score_col, self.rank_col = user_col, item_col, score_col, rank_col
        self.score_order = check_choice("score_order", score_order, SCORE_ORDERS)
        self._lists = order_baseline(reference, user_col, item_col, score_col, rank_col, what="reference",
                                     score_order=score_order) if is_frame(reference) else None

    def baseline_systems(self, baseline: str | None) -> dict[Any, str]:
        """The reference system in :func:`~rankeval.compare`: the one ``reference`` names, else
        (``reference`` left unset) ``baseline``; none when ``reference`` is a frame.

        Parameters
        ----------
        baseline : str or None
            ``compare``'s baseline system.
        """
        if isinstance(self.reference, str):
            return {self.reference: self.reference}
        if self.reference is not None:
            return {}
        if baseline is None:
            raise ValueError(f"{self} compares each system's lists with the lists of a reference system: name "
                             f"that system with `baseline` (or {type(self).__name__}(reference='name') in Python)")
        return {None: str(baseline)}

    def order_baseline(self, frame: pd.DataFrame, what: str, **columns: Any) -> OrderedBaseline:
        """The reference system's lists ordered once per split (as :func:`order_baseline` orders them).

        Parameters
        ----------
        frame : DataFrame
            The reference system's lists of one split.
        what : str
            How errors name the frame (e.g. ``systems['pop']``).
        **columns
            The lists' column options and ``ties``.
        """
        return order_baseline(frame, **columns, what=what)

    @property
    def depth(self) -> int:
        """k: never None (the constructor refuses it; a clone of ``k=[...]`` gets one cutoff)."""
        return cast(int, self.k)

    def _params(self) -> dict[str, Any]:
        params = super()._params()
        if self._lists is not None:  # a frame: shown (and compared) by its size, not its rows
            params["reference"] = f"<{type(self.reference).__name__} of {len(self._lists)} rows>"
        return params

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def _ordered(self, lists: RankedLists) -> OrderedBaseline:
        if self._lists is not None:
            return self._lists
        from ...data.internal import side_of

        bound = side_of(lists)
        found = {} if bound is None else getattr(bound.side, BASELINES, {})
        if self.reference in found:
            return found[self.reference]
        if self.reference is None:
            raise ValueError(f"{self} compares each list with a reference system's list, and none was given: pass "
                             f"reference= a DataFrame of the reference lists, or evaluate it in compare() with "
                             f"`baseline` naming the reference system (rankeval compare --baseline NAME)")
        raise ValueError(f"{self}: `reference` {self.reference!r} names a system of compare(); outside compare "
                         f"pass the reference lists as a DataFrame")

    def _reference_rows(self, lists: RankedLists) -> CodedReference:
        """The reference coded against ``lists`` (:func:`code_reference`), cached per split and reference."""
        ordered = self._ordered(lists)
        cache = lists.split_cache.setdefault("references", {})
        found = cache.get(id(ordered))
        if found is None or found[0] is not ordered:
            found = cache[id(ordered)] = (ordered, code_reference(ordered, lists))
        return found[1]

    def _listed_reference_position(self, lists: RankedLists) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
        """Per row within the first k: whether its item is in the user's reference list, and
        its position there (0 where it is not)."""
        position = self._reference_rows(lists).position_of(lists.user_of_row, row_item_codes(lists))
        found = (position > 0) & (lists.position <= self.depth)
        return found, np.where(found, position, 0)

    def _without_reference(self, lists: RankedLists, values: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(self._reference_rows(lists).has_reference, values, np.nan)


@dataclass(frozen=True)
class CodedReference:
    """The reference lists of the users of a split, found by (user, item).

    ``raw_of_item`` maps an item code of the split to the item's code among the reference's
    own ``n_raw`` distinct items (-1: not in the reference); ``has_reference`` says which
    users have a list. The lists are held either as a table (``table[j, u]``: the item at
    position j + 1 of user u's list, -1 past its end), when every list is at most
    :data:`DENSE_DEPTH` long, or as ascending keys ``user * n_raw + item`` and their
    ``positions``.
    """

    n_raw: int
    raw_of_item: NDArray[np.int64]
    has_reference: NDArray[np.bool_]
    table: NDArray[np.int64] | None = None
    keys: NDArray[np.int64] | None = None
    positions: NDArray[np.int64] | None = None

    def position_of(self, user: NDArray[np.integer], item: NDArray[np.integer]) -> NDArray[np.int64]:
        """The 1-based position of each (user code, item code) in the user's list, 0 if not there."""
        raw = self.raw_of_item[item]
        out = np.zeros(len(raw), dtype=np.int64)
        if self.table is not None:
            for j, jth in enumerate(self.table):  # one pass per position (at most DENSE_DEPTH), not per user
                out[(jth[user] == raw) & (raw >= 0)] = j + 1
            return out
        keys, positions = self.keys, self.positions
        assert keys is not None and positions is not None, "a CodedReference holds a table or keys"
        if len(keys):
            row_keys = user.astype(np.int64) * self.n_raw + raw
            at = np.minimum(np.searchsorted(keys, row_keys), len(keys) - 1)
            found = (keys[at] == row_keys) & (raw >= 0)
            out[found] = positions[at[found]]
        return out


#: longest reference list held as a table (a pass over the listed rows per position); past
#: it, one sort of the reference's keys costs less
DENSE_DEPTH = 32


def code_reference(ordered: OrderedBaseline, lists: RankedLists) -> CodedReference:
    """The reference rows of the users of ``lists`` (:class:`CodedReference`), after one hash
    pass over their items.

    A reference list naming an item twice, or two reference lists of one user, is a ValueError
    naming the user and the item: the overlap of a list with a repeated item is not defined.
    """
    lengths = np.diff(ordered.offsets)
    user = pd.Index(lists.user_ids).get_indexer(ordered.users)  # one lookup per user's run
    n_lists = np.bincount(user[user >= 0], minlength=lists.n_users)
    if len(n_lists) and n_lists.max() > 1:
        raise ValueError(f"`reference` holds {int((n_lists > 1).sum())} user(s) in more than one list, e.g. "
                         f"{show(lists.user_ids[np.argmax(n_lists > 1)])} (ids equal to the same evaluated user): "
                         f"give each user one list")
    if bool((user >= 0).all()):  # every list is read: no gather
        position = data_internal.segment_positions(ordered.offsets).astype(np.int64)
        items, row_user = ordered.items, np.repeat(user.astype(np.int64), lengths)
    else:
        take = np.where(user >= 0, lengths, 0)
        at = data_internal.concat_ranges(ordered.offsets[:-1], take)
        position = at - np.repeat(ordered.offsets[:-1], take) + 1
        items, row_user = _take(ordered.items, at), np.repeat(user.astype(np.int64), take)
    raw, uniques = data_internal.factorize(items)
    item = pd.Index(lists.item_uniques).get_indexer(uniques)
    raw_of_item = np.full(len(lists.item_uniques), -1, dtype=np.int64)
    raw_of_item[item[item >= 0]] = np.flatnonzero(item >= 0)
    coded = CodedReference(max(len(uniques), 1), raw_of_item, n_lists > 0)
    longest = int(position.max()) if len(position) else 0
    if longest <= DENSE_DEPTH:
        table = np.full((longest, lists.n_users), -1, dtype=np.int64)
        table[position - 1, row_user] = raw
        ordered_items = np.sort(table.T, axis=1)  # each user's items ascending: a repeat is two equal neighbours
        repeated = (ordered_items[:, 1:] == ordered_items[:, :-1]) & (ordered_items[:, 1:] >= 0)
        first_of = repeated & ~np.c_[np.zeros(len(repeated), dtype=bool), repeated[:, :-1]]
        u, j = np.nonzero(first_of)
        _reject_repeats(len(u), uniques, lists, u[:1], ordered_items[u[:1], j[:1] + 1])
        return replace(coded, table=table)
    keys, positions = _sorted_keys(row_user * coded.n_raw + raw, position, longest)
    twice = np.flatnonzero(keys[1:] == keys[:-1])
    pairs = np.unique(keys[twice])
    _reject_repeats(len(pairs), uniques, lists, pairs[:1] // coded.n_raw, pairs[:1] % coded.n_raw)
    return replace(coded, keys=keys, positions=positions)


def _reject_repeats(n_pairs: int, uniques: NDArray[Any], lists: RankedLists, user: NDArray[np.integer],
                    raw: NDArray[np.integer]) -> None:
    """The error for ``n_pairs`` (user, item) pairs that a reference list holds twice (the
    lowest user code and item first)."""
    if n_pairs:
        raise ValueError(f"`reference` lists an item twice for {n_pairs} (user, item) pair(s), e.g. item "
                         f"{show(uniques[int(raw[0])])} of user {show(lists.user_ids[int(user[0])])}: a list holds "
                         f"each item once")


def _sorted_keys(keys: NDArray[np.int64], positions: NDArray[np.int64], longest: int
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``keys`` ascending and their ``positions``: one sort of both packed in an int64 when they
    fit (a sort costs about half an argsort and its gathers), else an argsort."""
    if len(keys) and int(keys.max()) < (2**62) // (longest + 1):
        packed = np.sort(keys * (longest + 1) + positions)
        return packed // (longest + 1), packed % (longest + 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], positions[order]


def _take(values: Any, at: NDArray[np.integer]) -> Any:
    return values.take(at) if isinstance(values, ExtensionArray) else values[at]


class RBO(_AgainstReference):
    r"""Rank-biased overlap of each list with the reference system's list (LensKit's RBO).

    .. math::

        RBO_u = \frac{\sum_{d=1}^{k} w_d \, A_d}{\sum_{d=1}^{k} w_d}, \qquad
        A_d = \frac{|L_u[{:}d] \cap R_u[{:}d]|}{d}, \qquad w_d = p^{\,d-1}

    the agreement :math:`A_d` of the two lists' first d items averaged over the depths
    1..k with geometric weights (Webber, Moffat and Zobel, "A similarity measure for
    indefinite rankings", TOIS 2010, eq. 7 with the sum cut at depth k). LensKit 2026.4.0's
    ``rank_biased_overlap(reference, reranked, weight=None, n=10)``: weight
    ``GeometricRankWeight(0.85)``, normalised by the weights of the k depths, so that two
    equal lists of k items or more score 1; a list shorter than k still divides
    :math:`|\cdot \cap \cdot|` by d, so two equal lists of 3 items score less than 1 at
    k = 10. It is neither Webber et al.'s :math:`RBO_{min}` nor :math:`RBO_{ext}` (those
    weigh depth d by :math:`(1-p)\,p^{d-1}` and bound or extrapolate the tail past k).
    Symmetric in the two lists.

    Parameters
    ----------
    k : int, default 10
        The depth k (LensKit's ``n``); both lists are cut at k.
    weight : RankWeight
        :math:`w_d`, the weight of depth d (default ``GeometricWeight(0.85)``, LensKit's;
        ``LogWeight``, ``UniformWeight`` or another patience are taken as LensKit takes any
        ``RankWeight``).
    reference : DataFrame or str, optional
        The reference system's lists (``user_col``, ``item_col`` and ``rank_col`` or
        ``score_col``, ordered as a ``pred`` frame, ties in row order), used for every
        split; or, inside :func:`~rankeval.compare`, the name of one of its systems, whose
        lists of the same split are the reference. None (default): inside ``compare``, its
        ``baseline=`` system; elsewhere a ValueError.
    user_col : str, default "user_id"
        The user id column of a reference frame.
    item_col : str, default "item_id"
        The item id column of a reference frame.
    score_col : str, default "score"
        The score column of a reference frame, which orders its lists when it has no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of a reference frame (1 first), which orders its lists when present.
    score_order : {"descending", "ascending"}
        Whether a reference frame's higher (default) or lower scores come first.
    name : str, optional
        Overrides the name ``"RBO@k"``.

    Notes
    -----
    NaN for a user the reference has no list for. Computed per listed item rather than per
    depth: item i of :math:`L_u[{:}k]` found at :math:`r_u(i)` in :math:`R_u[{:}k]` joins the
    overlap from depth :math:`m_i = \max(\text{position in } L_u, r_u(i))` on, so
    :math:`RBO_u = \sum_i T(m_i) / \sum_d w_d` with :math:`T(m) = \sum_{d=m}^{k} w_d / d`
    (LensKit sums depth by depth: the values agree to the last few bits).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> ref = pd.DataFrame({"user_id": [1, 1], "item_id": ["b", "a"], "score": [2.0, 1.0]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> metric = rk.RBO(2, weight=rk.GeometricWeight(0.5), reference=ref)
    >>> print(f"{metric.perform(rk.Split(pred, truth)).users.iloc[0, 0]:.4f}")  # (1 * 0 + 0.5 * 1) / 1.5
    0.3333
    """

    stem = "RBO"
    names = ("RBO",)

    def __init__(self, k: int = DEFAULT_DEPTH, weight: RankWeight = GeometricWeight(0.85),  # noqa: B008
                 reference: Any = None, *, user_col: str = "user_id", item_col: str = "item_id",
                 score_col: str = "score", rank_col: str = "rank", score_order: str = "descending",
                 name: str | None = None) -> None:
        super().__init__(k, None, name)
        self.weight = as_rank_weight(weight, "weight", "RBO")
        self._set_reference(reference, user_col, item_col, score_col, rank_col, score_order)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        k = self.depth
        depth = np.arange(1, k + 1)
        w = self.weight.weights(depth)
        # tail[m - 1] = sum over d = m..k of w_d / d: what an item shared from depth m on adds
        tail = np.cumsum((w / depth)[::-1])[::-1]
        found, ref_position = self._listed_reference_position(lists)
        joins = np.maximum(lists.position.astype(np.int64), ref_position)
        shared = found & (joins <= k)
        added = np.where(shared, tail[np.clip(joins, 1, k) - 1], 0.0)
        values = lists.segment_sum(added) / float(np.sum(w))
        return self._without_reference(lists, values)


class LIP(_AgainstReference):
    r"""Least item promoted: how far from beyond the reference's first k the deepest item of
    the list's first k came (LensKit's ``least_item_promoted``).

    .. math::

        LIP_u = \max\Bigl(0,\ \max_{i \in L_u[{:}k] \cap R_u} r_u(i) - 1 - k\Bigr)

    with 0 when no item of :math:`L_u[{:}k]` is in :math:`R_u`. LensKit 2026.4.0's
    ``least_item_promoted(reference, reranked, n=10)`` returns ``max(n, idx) - n`` with
    ``idx`` the 0-based index in the reference of the deepest such item: an item from
    reference position k + 1 therefore scores 0, one from position k + 2 scores 1 (kept here,
    so that the numbers are LensKit's). The whole reference list is read, not only its first
    k. Lower: the list stays closer to the reference's top.

    Parameters
    ----------
    k : int, default 10
        The depth k (LensKit's ``n``) of the re-ranked list.
    reference : DataFrame or str, optional
        The base ranking's lists, as :class:`RBO`'s ``reference`` (None: inside
        :func:`~rankeval.compare`, its ``baseline=`` system).
    user_col : str, default "user_id"
        The user id column of a reference frame.
    item_col : str, default "item_id"
        The item id column of a reference frame.
    score_col : str, default "score"
        The score column of a reference frame, which orders its lists when it has no ``rank_col``.
    rank_col : str, default "rank"
        The rank column of a reference frame (1 first), which orders its lists when present.
    score_order : {"descending", "ascending"}
        Whether a reference frame's higher (default) or lower scores come first.
    name : str, optional
        Overrides the name ``"LIP@k"``.

    Notes
    -----
    NaN for a user the reference has no list for (LensKit: NaN for an empty reference).

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> base = pd.DataFrame({"user_id": [1] * 5, "item_id": list("abcde"), "rank": [1, 2, 3, 4, 5]})
    >>> pred = pd.DataFrame({"user_id": [1, 1], "item_id": ["e", "a"], "rank": [1, 2]})
    >>> truth = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    >>> print(rk.LIP(2, reference=base).perform(rk.Split(pred, truth)).users.iloc[0, 0])  # 5 - 1 - 2
    2.0
    """

    stem = "LIP"
    names = ("LIP",)
    higher_is_better = False

    def __init__(self, k: int = DEFAULT_DEPTH, reference: Any = None, *, user_col: str = "user_id",
                 item_col: str = "item_id", score_col: str = "score", rank_col: str = "rank",
                 score_order: str = "descending", name: str | None = None) -> None:
        super().__init__(k, None, name)
        self._set_reference(reference, user_col, item_col, score_col, rank_col, score_order)

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        found, ref_position = self._listed_reference_position(lists)
        deepest = data_internal.segment_max(np.where(found, ref_position, 0), lists.offsets)  # NaN: an empty list
        values = np.maximum(np.nan_to_num(deepest, nan=0.0) - 1.0 - float(self.depth), 0.0)
        return self._without_reference(lists, values)
