"""The public entry point: a log and a new policy in, one estimate per estimator out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..data.internal import check_choice, check_integer, check_number
from ._estimators import ESTIMATORS, estimate
from ._log import KINDS, read_log

__all__ = ["OffPolicyResult", "off_policy_value"]

_DEFAULT_LOGGING = {"pscore": "pscore", "pscore_item_position": "pscore_item_position",
                    "pscore_cascade": "pscore_cascade"}


@dataclass(frozen=True)
class OffPolicyResult:
    """The new policy's estimated expected reward per slate, one row per estimator.

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed by estimator: ``value`` (the estimate), ``ci_low``/``ci_high`` (the
        percentile-bootstrap interval over the units, NaN when ``n_resamples=0``), ``units``
        (slates, or rows for the one-position estimators), ``ess`` (Kish's effective sample
        size of the weights) and ``max_weight``.
    n_slates : int
        Logged slates.
    n_rows : int
        Logged (slate, position) rows.
    confidence : float
        The intervals' confidence, ``1 - alpha``.
    """

    table: pd.DataFrame
    n_slates: int
    n_rows: int
    confidence: float

    def __getitem__(self, estimator: str) -> float:
        return float(self.table.loc[estimator, "value"])

    def __repr__(self) -> str:
        return (f"OffPolicyResult({self.n_slates} slates, {self.n_rows} rows, "
                f"{self.confidence:.0%} intervals)\n{self.table.to_string()}")


def _estimators(estimators: Sequence[str] | None, known: set[str], dr: bool) -> list[str]:
    names = list(estimators) if estimators is not None else [
        n for n, spec in ESTIMATORS.items() if spec.kind in known and (dr or not spec.doubly_robust)]
    for name in names:
        check_choice("estimators", name, ESTIMATORS)
        spec = ESTIMATORS[name]
        if spec.kind not in known:
            raise ValueError(f"estimator {name!r} needs both policies' {spec.kind!r}: name the log's column in "
                             f"`logging` and give the new policy's (its lists, or a {spec.kind!r} column)")
        if spec.doubly_robust and not dr:
            raise ValueError(f"estimator {name!r} needs a reward model: pass `reward_model`")
    if not names:
        raise ValueError("no estimator can run: `logging` names none of the log's probability columns "
                         f"{list(KINDS)}")
    return names


def off_policy_value(log: Any, policy: Any, *, estimators: Sequence[str] | None = None,
                     slate_col: str = "slate_id", position_col: str = "position", item_col: str = "item_id",
                     reward_col: str = "reward", logging: Mapping[str, str] | None = None,
                     reward_model: Mapping[str, str] | None = None, alpha: float = 0.05,
                     n_resamples: int = 1000, seed: int = 0) -> OffPolicyResult:
    r"""Estimate a new system's expected reward per slate from a log of another system's slates.

    With the weight :math:`w` of a logged row the new policy's probability of what was
    shown over the logging policy's (of the whole slate, of the item at its position, or of
    the list down to it, by estimator), the IPS forms estimate

    .. math:: \hat V = \frac{1}{n} \sum_{i=1}^{n} \sum_{l} w_{il} \, r_{il},

    the self-normalised forms divide each :math:`w_{il}` by the mean weight of its
    position (SNIIPS, SNRIPS) or of all rows (SNSIPS, SNIPW), and ``dr`` adds a reward
    model :math:`\hat q`: :math:`\frac{1}{N} \sum_r \hat q_e(r) + w_r (r_r - \hat q(r))`.
    The numbers are those of Open Bandit Pipeline 0.5.7's estimators on the same arrays.

    Parameters
    ----------
    log : pandas.DataFrame
        One row per shown item: the slate, its position, the item, the reward and the
        logging policy's probabilities (columns named by ``logging``).
    policy : pandas.DataFrame
        The new system: its lists (``slate_col``, ``position_col``, ``item_col``: the item
        it would show there; deterministic), or its probability of each logged row's item
        (``slate_col``, ``position_col`` and any of the columns ``pscore``,
        ``pscore_item_position``, ``pscore_cascade``).
    estimators : sequence of str, optional
        Any of :data:`ESTIMATORS` (``sips``, ``iips``, ``rips``, their ``sn`` forms,
        ``ipw``, ``snipw``, ``dr``); default every one the probabilities given allow.
    slate_col : str
        The slate (one shown list: a user's visit, a context) of each row.
    position_col : str
        The position of the row's item in its slate (whole numbers, any base).
    item_col : str
        The shown item (compared with a deterministic policy's lists).
    reward_col : str
        The reward of the row (a click: 0 or 1, or any real number; no NaN).
    logging : mapping of str to str, optional
        Which of the log's columns holds each kind of logging probability: keys among
        ``pscore`` (the whole slate), ``pscore_item_position`` (the item at its position),
        ``pscore_cascade`` (the list down to the position). Default: the columns of those
        names that the log has.
    reward_model : mapping of str to str, optional
        For ``dr``: ``{"logged": column, "target": column}``, the log's columns of the
        reward model's estimate for the shown item and its expectation under the new policy.
    alpha : float
        The intervals are at confidence ``1 - alpha``.
    n_resamples : int
        Bootstrap resamples of the slates for the intervals; 0 computes no interval.
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    OffPolicyResult
        One row per estimator.

    Raises
    ------
    ValueError
        A missing column, probabilities outside (0, 1] in the log (a logging probability of
        0 for a shown item) or outside [0, 1] for the new policy, a whole-slate probability
        that differs within a slate, NaN rewards, two items at one position, a policy
        listing items at positions the log never showed, an estimator whose inputs are
        missing.
    """
    check_number("alpha", alpha)
    n_resamples = check_integer("n_resamples", n_resamples, 0)
    if 0 < n_resamples < 10:
        raise ValueError(f"`n_resamples` must be 0 (no interval) or at least 10, got {n_resamples}")
    columns = getattr(log, "columns", ())
    logging = dict(logging) if logging is not None else {k: v for k, v in _DEFAULT_LOGGING.items() if v in columns}
    data = read_log(log, policy, slate_col=slate_col, position_col=position_col, item_col=item_col,
                    reward_col=reward_col, logging=logging, reward_model=reward_model)
    known = set(data.behavior) & set(data.target)
    names = _estimators(estimators, known, reward_model is not None)
    table = estimate(data, names, alpha=alpha, n_resamples=n_resamples, seed=seed)
    return OffPolicyResult(table, data.n_slates, len(data.slate), 1 - alpha)
