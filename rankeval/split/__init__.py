"""Splitters from one interactions frame to train/test pairs, and an audit of any split.

Splitters (each returns :class:`Splits`, iterable as ``(train, test)``):

- :func:`random_holdout`: a random share of each user's interactions (or of all records);
- :func:`temporal_holdout`: each user's latest interactions (leave-last-N-out, last share);
- :func:`global_temporal`: one time cut for everyone, the split that does not leak the future;
- :func:`kfold`: every user's interactions spread over ``n_splits`` folds (or record folds);
- :func:`bootstrap`: a bootstrap sample of each user's interactions in train, the rest in test.

Random splitters draw from seeded keys of the ``(user, item)`` pairs: the same seed gives
the same split, bit for bit, under any row order. Spark DataFrames are split and audited
by Spark (per-user splits in buckets of users), with the same rows as on pandas.
:func:`audit` measures what can make a comparison on a split wrong (temporal leakage,
seen or future items recommended, overlap, duplicates, cold users and items), for our
splits or anyone's. docs/protocol.md says which
split answers which question.
"""

from ._audit import Audit, audit, cheap_checks
from ._folds import bootstrap, kfold
from ._global import global_temporal
from ._holdout import random_holdout, temporal_holdout
from ._splits import Splits

__all__ = ["Splits", "random_holdout", "temporal_holdout", "global_temporal", "kfold", "bootstrap",
           "Audit", "audit", "cheap_checks"]
