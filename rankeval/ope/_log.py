"""A log of shown lists, and a new system's probability of each logged item, checked and coded once.

The estimators (:mod:`._estimators`) read plain arrays: one row per shown (slate,
position), sorted by slate then position, with the slate's code, the position's code,
the reward, the logging policy's probabilities and the new policy's probabilities of
the same items. Everything a caller could get wrong is refused here with the rows named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..data.internal import require_dataframe, require_numeric, where

__all__ = ["KINDS", "LoggedSlates", "read_log"]

#: the three kinds of probability of a shown item, as obp names the logging policy's columns:
#: the whole slate (joint), the item at its position (marginal), the top-l prefix (cascade)
KINDS = ("pscore", "pscore_item_position", "pscore_cascade")


@dataclass(frozen=True)
class LoggedSlates:
    """The log's rows, sorted by slate then position, with both policies' probabilities.

    ``behavior[kind]`` and ``target[kind]`` hold, for every row, the logging and the new
    policy's probability of the kind ``kind`` (see :data:`KINDS`), when known.
    """

    slate: NDArray[np.int64]
    position: NDArray[np.int64]
    reward: NDArray[np.float64]
    behavior: Mapping[str, NDArray[np.float64]]
    target: Mapping[str, NDArray[np.float64]]
    q_logged: NDArray[np.float64] | None
    q_target: NDArray[np.float64] | None
    n_slates: int
    n_positions: int


@dataclass(frozen=True)
class _Order:
    """The rows' order (by slate, then position), their slate and position codes in that order, the ids."""

    rows: NDArray[np.intp]
    slate: NDArray[np.int64]
    position: NDArray[np.int64]
    slates: pd.Index
    positions: NDArray[np.float64]


def _ordered(log: pd.DataFrame, slate_col: str, position_col: str) -> _Order:
    slate_codes, slates = pd.factorize(log[slate_col], sort=False)
    if (slate_codes < 0).any():
        raise ValueError(f"`log`['{slate_col}'] has missing ids {where(log, slate_codes < 0)}")
    position = require_numeric(log, "log", position_col, finite=True)
    if (position != np.floor(position)).any():
        raise ValueError(f"`log`['{position_col}'] must hold whole positions, got fractions "
                         f"{where(log, position != np.floor(position))}")
    position_codes, positions = pd.factorize(position, sort=True)
    order = np.lexsort((position_codes, slate_codes))
    slate, pos = slate_codes[order].astype(np.int64), position_codes[order].astype(np.int64)
    repeated = np.zeros(len(order), dtype=bool)
    repeated[1:] = (slate[1:] == slate[:-1]) & (pos[1:] == pos[:-1])
    if repeated.any():
        mask = np.zeros(len(order), dtype=bool)
        mask[order[repeated]] = True
        raise ValueError(f"`log` shows two items at one position of a slate ({slate_col}, {position_col}) "
                         f"{where(log, mask)}: each slate holds each position once")
    return _Order(order, slate, pos, pd.Index(slates), np.asarray(positions, dtype=np.float64))


def _require(frame: pd.DataFrame, name: str, columns: list[str]) -> None:
    missing = [c for c in dict.fromkeys(columns) if c not in frame.columns]
    if missing:
        raise ValueError(f"`{name}` has no column {', '.join(map(repr, missing))} (its columns: "
                         f"{[str(c) for c in frame.columns]}); name yours with `slate_col`, `position_col`, "
                         "`item_col`, `reward_col`, and the log's probabilities with `logging`")


def _probabilities(frame: pd.DataFrame, name: str, columns: Mapping[str, str], order: NDArray[np.intp],
                   reward: NDArray[np.float64] | None) -> dict[str, NDArray[np.float64]]:
    """Each named probability column in the rows' order, checked to lie in (0, 1] (``[0, 1]`` for the new policy)."""
    out = {}
    for kind, column in columns.items():
        values = require_numeric(frame, name, column, finite=True)
        low_ok = values > 0 if reward is not None else values >= 0
        bad = ~low_ok | (values > 1)
        if bad.any():
            rule = "(0, 1]: a shown item had a chance to be shown" if reward is not None else "[0, 1]"
            raise ValueError(f"`{name}`['{column}'] must lie in {rule}; {int(bad.sum())} value(s) do not "
                             f"{where(frame, bad)}")
        out[kind] = values[order]
    return out


def _slate_constant(values: NDArray[np.float64], slate: NDArray[np.int64], what: str) -> None:
    """A whole-slate probability is one number per slate: refuse a slate whose rows disagree."""
    differs = np.zeros(len(values), dtype=bool)
    differs[1:] = (slate[1:] == slate[:-1]) & (values[1:] != values[:-1])
    if differs.any():
        raise ValueError(f"{what} differs between the rows of {int(np.unique(slate[differs]).size)} slate(s): "
                         "the probability of a whole slate is one number per slate")


