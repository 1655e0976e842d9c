"""The metric card of the page: convention, relevance, ties, missing users, tests, the bands'
settings, the metrics' parameters, versions and the command that made the page."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._version import DISTRIBUTION, __version__
from ..views.internal import describe_tests
from ._view import View

if TYPE_CHECKING:
    from ..metrics import RankingMetric

#: the folder of the rankeval package: frames inside it are not the caller's
_PACKAGE = Path(__file__).resolve().parents[1]

__all__ = ["card", "default_command"]


def _versions() -> list[tuple[str, str]]:
    """rankeval (by the name pip installs it under), Python, the libraries the numbers and figures
    come from, and the platform."""
    # the version of the code that ran, not the installed metadata's (an editable install's can lag)
    out = [(DISTRIBUTION, __version__), ("python", platform.python_version())]
    for package in ("numpy", "pandas", "scipy", "matplotlib", "jinja2"):
        try:
            out.append((package, importlib.metadata.version(package)))
        except importlib.metadata.PackageNotFoundError:
            out.append((package, "not installed"))
    out.append(("platform", platform.platform()))
    return out


def _relevance(objects: list[RankingMetric] | None) -> str:
    """Which truth scores count as relevant, per threshold, with the metrics that use it."""
    if not objects:
        return "not recorded in a ComparisonResult: pass metrics= to report() to show it"
    thresholds: dict[str, list[str]] = {}
    for m in objects:
        thresholds.setdefault(repr(m.relevant_threshold), []).append(str(m))
    if not thresholds:
        return "no metric uses a relevance threshold (graded metrics use the truth score as gain)"
    parts = []
    for value, names in thresholds.items():
        what = ("each user's mean truth score (relevant = score ≥ it)" if value == "None"
                else f"truth score ≥ {value}")
        parts.append(f"{what}: {', '.join(names)}")
    return "; ".join(parts)


def card(view: View, command: str) -> dict[str, Any]:
    """The metric card's items, the metrics with their parameters, the versions and ``command``."""
    from .. import conventions

    preset = conventions.get_convention(view.convention) if view.convention in conventions.names() else None
    ties = view.ties or (f"{preset.ties} (the convention's default; an explicit ties= is not recorded in a "
                         f"ComparisonResult)" if preset is not None else "row_order")
    missing = view.missing_users or (preset.missing_users if preset is not None else "ignore")
    peer = f" ({preset.peer})" if preset is not None and preset.peer != view.convention else ""
    items = [("convention", view.convention + peer),
             ("relevance", _relevance(view.metric_objects)),
             ("ties", ties),
             ("missing users", missing)]
    if view.score_order == "ascending":  # said only when it is not the default
        items.insert(3, ("scores", "lower is better (score_order='ascending')"))
    res = view.comparison
    if res is not None:
        items.append(("tests", describe_tests(res)))
    items += [(k, v) for k, v in view.call_settings.items()]
    metrics = [repr(m) for m in view.metric_objects] if view.metric_objects else list(view.metrics)
    return {"items": items, "metrics": metrics, "versions": _versions(), "command": command}


def default_command(kind: str, path: Path | None, options: Mapping[str, Any]) -> str:
    """The call, the line that made it and the process's command line.

    The line that made the page is the first frame outside the rankeval package (decorators
    and the command line add frames of their own between it and :func:`report`).
    """
    shown = ", ".join([kind, *(f"{k}={v!r}" for k, v in options.items())])
    if path is not None:
        shown = f"{kind}, path={str(path)!r}, " + ", ".join(f"{k}={v!r}" for k, v in options.items())
    package = str(_PACKAGE) + os.sep
    caller = sys._getframe(1)
    while caller.f_back is not None and caller.f_code.co_filename.startswith(package):
        caller = caller.f_back
    where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
    argv = shlex.join([Path(sys.executable).name, *sys.argv]) if sys.argv and sys.argv[0] else sys.executable
    return f"rankeval.report({shown.rstrip(', ')})\n# called from {where}\n# process: {argv}"

