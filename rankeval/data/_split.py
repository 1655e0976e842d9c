"""Split: one data split, validated once, holding the cached join every metric shares."""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from ..exceptions import LowOverlapWarning, MissingUsersWarning, RanksAsScoresWarning, UnusedColumnsWarning
from ._frames import to_pandas
from ._ranked import Columns, RankedLists, Ties
from ._side import SideData
from ._truth_codes import TruthCodes
from ._validation import (
    SCORE_ALIASES,
    check_choice,
    check_column_names,
    reject_empty,
    reject_missing_ids,
    require_columns,
    require_numeric,
    show,
    where,
)

__all__ = ["Split", "LOW_OVERLAP", "overlap_counts", "low_overlap_message", "rank_like_message"]

TIES = ("row_order", "item_id", "item_id_desc")
MISSING_USERS = ("ignore", "zero", "error")
MissingUsers = Literal["ignore", "zero", "error"]
#: below this share of the truth scores the lists could hold, a split warns (LowOverlapWarning)
LOW_OVERLAP = 0.01


def overlap_counts(lists: RankedLists) -> tuple[int, int, int]:
    """(listed rows, listed rows with a truth score, the most such rows the lists could hold:
    per user the smaller of the list's length and the user's number of truth items)."""
    lengths = np.diff(lists.offsets)
    return lists.n_rows, len(lists.judged_rows), int(np.minimum(lengths, lists.n_truth).sum())


def low_overlap_message(n_rows: int, n_judged: int, n_possible: int, c: Columns, where: str) -> str | None:
    """The LowOverlapWarning's text when under ``LOW_OVERLAP`` of the possible judged rows are
    judged (None otherwise).

    The share is of what the lists could hold, not of every listed row: a leave-one-out truth
    met by 100-item lists has at most 1% of its rows judged, and ids that match are no reason
    to warn. Ids that never match leave (almost) nothing judged under either measure.
    """
    if n_possible == 0 or n_judged >= LOW_OVERLAP * n_possible:
        return None
    return (f"only {n_judged} of {n_rows} listed (user, item) rows{where} have a truth score, "
            f"{100 * n_judged / n_possible:.2g}% of the {n_possible} the lists could hold (per user the smaller of "
            f"the list's length and the truth's size): every metric will be near zero. Check that "
            f"`pred`['{c.item}'] and `truth`['{c.truth_item}'] hold the same ids (same spelling, same type)")


