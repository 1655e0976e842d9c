"""RankedLists: every user's recommendation list joined to its truth scores, as segments.

This is the one place where ids are touched. Building it factorizes user and item ids into shared integer codes,
orders each list, and joins every listed item to its truth score in one vectorized step (the join itself:
:mod:`rankeval.data._join`); afterwards metrics only see integer and float arrays laid out user after user (see
:mod:`rankeval.segments`). One instance is built per split and shared by every metric;
:meth:`RankedLists.for_threshold` hands each metric a cheap view whose ``relevant`` / ``n_relevant`` / ``threshold``
follow that metric's threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from . import _segments as seg
from ._build import Truth, code_ids, evaluated_users, join_listed_rows, rows_of_evaluated, truth_of_evaluated
from ._columns import DEFAULT_COLUMNS, Columns
from ._list_order import Ties
from ._truth_codes import TruthCodes

__all__ = ["RankedLists", "Columns", "Ties"]


@dataclass(eq=False)
class _Core:
    """Listed rows (all of them, or the first k of each list) and the shared truth data."""

    truth: Truth
    offsets: NDArray[np.int64]             # segment starts, length n_users + 1
    truth_score: NDArray[np.float64]       # NaN where the listed item has no truth score
    pred_score: NDArray[np.float64]        # score column, or -position without one
    has_pred_score: bool
    item_codes: NDArray[np.signedinteger[Any]]  # item code of every pred row, in pred's row order
    item_uniques: NDArray[Any]             # the caller's item id of every code
    item_rows: NDArray[np.int64] | None    # pred rows in list order (None: as is)
    relevant: dict[float | None, NDArray[np.bool_]] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)

    def positions(self) -> NDArray[np.int32]:
        """1-based position of each listed row (built on first use: @k metrics read the head's)."""
        if "position" not in self.cache:
            self.cache["position"] = seg.segment_positions(self.offsets)
        return self.cache["position"]

    def user_of_row(self) -> NDArray[np.int32]:
        if "user_of_row" not in self.cache:
            self.cache["user_of_row"] = seg.segment_ids(self.offsets)
        return self.cache["user_of_row"]

    def judged_rows(self) -> NDArray[np.int64]:
        """Indices of the rows whose item has a truth score (the only rows with a gain)."""
        if "judged_rows" not in self.cache:
            self.cache["judged_rows"] = np.flatnonzero(~np.isnan(self.truth_score))
        return self.cache["judged_rows"]

    def relevant_rows(self, key: float | None) -> NDArray[np.bool_]:
        if key not in self.relevant:
            threshold = self.truth.relevance(key)[1]
            with np.errstate(invalid="ignore"):
                if key is None:
                    judged = self.judged_rows()
                    rows = np.zeros(len(self.truth_score), dtype=bool)
                    rows[judged] = self.truth_score[judged] >= threshold[self.user_of_row()[judged]]
                else:
                    rows = self.truth_score >= key  # NaN (unjudged) compares False
            self.relevant[key] = rows
        return self.relevant[key]

    def head(self, k: int) -> _Core:
        """The first ``k`` rows of every list, sharing the truth data (cached per k)."""
        key = ("head", k)
        if key not in self.cache:
            n_listed = np.diff(self.offsets)
            if int(n_listed.max(initial=0)) <= k:
                self.cache[key] = self
            else:
                n_kept = np.minimum(n_listed, k)
                offsets = np.zeros(len(self.offsets), dtype=np.int64)
                np.cumsum(n_kept, out=offsets[1:])
                position = seg.segment_positions(offsets)
                rows = np.repeat(self.offsets[:-1], n_kept)  # from the segments: no scan of every row
                rows += position - 1
                head = _Core(truth=self.truth, offsets=offsets, truth_score=self.truth_score[rows],
                             pred_score=self.pred_score[rows], has_pred_score=self.has_pred_score,
                             item_codes=self.item_codes, item_uniques=self.item_uniques,
                             item_rows=rows if self.item_rows is None else self.item_rows[rows])
                head.cache["position"] = position
                self.cache[key] = head
        return self.cache[key]


class RankedLists:
    """Every evaluated user's ranked list, joined to truth, as contiguous segments.

    Users are those present in both ``pred`` and ``truth``, in the order they first appear in ``pred``.
    Rows of a user are contiguous and in list order, and lists are never cut at ``k``: a metric applies
    ``position <= k`` itself.

    Attributes
    ----------
    user_ids : ndarray
        The caller's user ids, one per evaluated user.
    offsets : ndarray of int64, shape (n_users + 1,)
        User ``u`` owns rows ``offsets[u]:offsets[u + 1]``.
    position : ndarray of int32
        1-based position of each row in its list.
    item_ids : ndarray
        The caller's item id of each row.
    item_codes : ndarray of int
        Item code of each row, an index into ``item_uniques`` (the caller's item id of every code).
    pred_score : ndarray of float64
        Predicted score of each row, higher is better; ``-position`` when ``pred`` has no score column;
        the score negated under ``score_order="ascending"``.
    truth_score : ndarray of float64
        Truth score of each listed item, NaN when the user did not rate it (unjudged).
    relevant : ndarray of bool
        ``truth_score >= threshold`` of the row's user (False when unjudged).
    n_listed : ndarray of int64
        Per user: listed items.
    n_truth : ndarray of int64
        Per user: truth items.
    n_relevant : ndarray of int64
        Per user: relevant truth items (listed or not).
    threshold : ndarray of float64
        Per user relevance threshold of this view.

    Parameters
    ----------
    core : object
        The joined arrays, as :meth:`build` makes them (views share them; not made by hand).
    relevant_threshold : float, optional
        Relevant: truth score >= this; None: >= the user's mean truth score.
    """

    __slots__ = ("_core", "relevant_threshold")

    def __init__(self, core: _Core, relevant_threshold: float | None = None) -> None:
        self._core = core
        self.relevant_threshold = relevant_threshold

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, pred: pd.DataFrame, truth: pd.DataFrame | TruthCodes, columns: Columns = DEFAULT_COLUMNS,
              ties: Ties = "row_order") -> RankedLists:
        """Join ``pred`` to ``truth``; both frames must already be validated by :class:`~rankeval.Split`.

        ``truth`` may also come with its ids hashed once for several lists (``TruthCodes``): the
        result is the same. Raises ``ValueError`` for what only the join can see: duplicate (user,
        item) pairs, duplicate ranks within a user, or no user common to both frames.
        """
        coded = truth if isinstance(truth, TruthCodes) and truth.reads(columns) else None
        if isinstance(truth, TruthCodes):
            truth = truth.frame
        codes = code_ids(pred, truth, columns, coded)
        all_truth_scores = (truth[columns.truth_score].to_numpy(dtype=np.float64) if coded is None
                            else coded.scores())
        order, truth_score = join_listed_rows(pred, truth, columns, ties, codes, all_truth_scores)
        users = evaluated_users(codes, columns)
        rows = rows_of_evaluated(pred, columns, codes, users.evaluated, order, truth_score)
        del truth_score  # the evaluated users' rows are all that is kept
        core = _Core(truth=truth_of_evaluated(codes, users, rows, all_truth_scores), offsets=rows.offsets,
                     truth_score=rows.truth_score, pred_score=rows.pred_score, has_pred_score=rows.has_pred_score,
                     item_codes=codes.pred_item_codes, item_uniques=codes.pred_items, item_rows=rows.item_rows)
        if rows.position is not None:
            core.cache["position"] = rows.position
        core.truth.score_order = columns.score_order
        return cls(core)

    # ------------------------------------------------------------------ views
    def for_threshold(self, relevant_threshold: float | None) -> RankedLists:
        """A view sharing every array, whose relevance follows ``relevant_threshold``."""
        return RankedLists(self._core, relevant_threshold)

    def head(self, k: int | None) -> RankedLists:
        """A view of the first ``k`` rows of every list (all rows when ``k`` is None).

        Per-user truth data (``n_truth``, ``n_relevant``, ``threshold``, truth values) are the full lists';
        only the rows are cut, so a metric that applies ``position <= k`` itself gets the same values on
        either, faster on the head.
        """
        if k is None:
            return self
        return RankedLists(self._core.head(k), self.relevant_threshold)

    # ------------------------------------------------------------------ per row
    @property
    def n_users(self) -> int:
        return len(self._core.truth.user_ids)

    @property
    def n_rows(self) -> int:
        return len(self._core.truth_score)

    @property
    def user_ids(self) -> NDArray[Any]:
        return _read_only(self._core.truth.user_ids)

    def user_index(self, name: Any = None) -> pd.Index:
        """The evaluated users' ids as a pandas Index named ``name``: a shallow copy of one Index
        built once per split, so that every metric's per-user frame shares its id data (pandas 3
        would otherwise convert the ids to Arrow text again for every metric).

        Parameters
        ----------
        name : Any, default None
            The Index's name (the user column's).
        """
        cache = self._core.truth.cache
        if "user_index" not in cache:
            cache["user_index"] = pd.Index(self._core.truth.user_ids)
        # a copy of its own: renaming one metric's index must not rename another's
        return cache["user_index"].copy(name=name)

    @property
    def offsets(self) -> NDArray[np.int64]:
        return _read_only(self._core.offsets)

    @property
    def position(self) -> NDArray[np.int32]:
        return _read_only(self._core.positions())

    @property
    def truth_score(self) -> NDArray[np.float64]:
        return _read_only(self._core.truth_score)

    @property
    def pred_score(self) -> NDArray[np.float64]:
        return _read_only(self._core.pred_score)

    @property
    def has_pred_score(self) -> bool:
        """Whether ``pred_score`` comes from a score column (else it is ``-position``)."""
        return self._core.has_pred_score

    @property
    def item_ids(self) -> NDArray[Any]:
        core = self._core
        if "item_ids" not in core.cache:
            codes = core.item_codes if core.item_rows is None else core.item_codes[core.item_rows]
            core.cache["item_ids"] = _read_only(core.item_uniques[codes])
        return core.cache["item_ids"]

    @property
    def item_codes(self) -> NDArray[np.signedinteger[Any]]:
        """Item code of each row: its index into ``item_uniques`` (cached per view of these rows)."""
        core = self._core
        if "row_item_codes" not in core.cache:
            rows = core.item_rows
            core.cache["row_item_codes"] = core.item_codes if rows is None else core.item_codes[rows]
        return _read_only(core.cache["row_item_codes"])

    def item_codes_at(self, rows: NDArray[np.integer]) -> NDArray[np.signedinteger[Any]]:
        """``item_codes[rows]``, gathered through the join's row order for these rows alone.

        A metric that needs the items of a few rows (the relevant ones) pays for those, not for
        ``item_codes`` of every listed row (reused when a metric has already built it).

        Parameters
        ----------
        rows : int array
            Row indices of this view.
        """
        core = self._core
        if "row_item_codes" in core.cache:
            return core.cache["row_item_codes"][rows]
        return core.item_codes[rows] if core.item_rows is None else core.item_codes[core.item_rows[rows]]

    @property
    def judged_rows(self) -> NDArray[np.int64]:
        """Indices of the rows whose item has a truth score, ascending (cached)."""
        return _read_only(self._core.judged_rows())

    @property
    def judged(self) -> NDArray[np.bool_]:
        """Whether each listed item has a truth score."""
        core = self._core
        if "judged" not in core.cache:
            core.cache["judged"] = ~np.isnan(core.truth_score)
        return _read_only(core.cache["judged"])

    @property
    def user_of_row(self) -> NDArray[np.int32]:
        """Index (0..n_users-1) of the user owning each row."""
        return _read_only(self._core.user_of_row())

    @property
    def relevant(self) -> NDArray[np.bool_]:
        return _read_only(self._core.relevant_rows(self.relevant_threshold))

    # ------------------------------------------------------------------ per user
    @property
    def n_listed(self) -> NDArray[np.int64]:
        return _read_only(np.diff(self._core.offsets))

    @property
    def n_truth(self) -> NDArray[np.int64]:
        return _read_only(self._core.truth.n_truth)

    @property
    def n_relevant(self) -> NDArray[np.int64]:
        return _read_only(self._core.truth.relevance(self.relevant_threshold)[0])

    @property
    def threshold(self) -> NDArray[np.float64]:
        return _read_only(self._core.truth.relevance(self.relevant_threshold)[1])

    @property
    def truth_offsets(self) -> NDArray[np.int64]:
        """Segments of ``truth_values``: user ``u``'s truth rows are ``truth_offsets[u]:truth_offsets[u+1]``."""
        return _read_only(self._core.truth.truth_offsets)

    @property
    def truth_values(self) -> NDArray[np.float64]:
        """Truth scores of the evaluated users, grouped by user (in no particular order within a user)."""
        return _read_only(self._core.truth.truth_values)

    def ideal_scores(self) -> NDArray[np.float64]:
        """Each user's truth scores sorted descending, segmented by ``truth_offsets``."""
        truth = self._core.truth
        if "ideal" not in truth.cache:
            order = seg.segment_argsort(truth.truth_values, truth.truth_offsets, descending=True)
            truth.cache["ideal"] = truth.truth_values[order]
        return _read_only(truth.cache["ideal"])

    @property
    def truth_score_max(self) -> float:
        """The largest score of the split's whole ``truth`` frame, users without a list included."""
        return self._core.truth.truth_max

    @property
    def missing_user_ids(self) -> NDArray[Any]:
        """Truth users without a recommendation list (not evaluated)."""
        return _read_only(self._core.truth.missing_user_ids)

    @property
    def pred_only_user_ids(self) -> NDArray[Any]:
        """Pred users without any truth rating (not evaluated)."""
        return _read_only(self._core.truth.pred_only_user_ids)

    @property
    def score_order(self) -> str:
        """``"descending"``, or ``"ascending"`` (lower is better: ``pred_score`` holds the scores negated)."""
        return self._core.truth.score_order

    @property
    def rank_like_users(self) -> int:
        """``pred``'s users when their scores look like ranks 1..n_u (RanksAsScoresWarning), else 0."""
        return self._core.truth.rank_like_users

    @property
    def truth_item_codes(self) -> NDArray[np.signedinteger[Any]]:
        """Item code of each of ``truth_values``: an index into ``item_uniques``, or past its end (items no
        list holds) into ``truth_only_item_ids``."""
        return _read_only(self._core.truth.item_codes)

    @property
    def truth_only_item_ids(self) -> NDArray[Any]:
        """The truth items no list holds, by code (code ``len(item_uniques) + j`` is item ``j`` here)."""
        return _read_only(self._core.truth.truth_only_items)

    @property
    def unlisted_truth_rows(self) -> NDArray[np.int64]:
        """Positions (0-based) of the ``truth`` rows whose user has no list, ascending."""
        return _read_only(self._core.truth.unlisted_truth_rows)

    @property
    def unevaluated_pred_rows(self) -> NDArray[np.int64]:
        """Positions (0-based) of the ``pred`` rows whose user has no truth, ascending."""
        return _read_only(self._core.truth.unevaluated_pred_rows)

    # ------------------------------------------------------------------ per item code, caches
    @property
    def item_uniques(self) -> NDArray[Any]:
        """The caller's item id of every item code: ``pred``'s distinct items, in order of first appearance."""
        return _read_only(self._core.item_uniques)

    @property
    def rows_cache(self) -> dict[Any, Any]:
        """A dict for values computed once per these rows, shared by every threshold view of them.

        A ``head(k)`` view has rows of its own, hence its own dict; a value that depends on the threshold
        must hold ``relevant_threshold`` in its key.
        """
        return self._core.cache

    @property
    def split_cache(self) -> dict[str, Any]:
        """A dict shared by every view of the split (every threshold, every ``head(k)``): the bound side data."""
        return self._core.truth.cache

    # ------------------------------------------------------------------ segment helpers
    def segment_sum(self, x: Any) -> NDArray[np.float64]:
        """Per user sum of a per-row array."""
        return seg.segment_sum(x, self._core.offsets)

    def segment_cumsum(self, x: Any) -> NDArray[Any]:
        """Per row inclusive cumulative sum, restarting at each user."""
        return seg.segment_cumsum(x, self._core.offsets)

    def segment_first(self, mask: Any) -> NDArray[np.int64]:
        """Per user 1-based position of the first True row, 0 if none."""
        return seg.segment_first(mask, self._core.offsets)

    def __repr__(self) -> str:
        thr = "user mean" if self.relevant_threshold is None else f"{self.relevant_threshold:g}"
        return f"RankedLists(n_users={self.n_users}, n_rows={self.n_rows}, threshold={thr})"


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    """The array, marked read-only: a metric writing into shared lists (or, through a view,
    into the caller's frame) gets an error instead of corrupting every later metric."""
    array.flags.writeable = False
    return array
