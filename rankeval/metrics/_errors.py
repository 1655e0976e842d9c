r"""Error metrics: MAE, MSE, RMSE of the predicted ``score`` against the truth score.

ClayRS's error metrics. For user :math:`u`, :math:`J_u` is the set of listed items that
have a truth score (listed and judged), :math:`\hat r_{u,i}` the predicted score (the
``score`` column of ``pred``) and :math:`r_{u,i}` the truth score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._pooled import PooledMetric

if TYPE_CHECKING:
    from ..ranked import RankedLists

__all__ = ["MAE", "MSE", "RMSE"]


class _Error(PooledMetric):
    """The error of every listed and judged item, summed per user; lower is better."""

    higher_is_better = False

    def __init__(self, *, name: str | None = None, average: str = "macro") -> None:
        super().__init__(None, None, name)
        self._set_average(average)

    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        raise NotImplementedError

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        if not lists.has_pred_score:
            raise ValueError(f"{self} needs predicted scores: `pred` has no score column (a list ordered by "
                             f"rank or by rows has no predicted rating to compare with the truth)")
        judged = lists.judged
        error = np.zeros(lists.n_rows)
        rows = lists.judged_rows
        with np.errstate(over="ignore"):  # an error beyond the float range is inf, as numpy's mean would say
            error[rows] = self._errors(lists.pred_score[rows] - lists.truth_score[rows])
        return {"error": lists.segment_sum(error), "pairs": lists.segment_sum(judged)}

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return counts["error"] / counts["pairs"]  # no pair: 0 / 0 = NaN


class MAE(_Error):
    r"""Mean absolute error of the predicted scores over the listed, judged items.

    .. math::

        MAE_u = \frac{1}{|J_u|} \sum_{i \in J_u} \left| \hat r_{u,i} - r_{u,i} \right|,
        \qquad
        MAE^{micro} = \frac{\sum_u \sum_{i \in J_u} |\hat r_{u,i} - r_{u,i}|}{\sum_u |J_u|}

    Lower is better (``higher_is_better = False``). ClayRS's ``MAE`` (macro); the micro
    average pools every judged (user, item) pair, as
    ``sklearn.metrics.mean_absolute_error`` over all pairs.

    Parameters
    ----------
    name : str, optional
        Overrides the name ``"MAE"``.
    average : {"macro", "micro"}
        Mean of the users' MAE (default, ClayRS) or over all pairs (``"MAE-micro"``).

    Notes
    -----
    Undefined cases: a user with no listed item in truth (:math:`J_u` empty) gets NaN,
    left out of the mean. ``pred`` needs a ``score`` column (a ValueError otherwise).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "x"], "score": [4.5, 2.0, 3.0]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [5, 4]})
    >>> print(f"{MAE().perform(Split(pred, truth)).system.loc['sys', 'MAE']:.4f}")
    1.2500
    """

    stem = "MAE"

    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.abs(difference)


class MSE(_Error):
    r"""Mean squared error of the predicted scores over the listed, judged items.

    .. math::

        MSE_u = \frac{1}{|J_u|} \sum_{i \in J_u} \left( \hat r_{u,i} - r_{u,i} \right)^2,
        \qquad
        MSE^{micro} = \frac{\sum_u \sum_{i \in J_u} (\hat r_{u,i} - r_{u,i})^2}{\sum_u |J_u|}

    Lower is better. ClayRS's ``MSE`` (macro); micro as
    ``sklearn.metrics.mean_squared_error`` over all pairs.

    Parameters
    ----------
    name : str, optional
        Overrides the name ``"MSE"``.
    average : {"macro", "micro"}
        Mean of the users' MSE (default) or over all pairs (``"MSE-micro"``).

    Notes
    -----
    Undefined cases: :math:`J_u` empty gives NaN. ``pred`` needs a ``score`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "x"], "score": [4.5, 2.0, 3.0]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [5, 4]})
    >>> print(f"{MSE().perform(Split(pred, truth)).system.loc['sys', 'MSE']:.4f}")
    2.1250
    """

    stem = "MSE"

    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        return difference * difference


class RMSE(MSE):
    r"""Root mean squared error: the square root of each user's :class:`MSE`.

    .. math::

        RMSE_u = \sqrt{MSE_u}, \qquad RMSE^{micro} = \sqrt{MSE^{micro}}

    The macro system value is the mean of the users' RMSE (ClayRS), not the root of the
    mean MSE; the micro one is the RMSE over all judged pairs
    (``sklearn.metrics.root_mean_squared_error``). Lower is better.

    Parameters
    ----------
    name : str, optional
        Overrides the name ``"RMSE"``.
    average : {"macro", "micro"}
        Mean of the users' RMSE (default) or over all pairs (``"RMSE-micro"``).

    Notes
    -----
    Undefined cases: :math:`J_u` empty gives NaN. ``pred`` needs a ``score`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankeval import Split
    >>> pred = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "x"], "score": [4.5, 2.0, 3.0]})
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "b"], "score": [5, 4]})
    >>> print(f"{RMSE().perform(Split(pred, truth)).system.loc['sys', 'RMSE']:.4f}")
    1.4577
    """

    stem = "RMSE"

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return np.sqrt(counts["error"] / counts["pairs"])
