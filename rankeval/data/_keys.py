"""Integer keys: ids to codes and rows to orders, the two costs that dominate building a split.

Metrics only read integer and float arrays; what remains is hashing the caller's ids and
ordering rows. Both are done here with the fastest exact tools numpy, pandas and Arrow offer
(measured in docs/performance.md):

- :func:`factorize` is ``pd.factorize`` that hashes text ids where they hash fastest. Object
  columns whose equal ids share one Python object (pandas' readers deduplicate strings) are
  hashed by object address first, and only the distinct objects as strings. Other strings
  (made one object per row, python-storage ``str``) are handed to Arrow's hash kernel, and
  Arrow-backed columns stay in Arrow memory. Integer ids in a range no wider than the column
  is long (item and user numbers) are coded through a table indexed by the id, without hashing.
- :func:`lexsort` is ``np.lexsort`` done as one ``np.sort`` per key on int64 words that pack
  the key with the row's current position: ``np.sort`` has vectorized kernels, while
  ``argsort``/``lexsort`` gather and compare indirectly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

__all__ = ["same_id_dtype", "factorize", "factorize_together", "codes_in", "runs", "lexsort", "descending_float_key",
           "pack_rows",
           "sorted_with_rows", "code_dtype", "long_runs", "id_values", "plain", "sorted_unique"]

#: below this many rows the plain path is as fast and simpler
_MIN_ROWS = 1 << 15
_SAMPLE = 1 << 15
#: repeated values a sample needs before it can show that equal ids share objects
_MIN_REPEATS = 64
#: rows read to guess whether a column is in runs before comparing every neighbour
_PROBE = 1 << 12
_CHUNK = 1 << 22


def code_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The narrowest code type for ``n`` distinct values and the -1 code."""
    return np.int32 if n < 2**31 - 1 else np.int64


class _AddressView:
    """The pointer words of an object array, exposed to numpy as integers (a view, no copy)."""

    def __init__(self, values: NDArray[np.object_]) -> None:
        self.owner = values  # keeps the objects, hence the addresses, alive while viewed
        self.__array_interface__ = {
            "shape": values.shape, "typestr": np.dtype(np.intp).str,
            "data": (values.__array_interface__["data"][0], True), "version": 3,
        }


def _addresses(values: NDArray[np.object_]) -> NDArray[np.intp]:
    # the view reads one pointer every 8 bytes: a strided array must be made contiguous first
    return np.asarray(_AddressView(np.ascontiguousarray(values)))


