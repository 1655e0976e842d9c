"""Switch the join's size-dependent paths on for small inputs, so that tests reach every path.

rankeval picks among exact paths by input size (``rankeval.data._keys``: address hashing,
Arrow hashing, runs found by a probe, above ``_MIN_ROWS`` rows; ``rankeval.data._join``: the
dense join chunk by chunk of users, or the sort join for very many items). Every path must
give the same lists, bit for bit, and the same errors.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import Iterator
from unittest import mock

from rankeval.data import _keys
from rankeval.data import _join as join

#: "default": as shipped; "fast": every size-gated id path on, one user per dense-join chunk;
#: "sorted_join": the sort join instead of the dense one
PATHS = ("default", "fast", "sorted_join")


@contextmanager
def id_paths(mode: str) -> Iterator[None]:
    with ExitStack() as stack:
        if mode == "fast":
            for name, value in (("_MIN_ROWS", 0), ("_SAMPLE", 8), ("_MIN_REPEATS", 2), ("_PROBE", 4)):
                stack.enter_context(mock.patch.object(_keys, name, value))
            stack.enter_context(mock.patch.object(join, "_TABLE", 1))
            stack.enter_context(mock.patch.object(join, "_ROWS_PER_CHUNK", 1))
        elif mode == "sorted_join":
            stack.enter_context(mock.patch.object(join, "_TABLE_MAX", -1))
        elif mode != "default":
            raise AssertionError(mode)
        yield