class Split:
    """One data split: recommendation lists ``pred`` and held-out ratings ``truth``.

    Both frames are validated once and never modified; the join of the lists to the
    ratings (:class:`~rankeval.RankedLists`) is built on first use and shared by every
    metric evaluated on this split.

    Parameters
    ----------
    pred : DataFrame
        Recommendation lists: ``user_col``, ``item_col``, optionally ``score_col``
        (higher is better, unless ``score_order="ascending"``) and ``rank_col`` (1 is
        best). A pandas, polars (``DataFrame`` or ``LazyFrame``, collected once) or
        ``pyarrow.Table`` frame; held as pandas.
    truth : DataFrame
        Held-out ratings: ``user_col``, ``item_col`` and a numeric ``truth_score_col``
        (``score_col`` unless given); the same kinds of frame as ``pred``. Also a truth whose ids
        were hashed once for several systems' lists (``rankeval.data.internal.TruthCodes``, what
        :func:`~rankeval.compare` passes): the split is the same.
    name : str, optional
        Name of the split in results.
    user_col : str, default "user_id"
        The user id column of ``pred`` (and of ``truth`` unless ``truth_user_col`` names another).
    item_col : str, default "item_id"
        The item id column of ``pred`` (and of ``truth`` unless ``truth_item_col`` names another).
    score_col : str, default "score"
        The predicted score of ``pred`` (higher is better), which orders each list when there is
        no ``rank_col``; also the truth's score column unless ``truth_score_col`` names another.
    rank_col : str, default "rank"
        The position of each item in its list (1 is best); when ``pred`` has this column it
        orders the lists and ``score_col`` does not.
    truth_score_col : str, optional
        The truth's score column when it is named otherwise than ``pred``'s
        (``truth_score_col="rating"`` for MovieLens-style held-out ratings, with lists
        scored in ``score``); None: ``score_col``. Side data's ``train`` uses it too.
    truth_user_col : str, optional
        The truth's user column when it is named otherwise than ``pred``'s (``"userId"``);
        None: ``user_col``. Side data's ``train`` is read under the same name, and errors
        about the truth name this column.
    truth_item_col : str, optional
        The truth's item column when it is named otherwise than ``pred``'s (``"movieId"``);
        None: ``item_col``. Side data's ``train`` is read under the same name, and errors
        about the truth name this column.
    score_order : {"descending", "ascending"}
        How ``score_col`` orders a list: higher scores first (the default), or lower scores
        first (distances from a nearest-neighbour index). Ties follow ``ties`` either way.
        Metrics that read the score values get them negated under ``"ascending"`` (so a
        correlation or an AUC still measures agreement with the truth); those that need the
        values as given (MAE, MSE, RMSE, LogLoss, ItemMAD with ``gains="score"``) refuse it
        with a ValueError. With a rank column, the ranks order the lists and ``score_order``
        only says how the score values read.
    ties : {"row_order", "item_id", "item_id_desc"}
        How lists ordered by score break ties: keep the input's row order (stable, the
        default), by item id ascending (what the Spark engine does), or by item id compared
        as strings, descending (trec_eval). Ignored when ``pred`` has a rank column.
    missing_users : {"ignore", "zero", "error"}
        Truth users without a list: left out with a warning that counts them, given 0
        for every metric (as ``trec_eval -c``), or a ValueError naming them.
    train : DataFrame, optional
        Side data (:class:`~rankeval.SideData`): the interactions the recommender learned from
        (``user_col``, ``item_col``), for popularity, novelty and user groups.
    catalog : iterable, Series or DataFrame, optional
        Side data: the recommendable items; default every item of ``train`` and ``truth``
        (when ``train`` is given).
    item_features : DataFrame, optional
        Side data: a frame indexed by item id, numeric vector columns or one column of
        category sets, for diversity.
    side : SideData, optional
        Side data already validated (instead of the others).
    item_groups : Series, mapping or DataFrame, optional
        Side data: item id -> group label (a provider, a genre), for the fairness metrics.

    Notes
    -----
    Order of a user's list: ``rank_col`` if present; else ``score_col`` descending; else
    row order. Ranks only order the list: ranks 1, 3, 7 give positions 1, 2, 3.
    Users evaluated: those present in both frames. Pred users without any truth rating
    cannot be scored and are left out with a warning that counts them.

    Raises
    ------
    ValueError
        Missing or repeated columns; empty frames; missing or unhashable ids; ids of
        kinds that never match between the frames (numbers in one, text in the other);
        duplicate (user, item) rows in either frame; NaN, infinite, complex or non-numeric
        truth scores; NaN or non-numeric predicted scores; NaN, non-positive, non-integer
        or repeated ranks within a user; no user common to both frames. Each message names
        the frame, column, user and rows.

    Warns
    -----
    MissingUsersWarning
        Users in only one of the frames (counted).
    LowOverlapWarning
        Under 1% of the truth scores the lists could hold are in them (ids that probably do
        not match); the most a user's list can hold is the smaller of its length and the
        user's truth size, so leave-one-out truths and sampled-candidate lists do not warn.
    UnusedColumnsWarning
        ``pred`` has neither ``score_col`` nor ``rank_col`` but has other numeric columns.
    RanksAsScoresWarning
        Every ``pred`` user's scores are exactly the integers 1..n_u (n_u: the user's listed
        rows) and two or more users list 2+ items: ranks given as scores, read backwards
        (counted). Not raised with a rank column, with ``score_order="ascending"``, nor when
        the rows already run best first (each user's rows together, scores descending: a
        file written highest score first holds scores, as 2, 1).

    Examples
    --------
    >>> import pandas as pd
    >>> pred = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "score": [.9, .8, .7]})
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["b", "c"], "score": [4.0, 5.0]})
    >>> Split(pred, truth).ranked_lists()
    RankedLists(n_users=2, n_rows=3, threshold=user mean)
    """

    def __init__(self, pred: pd.DataFrame, truth: pd.DataFrame, *, name: str | None = None,
                 user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                 rank_col: str = "rank", score_order: str = "descending", ties: Ties = "row_order",
                 missing_users: MissingUsers = "ignore", train: Any = None, catalog: Any = None,
                 item_features: Any = None, side: SideData | None = None, item_groups: Any = None,
                 truth_score_col: str | None = None, truth_user_col: str | None = None,
                 truth_item_col: str | None = None) -> None:
        pred = to_pandas(pred, "pred")
        coded = truth if isinstance(truth, TruthCodes) else None  # the truth's ids hashed once for several lists
        truth = to_pandas(truth if coded is None else coded.frame, "truth")
        # check_choice returns the value once it is one of the choices: a str of the Literal
        self.ties = cast(Ties, check_choice("ties", ties, TIES))
        self.missing_users = cast(MissingUsers, check_choice("missing_users", missing_users, MISSING_USERS))
        cols = Columns(user_col, item_col, score_col, rank_col, truth_score_col, truth_user_col, truth_item_col,
                       score_order)
        check_column_names(cols)
        truth_score = cols.truth_score
        require_columns(pred, "pred", [user_col, item_col], ids=(user_col, item_col, ""))
        require_columns(truth, "truth", [cols.truth_user, cols.truth_item, truth_score],
                        score=(truth_score, "truth_score_col"),
                        ids=(cols.truth_user, cols.truth_item, "truth_"))
        for frame, df in (("pred", pred), ("truth", truth)):
            reject_empty(df, frame)
        require_numeric(truth, "truth", truth_score, finite=True)
        if score_col in pred.columns:
            require_numeric(pred, "pred", score_col, finite=False)
        if rank_col in pred.columns:
            _check_ranks(pred, user_col, rank_col)
        self.name = name
        self.columns = cols
        self._pred = pred
        self._truth = truth
        if score_col not in pred.columns and rank_col not in pred.columns:
            _warn_unused_order_columns(pred, cols)
        # built now so that every problem with the data surfaces here, not at the first metric;
        # missing ids, duplicate pairs and repeated ranks are found by the join itself
        try:
            self._ranked = RankedLists.build(pred, truth if coded is None else coded, cols, self.ties)
        except TypeError as exc:  # an id no hash or comparison can take: say which column
            _explain_bad_ids(pred, truth, cols, exc)
            raise
        self._report_users(self._ranked)
        self._report_overlap(self._ranked)
        self._report_rank_like(self._ranked)
        self.side = self._bind_side(pred, truth, cols, train, catalog, item_features, side, item_groups)

    @property
    def pred(self) -> pd.DataFrame:
        """The caller's ``pred`` frame (not a copy: do not modify it)."""
        return self._pred

    @property
    def truth(self) -> pd.DataFrame:
        """The caller's ``truth`` frame (not a copy: do not modify it)."""
        return self._truth

    def ranked_lists(self) -> RankedLists:
        """The join of every list to its truth scores, built once when the split was made."""
        return self._ranked

    def _bind_side(self, pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, train: Any, catalog: Any,
                   item_features: Any, side: SideData | None, item_groups: Any) -> SideData | None:
        """Validate the side data (if any), make the default catalog explicit, bind it to the lists."""
        given = train is not None or catalog is not None or item_features is not None or item_groups is not None
        if side is not None:
            if not isinstance(side, SideData):
                raise TypeError(f"`side` must be a rankeval.SideData, got {type(side).__name__}")
            if given:
                raise ValueError("pass either `side` or `train`/`catalog`/`item_features`/`item_groups`, not both")
        elif given:
            side = SideData(train, catalog, item_features, user_col=c.truth_user, item_col=c.truth_item,
                            score_col=c.truth_score,
                            item_groups=item_groups)
        if side is None:
            return None
        side = side.resolved(truth, c.truth_item)
        lists = self._ranked
        side.check_kinds(pred, c.user, c.item, lists.user_ids, lists.item_uniques)
        side.bind(lists)
        return side

    def _report_users(self, lists: RankedLists) -> None:
        where = "" if self.name is None else f" in split {self.name!r}"
        missing = lists.missing_user_ids
        if len(missing):
            shown = missing[:10].tolist()
            if self.missing_users == "error":
                raise ValueError(
                    f"{len(missing)} `truth` user(s){where} have no recommendations, e.g. "
                    f"{shown}; pass missing_users='ignore' to leave them out or 'zero' to score them 0")
            action = ("are left out" if self.missing_users == "ignore"
                      else "get 0 for every metric (missing_users='zero')")
            warnings.warn(MissingUsersWarning(
                f"{len(missing)} `truth` user(s){where} have no recommendations and {action}, e.g. {shown}"),
                stacklevel=3)
        pred_only = lists.pred_only_user_ids
        if len(pred_only):
            warnings.warn(MissingUsersWarning(
                f"{len(pred_only)} `pred` user(s){where} have no truth ratings and are left out, "
                f"e.g. {pred_only[:10].tolist()}"), stacklevel=3)

    def _report_overlap(self, lists: RankedLists) -> None:
        """Warn when almost no listed item has a truth score: the ids probably do not match."""
        where = "" if self.name is None else f" in split {self.name!r}"
        message = low_overlap_message(*overlap_counts(lists), self.columns, where)
        if message is not None:
            warnings.warn(LowOverlapWarning(message), stacklevel=3)

    def _report_rank_like(self, lists: RankedLists) -> None:
        """Warn when every user's scores are ranks 1..n_u: read higher-is-better, each list is upside down."""
        message = rank_like_message(lists.rank_like_users, self.columns,
                                    "" if self.name is None else f" in split {self.name!r}")
        if message is not None:
            warnings.warn(RanksAsScoresWarning(message), stacklevel=3)

    def __repr__(self) -> str:
        name = "" if self.name is None else f"name={self.name!r}, "
        return (f"Split({name}pred={len(self._pred)} rows, truth={len(self._truth)} rows, "
                f"ties={self.ties!r}, missing_users={self.missing_users!r})")


