"""``audit``: what in a train/test split (and in the lists made from it) can make a comparison wrong.

The lines, each a count with the whole it is a share of (docs/protocol.md says what each
means and what to do about it):

- temporal leakage, per user: train interactions later than their user's own earliest
  test interaction; global: later than the earliest test interaction of any user (Ji et
  al., "A Critical Study on Data Leakage in Recommender System Offline Evaluation", TOIS
  2023). 0 for a global time split, exactly;
- seen items recommended: listed ``(user, item)`` pairs already in that user's train, per
  system; future items recommended: listed items first interacted with (in train ∪ test)
  after the user's earliest test interaction;
- overlap: ``(user, item)`` pairs both in train and test; duplicates within each;
- cold users and cold items: test users (items) without a train interaction;
- the test set's shape: users, items, interactions per user, users with a relevant item.

Lines that need what the frames do not have (a time column, lists, scores) are skipped,
and ``Audit.skipped`` says why.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd
from numpy.typing import NDArray

from ..data.internal import check_threshold, require_numeric
from ._checks import (
    Line,
    PairIndex,
    cheap_counts,
    cold_lines,
    future_line,
    item_first_times,
    leakage_lines,
    pair_lines,
    seen_line,
    shape_lines,
    user_test_starts,
)
from ._coded import Coded, code_frames, code_pred, local_frame
from ._input import InteractionColumns
from ._profile import (
    SESSION_GAP,
    TEMPORAL,
    catalog_ids,
    catalog_line,
    check_session_gap,
    gap_text,
    mde_lines,
    repeat_line,
    session_gap_ticks,
    time_profile_lines,
)
from ._spark_audit import spark_audit_lines, spark_cheap_counts, spark_frames
from ._times import read_times, same_time_kind, time_kind, time_value

__all__ = ["Audit", "audit", "cheap_checks"]

_TEMPORAL = TEMPORAL
COLUMNS = ["count", "of", "share", "users_affected", "note"]


class Audit:
    """The audit's result: a table of checks, a short verdict, and the checks skipped.

    Attributes
    ----------
    table : DataFrame
        One row per check (the index), columns ``count``, ``of`` (the size of the whole
        ``count`` is a share of; missing where no share is meaningful), ``share``,
        ``users_affected`` (distinct users concerned, where meaningful) and ``note`` (what
        is counted, and the whole).
    verdict : str
        The problems found (non-zero counts of the checks that can make a comparison
        wrong), largest share first, and the checks skipped.
    skipped : dict of str to str
        Check -> why it was not run (no time column, no lists, no score column).

    Parameters
    ----------
    lines : list of Line
        The checks run, one table row each, in the table's order (:func:`audit` makes them).
    skipped : dict of str to str
        Check -> why it was not run; copied.
    """

    def __init__(self, lines: list[Line], skipped: dict[str, str]) -> None:
        self.lines = lines
        self.skipped = dict(skipped)
        self.table = pd.DataFrame(
            {"count": pd.array([line.count for line in lines], dtype="Int64"),
             "of": pd.array([line.of for line in lines], dtype="Int64"),
             "share": [line.share for line in lines],
             "users_affected": pd.array([line.users_affected for line in lines], dtype="Int64"),
             "note": [line.note for line in lines]},
            index=pd.Index([line.check for line in lines], name="check"))
        self.verdict = _verdict(lines, self.skipped)

    @property
    def problems(self) -> list[str]:
        """The checks that found something that can make a comparison wrong."""
        return [line.check for line in self.lines if line.problem and line.count > 0]

    @property
    def mde(self) -> float | None:
        """The minimum detectable effect d_z of the comparison audited (None: fewer than two systems)."""
        return next((line.value for line in self.lines if line.value is not None), None)

    def __repr__(self) -> str:
        with pd.option_context("display.max_colwidth", 90, "display.width", 200):
            table = self.table.to_string(formatters={"share": lambda v: "" if pd.isna(v) else f"{v:.2%}"})
        return f"Audit: {self.verdict}\n{table}"

    def _repr_html_(self) -> str:
        table = self.table.to_html(formatters={"share": lambda v: "" if pd.isna(v) else f"{v:.2%}"}, na_rep="")
        return f"<p><b>Audit:</b> {html.escape(self.verdict)}</p>{table}"


def _verdict(lines: list[Line], skipped: dict[str, str]) -> str:
    found = sorted((line for line in lines if line.problem and line.count > 0), key=lambda x: -x.share)
    if found:
        text = f"{len(found)} problem(s): " + "; ".join(
            f"{line.check} {line.count:,} ({line.share:.1%} of {line.whole})" for line in found) + "."
    else:
        run = sum(1 for line in lines if line.problem)
        text = f"no problem found in the {run} checks run."
    profile = [_profiled(line) for line in lines if line.profile]
    if profile:
        text += " Profile: " + "; ".join(profile) + "."
    if skipped:
        text += " Not checked: " + "; ".join(f"{name} ({why})" for name, why in skipped.items()) + "."
    return text


def _profiled(line: Line) -> str:
    """A profile line as the verdict says it: its count and share, or the effect it names."""
    if line.value is not None:
        return f"{line.check} d_z {line.value:.3g} over {line.count:,} users"
    if line.of:
        return f"{line.check} {line.count:,} ({line.share:.1%} of {line.whole})"
    return f"{line.check} {line.count:,}"


def _systems(pred: Any) -> list[tuple[str, str, pd.DataFrame]]:
    """(label suffix, frame name, frame) of each system's lists."""
    if pred is None:
        return []
    if isinstance(pred, Mapping):
        if not pred:
            raise ValueError("`pred` is an empty mapping: give at least one system's lists, or pred=None")
        return [(f" ({name})", f"pred[{name!r}]", local_frame(frame, f"pred[{name!r}]"))
                for name, frame in pred.items()]
    return [("", "pred", local_frame(pred, "pred"))]


