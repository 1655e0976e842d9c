r"""Rank weights: how much attention a user gives to each position of a list.

One weighting object serves every metric that weights positions: :class:`~rankeval.RBP`
reads :class:`GeometricWeight`, :class:`~rankeval.ExposureGini` takes either. The models
are LensKit's (``lenskit/metrics/ranking/_weighting.py``: ``GeometricRankWeight``,
``LogRankWeight``).
"""

from __future__ import annotations

import abc
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["RankWeight", "GeometricWeight", "LogWeight"]


class RankWeight(abc.ABC):
    """Base of the rank weightings: ``weights(positions)`` for 1-based positions."""

    @abc.abstractmethod
    def weights(self, positions: Any) -> NDArray[np.float64]:
        """The weight of each 1-based position.

        Parameters
        ----------
        positions : array of int
            1-based positions in a list.
        """


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"`{name}` must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class GeometricWeight(RankWeight):
    r"""Geometric (cascade) weights, the browsing model of RBP: :math:`w(i) = p^{\,i-1}`.

    The user goes on from one position to the next with probability ``patience``;
    the weights of all positions sum to :math:`1 / (1 - p)`. LensKit's
    ``GeometricRankWeight(patience)`` (default 0.85, as here).

    Parameters
    ----------
    patience : float
        :math:`p`, in (0, 1).

    Examples
    --------
    >>> GeometricWeight(0.5).weights([1, 2, 3]).tolist()
    [1.0, 0.5, 0.25]
    """

    patience: float = 0.85

    def __post_init__(self) -> None:
        p = _real("patience", self.patience)
        if not 0.0 < p < 1.0:
            raise ValueError(f"`patience` must be in (0, 1), got {self.patience!r}")
        object.__setattr__(self, "patience", p)

    def weights(self, positions: Any) -> NDArray[np.float64]:
        # np.power on the float exponent: the very numbers RBP has always computed
        return np.power(self.patience, (np.asarray(positions) - 1).astype(np.float64))

    def series_sum(self) -> float:
        """The sum of the weights of every position, :math:`1 / (1 - p)`."""
        return 1.0 / (1.0 - self.patience)


@dataclass(frozen=True)
class LogWeight(RankWeight):
    r"""Logarithmic weights, the discount of DCG.

    .. math:: w(i) = \frac{\log b}{\log \max(i, 2)} \quad (\text{offset} = 0), \qquad
              w(i) = \frac{\log b}{\log (i + \text{offset})} \quad (\text{offset} > 0)

    With ``offset=0`` (default) the first two positions both weigh 1 (Järvelin and
    Kekäläinen, LensKit's ``LogRankWeight()``); ``offset=1`` is the
    :math:`1/\log_2(i + 1)` discount of most NDCG implementations.

    Parameters
    ----------
    base : float
        Base of the logarithm, > 1 (2 by default).
    offset : int
        Added to the position before the logarithm; 0 clips the position at 2 instead.

    Examples
    --------
    >>> LogWeight().weights([1, 2, 3, 4]).round(4).tolist()
    [1.0, 1.0, 0.6309, 0.5]
    """

    base: float = 2.0
    offset: int = 0

    def __post_init__(self) -> None:
        base = _real("base", self.base)
        if base <= 1.0:
            raise ValueError(f"`base` must be > 1, got {self.base!r}")
        if isinstance(self.offset, bool) or not isinstance(self.offset, numbers.Integral) or self.offset < 0:
            raise ValueError(f"`offset` must be an integer >= 0, got {self.offset!r}")
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "offset", int(self.offset))

    def weights(self, positions: Any) -> NDArray[np.float64]:
        i = np.asarray(positions).astype(np.float64)
        shifted = i + self.offset if self.offset > 0 else np.maximum(i, 2.0)
        return np.log(self.base) / np.log(shifted)
