"""System values from additive parts: the hook's data, and the one place where parts merge.

A metric whose system value is not the mean of its users' values (a micro average, a sum
over users, a coverage over items) returns *parts* from
:meth:`RankingMetric.system_parts`: a dict of

- 1-D float arrays, each summed exactly into one number (NaN entries left out), and
- ``pd.Series`` indexed by a key (e.g. item id -> how many lists hold it), of integer
  counts, summed per key, and
- :class:`KeyedSums` (keys and float values, e.g. a gain per listed row keyed by its item),
  summed exactly per key.

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
from numpy.typing import NDArray

from ..data.internal import ExactSum

__all__ = ["SystemParts", "KeyedSums", "merge_parts"]

#: bits of the low limb of a 53-bit mantissa (as rankeval.data._exact: limb sums stay exact)
_LIMB = 26
#: rows per bincount pass: limb sums stay below 2**53
_CHUNK = 1 << 25


class SystemParts:
    """Exact sums of a metric's system parts over one set of users; ``+`` merges two sets.

    ``sums[name]`` is the exact sum of the finite values of an array part (an
    :class:`~rankeval._exact.ExactSum`) and ``nonfinite[name]`` the sum of its infinite
    values (0.0 when none; inf + -inf is NaN in any order); ``keyed[name]`` is an int64
    Series of per-key totals; ``keyed_sums[name]`` the exact per-key sums of a
    :class:`KeyedSums` part.
    """

    __slots__ = ("sums", "nonfinite", "keyed", "keyed_sums")

    def __init__(self, sums: dict[str, ExactSum] | None = None, nonfinite: dict[str, float] | None = None,
                 keyed: dict[str, pd.Series] | None = None, keyed_sums: dict[str, ExactByKey] | None = None
                 ) -> None:
        self.sums = {} if sums is None else sums
        self.nonfinite = {} if nonfinite is None else nonfinite
        self.keyed = {} if keyed is None else keyed
        self.keyed_sums = {} if keyed_sums is None else keyed_sums

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
            if isinstance(part, KeyedSums):
                out.keyed_sums[name] = ExactByKey.of(part.keys, part.values, f"{metric}.system_parts[{name!r}]")
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
        if (set(self.sums) != set(other.sums) or set(self.keyed) != set(other.keyed)
                or set(self.keyed_sums) != set(other.keyed_sums)):
            raise ValueError(f"cannot merge system parts with different names: {self._names()} vs {other._names()}")
        sums = {n: self.sums[n] + other.sums[n] for n in self.sums}
        with np.errstate(invalid="ignore"):
            nonfinite = {n: self.nonfinite[n] + other.nonfinite[n] for n in self.nonfinite}
        keyed = {n: _add_keyed(self.keyed[n], other.keyed[n]) for n in self.keyed}
        keyed_sums = {n: self.keyed_sums[n] + other.keyed_sums[n] for n in self.keyed_sums}
        return SystemParts(sums, nonfinite, keyed, keyed_sums)

    def _names(self) -> list[str]:
        return sorted(self.sums) + sorted(self.keyed) + sorted(self.keyed_sums)

    def values(self, *, scale_free: bool = False) -> dict[str, float | pd.Series]:
        """Each array part's exact total rounded once to a float (plus its infinities), and
        each keyed part's per-key totals (int64, sorted by key when the keys sort), and each
        :class:`KeyedSums` part's exact per-key sums rounded once to floats (sorted alike).

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
        for name, series in [*self.keyed.items(), *((n, k.to_series()) for n, k in self.keyed_sums.items())]:
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
                           "nonfinite": {n: repr(v) for n, v in self.nonfinite.items()}, "keyed": keyed,
                           "keyed_sums": {n: k.to_json() for n, k in self.keyed_sums.items()}})

    @classmethod
    def from_json(cls, text: str) -> SystemParts:
        data = json.loads(text)
        sums = {n: ExactSum.from_json(s) for n, s in data["sums"].items()}
        nonfinite = {n: float(v) for n, v in data["nonfinite"].items()}
        keyed = {n: pd.Series(np.asarray(v, dtype=np.int64), index=pd.Index(k, dtype=object))
                 for n, (k, v) in data["keyed"].items()}
        keyed_sums = {n: ExactByKey.from_json(k) for n, k in data.get("keyed_sums", {}).items()}
        return cls(sums, nonfinite, keyed, keyed_sums)

    def __repr__(self) -> str:
        shown = {**{n: v for n, v in self.values().items() if not isinstance(v, pd.Series)},
                 **{n: f"<{len(s)} keys>" for n, s in self.keyed.items()},
                 **{n: f"<{len(k.index)} keys>" for n, k in self.keyed_sums.items()}}
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


