"""How big a block may be: the memory model of a ranking.

The bytes a ranking adds to what the caller holds are *fixed* ones (the item vectors as
ranked: permuted, normalized or padded; the seen and allowed items as positions; the
result, ``n_users * k`` scores and item codes) plus those of one block of ``rows`` users x
``width`` items, the block's scores and every array made from them:

.. math::

    \\text{block} = rows \\cdot \\big(width \\cdot (s + 1 + a) + g \\cdot 2 s + (3k + c) \\cdot 4 (s + 8)
    + m \\cdot 16\\big)

with ``s`` the bytes of a score, ``a`` one byte when per-user candidates are masked (and
``s`` more when a scoring function returns its own block), ``g`` the group maxima, ``c``
the candidates a row passes to the merge (about ``k``; a margin of ``k``) and ``m`` the
most pairs (seen or allowed items) a user has.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._kernel import block_layout

__all__ = ["Plan", "plan_blocks", "format_bytes", "TARGET_BLOCK_BYTES", "MIN_BLOCK_ROWS"]

#: the largest block of scores worth making (shared by the workers' blocks): larger blocks amortize
#: the BLAS's packing of the item matrix and the kernel's per-block steps. On an ML-20M-sized
#: ranking (2 cores), with today's kernel: 52 to 256 MiB equally fast, 26 MiB 3% and 13 MiB 25% slower
TARGET_BLOCK_BYTES = 256 * 2**20

#: the fewest rows a block has when the budget allows them, however wide a row: the BLAS packs
#: the whole item matrix at every call, which a few rows of a 1M-item catalog do not amortize
#: (1,000 users x 1M items: 1.94 ms a user with blocks of 67 users, 1.56 with 134)
MIN_BLOCK_ROWS = 256


@dataclass(frozen=True)
class Plan:
    """Blocks of ``rows`` users x ``items`` items (padded to ``width`` columns in ``n_groups`` groups)."""

    rows: int
    items: int
    width: int
    n_groups: int
    block_bytes: int
    fixed_bytes: int


def format_bytes(n: float) -> str:
    """``n`` bytes in words: '1.5 GiB', '300 MiB'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def _row_bytes(width: int, n_groups: int, k: int, itemsize: int, extra_per_cell: int, most_pairs: int) -> int:
    """Bytes one user of a block costs (see the module's formula)."""
    return (width * (itemsize + 1 + extra_per_cell) + n_groups * 2 * itemsize + 4 * k * 4 * (itemsize + 8)
            + most_pairs * 16)


def plan_blocks(n_users: int, n_items: int, k: int, itemsize: int, *, budget: int, fixed: int,
                extra_per_cell: int, most_pairs: int) -> Plan:
    """The largest blocks within ``budget - fixed`` bytes (and :data:`TARGET_BLOCK_BYTES` of scores, or
    :data:`MIN_BLOCK_ROWS` rows when these are more).

    Whole item rows first (no merge across item blocks); when one whole row does not fit,
    one user at a time over the widest item block that fits.

    Raises
    ------
    ValueError
        Not even one user x ``min(n_items, 4k)`` items fits: the message gives the smallest budget that works.
    """
    left = budget - fixed
    n_groups, width = block_layout(n_items, k)
    per_row = _row_bytes(width, n_groups, k, itemsize, extra_per_cell, most_pairs)
    if per_row <= left:
        most = max(TARGET_BLOCK_BYTES // (width * itemsize), MIN_BLOCK_ROWS)
        rows = max(1, min(n_users, left // per_row, most))
        return Plan(int(rows), n_items, width, n_groups, int(rows * per_row), fixed)
    smallest = min(n_items, 4 * k)
    items = smallest
    while items < n_items:  # the widest block that fits, by halving the gap (a few steps)
        wider = min(n_items, items * 2)
        g, w = block_layout(wider, k)
        if _row_bytes(w, g, k, itemsize, extra_per_cell, most_pairs) > left:
            break
        items = wider
    n_groups, width = block_layout(items, k)
    per_row = _row_bytes(width, n_groups, k, itemsize, extra_per_cell, most_pairs)
    if per_row > left:
        raise ValueError(f"`memory` of {format_bytes(budget)} is too small: the ranking's fixed arrays take "
                         f"{format_bytes(fixed)} and one block (1 user x {items:,} items) "
                         f"{format_bytes(per_row)}; the smallest budget that works is {fixed + per_row:,} bytes "
                         f"({format_bytes(fixed + per_row)})")
    return Plan(1, items, width, n_groups, per_row, fixed)