def read_log(log: Any, policy: Any, *, slate_col: str, position_col: str, item_col: str, reward_col: str,
             logging: Mapping[str, str], reward_model: Mapping[str, str] | None) -> LoggedSlates:
    """The log and the new policy checked, aligned and sorted (see :func:`rankeval.ope.off_policy_value`)."""
    df = require_dataframe(log, "log")
    unknown = sorted(set(logging) - set(KINDS))
    if unknown:
        raise ValueError(f"`logging` names unknown probabilities {unknown}; the kinds are {list(KINDS)}")
    q_cols = dict(reward_model or {})
    if q_cols and set(q_cols) != {"logged", "target"}:
        raise ValueError("`reward_model` maps 'logged' and 'target' to the log's columns of the reward model's "
                         f"estimate for the logged item and its expectation under the new policy, got {q_cols}")
    _require(df, "log", [slate_col, position_col, reward_col, *logging.values(), *q_cols.values()])
    if len(df) == 0:
        raise ValueError("`log` is empty")
    ordered = _ordered(df, slate_col, position_col)
    order, slate, position = ordered.rows, ordered.slate, ordered.position
    reward = require_numeric(df, "log", reward_col, finite=True)[order]
    behavior = _probabilities(df, "log", logging, order, reward)
    target = _target(df, policy, ordered, slate_col=slate_col, position_col=position_col, item_col=item_col)
    for probabilities, what in ((behavior, "`log`"), (target, "the new policy's")):
        if "pscore" in probabilities:
            _slate_constant(probabilities["pscore"], slate, f"{what} pscore")
    q = {key: require_numeric(df, "log", column, finite=True)[order] for key, column in q_cols.items()}
    return LoggedSlates(slate, position, reward, behavior, target, q.get("logged"), q.get("target"),
                        int(slate[-1]) + 1 if len(slate) else 0, int(position.max()) + 1)


def _policy_rows(frame: pd.DataFrame, ordered: _Order, slate_col: str, position_col: str) -> NDArray[np.intp]:
    """For every logged row (in the log's order), the policy's row at the same (slate, position)."""
    n_positions = len(ordered.positions)
    slate = ordered.slates.get_indexer(frame[slate_col])
    position = require_numeric(frame, "policy", position_col, finite=True)
    at = np.minimum(np.searchsorted(ordered.positions, position), n_positions - 1)
    known = (slate >= 0) & (ordered.positions[at] == position)
    logged_keys = ordered.slate * n_positions + ordered.position  # sorted: the log's rows are
    keys = np.where(known, slate.astype(np.int64) * n_positions + at, -1)
    found = np.minimum(np.searchsorted(logged_keys, keys), len(logged_keys) - 1)
    outside = ~known | (logged_keys[found] != keys)
    if outside.any():
        raise ValueError(f"`policy` has {int(outside.sum())} row(s) at a (slate, position) the log never showed "
                         f"({slate_col}, {position_col}) {where(frame, outside)}: its lists are longer than the "
                         "log's (what it would show there was never observed), or its ids are of another kind")
    if (np.bincount(found, minlength=len(logged_keys)) > 1).any():
        raise ValueError(f"`policy` repeats a ({slate_col}, {position_col}) pair: one row per position of a slate")
    rows = np.full(len(logged_keys), -1, dtype=np.intp)
    rows[found] = np.arange(len(frame))
    return rows


def _target(log: pd.DataFrame, policy: Any, ordered: _Order, *, slate_col: str, position_col: str,
            item_col: str) -> dict[str, NDArray[np.float64]]:
    """The new policy's probability of each logged row's item, of every kind it determines."""
    frame = require_dataframe(policy, "policy")
    given = [k for k in KINDS if k in frame.columns]
    _require(frame, "policy", [slate_col, position_col, *([] if given else [item_col])])
    rows = _policy_rows(frame, ordered, slate_col, position_col)
    unlisted = rows < 0
    if unlisted.any():
        first = log[slate_col].iloc[ordered.rows[np.argmax(unlisted)]]
        raise ValueError(f"`policy` has no row for {int(unlisted.sum())} logged (slate, position) pair(s) "
                         f"(e.g. {slate_col}={first!r}): give each logged slate the new system's list, or its "
                         "probabilities, down to the log's last position")
    if given:
        return _probabilities(frame, "policy", {k: k for k in given}, rows, None)
    if item_col not in log.columns:
        raise ValueError(f"`log` has no column {item_col!r}: the shown items are needed to compare them with "
                         "the new system's lists")
    shown = log[item_col].to_numpy()[ordered.rows]
    listed = frame[item_col].to_numpy()[rows]
    match = (pd.notna(listed) & (listed == shown)).astype(np.float64)
    return _deterministic(match, ordered.slate)


def _deterministic(match: NDArray[np.float64], slate: NDArray[np.int64]) -> dict[str, NDArray[np.float64]]:
    """A deterministic list's probabilities: 1 where it shows the logged item (at the position; at every
    position up to this one; at every position of the slate), else 0."""
    starts = np.flatnonzero(np.r_[True, slate[1:] != slate[:-1]])
    misses = np.cumsum(match == 0)
    before = np.repeat(misses[starts] - (match[starts] == 0), np.diff(np.r_[starts, len(slate)]))
    cascade = (misses - before == 0).astype(np.float64)
    whole = np.repeat(np.minimum.reduceat(match, starts), np.diff(np.r_[starts, len(slate)]))
    return {"pscore_item_position": match, "pscore_cascade": cascade, "pscore": whole}
