"""The distribution's name: ``rankeval`` on PyPI is another project (a learning-to-rank analysis
tool), so this one is ``rankeval-recsys`` (the import name and the command stay ``rankeval``), and
no install line we show a user may install PyPI's ``rankeval``.

Every ``pip install`` line of the README, the docs, the examples (scripts and notebook), the
package's own messages and docstrings, the Makefile and CI's scripts is read as pip would read its
arguments; a requirement naming the distribution ``rankeval`` (bare, with extras or a version)
fails. A line that says it is another project (README, docs/scaling.md) is a warning, not an
instruction, and is passed over.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

import rankeval as rk

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
NAME = "rankeval-recsys"

#: pip, pip3, python -m pip, %pip and !pip (notebooks), uv pip: then `install` and its arguments,
#: up to the end of the line, a backtick (Markdown), a double quote (a Python or JSON string) or a
#: literal \n (a notebook's JSON)
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\s+(?P<args>(?:(?!\\n)[^`\"\n])*)")
#: a warning about PyPI's rankeval, said on the line of the pip install or on the next one
_NEGATED = re.compile(r"\b(?:another|different|other) (?:project|package)\b|\bdoes not install\b", re.I)
#: pip's options that take a value: the value is not a requirement
_VALUED = {"-c", "--constraint", "-r", "--requirement", "-t", "--target", "-i", "--index-url",
           "--extra-index-url", "-f", "--find-links", "--prefix", "--root", "-d", "--dest"}


def _scanned_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted(p for p in (ROOT / "examples").rglob("*")
                    if p.is_file() and p.suffix in {".py", ".ipynb", ".md", ".txt"} and "output" not in p.parts)
    files += sorted((ROOT / "rankeval").rglob("*.py"))
    files += sorted(p for p in (ROOT / ".ci").iterdir() if p.is_file())
    return files


def _requirements(args: str) -> list[str]:
    """The requirements among pip install's ``args`` (options and their values left out)."""
    try:
        tokens = shlex.split(args.replace("\\'", "'"), comments=True)
    except ValueError:  # an unbalanced quote cut by the line's end: split on spaces
        tokens = args.split()
    out, skip = [], False
    for token in tokens:
        if token.startswith("("):
            break  # prose after the command: "pip install X (the parquet extra)"
        if skip:
            skip = False
        elif token in _VALUED:
            skip = True
        elif not token.startswith("-") and token not in {"&&", "||", ";", "|"}:
            out.append(token.strip("'\"),."))
    return out


def names_pypi_rankeval(requirement: str) -> bool:
    """True when ``requirement`` would install the distribution ``rankeval`` from the index."""
    name = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    if name is None or "/" in requirement or requirement.endswith((".whl", ".zip", ".tar.gz")):
        return False  # a path, a URL or a file: not an index name
    return re.sub(r"[-_.]+", "-", name[1]).lower() == "rankeval"


def install_lines(text: str) -> list[tuple[int, str, list[str], bool]]:
    """Every pip install in ``text``: (line number, the line, its requirements, whether the line
    or the next says that it installs another project)."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        context = line + " " + (lines[number] if number < len(lines) else "")
        for m in _PIP_INSTALL.finditer(line):
            found.append((number, line.strip(), _requirements(m["args"]), bool(_NEGATED.search(context))))
    return found


@pytest.mark.parametrize("line, flagged", [
    ("pip install rankeval", True),
    ("`pip install 'rankeval[report]'`", True),
    ("(`pip install rankeval[plot]`); pass", True),
    ('raise ImportError("needs pyarrow: pip install \'rankeval[parquet]\'")', True),
    ('"%pip install -U rankeval==0.1.0\\n",', True),
    ("python -m pip install --no-deps Rankeval", True),
    ("pip install -e '.[report]'", False),
    ("pip install 'dist/rankeval_recsys-0.1.0-py3-none-any.whl[report]'", False),
    ("pip install 'rankeval-recsys[report]'", False),
    ("pip install -c constraints.txt ir_measures", False),
    ("pip install 'pyarrow>=15' (the parquet extra of rankeval)", False),
])
def test_the_scan_reads_pip_lines_as_pip_would(line, flagged):
    lines = install_lines(line)
    assert len(lines) == 1 and not lines[0][3]
    assert any(names_pypi_rankeval(r) for r in lines[0][2]) is flagged, lines


def test_a_warning_about_pypis_rankeval_is_not_an_instruction():
    text = "Not on PyPI: `pip install rankeval`\ninstalls a different project.\n\n`pip install rankeval`\n"
    assert [(n, w) for n, _, _, w in install_lines(text)] == [(1, True), (4, False)]


def test_pyproject_names_our_own_distribution():
    project = PYPROJECT["project"]
    assert project["name"] == NAME
    assert project["version"] == rk.__version__
    assert project["scripts"] == {"rankeval": "rankeval.cli:main"}
    # an extra that pulls in another extra names this distribution, never PyPI's rankeval
    for extra, requirements in project["optional-dependencies"].items():
        assert not [r for r in requirements if names_pypi_rankeval(r)], extra


def test_no_install_line_installs_pypis_rankeval():
    offending = []
    n_lines = 0
    for path in _scanned_files():
        for number, line, requirements, warning in install_lines(path.read_text(encoding="utf-8")):
            n_lines += 1
            if warning:
                continue
            if any(names_pypi_rankeval(r) for r in requirements):
                offending.append(f"{path.relative_to(ROOT)}:{number}: {line}")
    assert n_lines >= 10, "the scan found almost no pip install line: is its pattern broken?"
    assert not offending, "these install PyPI's rankeval, another project:\n" + "\n".join(offending)


def test_install_hints_of_the_package_are_its_extras_requirements():
    """A message's ``pip install X`` names X as pyproject.toml's extras do (same bounds)."""
    declared = {r for reqs in PYPROJECT["project"]["optional-dependencies"].values() for r in reqs}
    hints = []
    for path in sorted((ROOT / "rankeval").rglob("*.py")):
        for number, _line, requirements, _warning in install_lines(path.read_text(encoding="utf-8")):
            hints += [(f"{path.relative_to(ROOT)}:{number}", r) for r in requirements]
    assert hints
    assert [(where, r) for where, r in hints if r not in declared] == []


def test_the_reports_versions_name_the_distribution():
    from rankeval.page._card import _versions

    name, version = _versions()[0]
    assert (name, version) == (NAME, rk.__version__)


def test_readme_says_where_to_install_from():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -e '.[report]'" in readme or "pip install '.[report]'" in readme
    assert NAME in readme and "not yet on PyPI" in readme
