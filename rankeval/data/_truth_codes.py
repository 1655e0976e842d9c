"""A split's truth with its ids hashed once, for every recommendation list joined to it.

Joining a list to its truth (:meth:`RankedLists.build <rankeval.data.RankedLists.build>`) numbers users and
items in a code space that starts from the list's ids, and the truth's ids are looked up in it. Hashed from
the frame, that costs about as much as the rest of the join, and :func:`~rankeval.compare` joins several
systems' lists to one truth. :class:`TruthCodes` hashes the truth's ids once, each column in a code space of
its own (distinct ids in order of first appearance, as ``pd.factorize``), then maps only a list's distinct ids
onto them: a list's join gets exactly the codes it gets from the frame (:func:`truth_users_in` and
:func:`~rankeval.data._join.item_codes` on the frame are the reference; tests compare the two).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from . import _keys
from ._columns import Columns
from ._frames import to_pandas
from ._join import extend_codes, item_codes
from ._validation import check_id_kinds, reject_missing_ids

__all__ = ["TruthCodes", "TruthUsers", "truth_users_in"]


@dataclass(frozen=True)
class TruthUsers:
    """The truth's users in a list's code space (the list's users numbered ``0 .. n_pred_users - 1``)."""

    values: NDArray[Any] | ExtensionArray  # truth's user ids, as hashed
    uniques: NDArray[Any]                  # truth's distinct user ids, in order of first appearance
    codes: NDArray[np.intp]                # code of every truth row's user, -1 when not in pred
    codes_all: NDArray[np.int64]           # the same, users absent from pred numbered after pred's


def truth_users_in(pred_users: NDArray[Any], truth: pd.DataFrame, c: Columns) -> TruthUsers:
    """The truth's users coded among ``pred_users`` (pred's distinct users, in code order), from the frame."""
    values = _keys.id_values(truth[c.truth_user])
    # dtype kept: an Index of Python strings would otherwise be copied into Arrow by pandas 3
    codes, uniques = _keys.codes_in(pd.Index(pred_users, dtype=pred_users.dtype), values)
    codes_all, _ = extend_codes(codes, values, len(pred_users))
    return TruthUsers(values=values, uniques=uniques, codes=codes, codes_all=codes_all)


@dataclass(frozen=True)
class _Column:
    """One id column of the truth, hashed: the code of every row and the distinct ids."""

    values: NDArray[Any] | ExtensionArray
    codes: NDArray[np.signedinteger[Any]]  # -1: a missing id
    uniques: NDArray[Any]                  # in code order (first appearance), as :func:`_keys.factorize` gives
    text: Any                              # the uniques as an Arrow string array when the column is Arrow text


class TruthCodes:
    """A split's truth frame, its user and item ids hashed once for every list joined to it.

    Pass it instead of the truth frame to :class:`~rankeval.Split` or
    :meth:`RankedLists.build <rankeval.data.RankedLists.build>`: the join and every number are those
    of the frame. Nothing is computed before the first join asks for it (so a bad frame fails there,
    as the frame would), and nothing of the frame is modified.

    Parameters
    ----------
    truth : DataFrame
        The truth frame (pandas, polars or Arrow; held as pandas).
    columns : Columns
        Its column names (``truth_user``, ``truth_item``, ``truth_score`` are read).
    """

    def __init__(self, truth: Any, columns: Columns) -> None:
        self.source = truth
        self.columns = columns
        self._cache: dict[str, Any] = {}

    @property
    def frame(self) -> pd.DataFrame:
        """The truth as a pandas frame (converted once)."""
        if "frame" not in self._cache:
            self._cache["frame"] = to_pandas(self.source, "truth")
        return self._cache["frame"]

    def reads(self, c: Columns) -> bool:
        """Whether these codes are those of ``c``'s truth columns."""
        mine = self.columns
        return (mine.truth_user, mine.truth_item, mine.truth_score) == (c.truth_user, c.truth_item, c.truth_score)

    def scores(self) -> NDArray[np.float64]:
        """The truth scores as float64, in row order."""
        if "scores" not in self._cache:
            self._cache["scores"] = self.frame[self.columns.truth_score].to_numpy(dtype=np.float64)
        return self._cache["scores"]

    def _column(self, name: str) -> _Column:
        if name not in self._cache:
            values = _keys.id_values(self.frame[name])
            codes, uniques = _keys.factorize(values)
            text_type = _arrow_text_type(values)
            text = None if text_type is None else _as_arrow(uniques, text_type)
            self._cache[name] = _Column(values, codes, uniques, text)
        return self._cache[name]

    def users_in(self, pred_users: NDArray[Any], pred_user_values: Any,
                 run_lengths: NDArray[np.int64] | None = None) -> TruthUsers:
        """:func:`truth_users_in` for the list whose distinct users (in code order) are ``pred_users``,
        whose user column holds ``pred_user_values`` and, when it lists each user's rows together,
        ``run_lengths`` rows per user (None: not grouped)."""
        column = self._column(self.columns.truth_user)
        text = None
        if run_lengths is not None and column.text is not None and _arrow_text_type(pred_user_values) is not None:
            # grouped: the distinct users are the first rows of the runs, read in Arrow memory
            starts = np.cumsum(run_lengths) - run_lengths
            text = pred_user_values.__arrow_array__().take(starts).combine_chunks().cast(column.text.type)
        at = _positions_in(pred_users, pred_user_values, column, text)
        joint = _joint_codes(at, len(pred_users))
        return TruthUsers(values=column.values, uniques=column.uniques,
                          codes=_per_row(at, column.codes).astype(np.intp, copy=False),
                          codes_all=_per_row(joint, column.codes))

    def item_codes(self, pred: pd.DataFrame, c: Columns
                   ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any], NDArray[np.int64], NDArray[Any]]:
        """:func:`~rankeval.data._join.item_codes` of ``pred`` and the truth: pred's item codes and
        distinct items, the truth's item codes (truth-only items after pred's) and the truth-only items."""
        column = self._column(c.truth_item)
        pred_values = _keys.id_values(pred[c.item])
        if not _same_kind(pred_values, column.values):  # coded one column at a time from the frame
            return item_codes(pred, self.frame, c.item, c.truth_item)
        # as factorize_together numbers them: pred's items first, in order of first appearance
        pred_codes, pred_items = _keys.factorize(pred_values)
        if len(pred_codes) and pred_codes.min() < 0:
            reject_missing_ids(pred, "pred", c.item, pred_codes < 0)
        joint = _joint_codes(_positions_in(pred_items, pred_values, column), len(pred_items))
        # the truth's distinct items in joint code order, as factorize_together lists them
        check_id_kinds(pred, self.frame, c.item, pred_items, column.uniques[np.argsort(joint)],
                       other_column=c.truth_item)
        truth_codes = _per_row(joint, column.codes)
        reject_missing_ids(self.frame, "truth", c.truth_item, truth_codes < 0)
        return pred_codes, pred_items, truth_codes, column.uniques[joint >= len(pred_items)]