def _times(train: pd.DataFrame, test: pd.DataFrame, column: str | None, skipped: dict[str, str]
           ) -> tuple[NDArray[Any], NDArray[Any], bool] | None:
    """Both frames' times as comparable numbers and whether they are datetimes, or None (the
    temporal checks skipped, with why)."""
    missing = [name for name, df in (("train", train), ("test", test)) if column is None or column not in df.columns]
    if missing:
        why = "time_col=None" if column is None else f"no '{column}' column in {' and '.join(missing)}"
        for name in _TEMPORAL:
            skipped[name] = why
        return None
    assert column is not None
    train_times, test_times = read_times(train, "train", column), read_times(test, "test", column)
    same_time_kind(train_times, test_times, ("train", "test"), column)
    return time_value(train_times), time_value(test_times), time_kind(train_times) != "number"


def _system_lines(coded: Coded, train_index: PairIndex, systems: list[tuple[str, str, pd.DataFrame]],
                  temporal: tuple[Any, Any] | None, user_col: str, item_col: str) -> tuple[list[Line], list[Line]]:
    seen, future = [], []
    for suffix, name, frame in systems:
        users, items = code_pred(coded, frame, name, user_col, item_col)
        seen.append(seen_line(coded, train_index, users, items, suffix))
        if temporal is not None:
            future.append(future_line(coded, temporal[0], temporal[1], users, items, suffix))
    return seen, future


def audit(train: Any, test: Any, pred: Any = None, *, user_col: str = "user_id", item_col: str = "item_id",
          score_col: str = "score", time_col: str | None = "timestamp",
          relevant_threshold: float | None = None, catalog: Any = None,
          session_gap: float = SESSION_GAP) -> Audit:
    """Measure what in a split, and in the lists made from it, can make a comparison wrong.

    See the module's docstring for the lines, docs/protocol.md for what each means.

    Parameters
    ----------
    train : DataFrame
        The interactions a recommender learned from (pandas, polars, pyarrow, or Spark when
        every frame is); the train of a pair from any splitter, or anyone's.
    test : DataFrame
        The interactions the recommender is judged on, the same kind of frame as ``train``.
    pred : DataFrame or mapping of str to DataFrame, optional
        Recommendation lists (``user_col``, ``item_col``), one frame or one per system.
        With two systems or more, a comparison is audited: the table adds the minimum
        detectable effect of a paired t-test over the test users with a relevant item.
    user_col : str, default "user_id"
        The user id column of ``train``, ``test`` and ``pred``.
    item_col : str, default "item_id"
        The item id column of ``train``, ``test`` and ``pred``.
    score_col : str, default "score"
        The score column of ``test`` (optional): with it, relevance (see
        ``relevant_threshold``) decides the test-set shape lines.
    time_col : str or None, default "timestamp"
        The time column; without it in both frames (or with None) the temporal lines are
        skipped and ``Audit.skipped`` says so.
    relevant_threshold : float, optional
        Relevant: score >= this; None: score >= the user's mean score (the library's rule).
    catalog : iterable, Series or DataFrame, optional
        The items that exist (a DataFrame's ``item_col``, or its one column): with ``pred``,
        the listed rows whose item is not in it are counted per system.
    session_gap : float, default 3600.0
        Seconds (or a ``timedelta``) without an interaction that end a user's session, for
        the first-session lines; numeric times are read as seconds (Unix time).

    Returns
    -------
    Audit

    Raises
    ------
    ValueError
        Missing id columns, empty frames, missing ids, ids that could never match (numbers in
        one frame, text in the other), NaN or unordered times (text, mixed aware and naive;
        train's and test's of different kinds), a non-numeric score column, a negative
        ``session_gap``, an empty catalog.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"], "timestamp": [1, 5, 2]})
    >>> test = pd.DataFrame({"user_id": [1, 2], "item_id": ["c", "b"], "timestamp": [3, 4]})
    >>> result = audit(train, test)
    >>> result.table.loc["temporal leakage, global", ["count", "of", "users_affected"]].tolist()
    [1, 3, 1]
    >>> result.problems
    ['temporal leakage, per user', 'temporal leakage, global', 'cold items']
    """
    threshold = check_threshold(relevant_threshold)
    gap = check_session_gap(session_gap)
    if spark_frames(train, test, pred):
        return Audit(*spark_audit_lines(train, test, pred, InteractionColumns(user_col, item_col, score_col), time_col,
                                        threshold, catalog, gap))
    train_df, test_df = local_frame(train, "train"), local_frame(test, "test")
    systems = _systems(pred)
    coded = code_frames(train_df, test_df, user_col, item_col)
    skipped: dict[str, str] = {}
    times = _times(train_df, test_df, time_col, skipped)
    train_index = PairIndex(coded.pairs(coded.train_users, coded.train_items))
    test_index = PairIndex(coded.pairs(coded.test_users, coded.test_items))
    lines: list[Line] = []
    temporal = None
    if times is not None:
        starts = user_test_starts(coded, times[1])
        lines += leakage_lines(coded, times[0], starts)
        lines += time_profile_lines(coded, times[0], times[1], session_gap_ticks(gap, times[2]), gap_text(gap))
        temporal = (item_first_times(coded, times[0], times[1]), starts)
    seen, future = _system_lines(coded, train_index, systems, temporal, user_col, item_col)
    if not systems:
        skipped["seen items recommended"] = "no `pred` given"
        if times is not None:
            skipped["future items recommended"] = "no `pred` given"
    lines += seen + future + _catalog_lines(catalog, systems, user_col, item_col, skipped)
    lines += pair_lines(coded, train_index, test_index) + [repeat_line(coded, train_index)] + cold_lines(coded)
    scores = None
    if score_col in test_df.columns:
        scores = require_numeric(test_df, "test", score_col, finite=False)
    else:
        skipped["test users with a relevant item"] = f"no '{score_col}' column in test"
    lines += shape_lines(coded, scores, threshold)
    return Audit(lines + mde_lines(lines, len(systems), skipped), skipped)