class KeyedSums:
    """A system part of float values summed exactly per key: ``KeyedSums(keys, values)``
    (one key per value, e.g. the item of each listed row and its gain). NaN values are left
    out; every key appears in the sums, with 0.0 when all its values are 0 or NaN."""

    __slots__ = ("keys", "values")

    def __init__(self, keys: Any, values: Any) -> None:
        self.keys = np.asarray(keys)
        self.values = np.asarray(values, dtype=np.float64)
        if self.keys.shape != self.values.shape or self.values.ndim != 1:
            raise ValueError(f"KeyedSums needs one key per value: got keys of shape {self.keys.shape} and values "
                             f"of shape {self.values.shape}")


class ExactByKey:
    """Exact per-key sums: key ``index[j]`` holds ``ints[j] * 2**low`` (Python integers, so
    sums over any cut of the rows add up exactly with ``+``)."""

    __slots__ = ("index", "ints", "low")

    def __init__(self, index: pd.Index, ints: NDArray[np.object_], low: int) -> None:
        self.index, self.ints, self.low = index, ints, low

    @classmethod
    def of(cls, keys: NDArray[Any], values: NDArray[np.float64], what: str = "KeyedSums") -> ExactByKey:
        """The exact sums of ``values`` per key (NaN left out; an infinity is a TypeError)."""
        codes, uniques = pd.factorize(keys, use_na_sentinel=False)
        kept = ~np.isnan(values)
        if not np.isfinite(values[kept]).all():
            raise TypeError(f"{what} must hold finite values (or NaN, left out), got an infinity")
        mantissa, exponent = np.frexp(values[kept])
        m = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: 53 significant bits
        nonzero = m != 0
        codes, m, e = codes[kept][nonzero], m[nonzero], exponent[nonzero].astype(np.int64) - 53
        totals = np.zeros(len(uniques), dtype=object)
        low = int(e.min()) if len(e) else 0
        for start in range(0, len(m), _CHUNK):
            c, mc, ec = codes[start:start + _CHUNK], m[start:start + _CHUNK], e[start:start + _CHUNK] - low
            span = int(ec.max()) + 1
            # one bin per (key, exponent); m = hi * 2**26 + lo: per-bin limb sums stay exact in float64
            flat = c.astype(np.int64) * span + ec
            if len(uniques) * span <= 50_000_000:  # a dense table of bins, then its non-empty ones
                at, n_bins = flat, len(uniques) * span
            else:
                bins, at = np.unique(flat, return_inverse=True)
                n_bins = len(bins)
            hi_f = np.bincount(at, weights=(mc >> _LIMB).astype(np.float64), minlength=n_bins)
            lo_f = np.bincount(at, weights=(mc & ((1 << _LIMB) - 1)).astype(np.float64), minlength=n_bins)
            if n_bins == len(uniques) * span and at is flat:
                bins = np.flatnonzero((hi_f != 0) | (lo_f != 0))
                hi_f, lo_f = hi_f[bins], lo_f[bins]
            hi = hi_f.astype(np.int64).astype(object)
            lo = lo_f.astype(np.int64)
            ints = (hi * (1 << _LIMB) + lo.astype(object)) << (bins % span).astype(object)
            np.add.at(totals, bins // span, ints)
        return cls(pd.Index(uniques), totals, low)

    def __add__(self, other: ExactByKey) -> ExactByKey:
        low = min(self.low, other.low)
        ints = np.concatenate([self.ints << (self.low - low), other.ints << (other.low - low)])
        codes, uniques = pd.factorize(self.index.append(other.index), use_na_sentinel=False)
        totals = np.zeros(len(uniques), dtype=object)
        np.add.at(totals, codes, ints)
        return ExactByKey(pd.Index(uniques), totals, low)

    def to_series(self) -> pd.Series:
        """Each key's exact sum rounded once to a float (+-inf beyond the float range)."""
        return pd.Series([_int_to_float(int(n), self.low) for n in self.ints], index=self.index, dtype=np.float64)

    def to_json(self) -> str:
        return json.dumps([self.index.tolist(), [format(int(n), "x") for n in self.ints], self.low])

    @classmethod
    def from_json(cls, text: str) -> ExactByKey:
        keys, ints, low = json.loads(text)
        return cls(pd.Index(keys, dtype=object), np.array([int(n, 16) for n in ints], dtype=object), int(low))


def _int_to_float(n: int, low: int) -> float:
    """``n * 2**low`` rounded once to a float."""
    bits = n.bit_length()
    # float(n) rounds once (Python rounds an int to the nearest float); scaling a float by a
    # power of two is exact while the result stays normal, so the sum is rounded once
    if bits < 1000 and low > -1000 and low + bits < 1000 and low + min(bits, 54) - 54 >= -1022:
        return math.ldexp(float(n), low)
    return _to_float(Fraction(n) * Fraction(2) ** low)