def _positions_in(pred_uniques: NDArray[Any], pred_values: Any, column: _Column, text: Any = None
                  ) -> NDArray[np.int64]:
    """Per distinct truth id: its position among ``pred_uniques`` (-1: not there), as
    ``pd.Index(pred_uniques).get_indexer`` finds it; ``text``: ``pred_uniques`` in Arrow, when at hand."""
    if text is not None or (column.text is not None and _arrow_text_type(pred_values) is not None):
        import pyarrow.compute as pc
        # text against text: Arrow's hash compares the UTF-8 bytes, as Python compares the strings
        found = pc.index_in(column.text, value_set=_as_arrow(pred_uniques, column.text.type) if text is None else text)
        return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    # dtype kept: an Index of Python strings would otherwise be copied into Arrow by pandas 3
    return pd.Index(pred_uniques, dtype=pred_uniques.dtype).get_indexer(column.uniques).astype(np.int64, copy=False)


def _joint_codes(at: NDArray[np.int64], n_pred: int) -> NDArray[np.int64]:
    """The code of every distinct truth id in the list's space: its position in pred, else
    ``n_pred`` on, in order of first appearance (as :func:`~rankeval.data._join.extend_codes`)."""
    joint = at.copy()
    absent = joint < 0
    joint[absent] = n_pred + np.arange(int(np.count_nonzero(absent)), dtype=np.int64)
    return joint


def _per_row(per_unique: NDArray[np.int64], codes: NDArray[np.signedinteger[Any]]) -> NDArray[np.int64]:
    """``per_unique`` read for every row's code (a missing id, code -1, stays -1)."""
    return np.append(per_unique, -1)[codes]


def _same_kind(pred_values: Any, truth_values: Any) -> bool:
    """Whether two item columns are coded alike from the truth's codes: both Arrow text of one
    type, or both NumPy numbers of one dtype (factorize_together's one-pass cases, where equal
    ids are equal values); others are coded from the frame."""
    text = _arrow_text_type(pred_values), _arrow_text_type(truth_values)
    if text[0] is not None or text[1] is not None:
        return text[0] is not None and text[0] == text[1]
    return (isinstance(pred_values, np.ndarray) and isinstance(truth_values, np.ndarray)
            and pred_values.dtype == truth_values.dtype and pred_values.dtype.kind in "iuf")


def _arrow_text_type(values: Any) -> Any:
    """The Arrow type of an Arrow-backed text column (``string``, ``large_string``), else None."""
    dtype = getattr(values, "dtype", None)
    if not isinstance(values, ExtensionArray) or not (
            isinstance(dtype, pd.ArrowDtype) or getattr(dtype, "storage", None) in ("pyarrow", "pyarrow_numpy")):
        return None
    import pyarrow as pa
    kind = values.__arrow_array__().type
    return kind if pa.types.is_string(kind) or pa.types.is_large_string(kind) else None


def _as_arrow(uniques: NDArray[Any], text_type: Any) -> Any:
    import pyarrow as pa
    return pa.array(uniques, type=text_type, from_pandas=True)
