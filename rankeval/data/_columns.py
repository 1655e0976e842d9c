"""The names of the columns of ``pred`` and ``truth`` (and the direction of ``pred``'s scores), and
the keyword options that set them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Columns", "COLUMN_OPTIONS", "DEFAULT_COLUMNS", "SCORE_ORDERS", "ids_under_truth_names"]

#: keyword option naming a column (or, ``score_order``, how the score column reads) -> the Columns
#: field it sets; every call that takes ``score_col=`` takes ``score_order=`` with it
COLUMN_OPTIONS = {"user_col": "user", "item_col": "item", "score_col": "score", "rank_col": "rank",
                  "truth_score_col": "truth_score_col", "truth_user_col": "truth_user_col",
                  "truth_item_col": "truth_item_col", "score_order": "score_order"}

#: ``score_order=``: higher predicted scores are better (the default), or lower ones (distances)
SCORE_ORDERS = ("descending", "ascending")


@dataclass(frozen=True)
class Columns:
    """Column names of the ``pred`` and ``truth`` frames."""

    user: str = "user_id"
    item: str = "item_id"
    score: str = "score"
    rank: str = "rank"
    #: the truth frame's score column when it is not ``score`` (``rating``, say); None: ``score``
    truth_score_col: str | None = None
    #: the truth frame's user column when it is not ``user`` (``userId``, say); None: ``user``
    truth_user_col: str | None = None
    #: the truth frame's item column when it is not ``item`` (``movieId``, say); None: ``item``
    truth_item_col: str | None = None
    #: how ``pred``'s score column orders a list: "descending" (higher is better) or "ascending"
    #: (lower is better: distances); it travels with the column's name to every engine
    score_order: str = "descending"

    @property
    def ascending(self) -> bool:
        """Whether lower predicted scores are better (``score_order="ascending"``)."""
        return self.score_order == "ascending"

    @property
    def truth_score(self) -> str:
        """The column holding the truth's scores."""
        return self.score if self.truth_score_col is None else self.truth_score_col

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Columns:
        """The columns named by a call's keyword options (``user_col=``, ``truth_user_col=``, ...)."""
        return cls(**{field: options[option] for option, field in COLUMN_OPTIONS.items() if option in options})

    def as_options(self) -> dict[str, Any]:
        """The keyword options that name these columns (the inverse of :meth:`from_options`)."""
        return {option: getattr(self, field) for option, field in COLUMN_OPTIONS.items()}

    @property
    def truth_user(self) -> str:
        """The column holding the truth's user ids."""
        return self.user if self.truth_user_col is None else self.truth_user_col

    @property
    def truth_item(self) -> str:
        """The column holding the truth's item ids."""
        return self.item if self.truth_item_col is None else self.truth_item_col


def ids_under_truth_names(pred: Any, c: Columns) -> Any:
    """``pred`` itself when its id columns already have the truth's names, else its two id
    columns under them (a pandas or Spark frame, as given): for checks that read pred beside
    train and truth under one set of names."""
    if (c.user, c.item) == (c.truth_user, c.truth_item):
        return pred
    if hasattr(pred, "sparkSession"):
        return pred.select(pred[c.user].alias(c.truth_user), pred[c.item].alias(c.truth_item))
    return pred[[c.user, c.item]].set_axis([c.truth_user, c.truth_item], axis=1)


#: every column under its default name
DEFAULT_COLUMNS = Columns()