def _objects_in_sample(values: NDArray[np.object_]) -> int | None:
    """Distinct objects in a sample of rows spread over the array, or None unless equal ids share objects.

    Only repeated values tell shared objects from fresh ones: the sample must repeat values
    (at least ``_MIN_REPEATS`` rows), and most of its repeats must be the same object again.
    Otherwise hashing addresses first would only add a pass.
    """
    sample = values[::max(len(values) // _SAMPLE, 1)][:_SAMPLE]
    n_values = len(pd.unique(sample))
    repeats = len(sample) - n_values
    if repeats < min(_MIN_REPEATS, len(sample) // 2 + 1):
        return None
    n_objects = len(pd.unique(_addresses(sample)))
    return n_objects if n_objects - n_values <= repeats // 2 else None


def id_values(column: pd.Series) -> NDArray[Any] | ExtensionArray:
    """The ids of a column, ready for :func:`factorize`.

    Extension arrays (pandas 3's Arrow-backed ``str``, ``ArrowDtype``, nullable integers,
    categoricals) are returned as they are: their own factorize hashes them in C++ (Arrow's
    for Arrow strings), and an array of Python objects, one per row, is never built. Strings with python storage come as
    the object array they hold (no copy), so that runs and shared objects are found as in
    any object column. NumPy-backed columns come as numpy.
    """
    array = column.array
    if isinstance(column.dtype, np.dtype):
        return column.to_numpy()
    if getattr(column.dtype, "storage", None) == "python":
        return np.asarray(array)  # the StringArray's own object array (missing ids: NaN or pd.NA)
    return array


def plain(values: Any) -> NDArray[Any]:
    """A few values (uniques, examples) as a numpy array of the caller's scalars (str, int, ...)."""
    if isinstance(values, ExtensionArray):
        return np.asarray(values.to_numpy())
    return np.asarray(values)


def same_id_dtype(indexes: Sequence[pd.Index]) -> list[pd.Index]:
    """The id indexes of several frames, made safe to concatenate.

    pandas and numpy join int64 with uint64 or float64 ids as float64, where integers
    beyond 2**53 collide (2**62 + 1 and 2**62 + 2 become one id). When integer ids meet
    ids of another dtype, every part becomes object (the ids themselves, unrounded).
    """
    dtypes = {ix.dtype for ix in indexes}
    if len(dtypes) > 1 and any(getattr(d, "kind", "O") in "iu" for d in dtypes):
        return [ix.astype(object) for ix in indexes]
    return list(indexes)


def factorize(values: NDArray[Any] | ExtensionArray) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any]]:
    """Codes and uniques exactly as ``pd.factorize(values)``: order of first appearance, -1 for NaN/None.

    Codes may come as int32 (the narrowest type that holds them) rather than intp; the
    uniques always come as a numpy array (Python ``str`` objects for text ids, whatever
    array held them).

    Object arrays whose equal values are shared objects are factorized by object address
    first; the distinct objects (usually far fewer than the rows) are then factorized by
    value, which also merges equal values held by different objects. Other object arrays
    of strings are factorized by Arrow when pyarrow is installed. Extension arrays (Arrow
    strings, nullable integers) are factorized by their own kernels.
    """
    if isinstance(values, ExtensionArray):
        arrow = _arrow_strings(values)
        if arrow is not None:
            return _factorize_arrow(arrow)
        codes, uniques = pd.factorize(values)
        return codes.astype(code_dtype(len(uniques)), copy=False), plain(uniques)
    values = np.asarray(values)
    if values.dtype.kind in "iu" and len(values) >= _MIN_ROWS:
        dense = _factorize_small_ints(values)
        if dense is not None:
            return dense
    if values.dtype != object or len(values) < _MIN_ROWS:
        codes, uniques = pd.factorize(values)
        return codes, np.asarray(uniques)
    sampled = _objects_in_sample(values)
    if sampled is None:
        arrow = _object_strings_to_arrow(values)
        if arrow is not None:
            return _factorize_arrow(arrow)
        codes, uniques = pd.factorize(values)
        return codes, np.asarray(uniques)
    values = np.ascontiguousarray(values)
    # a roomy table: fewer collisions than letting it grow from empty
    by_object, addresses = pd.factorize(_addresses(values), size_hint=min(len(values), 4 * sampled))
    row_of_object = np.empty(len(addresses), dtype=np.intp)
    for start in range(0, len(values), _CHUNK):  # in chunks: no row-number array as long as the column
        stop = min(start + _CHUNK, len(values))
        row_of_object[by_object[start:stop]] = np.arange(start, stop)  # any row of an object will do
    by_value, uniques = pd.factorize(values[row_of_object])
    return by_value.astype(code_dtype(len(uniques)))[by_object], np.asarray(uniques)


def _factorize_small_ints(values: NDArray[np.integer]) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any]] | None:
    """:func:`factorize` of integers in ``0 .. len(values) - 1``, or None for others.

    ``first[v]`` is the first row holding ``v`` (``np.minimum.at``: exact whatever order
    numpy applies it in); the distinct values sorted by their first row are the uniques in
    order of first appearance, as ``pd.factorize`` numbers them, and every row's code is one
    read of a table as long as the range. No hashing: 1.7 times faster than pandas' integer
    hash table on 12M item ids (docs/performance.md).
    """
    n = len(values)
    if n == 0 or int(values.min()) < 0 or (top := int(values.max())) >= n:
        return None
    first = np.full(top + 1, n, dtype=np.int64)
    for start in range(0, n, _CHUNK):  # in chunks: no row-number array as long as the column
        stop = min(start + _CHUNK, n)
        np.minimum.at(first, values[start:stop], np.arange(start, stop, dtype=np.int64))
    uniques = np.flatnonzero(first < n)
    uniques = uniques[np.argsort(first[uniques], kind="stable")]
    dtype = code_dtype(len(uniques))
    code_of = np.empty(len(first), dtype=dtype)  # only the slots of values present are read
    code_of[uniques] = np.arange(len(uniques), dtype=dtype)
    return code_of[values], uniques.astype(values.dtype)


