"""SampledCandidates: how the negatives of a sampled-candidate list were drawn."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["SampledCandidates", "SCHEMES"]

#: sampling schemes whose sampled ranks have a known distribution given the true rank
SCHEMES = ("uniform",)


def _whole(value: Any, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise ValueError(f"`{what}` must be a whole number >= {low}, got {value!r}")
    return int(value)


class SampledCandidates:
    """The sampling design of sampled-candidate lists (1 positive + ``n_negatives`` sampled negatives).

    Parameters
    ----------
    n_items : int or pandas.Series
        The number of items the positive would compete with in the full ranking, the
        positive included (e.g. the catalog minus the user's training items): one number
        for every user, or a Series indexed by user id.
    n_negatives : int
        The negatives in every list, drawn uniformly without replacement from the
        ``n_items - 1`` items other than the positive; below ``n_items``.
    scheme : {"uniform"}
        Only uniform sampling: the corrections need the distribution of the sampled rank
        given the true rank, which under popularity sampling depends on the popularity of
        every item ranked above the positive, i.e. on the full-catalog ranking the protocol
        avoided computing.
    """

    def __init__(self, n_items: int | pd.Series, n_negatives: int, scheme: str = "uniform") -> None:
        if scheme not in SCHEMES:
            raise ValueError(f"`scheme`={scheme!r} is not supported; supported: {list(SCHEMES)}. Popularity "
                             f"sampling has no correction here: the chance of drawing the items above the "
                             f"positive depends on their popularity, which the sampled list does not show")
        self.scheme = scheme
        self.n_negatives = _whole(n_negatives, "n_negatives", 1)
        if isinstance(n_items, pd.Series):
            values = pd.to_numeric(n_items, errors="coerce")
            bad = values.isna() | (values != np.floor(values)) | (values <= self.n_negatives)
            if bad.any():
                users = n_items.index[bad.to_numpy()][:5].tolist()
                raise ValueError(f"`n_items` must be whole numbers above `n_negatives`={self.n_negatives} "
                                 f"(negatives are drawn from the other n_items - 1 items); users {users} have "
                                 f"{n_items[bad].head(5).tolist()}")
            if n_items.index.has_duplicates:
                dup = n_items.index[n_items.index.duplicated()][:5].tolist()
                raise ValueError(f"`n_items` has repeated user ids {dup}: give one number per user")
            self.n_items: int | pd.Series = values.astype(np.int64)
        else:
            self.n_items = _whole(n_items, "n_items", 2)
            if self.n_negatives >= self.n_items:
                raise ValueError(f"`n_negatives`={self.n_negatives} must be below `n_items`={self.n_items}: "
                                 f"negatives are drawn from the n_items - 1 items other than the positive")

    def n_items_of(self, user_ids: NDArray[Any]) -> NDArray[np.int64]:
        """``n_items`` of each user in ``user_ids`` (ValueError naming users the Series lacks).

        Parameters
        ----------
        user_ids : array
            The users asked about (e.g. ``lists.user_ids``).
        """
        if not isinstance(self.n_items, pd.Series):
            return np.full(len(user_ids), self.n_items, dtype=np.int64)
        found = self.n_items.reindex(pd.Index(user_ids))
        if found.isna().any():
            missing = pd.Index(user_ids)[found.isna().to_numpy()][:5].tolist()
            raise ValueError(f"`n_items` has no number for users {missing} "
                             f"({int(found.isna().sum())} users in all): give one for every evaluated user")
        return found.to_numpy(dtype=np.int64)

    def __repr__(self) -> str:
        n = "per-user Series" if isinstance(self.n_items, pd.Series) else repr(self.n_items)
        return f"SampledCandidates(n_items={n}, n_negatives={self.n_negatives}, scheme={self.scheme!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SampledCandidates):
            return NotImplemented
        if isinstance(self.n_items, pd.Series) != isinstance(other.n_items, pd.Series):
            return False
        same_n = (self.n_items.equals(other.n_items) if isinstance(self.n_items, pd.Series)
                  else self.n_items == other.n_items)
        return bool(same_n) and (self.n_negatives, self.scheme) == (other.n_negatives, other.scheme)

    def __hash__(self) -> int:
        return hash((self.n_negatives, self.scheme))