def _catalog_lines(catalog: Any, systems: list[tuple[str, str, pd.DataFrame]], user_col: str, item_col: str,
                   skipped: dict[str, str]) -> list[Line]:
    """The listed rows outside the catalog, per system (skipped, with why, when there are no lists)."""
    if catalog is None:  # an optional check: nothing skipped
        return []
    if not systems:
        skipped["items not in the catalog"] = "no `pred` given"
        return []
    ids = catalog_ids(catalog, item_col)
    return [catalog_line(ids, frame, user_col, item_col, suffix) for suffix, _, frame in systems]


def cheap_checks(train: Any, test: Any, pred: Any = None, *, user_col: str = "user_id",
                 item_col: str = "item_id") -> dict[str, int | None]:
    """The audit's cheap counts, for an evaluation to warn about: no times, no shape.

    Parameters
    ----------
    train : DataFrame
        The interactions the recommender learned from.
    test : DataFrame
        The interactions it is judged on.
    pred : DataFrame, optional
        Recommendation lists; without them, ``seen_items_recommended`` is None.
    user_col : str, default "user_id"
        The user id column of every frame.
    item_col : str, default "item_id"
        The item id column of every frame.

    Returns
    -------
    dict
        ``seen_items_recommended`` (listed rows already in the user's train; None without
        ``pred``) of ``pred_rows``; ``overlap`` (distinct ``(user, item)`` pairs in both
        train and test) of ``test_pairs``; ``cold_users`` (test users without a train row)
        of ``test_users``.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "b", "a"]})
    >>> test = pd.DataFrame({"user_id": [1, 3], "item_id": ["b", "c"]})
    >>> pred = pd.DataFrame({"user_id": [1, 1, 3], "item_id": ["a", "c", "a"]})
    >>> cheap_checks(train, test, pred)
    {'seen_items_recommended': 1, 'pred_rows': 3, 'overlap': 1, 'test_pairs': 2, 'cold_users': 1, 'test_users': 2}
    """
    if spark_frames(train, test, pred):
        return spark_cheap_counts(train, test, pred, InteractionColumns(user_col, item_col))
    coded = code_frames(local_frame(train, "train"), local_frame(test, "test"), user_col, item_col)
    train_index = PairIndex(coded.pairs(coded.train_users, coded.train_items))
    test_index = PairIndex(coded.pairs(coded.test_users, coded.test_items))
    seen: int | None = None
    pred_rows: int | None = None
    if pred is not None:
        frame = local_frame(pred, "pred")
        users, items = code_pred(coded, frame, "pred", user_col, item_col)
        seen, pred_rows = seen_line(coded, train_index, users, items, "").count, len(frame)
    overlap = pair_lines(coded, train_index, test_index)[0]
    cold = cold_lines(coded)[0]
    return cheap_counts(seen=(seen, pred_rows), overlap=(overlap.count, int(overlap.of or 0)),
                        cold=(cold.count, int(cold.of or 0)))