def factorize_together(first: NDArray[Any] | ExtensionArray, second: NDArray[Any] | ExtensionArray
                       ) -> tuple[NDArray[np.signedinteger[Any]], NDArray[np.signedinteger[Any]], NDArray[Any]] | None:
    """Codes of two id columns in one code space, as :func:`factorize` of the two end to end.

    Every value of ``first`` gets its code before any value found only in ``second``, so the
    codes of ``first`` are ``0 .. n_first - 1`` and the values only in ``second`` follow.
    One hash pass over both columns instead of one per column and a lookup of one's uniques
    in the other's. None when the columns differ in dtype (int and float ids, text in
    different Arrow types, categoricals): those are coded one column at a time, so that
    numbers are never rounded by a common dtype.
    """
    if first.dtype != second.dtype:
        return None
    arrows = None
    if isinstance(first, ExtensionArray):
        arrows = _arrow_strings(first), _arrow_strings(second)
        if arrows[0] is None or arrows[1] is None or arrows[0].type != arrows[1].type:
            return None
    elif first.dtype == object and len(first) >= _MIN_ROWS and _objects_in_sample(first) is None:
        # converted one by one: concatenating would touch every object once more (reference counts)
        arrows = _object_strings_to_arrow(first), _object_strings_to_arrow(second)
        if arrows[0] is None or arrows[1] is None or arrows[0].type != arrows[1].type:
            arrows = None
    if arrows is None:
        codes, uniques = factorize(np.concatenate([np.asarray(first), np.asarray(second)]))
    else:
        import pyarrow as pa
        chunks = [chunk for arrow in arrows for chunk in getattr(arrow, "chunks", [arrow])]
        codes, uniques = _factorize_arrow(pa.chunked_array(chunks, type=arrows[0].type))
    return codes[:len(first)], codes[len(first):], uniques


def _arrow_strings(values: ExtensionArray) -> Any:
    """The Arrow array behind an Arrow-backed text column, else None."""
    if not _arrow_backed(values):
        return None
    import pyarrow as pa
    arrow = values.__arrow_array__()
    text = (pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)
            or getattr(pa.types, "is_string_view", lambda t: False)(arrow.type))
    return arrow if text else None


def _object_strings_to_arrow(values: NDArray[np.object_]) -> Any:
    """The values as an Arrow string array when every one is a str (or missing), else None.

    Arrow refuses anything else (numbers, bytes, strings with lone surrogates) on its own,
    so mixed columns fall back to pandas, which compares them as Python objects.
    """
    try:
        import pyarrow as pa
    except ImportError:
        return None
    for text in (pa.string(), pa.large_string()):  # 32-bit offsets hash faster; 64-bit past 2 GiB of text
        try:
            return pa.array(values, type=text, from_pandas=True)
        except pa.ArrowCapacityError:
            continue
        except (TypeError, ValueError, pa.ArrowException):  # ArrowTypeError, UnicodeEncodeError, ...
            return None
    return None


