"""The estimator tables on disk: computed once per machine, read back by later runs.

A table of the least-squares estimators costs tens of milliseconds (100 negatives) to a
second (1000 negatives); a per-user ``n_items`` needs one per distinct ``n``, hundreds on
MovieLens. Each table is one small file in ``cache_dir()``, named by the hash of its key;
the key holds everything the table depends on (``n``, ``m``, the metric's rank function,
the estimator, ``gamma``) and everything its bits depend on (the source of ``_tables.py``,
numpy's and scipy's versions), and it is written inside the file too. A file is used only
when its format, its key and the checksum of its numbers all match; anything else (a
truncated write, another version's table, a stray file) is recomputed and overwritten.
Writes go to a temporary file in the same folder, renamed over the target in one step.

``RANKEVAL_CACHE_DIR`` moves the folder; ``RANKEVAL_NO_CACHE=1`` turns the disk cache off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import scipy
from numpy.typing import NDArray

from ...exceptions import RankevalWarning

__all__ = ["cache_dir", "load_table", "save_table", "table_key", "CACHE_ENV", "NO_CACHE_ENV"]

#: the environment variable naming the cache folder (default: $XDG_CACHE_HOME/rankeval or ~/.cache/rankeval)
CACHE_ENV = "RANKEVAL_CACHE_DIR"
#: the environment variable that turns the disk cache off (any value but "", "0", "false", "no")
NO_CACHE_ENV = "RANKEVAL_NO_CACHE"
_MAGIC = b"rankeval-sampled-table 1\n"
_SUBDIR = "sampled-tables"
#: folders a write already failed in: warned about once per process
_unwritable: set[str] = set()


def cache_dir() -> Path | None:
    """The folder of the cached tables, or None when ``RANKEVAL_NO_CACHE`` turns the cache off."""
    if os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        return None
    root = os.environ.get(CACHE_ENV, "").strip()
    if root:
        return Path(root).expanduser() / _SUBDIR
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "rankeval" / _SUBDIR


@functools.cache
def _code_version() -> str:
    """The hash of the code that computes the tables: a change to it makes every old file stale."""
    source = Path(__file__).with_name("_tables.py")
    try:
        text = source.read_bytes()
    except OSError:  # no source next to the module (a frozen install): the package version stands in
        from ..._version import __version__
        text = __version__.encode()
    return hashlib.sha256(text).hexdigest()


def table_key(n: int, m: int, value: Any, estimator: str, gamma: float) -> str | None:
    """The table's key as canonical JSON, or None for a rank function the disk cannot name.

    ``value`` is a ``RankValue`` (typed ``Any``: ``_tables`` imports this module, not the
    reverse). An NDCG's ``discount_log`` is named when it is a numpy function (``np.log2``,
    ``np.log``, ...): any other callable could compute anything, so its tables stay in memory.
    """
    log = value.discount_log
    if not isinstance(log, np.ufunc):
        return None
    return json.dumps({"n": int(n), "m": int(m), "kind": value.kind, "k": value.k, "discount": value.discount,
                       "discount_log": f"numpy.{log.__name__}", "estimator": estimator,
                       "gamma": float(gamma).hex(), "code": _code_version(), "numpy": np.__version__,
                       "scipy": scipy.__version__}, sort_keys=True)


def _path(folder: Path, key: str) -> Path:
    return folder / f"{hashlib.sha256(key.encode()).hexdigest()}.bin"


def load_table(key: str, size: int) -> NDArray[np.float64] | None:
    """The stored table of ``key`` (``size`` numbers), or None when absent, unreadable or not exactly it."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = _path(folder, key).read_bytes()
    except OSError:
        return None
    header = _MAGIC + key.encode() + b"\n"
    payload = data[len(header) + 65:]
    digest = hashlib.sha256(payload).hexdigest().encode() + b"\n"
    if not data.startswith(header + digest) or len(payload) != 8 * size:
        return None
    return np.frombuffer(payload, dtype="<f8").astype(np.float64)


def save_table(key: str, table: NDArray[np.float64]) -> None:
    """Store ``table`` under ``key`` (a temporary file renamed over the target: never a half-written file).

    A folder that cannot be written to is warned about once and the run goes on without it.
    """
    folder = cache_dir()
    if folder is None or str(folder) in _unwritable:
        return
    payload = np.ascontiguousarray(table, dtype="<f8").tobytes()
    data = _MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".table.", suffix=".partial")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, _path(folder, key))
        temporary = None
    except OSError as exc:
        _unwritable.add(str(folder))
        warnings.warn(RankevalWarning(
            f"the sampled-candidate tables cannot be cached in {folder} ({exc}); they are computed again on "
            f"every run. Set {CACHE_ENV} to a writable folder, or {NO_CACHE_ENV}=1 to turn the cache off"),
            stacklevel=2)
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
