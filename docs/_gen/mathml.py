"""A MkDocs hook of the documentation site (mkdocs.yml): every formula as MathML, written at build time.

pymdownx.arithmatex (``generic: true``) leaves the TeX of the guides and of the docstrings
(docs/_gen/griffe_rst.py) in ``<span class="arithmatex">\\(...\\)</span>`` and
``<div class="arithmatex">\\[...\\]</div>``; this hook replaces each by the MathML that
latex2mathml (pure Python, the ``docs`` extra) converts it to, the TeX kept in an
``<annotation>`` (copy and screen readers). Browsers draw MathML themselves: the pages load no
script and no font for math, and read offline as online (docs/decisions.md, issue 39 row 12).

A formula latex2mathml cannot convert, or converts leaving a TeX command in its output, stops
the build (``mkdocs build --strict``) naming the page and the formula.
"""

from __future__ import annotations

import html
import re
from typing import Any

from latex2mathml.converter import convert

_ARITHMATEX = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<tex>.*?)</(?P=tag)>', re.S)
_DELIMITERS = re.compile(r"\\\((?P<inline>.*)\\\)|\\\[(?P<block>.*)\\\]", re.S)
_MATH = re.compile(r"^<math (?P<attrs>[^>]*)>(?P<body>.*)</math>$", re.S)
#: TeX commands latex2mathml does not know, written with the ones it does (same rendering)
_REWRITES = {r"\arg": r"\operatorname{arg}"}
_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z\s])")


class MathError(ValueError):
    """A formula of the docs that cannot be written as MathML."""


def tex_to_mathml(tex: str, display: bool) -> str:
    """The MathML ``<math>`` element of the TeX ``tex`` (no delimiters), with ``tex`` as its annotation.

    Parameters
    ----------
    tex : str
        The formula's TeX, without ``\\(`` / ``\\[`` delimiters.
    display : bool
        A display formula (its own block) if true, inline otherwise.

    Returns
    -------
    str
        ``<math display=...><semantics><mrow>...</mrow><annotation encoding="application/x-tex">``.

    Raises
    ------
    MathError
        latex2mathml fails on ``tex``, or leaves a backslash (a command it does not know) in
        the MathML, which a browser would show as raw TeX.
    """
    source = _COMMAND.sub(lambda m: _REWRITES.get(m[0], m[0]), tex)
    try:
        mathml = convert(source, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises its own and plain exceptions alike
        raise MathError(f"cannot convert the formula {tex!r} to MathML: {exc}") from exc
    if "\\" in mathml or "&#x0005C;" in mathml:
        raise MathError(f"the formula {tex!r} has a TeX command latex2mathml does not know: {mathml}")
    match = _MATH.match(mathml)
    if match is None:
        raise MathError(f"latex2mathml gave no <math> element for {tex!r}: {mathml}")
    return (f"<math {match['attrs']}><semantics><mrow>{match['body']}</mrow>"
            f'<annotation encoding="application/x-tex">{html.escape(tex, quote=False)}</annotation>'
            "</semantics></math>")


def arithmatex_to_mathml(page_html: str, where: str) -> str:
    """``page_html`` with every arithmatex element's TeX replaced by its MathML (see :func:`tex_to_mathml`).

    Parameters
    ----------
    page_html : str
        A page's HTML as pymdownx.arithmatex wrote it.
    where : str
        The page, named in an error.

    Returns
    -------
    str
        The same HTML, each ``class="arithmatex"`` element holding a ``<math>`` element.
    """
    def one(m: re.Match[str]) -> str:
        text = html.unescape(m["tex"]).strip()
        delimited = _DELIMITERS.fullmatch(text)
        # an environment (\begin{cases}...) written without delimiters is a display formula
        tex, display = ((delimited["inline"], False) if delimited and delimited["inline"] is not None
                        else (delimited["block"], True) if delimited else (text, True))
        try:
            mathml = tex_to_mathml(tex.strip(), display)
        except MathError as exc:
            raise MathError(f"{where}: {exc}") from exc
        return f'<{m["tag"]} class="arithmatex">{mathml}</{m["tag"]}>'

    return _ARITHMATEX.sub(one, page_html)


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    """Every page's formulas as MathML (the guides' and the API reference's)."""
    return arithmatex_to_mathml(html_text, page.file.src_uri)