def _factorize_arrow(arrow: Any) -> tuple[NDArray[np.signedinteger[Any]], NDArray[Any]]:
    """Codes (int32, -1 for null) and uniques (Python str) from Arrow's dictionary encoding.

    Arrow numbers values in order of first appearance, as ``pd.factorize`` does.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    if len(arrow) == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=object)
    encoded = pc.dictionary_encode(arrow)
    if isinstance(encoded, pa.ChunkedArray):  # one dictionary for all chunks
        encoded = encoded.combine_chunks()
    indices = encoded.indices
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    codes = indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    return codes, np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)


def codes_in(index: pd.Index, values: NDArray[Any] | ExtensionArray) -> tuple[NDArray[np.intp], NDArray[Any]]:
    """Position of every value in ``index`` (-1 when absent or NaN), and the distinct values.

    Each distinct value is hashed once; values in runs (a ratings file grouped by user)
    are looked up once per run.
    """
    if not isinstance(values, ExtensionArray):
        values = np.asarray(values)
    starts = long_runs(values, 4) if len(values) >= max(_MIN_ROWS, 2) else None
    if starts is not None:
        lengths = np.diff(np.append(starts, len(values)))
        positions, uniques = codes_in(index, values[starts])
        return np.repeat(positions, lengths), uniques
    codes, uniques = factorize(values)
    positions = np.append(index.get_indexer(uniques), -1)  # code -1 (NaN) reads the last slot
    return positions[codes], uniques


def runs(values: NDArray[Any]) -> NDArray[np.int64]:
    """Start index of every run of equal consecutive values.

    For object arrays, neighbours that are the same object are equal without a comparison,
    so only the rows where the object changes are compared by value.
    """
    starts = _run_starts(values, len(values))
    assert starts is not None  # there are never more runs than rows
    return starts


def long_runs(values: NDArray[Any], rows_per_run: int) -> NDArray[np.int64] | None:
    """:func:`runs` when the runs average ``rows_per_run`` rows or more, else None (found cheaply)."""
    return _run_starts(values, len(values) // rows_per_run)


def _arrow_backed(values: Any) -> bool:
    dtype = getattr(values, "dtype", None)
    return isinstance(dtype, pd.ArrowDtype) or getattr(dtype, "storage", None) in ("pyarrow", "pyarrow_numpy")


def _run_starts(values: NDArray[Any] | ExtensionArray, max_runs: int) -> NDArray[np.int64] | None:
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if isinstance(values, ExtensionArray) and (not _arrow_backed(values) or n < 2):
        return None
    if n >= _MIN_ROWS and n > _PROBE:
        # a column whose first rows are not in runs (item ids) is not compared row by row
        head = _run_starts(values[:_PROBE], _PROBE)
        if head is None or len(head) > 1.5 * max_runs * _PROBE / n + 1:
            return None
    if isinstance(values, ExtensionArray):
        # neighbours compared by Arrow's kernel, in Arrow memory (no Python object per row)
        import pyarrow as pa
        import pyarrow.compute as pc
        arrow = values.__arrow_array__()
        if isinstance(arrow, pa.ChunkedArray):
            arrow = arrow.combine_chunks()
        differs = pc.fill_null(pc.not_equal(arrow[1:], arrow[:-1]), True)  # a missing id starts a run
        starts = np.flatnonzero(np.concatenate(([True], differs.to_numpy(zero_copy_only=False))))
        return starts if len(starts) <= max_runs else None
    if values.dtype == object and n >= _MIN_ROWS:
        values = np.ascontiguousarray(values)
        address = _addresses(values)
        at = np.flatnonzero(address[1:] != address[:-1]) + 1
        if 4 * len(at) < n:  # few object changes: compare just those by value
            at = at[values[at] != values[at - 1]]
            starts = np.concatenate(([0], at)).astype(np.int64)
            return starts if len(starts) <= max_runs else None
        # equal neighbours are mostly different objects: compare every neighbour by value
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(values[1:], values[:-1], out=change[1:])
    starts = np.flatnonzero(change)
    return starts if len(starts) <= max_runs else None


def descending_float_key(x: NDArray[np.floating]) -> NDArray[np.uint64]:
    """Unsigned integers that sort ascending as ``x`` sorts descending (NaN not allowed; -0.0 == 0.0)."""
    neg = np.negative(x, dtype=np.float64)
    neg += 0.0  # turns -0.0 into 0.0
    bits = neg.view(np.uint64)
    # IEEE 754: flip every bit of negatives, only the sign bit of the others
    flip = bits >> np.uint64(63)
    flip *= np.uint64(0x7FFF_FFFF_FFFF_FFFF)
    flip |= np.uint64(1 << 63)
    bits ^= flip
    return bits


def pack_rows(keys: NDArray[np.integer], row_bits: int) -> NDArray[np.uint64] | None:
    """``key << row_bits | row`` per row, or None when the keys need more than the free bits."""
    n = len(keys)
    if n and int(keys.max()) >> (64 - row_bits):
        return None
    packed = keys.astype(np.uint64)
    packed <<= np.uint64(row_bits)
    packed |= np.arange(n, dtype=np.uint64)
    return packed


def sorted_with_rows(keys: NDArray[np.int64], *, in_runs: bool = False) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Non-negative ``keys`` sorted, and the row each sorted key came from (one packed sort).

    ``in_runs``: the keys come in short unsorted runs that follow each other in order (ratings
    grouped by user, users in order); numpy's stable sort (timsort) then only sorts each run
    and merges runs that do not overlap, several times faster than its default sort.
    """
    row_bits = max(len(keys).bit_length(), 1)
    packed = pack_rows(keys, row_bits) if len(keys) else None
    if packed is None:  # keys too wide to share a word with the row
        rows = np.argsort(keys, kind="stable")
        return keys[rows], rows
    packed.sort(kind="stable" if in_runs else "quicksort")
    rows = (packed & np.uint64((1 << row_bits) - 1)).astype(np.int64)
    packed >>= np.uint64(row_bits)
    return packed.astype(np.int64), rows


