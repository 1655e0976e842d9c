r"""Rank weights: how much attention a user gives to each position of a list.

One weighting object serves every metric that weights positions, and each metric keeps
its older spelling as an alias (same numbers, same name and repr):

- :class:`~rankeval.RBP`: ``p`` a float or a :class:`GeometricWeight` (its ``patience``);
- :class:`~rankeval.ExposureGini`: ``weight`` any rank weight;
- :class:`~rankeval.Miscalibration`: ``rank_weight`` any rank weight, or ``"uniform"``
  (:class:`UniformWeight`) / ``"log2"`` (``LogWeight(offset=1)``);
- :class:`~rankeval.DCG` and the NDCG family: ``discount`` ``"log2"`` / ``"jarvelin"`` or a
  :class:`LogWeight` with offset 1 / 0 (base 2, e or 10, which sets ``discount_log``).

A weight a metric cannot use (a geometric NDCG discount, a logarithmic RBP) is a
ValueError that says what the metric takes. The models are LensKit's
(``lenskit/metrics/ranking/_weighting.py``: ``GeometricRankWeight``, ``LogRankWeight``).
"""

from __future__ import annotations

import abc
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.internal import check_integer, check_number

__all__ = ["RankWeight", "GeometricWeight", "LogWeight", "UniformWeight", "as_rank_weight", "log_discount"]


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
    return check_number(name, value, None, None)


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
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "offset", check_integer("offset", self.offset, 0))

    def weights(self, positions: Any) -> NDArray[np.float64]:
        i = np.asarray(positions).astype(np.float64)
        shifted = i + self.offset if self.offset > 0 else np.maximum(i, 2.0)
        if self.base == 2.0:
            # the discount every "log2" of the package computes (NDCG, Miscalibration, EPC), bit for bit
            return np.asarray(1.0 / np.log2(shifted), dtype=np.float64)
        return np.log(self.base) / np.log(shifted)


@dataclass(frozen=True)
class UniformWeight(RankWeight):
    r"""Every position weighs the same: :math:`w(i) = 1` (no browsing model).

    Examples
    --------
    >>> UniformWeight().weights([1, 2, 3]).tolist()
    [1.0, 1.0, 1.0]
    """

    def weights(self, positions: Any) -> NDArray[np.float64]:
        return np.ones(np.shape(positions), dtype=np.float64)


def as_rank_weight(value: Any, name: str, metric: str, *, aliases: Mapping[str, RankWeight] | None = None,
                   patience: bool = False, accepts: tuple[type[RankWeight], ...] = (RankWeight,),
                   why: str = "") -> RankWeight:
    """The rank weight ``value`` stands for, else a ValueError naming ``name`` and what ``metric`` takes.

    ``aliases``: strings kept from before the objects; ``patience``: a number is a
    :class:`GeometricWeight`'s patience; ``accepts``: the weight classes the metric can use
    (``why`` says why not the others).
    """
    aliases = aliases or {}
    classes = [GeometricWeight, LogWeight, UniformWeight] if accepts == (RankWeight,) else list(accepts)
    takes = ", ".join([*(f"{t.__name__}(...)" for t in classes), *(repr(a) for a in aliases),
                       *(["a number (a geometric patience)"] if patience else [])])
    if isinstance(value, str):
        if value in aliases:
            return aliases[value]
    elif patience and isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = GeometricWeight(float(value))
    if isinstance(value, RankWeight):
        if isinstance(value, accepts):
            return value
        raise ValueError(f"`{name}`={value!r}: {metric} cannot use a {type(value).__name__}{why}; it takes "
                         f"{takes}")
    raise ValueError(f"`{name}` must be a rank weighting: {takes}; got {value!r}")


#: numpy's logarithms by base: the ``discount_log`` of a DCG discounted by a LogWeight
_LOGS: dict[float, Callable[[Any], Any]] = {2.0: np.log2, math.e: np.log, 10.0: np.log10}


def log_discount(value: Any, discount_log: Callable[[Any], Any], metric: str) -> tuple[str, Callable[[Any], Any]]:
    r"""DCG's ``(discount, discount_log)`` from ``discount``: ``"log2"``/``"jarvelin"``, or a LogWeight.

    ``LogWeight(base, offset=1)`` is ``discount="log2"`` (:math:`1/\log_b(i + 1)`) and
    ``offset=0`` is ``"jarvelin"`` (:math:`1/\log_b \max(i, 2)`), with ``discount_log`` the
    numpy logarithm of base ``b`` (2, e or 10).
    """
    if isinstance(value, str) or not isinstance(value, RankWeight):
        return value, discount_log
    if not isinstance(value, LogWeight) or value.offset not in (0, 1):
        raise ValueError(f"`discount`={value!r}: {metric} divides a gain by a logarithm of its position; it takes "
                         f"LogWeight(base, offset=1) (discount='log2', 1/log(i + 1)) or LogWeight(base, offset=0) "
                         f"(discount='jarvelin', 1/log(max(i, 2))), or those strings")
    log = _LOGS.get(value.base)
    if log is None:
        raise ValueError(f"`discount`={value!r}: the base of a DCG discount must be 2, e or 10 (a numpy "
                         f"logarithm); for another base pass discount_log=")
    if discount_log is not np.log2 and discount_log is not log:
        raise ValueError(f"`discount`={value!r} and `discount_log`={discount_log!r} both set the logarithm: "
                         f"give the base in LogWeight(base=...) only")
    return ("log2" if value.offset == 1 else "jarvelin"), log
