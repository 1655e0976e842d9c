"""``--metric-module``: the user's own metrics, loaded before the metric names are read.

A metric class that declares ``names`` registers them when its module runs (so does a module
calling :func:`~rankeval.register_metric`); loading the module is all the command needs to do.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ._usage import UsageError

__all__ = ["load_metric_modules", "load_metric_module"]


def load_metric_modules(specs: Sequence[str] | None) -> list[ModuleType]:
    """Every module of ``--metric-module``, in the order given."""
    return [load_metric_module(spec) for spec in specs or ()]


def load_metric_module(spec: str) -> ModuleType:
    """The module ``spec`` names, run once: a Python file (``my_metrics.py``) or the dotted
    name of an importable module (``mypackage.metrics``); a UsageError naming the flag when it
    cannot be found or fails while it runs.

    A file is run as a module of its own name in ``sys.modules`` (one per file path): the
    classes it defines have a module, as pickle and dataclasses expect."""
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise UsageError(f"--metric-module {spec!r}: no such file (give a Python file or an importable module)")
        resolved = path.resolve()
        digest = hashlib.sha1(str(resolved).encode("utf-8")).hexdigest()[:12]
        name = f"rankeval_metric_module_{digest}"
        found = importlib.util.spec_from_file_location(name, resolved)
        if found is None or found.loader is None:
            raise UsageError(f"--metric-module {spec!r}: not a Python file")
        module = importlib.util.module_from_spec(found)
        sys.modules[name] = module
        try:
            found.loader.exec_module(module)
        except Exception as exc:  # the user's code: any failure is theirs to read, with its own words
            sys.modules.pop(name, None)
            raise UsageError(f"--metric-module {spec!r} failed while it ran: {type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        raise UsageError(f"--metric-module {spec!r}: no such file or importable module ({exc})") from exc
    except Exception as exc:  # the user's code, as above
        raise UsageError(f"--metric-module {spec!r} failed while it ran: {type(exc).__name__}: {exc}") from exc
