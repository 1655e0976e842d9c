r"""Fairness and popularity bias: how recommendations treat item groups (providers, the long tail).

These metrics read side data: ``train=`` (popularity, users' training items) and, for
any grouping of items, ``item_groups=`` (item id -> group label, e.g. the provider).

- **per user**: :class:`ACLT` (long-tail items in the list);
- **system level** (no per-user value; integer counts per group, merged exactly across
  Spark buckets): :class:`PopRSP`, :class:`PopREO` (short head vs long tail),
  :class:`RSP`, :class:`REO` (any item grouping), :class:`UserMAD` (a metric's spread
  between user groups), :class:`ItemMAD` (the spread of per-item gains between item
  groups; exact float sums per item), :class:`BiasDisparity` (BD/BR/BS per user group and category).

Modules: ``_groups.py`` (groupings, the short head, the base of the group metrics),
``_parity.py`` (RSP, REO and their popularity forms), ``_long_tail.py`` (ACLT), ``_mad.py``
(UserMAD, ItemMAD), ``_bias_disparity.py`` (BiasDisparity).
"""

from ._bias_disparity import BiasDisparity
from ._long_tail import ACLT
from ._mad import ItemMAD, UserMAD
from ._parity import REO, RSP, PopREO, PopRSP

__all__ = ["ACLT", "PopREO", "PopRSP", "REO", "RSP", "UserMAD", "ItemMAD", "BiasDisparity"]
