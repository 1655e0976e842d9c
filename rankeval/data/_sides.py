"""Side data per split of an evaluation: EvalModel's and compare's ``train=``, ``catalog=``,
``item_features=``, ``item_groups=`` and ``side=`` arguments, one value for every split or
a list with one per split, each distinct input validated once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._frames import is_frame
from ._side import SIDE_ARGUMENTS, SideData, missing_side

__all__ = ["sides_per_split", "check_metrics_side"]


def _per_split(value: Any, n: int, what: str, is_one: Any) -> list[Any]:
    """``value`` for each of ``n`` splits: None, one value for all, or a list/tuple with one per split."""
    if value is None:
        return [None] * n
    if isinstance(value, (list, tuple)) and len(value) and all(v is None or is_one(v) for v in value):
        if len(value) != n:
            raise ValueError(f"`{what}` has {len(value)} entries for {n} splits: give one for every split, "
                             f"or one for all")
        return list(value)
    return [value] * n


def _is_catalog(value: Any) -> bool:
    return is_frame(value) or isinstance(value, (pd.Series, pd.Index, np.ndarray, set, frozenset, list, tuple))


def sides_per_split(n: int, train: Any = None, catalog: Any = None, item_features: Any = None,
                    side: Any = None, *, user_col: str = "user_id", item_col: str = "item_id",
                    score_col: str = "score", item_groups: Any = None) -> list[SideData | None]:
    """One SideData (or None) per split from EvalModel's / compare's arguments. Each of
    ``train``, ``catalog``, ``item_features``, ``item_groups`` and ``side`` is one value for
    every split or a list with one per split; each distinct input is validated once."""
    sides = _per_split(side, n, "side", lambda v: isinstance(v, SideData))
    trains = _per_split(train, n, "train", is_frame)
    # a list of ids is one catalog; a list of catalogs (frames, Series, lists, sets) is one per split
    catalogs = _per_split(catalog, n, "catalog", _is_catalog)
    features = _per_split(item_features, n, "item_features", is_frame)
    groups = _per_split(item_groups, n, "item_groups", lambda v: is_frame(v) or isinstance(v, (pd.Series, Mapping)))
    built: dict[tuple[int, ...], SideData] = {}
    out: list[SideData | None] = []
    for s, t, c, f, g in zip(sides, trains, catalogs, features, groups):
        if s is not None:
            if not isinstance(s, SideData):
                raise TypeError(f"`side` must be a rankeval.SideData (or a list of them), got {type(s).__name__}")
            if t is not None or c is not None or f is not None or g is not None:
                raise ValueError("pass either `side` or `train`/`catalog`/`item_features`/`item_groups`, not both")
            out.append(s)
        elif t is None and c is None and f is None and g is None:
            out.append(None)
        else:
            key = (id(t), id(c), id(f), id(g))
            if key not in built:
                built[key] = SideData(t, c, f, user_col=user_col, item_col=item_col, score_col=score_col,
                                      item_groups=g)
            out.append(built[key])
    return out


def check_metrics_side(metrics: Iterable[Any], sides: Iterable[SideData | None], names: Iterable[str]) -> None:
    """A ValueError naming the argument for the first metric whose side data a split lacks."""
    for side, name in zip(sides, names):
        missing = missing_side(metrics, side)
        if missing:
            metric, argument = missing[0]
            where = "" if name is None else f" (split {name!r})"
            raise ValueError(f"{metric} needs side data{where}: pass {SIDE_ARGUMENTS[argument]}")
