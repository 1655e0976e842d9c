"""LensKit 2026.4.0's own re-ranking metrics, loaded from its wheel's source files.

LensKit 2026.4.0 requires Python >= 3.12.5 and this machine's interpreter is 3.11 (its Debian
packages offer no newer one, and PyPI's Python distributions fetch their builds from elsewhere,
so no second interpreter can run it). The two
functions are pure Python over numpy, so their files are read from the wheel itself (fetched
once with ``pip download --no-deps --only-binary=:all: --python-version 3.12.5 --platform
manylinux_2_28_x86_64`` into ``RANKEVAL_DATA_CACHE``, else ``~/.cache/rankeval``, and checked
against its SHA-256; ``RANKEVAL_LENSKIT2026_WHEEL`` may point at it) and executed unchanged:

- ``lenskit/metrics/reranking/_rbo.py`` (``rank_biased_overlap``),
- ``lenskit/metrics/reranking/_lip.py`` (``least_item_promoted``),
- ``lenskit/metrics/ranking/_weighting.py`` (``GeometricRankWeight``, the RBO weights).

Only the imports they name that cannot be imported here are stubbed, each with the part of
the original it stands for:

- ``lenskit.data.ItemList`` (``lenskit/data/_items.py``): an ordered list of ids with
  ``len()``, slicing (``__getitem__`` -> ``_take``) and ``ids()`` (the numpy id array) -- all
  that the two functions call;
- ``lenskit.data.types.NPVector`` (``lenskit/data/types.py``: an alias of ``np.ndarray``),
  used only in annotations;
- ``pydantic`` (``validate_call``, ``NonNegativeInt``, ``PositiveFloat``) and
  ``annotated_types`` (``Gt``, ``Lt``), when not installed: the argument checks of
  ``GeometricRankWeight(patience)``; the tests pass patiences in (0, 1) only, which they accept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import types
import zipfile
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

WHEEL = "lenskit-2026.4.0-cp312-abi3-manylinux_2_28_x86_64.whl"
WHEEL_SHA256 = "28bc581cb63f4ca6b031a58fa4b8493a2c7eef97a813727b164105daf4c4ac4b"
WEIGHTING = "lenskit/metrics/ranking/_weighting.py"
RBO = "lenskit/metrics/reranking/_rbo.py"
LIP = "lenskit/metrics/reranking/_lip.py"


def wheel() -> Path | None:
    """The wheel on disk (fetched once), or None when pip cannot fetch it."""
    given = os.environ.get("RANKEVAL_LENSKIT2026_WHEEL")
    if given:
        return Path(given)
    cache = Path(os.environ.get("RANKEVAL_DATA_CACHE", Path.home() / ".cache" / "rankeval"))
    path = cache / WHEEL
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
                            "-q", "--only-binary=:all:", "--python-version", "3.12.5", "--platform",
                            "manylinux_2_28_x86_64", "lenskit==2026.4.0", "-d", str(cache)],
                           check=True, timeout=300, capture_output=True)
        except (subprocess.SubprocessError, OSError):
            return None
    return path if path.exists() else None


class ItemList:
    """Stub of ``lenskit.data.ItemList``: the ids in list order."""

    def __init__(self, ids: Any) -> None:
        self._ids = np.asarray(ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, sel: Any) -> ItemList:
        return ItemList(self._ids[sel])

    def ids(self) -> np.ndarray:
        return self._ids


def _module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def _stubs() -> dict[str, types.ModuleType]:
    out = {"lenskit": _module("lenskit", __path__=[]), "lenskit.data": _module("lenskit.data", ItemList=ItemList),
           "lenskit.data.types": _module("lenskit.data.types", NPVector=np.ndarray)}
    if importlib.util.find_spec("pydantic") is None:
        out["pydantic"] = _module("pydantic", validate_call=lambda f: f, NonNegativeInt=int, PositiveFloat=float)
    if importlib.util.find_spec("annotated_types") is None:
        out["annotated_types"] = _module("annotated_types", Gt=lambda bound: ("gt", bound),
                                         Lt=lambda bound: ("lt", bound))
    return out


def _run(archive: zipfile.ZipFile, member: str, name: str) -> types.ModuleType:
    module = _module(name)
    sys.modules[name] = module
    exec(compile(archive.read(member).decode("utf-8"), member, "exec"), module.__dict__)
    return module


def load(path: Path) -> types.SimpleNamespace:
    """``rank_biased_overlap``, ``least_item_promoted``, ``GeometricRankWeight`` and the
    ``ItemList`` stub, from the wheel at ``path`` (checked against its SHA-256)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == WHEEL_SHA256, f"{path} is not LensKit 2026.4.0's wheel (sha256 {digest})"
    with zipfile.ZipFile(path) as archive, mock.patch.dict(sys.modules, _stubs()):
        weighting = _run(archive, WEIGHTING, "lenskit.metrics.ranking._weighting")
        sys.modules["lenskit.metrics"] = _module("lenskit.metrics", GeometricRankWeight=weighting.GeometricRankWeight,
                                                 RankWeight=weighting.RankWeight)
        rbo = _run(archive, RBO, "lenskit.metrics.reranking._rbo")
        lip = _run(archive, LIP, "lenskit.metrics.reranking._lip")
    return types.SimpleNamespace(rank_biased_overlap=rbo.rank_biased_overlap,
                                 least_item_promoted=lip.least_item_promoted,
                                 GeometricRankWeight=weighting.GeometricRankWeight, ItemList=ItemList)