def rank_like_message(n_users: int, c: Columns, where: str = "") -> str | None:
    """The RanksAsScoresWarning's text for ``n_users`` users whose scores all look like ranks (None: 0 users)."""
    if n_users == 0:
        return None
    return (f"`pred`'s '{c.score}' column{where} looks like ranks: each of the {n_users:,} users' scores are "
            f"exactly 1..n (n = the user's number of listed rows), so read as higher-is-better every list is "
            f"upside down (rank 1 last). If they are ranks, give them as a rank column (rank_col=, CLI --rank-col; "
            f"'rank' by default); if lower scores are better, pass score_order='ascending' (CLI --score-order "
            f"ascending), which also orders ranks 1..n as a rank column does")


def _warn_unused_order_columns(pred: pd.DataFrame, c: Columns) -> None:
    """A list ordered by rows while a numeric column sits unused is most likely a misnamed score."""
    numeric = [col for col in pred.columns if col not in (c.user, c.item)
               and pd.api.types.is_numeric_dtype(pred[col]) and not pd.api.types.is_bool_dtype(pred[col])]
    if numeric:
        aliases = [a for a in SCORE_ALIASES if a in numeric]
        hint = f" (its scores are in {aliases[0]!r}? pass score_col={aliases[0]!r})" if len(aliases) == 1 else ""
        warnings.warn(UnusedColumnsWarning(
            f"`pred` has no '{c.score}' or '{c.rank}' column, so every list is taken in row order; its numeric "
            f"column(s) {numeric} are not used. Pass score_col= (higher is better) or rank_col= (1 is best) "
            f"to order the lists by one of them{hint}"), stacklevel=4)


