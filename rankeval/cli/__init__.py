"""The ``rankeval`` command: evaluate, compare and report from the shell."""

from ._main import main

__all__ = ["main"]
