"""Vectorized operations over contiguous segments (one segment per user).

A segmented array stores the rows of every user back to back; ``offsets`` (length
``n_users + 1``) holds where each user's rows start, so user ``u`` owns
``rows[offsets[u]:offsets[u + 1]]``. Every metric is written with these helpers: one
numpy pass over all users, never a Python loop over users.

>>> import numpy as np
>>> offsets = np.array([0, 3, 3, 5])          # users of 3, 0 and 2 rows
>>> segment_sum(np.array([1., 2., 3., 4., 5.]), offsets).tolist()
[6.0, 0.0, 9.0]
>>> segment_cumsum(np.array([1, 1, 0, 1, 1]), offsets).tolist()
[1, 2, 2, 1, 2]
>>> segment_first(np.array([False, True, True, False, False]), offsets).tolist()
[2, 0, 0]
"""

from .data.internal import (
           rank_within,
           segment_argsort,
           segment_cumsum,
           segment_first,
           segment_ids,
           segment_lengths,
           segment_max,
           segment_min,
           segment_positions,
           segment_sum,
)

__all__ = ["segment_lengths", "segment_ids", "segment_positions", "segment_sum", "segment_cumsum", "segment_first",
           "segment_max", "segment_min", "segment_argsort", "rank_within"]