def lexsort(keys: Sequence[NDArray[np.integer]]) -> NDArray[np.int64]:
    """Stable order of the rows by several non-negative integer keys, the last one primary (as ``np.lexsort``).

    The keys (less their minimum) are read as one wide integer, the first key in its lowest
    bits. That integer is sorted in radix passes of as many bits as a word leaves free next
    to a row position, lowest bits first: each pass sorts ``bits << row_bits | position``
    with ``np.sort``, the position keeping the pass stable and giving the permutation
    back. A user code and a float score of 10M rows take two passes.
    """
    n = len(keys[0])
    positions = np.arange(n, dtype=np.uint64)
    if n == 0:
        return positions.view(np.int64)
    row_bits = n.bit_length()
    free = 64 - row_bits
    fields = []  # (key, its minimum, its lowest bit in the wide integer, its width)
    offset = 0
    for key in keys:
        key = np.asarray(key)
        lo = int(key.min())
        if lo < 0:
            raise ValueError("lexsort keys must be non-negative")
        width = (int(key.max()) - lo).bit_length()
        if width:
            fields.append((key, lo, offset, width))
            offset += width
    order: NDArray[np.int64] | None = None
    for low in range(0, offset, free):
        high = min(low + free, offset)
        word = np.zeros(n, dtype=np.uint64)  # this pass's bits, in input row order
        for key, lo, start, width in fields:
            if start >= high or start + width <= low:
                continue  # no bit of this key in this pass
            part = key.astype(np.uint64)
            if lo:
                part -= np.uint64(lo)
            if low > start:
                part >>= np.uint64(low - start)
            bits = min(start + width, high) - max(start, low)
            if bits < 64:
                part &= np.uint64((1 << bits) - 1)
            if start > low:
                part <<= np.uint64(start - low)
            word |= part
        if order is not None:
            word = word[order]  # one gather per pass, whatever the number of keys in it
        word <<= np.uint64(row_bits)
        word |= positions
        word.sort()
        word &= np.uint64((1 << row_bits) - 1)
        step = word.view(np.int64)
        order = step if order is None else order[step]
    return positions.view(np.int64) if order is None else order


def sorted_unique(values: NDArray[Any]) -> NDArray[Any]:
    """``np.unique(values)`` for integers, by one sort and a mask: NumPy 2.3+ finds the uniques of
    a large integer array by hashing and then sorts them, several times slower than this."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
