"""The command's name and how a bad command line is reported (a ``UsageError``, status 2)."""

from __future__ import annotations

from typing import Any

from ..data.internal import check_integer

__all__ = ["PROG", "UsageError", "check_option_integer"]

PROG = "rankeval"


class UsageError(ValueError):
    """A problem with the command line itself (reported like any user error)."""


def check_option_integer(option: str, value: Any, low: int, high: int) -> int:
    """``value`` if it is an integer from ``low`` to ``high``, else a UsageError naming ``option``.

    The range is checked by :func:`~rankeval.data._validation.check_integer`, as the API
    checks its parameters; the message is the command line's: one sentence with both
    bounds (``--digits must be an integer from 0 to 17, got 20``).
    """
    try:
        return check_integer(option, value, low, high)
    except ValueError:
        raise UsageError(f"{option} must be an integer from {low} to {high:,}, got {value}") from None
