r"""Log loss of predicted probabilities against binary truth labels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...data.internal import check_number
from .._pooled import PooledMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["LogLoss"]


class LogLoss(PooledMetric):
    r"""Log loss (binary cross-entropy) of the predicted scores, read as probabilities.

    .. math::

        LogLoss_u = -\frac{1}{|J_u|} \sum_{i \in J_u}
            \left( y_{u,i} \log \tilde p_{u,i} + (1 - y_{u,i}) \log (1 - \tilde p_{u,i}) \right),
        \qquad \tilde p = \min(\max(p, \epsilon), 1 - \epsilon)

    over :math:`J_u`, the listed items that have a truth score; :math:`p_{u,i}` is the
    ``score`` of ``pred``, :math:`y_{u,i}` the label: the truth score itself, which must
    then be 0 or 1 (``relevant_threshold=None``, the default), or 1 if the truth score is
    >= ``relevant_threshold``, else 0. Lower is better.

    Peers: MS Recommenders' ``logloss`` and RecBole's ``LogLoss`` pool every (user, item)
    pair: ``average="micro"`` (``"LogLoss-micro"``), ``sklearn.metrics.log_loss`` over all
    pairs (the ``recbole`` and ``ms_recommenders`` conventions keep the labels as given and
    RecBole's ``eps``, and leave ``average`` to the caller); RecBole clips at ``eps=1e-15``,
    scikit-learn (>= 1.5) and MS Recommenders at the float64 machine epsilon (the default here).

    Parameters
    ----------
    relevant_threshold : float, optional
        None (default): the truth scores are the labels (0 or 1). A number: label 1 for a
        truth score >= it.
    eps : float
        Clipping of the probabilities, in [0, 0.5); the float64 machine epsilon by default.
    name : str, optional
        Overrides the name ``"LogLoss"``.
    average : {"macro", "micro"}
        Mean of the users' log loss (default) or over all pairs (``"LogLoss-micro"``).

    Raises
    ------
    ValueError
        When ``pred`` has no score column, a score is outside [0, 1] (naming the user and
        the value), or a truth label is not 0 or 1 with ``relevant_threshold=None``.

    Notes
    -----
    Undefined cases: a user with no listed item in truth gets NaN, left out of the mean.
    A probability of exactly 0 or 1 on the wrong label costs :math:`-\log \epsilon` (36.04
    with the default), not infinity.

    Examples
    --------
    >>> import pandas as pd, rankeval as rk
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "x"], "score": [0.8, 0.4, 0.9]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [1, 0]})
    >>> print(f"{rk.LogLoss().perform(rk.Split(pred, truth)).system.iloc[0, 0]:.4f}")  # -(ln .8 + ln .6) / 2
    0.3670
    """

    stem = "LogLoss"
    higher_is_better = False
    names = ("LogLoss",)

    def __init__(self, relevant_threshold: float | None = None, *, eps: float = float(np.finfo(np.float64).eps),
                 name: str | None = None, average: str = "macro") -> None:
        super().__init__(None, relevant_threshold, name)
        self.eps = check_number("eps", eps, 0, 0.5, closed_low=True)
        self._set_average(average)

    def _labels(self, lists: RankedLists, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        if self.relevant_threshold is not None:
            return lists.relevant[rows].astype(np.float64)
        y = lists.truth_score[rows]
        bad = np.flatnonzero((y != 0.0) & (y != 1.0))
        if len(bad):
            r = rows[bad[0]]
            raise ValueError(f"{self} reads the truth scores as labels, which must be 0 or 1: user "
                             f"{lists.user_ids[lists.user_of_row[r]]!r} has {y[bad[0]]:g} ({len(bad)} row(s) in "
                             f"all); pass relevant_threshold= to make labels from graded scores")
        return y

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        if not lists.has_pred_score:
            raise ValueError(f"{self} needs predicted probabilities: `pred` has no score column")
        if lists.score_order == "ascending":
            raise ValueError(f"{self} reads `pred` scores as probabilities, which score_order='ascending' (lower is "
                             f"better, CLI --score-order) rules out; evaluate {self} with score_order='descending'")
        rows = lists.judged_rows
        p = lists.pred_score[rows]
        bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
        if len(bad):
            r = rows[bad[0]]
            raise ValueError(f"{self} reads `pred` scores as probabilities, which must be in [0, 1]: user "
                             f"{lists.user_ids[lists.user_of_row[r]]!r} has score {float(p[bad[0]])!r} for item "
                             f"{lists.item_ids[r]!r} ({len(bad)} row(s) outside [0, 1] in all)")
        y = self._labels(lists, rows)
        p = np.clip(p, self.eps, 1.0 - self.eps)
        loss = np.zeros(lists.n_rows)
        with np.errstate(divide="ignore"):  # eps=0: a sure wrong answer costs inf
            loss[rows] = np.where(y == 1.0, -np.log(p), -np.log(1.0 - p))
        return {"loss": lists.segment_sum(loss), "pairs": lists.segment_sum(lists.judged)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["loss"] / counts["pairs"]