def _explain_bad_ids(pred: pd.DataFrame, truth: pd.DataFrame, c: Columns, exc: TypeError) -> None:
    """Raise a ValueError naming the id column behind a TypeError (missing or unhashable ids)."""
    for frame, df, cols in (("pred", pred, (c.user, c.item)), ("truth", truth, (c.truth_user, c.truth_item))):
        for col in cols:
            values = df[col]
            missing = values.isna().to_numpy()
            if missing.any():
                reject_missing_ids(df, frame, col, missing)
            if values.dtype == object:
                try:
                    pd.unique(values.to_numpy())
                except TypeError:
                    bad = np.fromiter((not isinstance(v, Hashable) for v in values), dtype=bool, count=len(values))
                    kinds = sorted({type(v).__name__ for v in values[bad]})
                    raise ValueError(
                        f"`{frame}`['{col}'] holds values that cannot be ids ({', '.join(kinds)}) "
                        f"{where(df, bad)}: ids must be hashable scalars such as str or int") from exc


def _check_ranks(pred: pd.DataFrame, user_col: str, rank_col: str) -> None:
    """NaN, non-numeric, non-positive and non-integer ranks (repeats are found by the join)."""
    values = require_numeric(pred, "pred", rank_col, finite=True)
    bad = (values <= 0) | (values != np.floor(values))
    if bad.any():
        at = np.flatnonzero(bad)[0]
        raise ValueError(
            f"`pred`['{rank_col}'] must hold integers >= 1, got {values[at]:g} for "
            f"{user_col}={show(pred[user_col].iloc[at])} ({int(bad.sum())} bad ranks {where(pred, bad)})")
