"""Warnings raised by rankeval.

Every warning is a :class:`UserWarning` subclass, so ``warnings.simplefilter`` and
``pytest.warns`` can target rankeval's warnings without catching anyone else's.
"""

from __future__ import annotations

__all__ = ["RankevalWarning", "MissingUsersWarning", "TiedScoresWarning", "DroppedUnitsWarning",
           "LowOverlapWarning", "UnusedColumnsWarning", "ProtocolWarning", "RanksAsScoresWarning",
           "ShortListsWarning"]


class RankevalWarning(UserWarning):
    """Base class of every warning rankeval emits."""


class MissingUsersWarning(RankevalWarning):
    """Users present in only one of ``pred`` / ``truth`` were left out (the message counts them)."""


class TiedScoresWarning(RankevalWarning):
    """Tied predicted scores were ordered by a tie rule rather than by the input's row order."""


class DroppedUnitsWarning(RankevalWarning):
    """compare() left (split, user) units out of a test because a system has no value there."""


class LowOverlapWarning(RankevalWarning):
    """Under 1% of the listed (user, item) rows of a split have a truth score (the message counts them).

    Usually ids that do not match between ``pred`` and ``truth`` (another spelling, a
    shifted id space); a genuinely sparse evaluation can silence it with
    ``warnings.simplefilter("ignore", LowOverlapWarning)``.
    """


class UnusedColumnsWarning(RankevalWarning):
    """``pred`` has no score or rank column, so lists are in row order, while numeric columns sit unused."""


class RanksAsScoresWarning(RankevalWarning):
    """Every ``pred`` user's scores are exactly the integers 1..n_u: ranks in the score column.

    Read as scores (higher is better) they put each list upside down. Pass ``rank_col=`` when
    they are ranks, or ``score_order="ascending"`` when lower scores are better; either
    silences it. It needs two or more lists of 2+ items (a list of one item reads the same
    either way; one list alone is too little evidence), and rows already written best first
    (each user's rows together, scores descending) never set it off.
    """


class ProtocolWarning(RankevalWarning):
    """The train/test split or the lists break the evaluation protocol (the message counts how).

    Raised when ``train`` is known (``train=``, or a :class:`~rankeval.split.Splits` as the
    truth) and lists recommend items the user already has in train, test pairs are also in
    train, or test users have no train row. :func:`rankeval.audit` shows every check.
    """


class ShortListsWarning(RankevalWarning):
    """Some users' top-k lists are shorter than ``k``: fewer items could be listed once their seen
    items were excluded (the message counts the users and the missing rows)."""
