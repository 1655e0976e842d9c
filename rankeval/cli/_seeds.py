"""Training seeds on the command line: ``--system NAME[SEED]=PATH`` names one run of a system.

The runs of a system (``knn[s0]``, ``knn[s1]``, ...) are handed to :func:`~rankeval.compare`
as ``{"knn": {"s0": frames, "s1": frames}}``; the seed table and the verdicts per pair are
printed after the comparison.
"""

from __future__ import annotations

import re
from typing import Any

from ..evaluation import ComparisonResult
from ._output import render
from ._usage import UsageError

__all__ = ["seed_base", "group_seeds", "render_seeds"]

_RUN = re.compile(r"(.+)\[([^\[\]]+)\]")


def seed_base(name: str) -> str:
    """The system a ``NAME[SEED]`` run belongs to (``name`` itself when it names no seed)."""
    match = _RUN.fullmatch(name)
    return match.group(1) if match else name


def group_seeds(frames: dict[str, Any]) -> dict[str, Any]:
    """``{"knn[s0]": f0, "knn[s1]": f1, "pop": p}`` as ``{"knn": {"s0": f0, "s1": f1}, "pop": p}``."""
    out: dict[str, Any] = {}
    for name, value in frames.items():
        match = _RUN.fullmatch(name)
        base = match.group(1) if match else name
        if (match is None) == isinstance(out.get(base), dict) and base in out:
            raise UsageError(f"--system {base!r} is given both as one system and as seed runs {base}[SEED]: "
                             f"give every run as {base}[SEED]=PATH, or none")
        if match is None:
            out[name] = value
        else:
            out.setdefault(base, {})[match.group(2)] = value
    return out


def render_seeds(res: ComparisonResult, fmt: str, digits: int | None) -> str:
    """The seed table and the verdicts per pair under their titles (as ``--posthoc`` prints its tables)."""
    if res.seeds is None or res.seed_pairs is None:
        return ""
    out = []
    for title, frame in (("spread over training seeds", res.seeds),
                         ("differences against the seed-to-seed spread", res.seed_pairs)):
        heading = {"markdown": f"**{title}**\n\n", "latex": f"% {title}\n"}.get(fmt, f"{title}:\n")
        out.append("\n" + heading + render(frame, fmt, digits))
    return "".join(out)
