"""The result of a ranking: every user's top-k as codes, and the pred frame built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["TopK"]


@dataclass(frozen=True)
class TopK:
    """Every user's exact top-k, best first, as arrays (no Python object per listed row).

    Attributes
    ----------
    users : pandas.Index
        The user ids, one per row of ``items`` and ``scores``.
    catalog : pandas.Index
        The item ids that ``items`` codes into.
    items : numpy.ndarray
        ``(n_users, min(k, n_items))`` codes into ``catalog``, best first; ``-1`` past the end of a shorter list.
    scores : numpy.ndarray
        ``(n_users, min(k, n_items))`` scores (the dtype of the vectors or of the scoring function);
        ``-inf`` past the end.
    lengths : numpy.ndarray
        How many items each user's list holds (``k``, or fewer when fewer items could be listed).
    """

    users: pd.Index
    catalog: pd.Index
    items: NDArray[np.integer]
    scores: NDArray[np.floating]
    lengths: NDArray[np.int64]

    @property
    def k(self) -> int:
        """The longest a list may be: ``k``, or the catalog's size when smaller."""
        return int(self.items.shape[1])

    def __len__(self) -> int:
        """How many (user, item) rows the lists hold."""
        return int(self.lengths.sum())

    def to_frame(self, *, user_col: str = "user_id", item_col: str = "item_id", score_col: str = "score",
                 rank_col: str = "rank", categorical: bool | None = None) -> pd.DataFrame:
        """The lists as a pred frame: one row per listed item, users in order, ranks 1, 2, ... .

        Parameters
        ----------
        user_col : str, default "user_id"
            The name of the user column.
        item_col : str, default "item_id"
            The name of the item column.
        score_col : str, default "score"
            The name of the score column.
        rank_col : str, default "rank"
            The name of the rank column (1 is the best).
        categorical : bool or None, default None
            Whether the id columns are pandas Categoricals over the users and the catalog (codes, no
            Python object per row); None: for ids that are not numbers, whose plain columns would hold
            one object per row.

        Returns
        -------
        pandas.DataFrame
            Columns ``user_col``, ``item_col``, ``score_col``, ``rank_col``; ``EvalModel`` and ``Split`` take it as
            ``pred`` (the ranks are the lists' order).
        """
        listed = self.items >= 0
        user_codes = np.repeat(np.arange(len(self.users)), self.lengths)
        item_codes = self.items[listed]
        rank = (np.arange(self.k, dtype=np.int64)[None, :] + 1).repeat(len(self.users), axis=0)[listed]

        def column(index: pd.Index, codes: NDArray[np.integer]) -> pd.Series | pd.Categorical | NDArray:
            objects = index.dtype == object or isinstance(index.dtype, pd.CategoricalDtype) or \
                pd.api.types.is_string_dtype(index.dtype)
            if categorical or (categorical is None and objects):
                return pd.Categorical.from_codes(codes, categories=index)
            return index.take(codes).to_numpy()

        return pd.DataFrame({user_col: column(self.users, user_codes), item_col: column(self.catalog, item_codes),
                             score_col: self.scores[listed], rank_col: rank})
