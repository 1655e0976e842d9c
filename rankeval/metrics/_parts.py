"""System values from additive parts: the hook's data, and the one place where parts merge.

A metric whose system value is not the mean of its users' values (a micro average, a sum
over users, a coverage over items) returns *parts* from
:meth:`RankingMetric.system_parts`: a dict of

- 1-D float arrays, each summed exactly into one number (NaN entries left out), and
- ``pd.Series`` indexed by a key (e.g. item id -> how many lists hold it), of integer
  counts, summed per key.

:class:`SystemParts` holds those sums for one set of users (a split, or one Spark bucket
of it); ``+`` merges the parts of disjoint sets of users exactly, so the value does not
depend on how the users were cut into buckets, nor on their order;
:meth:`SystemParts.values` hands the merged sums to :meth:`RankingMetric.system_value`.
:meth:`SystemParts.to_json` / :meth:`SystemParts.from_json` carry parts between processes
(the Spark engine's buckets and its driver).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..data._exact import ExactSum

__all__ = ["SystemParts", "merge_parts"]


class SystemParts:
    """Exact sums of a metric's system parts over one set of users; ``+`` merges two sets.

    ``sums[name]`` is the exact sum of the finite values of an array part (an
    :class:`~rankeval._exact.ExactSum`) and ``nonfinite[name]`` the sum of its infinite
    values (0.0 when none; inf + -inf is NaN in any order); ``keyed[name]`` is an int64
    Series of per-key totals.
    """

    __slots__ = ("sums", "nonfinite", "keyed")

    def __init__(self, sums: dict[str, ExactSum] | None = None, nonfinite: dict[str, float] | None = None,
                 keyed: dict[str, pd.Series] | None = None) -> None:
        self.sums = {} if sums is None else sums
        self.nonfinite = {} if nonfinite is None else nonfinite
        self.keyed = {} if keyed is None else keyed

    @classmethod
    def of(cls, parts: Mapping[str, Any], metric: object = "metric") -> SystemParts:
        """The exact sums of a ``system_parts`` dict (``metric`` names it in errors)."""
        if not isinstance(parts, Mapping):
            raise TypeError(f"{metric}.system_parts must return a dict or None, got {type(parts).__name__}")
        out = cls()
        for name, part in parts.items():
            if not isinstance(name, str):
                raise TypeError(f"{metric}.system_parts: part names must be strings, got {name!r}")
            if isinstance(part, pd.Series):
                out.keyed[name] = _counts(part, f"{metric}.system_parts[{name!r}]")
                continue
            values = np.asarray(part, dtype=np.float64)
            if values.ndim != 1:
                raise TypeError(f"{metric}.system_parts[{name!r}] must be a 1-D array or a pd.Series, "
                                f"got an array of shape {values.shape}")
            values = values[~np.isnan(values)]
            finite = np.isfinite(values)
            out.sums[name] = ExactSum.of(values[finite])
            with np.errstate(invalid="ignore"):  # inf + -inf: NaN, in any order
                out.nonfinite[name] = float(values[~finite].sum()) if not finite.all() else 0.0
        return out

    def __add__(self, other: SystemParts) -> SystemParts:
        if not isinstance(other, SystemParts):
            return NotImplemented
        if set(self.sums) != set(other.sums) or set(self.keyed) != set(other.keyed):
            raise ValueError(f"cannot merge system parts with different names: "
                             f"{sorted(self.sums) + sorted(self.keyed)} vs {sorted(other.sums) + sorted(other.keyed)}")
        sums = {n: self.sums[n] + other.sums[n] for n in self.sums}
        with np.errstate(invalid="ignore"):
            nonfinite = {n: self.nonfinite[n] + other.nonfinite[n] for n in self.nonfinite}
        keyed = {n: _add_keyed(self.keyed[n], other.keyed[n]) for n in self.keyed}
        return SystemParts(sums, nonfinite, keyed)

    def values(self, *, scale_free: bool = False) -> dict[str, float | pd.Series]:
        """Each array part's exact total rounded once to a float (plus its infinities), and
        each keyed part's per-key totals (int64, sorted by key when the keys sort).

        A total beyond the float range is +-inf, unless ``scale_free`` (the value is a
        function of ratios of the parts, as a micro average): then every array part is
        divided by one power of two that brings the largest total into range, which leaves
        each ratio as it was.
        """
        totals = {name: total.total() for name, total in self.sums.items()}
        shift = _common_shift(totals.values()) if scale_free else 0
        out: dict[str, float | pd.Series] = {}
        for name, exact in totals.items():
            value = _to_float(exact * Fraction(2) ** -shift if shift else exact)
            extra = self.nonfinite.get(name, 0.0)
            out[name] = value + extra if extra != 0.0 or np.isnan(extra) else value
        for name, series in self.keyed.items():
            try:
                out[name] = series.sort_index()
            except TypeError:  # keys of mixed types: keep them as they are
                out[name] = series
        return out

    def count(self, name: str) -> int:
        """How many finite values the array part ``name`` summed."""
        return self.sums[name].count

    # ------------------------------------------------------------------ transport
    def to_json(self) -> str:
        keyed = {n: [s.index.tolist(), s.to_numpy().tolist()] for n, s in self.keyed.items()}
        return json.dumps({"sums": {n: s.to_json() for n, s in self.sums.items()},
                           "nonfinite": {n: repr(v) for n, v in self.nonfinite.items()}, "keyed": keyed})

    @classmethod
    def from_json(cls, text: str) -> SystemParts:
        data = json.loads(text)
        sums = {n: ExactSum.from_json(s) for n, s in data["sums"].items()}
        nonfinite = {n: float(v) for n, v in data["nonfinite"].items()}
        keyed = {n: pd.Series(np.asarray(v, dtype=np.int64), index=pd.Index(k, dtype=object))
                 for n, (k, v) in data["keyed"].items()}
        return cls(sums, nonfinite, keyed)

    def __repr__(self) -> str:
        shown = {**{n: v for n, v in self.values().items() if not isinstance(v, pd.Series)},
                 **{n: f"<{len(s)} keys>" for n, s in self.keyed.items()}}
        return f"SystemParts({shown})"


def _common_shift(totals: Iterable[Fraction]) -> int:
    """The power of two that brings the largest of ``totals`` below 2**1000 (0 when it is)."""
    largest = max((abs(t) for t in totals), default=Fraction(0))
    if largest < 2**1000:
        return 0
    return math.floor(largest).bit_length() - 1000


def _to_float(value: Fraction) -> float:
    """``value`` rounded to a float; +-inf beyond the float range (not an OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def merge_parts(parts: Iterable[SystemParts | None]) -> SystemParts | None:
    """The exact merge of the parts of disjoint sets of users (Nones, for sets without
    parts, are skipped); None when there is nothing to merge. The result does not depend
    on the order of ``parts``."""
    merged: SystemParts | None = None
    for p in parts:
        if p is None:
            continue
        merged = p if merged is None else merged + p
    return merged


def _counts(series: pd.Series, what: str) -> pd.Series:
    """A keyed part as int64 per-key totals (repeated keys added up)."""
    values = series.to_numpy()
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    elif values.dtype.kind == "f":
        if not (np.isfinite(values).all() and (values == np.round(values)).all()) or (
                len(values) and np.abs(values).max() >= 2.0 ** 63):
            raise TypeError(f"{what} must hold integer counts, got non-integer values")
        values = values.astype(np.int64)
    elif values.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integer counts, got dtype {series.dtype}")
    out = pd.Series(values.astype(np.int64), index=series.index)
    if not out.index.is_unique:
        out = out.groupby(level=0, sort=False).sum()
    return out


def _add_keyed(a: pd.Series, b: pd.Series) -> pd.Series:
    if len(a) == 0:
        return b
    if len(b) == 0:
        return a
    return pd.concat([a, b]).groupby(level=0, sort=False).sum().astype(np.int64)
