"""Warnings that point at the caller's line, however deep inside rankeval they are raised."""

from __future__ import annotations

import os
import sys
import warnings

from ..exceptions import RankevalWarning

__all__ = ["warn"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message: str, category: type[Warning] = RankevalWarning) -> None:
    """``warnings.warn`` attributed to the first frame outside rankeval (the caller's code)."""
    level = 1
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
        level += 1
    warnings.warn(message, category, stacklevel=level + 1)
