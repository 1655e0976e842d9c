r"""Error metrics: MAE, MSE, RMSE of the predicted ``score`` against the truth score.

ClayRS's error metrics. For user :math:`u`, :math:`J_u` is the set of listed items that
have a truth score (listed and judged), :math:`\hat r_{u,i}` the predicted score (the
``score`` column of ``pred``) and :math:`r_{u,i}` the truth score.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...data.internal import segment_max
from .._pooled import PooledMetric

if TYPE_CHECKING:
    from ...data import RankedLists

__all__ = ["MAE", "MSE", "RMSE"]


class _Error(PooledMetric):
    """The error of every listed and judged item, summed per user; lower is better."""

    higher_is_better = False

    def __init__(self, *, name: str | None = None, average: str = "macro") -> None:
        super().__init__(None, None, name)
        self._set_average(average)

    @abc.abstractmethod
    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each pair's error from its difference (predicted minus true score)."""

    def _differences(self, lists: RankedLists) -> NDArray[np.float64]:
        """Predicted minus true score on judged rows, 0 on the others."""
        if not lists.has_pred_score:
            raise ValueError(f"{self} needs predicted scores: `pred` has no score column (a list ordered by "
                             f"rank or by rows has no predicted rating to compare with the truth)")
        if lists.score_order == "ascending":
            raise ValueError(f"{self} compares `pred` scores with truth ratings as given, which "
                             f"score_order='ascending' (lower is better, CLI --score-order) rules out: such scores "
                             f"are no predicted ratings; evaluate {self} with score_order='descending'")
        difference = np.zeros(lists.n_rows)
        rows = lists.judged_rows
        with np.errstate(over="ignore", invalid="ignore"):  # inf - 1e308: inf; an infinite error is inf
            difference[rows] = lists.pred_score[rows] - lists.truth_score[rows]
        return difference

    def counts(self, lists: RankedLists) -> dict[str, NDArray[np.float64]]:
        # the micro average's parts; a pooled sum beyond the float range is inf
        with np.errstate(over="ignore"):
            error = self._errors(self._differences(lists))
            return {"error": lists.segment_sum(error), "pairs": lists.segment_sum(lists.judged)}

    def per_user(self, lists: RankedLists) -> NDArray[np.float64]:
        """Each user's errors scaled by a power of two that brings the largest below 1 first:
        exact (the scaling cancels bit for bit), and no sum or square overflows on the way
        (errors of 1e200 have an RMSE of 1e200, not inf); only a result beyond the float
        range (an MSE of 1e400) is inf."""
        difference = np.abs(self._differences(lists))
        largest = segment_max(difference, lists.offsets)  # NaN for an empty list
        _, exponent = np.frexp(np.where(np.isfinite(largest), largest, 1.0))
        exponent = exponent.astype(np.int64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            scaled = np.ldexp(difference, -exponent[lists.user_of_row])
            mean = lists.segment_sum(self._errors(scaled)) / lists.segment_sum(lists.judged)
            return self._unscale(mean, exponent)

    @abc.abstractmethod
    def _unscale(self, mean: NDArray[np.float64], exponent: NDArray[np.int64]) -> NDArray[np.float64]:
        """The metric from the mean of the scaled errors (``exponent``: each user's scaling)."""

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
    names = ("MAE",)

    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.abs(difference)

    def _unscale(self, mean: NDArray[np.float64], exponent: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.ldexp(mean, exponent)


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
    names = ("MSE",)

    def _errors(self, difference: NDArray[np.float64]) -> NDArray[np.float64]:
        return difference * difference

    def _unscale(self, mean: NDArray[np.float64], exponent: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.ldexp(mean, 2 * exponent)


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
    names = ("RMSE",)

    def from_counts(self, counts: dict[str, Any]) -> Any:
        return np.sqrt(counts["error"] / counts["pairs"])

    def _unscale(self, mean: NDArray[np.float64], exponent: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.ldexp(np.sqrt(mean), exponent)
