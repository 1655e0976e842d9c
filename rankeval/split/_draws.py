"""Seeded draws that depend on the ids, never on the rows' order.

A random split must be the same split, bit for bit, whatever order the rows come in (a
file sorted by user, the same file shuffled, a polars frame of it). So no random stream
is consumed row by row: every ``(user, item)`` pair gets a 64-bit key computed from the
seed and the two ids alone, and rows are ranked by that key. The same seed and the same
ids give the same keys on any machine and under any row order.

The ids are hashed once per distinct id: integers (of any integer dtype, and each whole
float, whatever other ids share its column) by their value, other floats by their bits,
text by pandas' SipHash of the string (``pd.util.hash_array``, stable across pandas
versions), so ``7`` read as int32, int64, uint64 or ``7.0`` is one
id, while ``7`` and ``"7"`` are not. Keys are mixed with splitmix64's finalizer (Steele,
Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014), a bijection
of 64-bit words whose every output bit depends on every input bit.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["mix64", "id_hashes", "pair_keys", "user_draws", "uniform"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # 2**64 / golden ratio: splitmix64's increment
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
#: streams drawn from one seed: which rows are test, and the bootstrap's draws
_STREAM_KEYS = 1
_STREAM_DRAWS = 2


def mix64(words: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finalizer applied to every word (a new array; uint64 products wrap)."""
    x = words ^ (words >> np.uint64(30))
    x *= _MUL1
    x ^= x >> np.uint64(27)
    x *= _MUL2
    x ^= x >> np.uint64(31)
    return x


def _scalar_mix(value: int) -> int:
    """:func:`mix64` of one Python integer (no numpy scalar overflow warnings)."""
    x = value & _MASK
    x = ((x ^ (x >> 30)) * int(_MUL1)) & _MASK
    x = ((x ^ (x >> 27)) * int(_MUL2)) & _MASK
    return x ^ (x >> 31)


def _seed_word(seed: int, stream: int) -> np.uint64:
    return np.uint64(_scalar_mix(_scalar_mix(seed * _GOLDEN + stream) + stream * _GOLDEN))


def _integers(values: NDArray[Any]) -> NDArray[np.uint64] | None:
    """Integer ids (or whole floats) as the 64-bit words of their values, else None."""
    if values.dtype.kind in "iub":
        if values.dtype == np.uint64:
            return values.view(np.uint64)
        return values.astype(np.int64).view(np.uint64)
    if values.dtype.kind == "f":
        # Decided per value, never for the whole array: Spark hashes each bucket of users
        # on its own, and 1.0 must hash alike beside 1.5 or not.
        floats = values.astype(np.float64) + 0.0  # + 0.0: -0.0 is 0.0
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(floats) & (floats == np.floor(floats)) & (np.abs(floats) < 2.0**63)
        as_integer = np.where(whole, floats, 0.0).astype(np.int64).view(np.uint64)
        return np.where(whole, as_integer, floats.view(np.uint64))
    if values.dtype.kind == "M" or values.dtype.kind == "m":
        return values.view(np.int64).view(np.uint64)
    return None


def id_hashes(uniques: NDArray[Any]) -> NDArray[np.uint64]:
    """A 64-bit hash of each distinct id, from its value alone (see the module's docstring)."""
    values = np.asarray(uniques)
    if values.dtype == object and len(values):
        kind = pd.api.types.infer_dtype(values, skipna=False)
        if kind in ("integer", "floating", "mixed-integer-float", "boolean"):
            # integers past 64 bits stay objects: hashed as text below
            with contextlib.suppress(OverflowError, ValueError):
                values = np.asarray(values.tolist(), dtype=np.int64 if kind in ("integer", "boolean") else np.float64)
    words = _integers(values)
    if words is not None:
        return mix64(words)
    if values.dtype != object:
        values = values.astype(object)
    return np.asarray(pd.util.hash_array(values, categorize=False), dtype=np.uint64)


def pair_keys(user_hashes: NDArray[np.uint64], user_codes: NDArray[np.integer],
              item_hashes: NDArray[np.uint64], item_codes: NDArray[np.integer], seed: int) -> NDArray[np.uint64]:
    """The seeded key of every row's ``(user, item)`` pair: equal pairs, equal keys."""
    per_user = mix64(user_hashes ^ _seed_word(seed, _STREAM_KEYS))
    words = per_user[user_codes]
    words += item_hashes[item_codes]  # wraps
    return mix64(words)


def user_draws(user_hashes: NDArray[np.uint64], user_of_slot: NDArray[np.integer],
               slot: NDArray[np.integer], seed: int) -> NDArray[np.uint64]:
    """One seeded 64-bit word per (user, draw number): the ``slot``-th draw of user ``user_of_slot``."""
    per_user = mix64(user_hashes ^ _seed_word(seed, _STREAM_DRAWS))
    words = per_user[user_of_slot]
    words += slot.astype(np.uint64) * np.uint64(_GOLDEN)
    return mix64(words)


def uniform(words: NDArray[np.uint64]) -> NDArray[np.float64]:
    """Uniform floats in [0, 1): the top 53 bits of each word, scaled."""
    return (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
