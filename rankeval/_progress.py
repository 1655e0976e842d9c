"""Progress bars: tqdm's text bar, or its notebook widget where ipywidgets can draw one.

``tqdm.auto`` picks the widget in any Jupyter kernel and, where ipywidgets is not
installed, warns ``TqdmWarning: IProgress not found`` as soon as it is imported, whether a
bar is then shown or not. :func:`progress_bar` asks for the widget only in a Jupyter kernel
that has ipywidgets; anywhere else it gives the text bar (on standard error), and a bar that
is off imports nothing but ``tqdm.std``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

__all__ = ["progress_bar"]


def progress_bar(*, enabled: bool = True, **options: Any) -> Any:
    """A tqdm bar taking ``options`` (``total``, ``desc``, ``unit``, ...); a disabled one when not ``enabled``."""
    if enabled and _widgets_available():
        from tqdm.notebook import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm(**options) if enabled else tqdm(disable=True, **options)


def _widgets_available() -> bool:
    """In a Jupyter kernel (tqdm.autonotebook's test: not a Qt console or Spyder) with ipywidgets installed."""
    if "ipykernel.zmqshell" not in sys.modules:
        return False
    if any(name == "QT_API" or name.startswith("SPYDER") for name in os.environ):
        return False
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)()
    kind = type(shell).__name__.lower()
    if shell is None or "qt" in kind or "spyder" in kind:
        return False
    return importlib.util.find_spec("ipywidgets") is not None
