"""A griffe extension of the documentation site: the reST roles of the numpydoc docstrings as
Markdown, so the API pages show formulas as math (pymdownx.arithmatex) and names as code.

``.. math::`` blocks become ``$$ ... $$``, ``:math:`x``` becomes ``$x$``, and
``:class:`X```, ``:func:`X```, ``:meth:`X```, ``:attr:`X``` and ``:mod:`X``` become ``X`` as code.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*\n(?P<body>(?:[ \t]*\n|(?P=indent)[ \t]+\S.*\n?)+)",
                    re.MULTILINE)
_INLINE = re.compile(r":math:`([^`]+)`")
_ROLE = re.compile(r":(?:class|func|meth|attr|mod|obj|data|exc):`~?([^`]+)`")


def rst_to_markdown(text: str) -> str:
    """The docstring ``text`` with its reST math and cross-reference roles written as Markdown."""
    def block(m: re.Match[str]) -> str:
        indent = m["indent"]
        body = textwrap.dedent(m["body"]).strip("\n")
        return f"{indent}$$\n" + textwrap.indent(body, indent) + f"\n{indent}$$\n\n"

    text = _BLOCK.sub(block, text)
    text = _INLINE.sub(lambda m: f"${m[1]}$", text)
    return _ROLE.sub(lambda m: f"`{m[1]}`", text)


class RstMath(griffe.Extension):
    """Rewrites every docstring griffe reads (see :func:`rst_to_markdown`)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
