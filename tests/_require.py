"""The packages the suite compares with or drives: required under ``make test``, skipped elsewhere.

``make test`` (and CI) sets ``RANKEVAL_REQUIRE_PEERS``: a reference that is missing, or
that fails to import (a new NumPy breaking numba, say), then fails its tests instead of
skipping them, so that no parity test can vanish while the suite stays green.
``RANKEVAL_REQUIRE_SPARK`` does the same for pyspark alone. Without either, a test whose
reference is not installed is skipped, as ``pytest.importorskip`` does.

This is the only place in tests/ that skips: a test that needs an optional package calls
:func:`require`, one that needs something else a package brings (its console script, a file
pip fetches) calls :func:`unavailable`. ``tests/test_require.py`` fails on any
``pytest.importorskip``, ``pytest.skip``, ``skipif``, or ``except ImportError`` that does not
fail, in any other file of tests/.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

__all__ = ["require", "required", "unavailable"]

_SPARK = ("pyspark", "grpc")


def required(module: str) -> bool:
    """Whether a missing ``module`` must fail the run (rather than skip the test).

    ``RANKEVAL_PEERS_ABSENT`` (comma-separated) names the references a stack cannot install
    (``make test-oldest``: Cornac 3.0.1 needs NumPy > 2): their tests skip there, and run
    under ``make test``."""
    if module.split(".")[0] in os.environ.get("RANKEVAL_PEERS_ABSENT", "").split(","):
        return False
    if os.environ.get("RANKEVAL_REQUIRE_PEERS"):
        return True
    return bool(os.environ.get("RANKEVAL_REQUIRE_SPARK")) and module.split(".")[0] in _SPARK


def require(module: str) -> ModuleType:
    """Import ``module``: any failure raises when it is required, else the test is skipped."""
    if required(module):
        return importlib.import_module(module)
    return pytest.importorskip(module)


def unavailable(module: str, reason: str) -> NoReturn:
    """What ``module`` brings is missing (its console script, a file fetched with it): fail the test when
    ``module`` is required, else skip it, with ``reason`` either way."""
    if required(module):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)
