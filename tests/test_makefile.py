"""The Makefile as a user meets it: every ``make TARGET`` the README, the docs, pyproject.toml,
CI's scripts and the Makefile's own comments name is a target of the Makefile, and the Makefile
finds a Python >= 3.11 by itself (any of 3.11, 3.12, 3.13, python3) or says to pass ``PYTHON=``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = ROOT / "Makefile"
MAKE = shutil.which("make")


def makefile_targets() -> set[str]:
    """The targets of the Makefile: rule heads and .PHONY names (variables' values left unexpanded)."""
    text = MAKEFILE.read_text(encoding="utf-8")
    targets = set()
    for line in text.splitlines():
        head = re.match(r"^([A-Za-z0-9_.$()/ -]+?)\s*:(?!=)", line)
        if head and not line.startswith(("\t", "#")):
            targets.update(head[1].split())
    phony = re.search(r"^\.PHONY:(.*)$", text, flags=re.M)
    assert phony is not None
    return targets | set(phony[1].split())


def _mentions(text: str, *, code_only: bool) -> set[str]:
    """``make X`` in ``text``: in Markdown only as code (an inline span, or a line of a fenced
    block), where prose ("make the column one type", a wrapped line starting "make two runs")
    is not a command; in comments, every one."""
    if not code_only:
        return set(re.findall(r"\bmake ([a-z][\w-]*)", text))
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    code = [*re.findall(r"`([^`\n]+)`", prose), *fenced]
    return {t for piece in code for t in re.findall(r"(?:^|\$ )\s*make ([a-z][\w-]*)", piece, flags=re.M)}


def _comments(path: Path) -> str:
    return "\n".join(line.split("#", 1)[1] for line in path.read_text(encoding="utf-8").splitlines() if "#" in line)


def mentioned_targets() -> dict[str, set[str]]:
    """Each file's ``make`` targets."""
    found = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        found[str(page.relative_to(ROOT))] = _mentions(page.read_text(encoding="utf-8"), code_only=True)
    for path in (ROOT / "pyproject.toml", MAKEFILE):
        found[path.name] = _mentions(_comments(path), code_only=False)
    for path in sorted((ROOT / ".ci").iterdir()):
        found[f".ci/{path.name}"] = _mentions(path.read_text(encoding="utf-8"), code_only=False)
    return found


def test_the_scan_finds_commands_not_prose():
    page = "run `make test-oldest` or\n```bash\nmake demo   # x\n$ make docs\n```\nto make the column\nmake two runs"
    assert _mentions(page, code_only=True) == {"test-oldest", "demo", "docs"}
    assert "mutation" in makefile_targets() and "$(VENV)/.created" in makefile_targets()


def test_every_make_target_named_in_the_docs_exists():
    targets = makefile_targets()
    mentioned = mentioned_targets()
    assert {"demo", "test", "docs"} <= mentioned["README.md"]
    dangling = {f"{where}: make {t}" for where, names in mentioned.items() for t in names if t not in targets}
    assert not dangling, f"not targets of the Makefile: {sorted(dangling)}"


def _fake_path(tmp_path: Path, pythons: dict[str, str | None]) -> str:
    """A PATH holding only ``pythons``: a name to an interpreter's path, or to None for a command
    that fails as a pyenv shim of an unselected version does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, target in pythons.items():
        if target is None:
            (bin_dir / name).write_text(f"#!/bin/sh\necho 'pyenv: {name}: command not found' >&2\nexit 127\n")
            (bin_dir / name).chmod(0o755)
        else:
            (bin_dir / name).symlink_to(target)
    return str(bin_dir)


def _make(tmp_path: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert MAKE is not None, "make is not installed"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHON", "MAKEFLAGS", "MAKELEVEL"}}
    env["PATH"] = path
    return subprocess.run([MAKE, "--no-print-directory", "-f", str(MAKEFILE), *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60)


def test_the_makefile_finds_a_newer_python_when_python311_is_missing(tmp_path):
    # only python3.12 runs (here: this interpreter, >= 3.11 by requires-python); python3.11 fails
    path = _fake_path(tmp_path, {"python3.12": os.path.realpath(sys.executable), "python3.11": None})
    out = _make(tmp_path, path, "--eval", "_python: ; @echo \"$(PYTHON)\"", "_python")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python3.12"
    # PYTHON= names it outright
    out = _make(tmp_path, path, "--eval", "_python: ; @echo \"$(PYTHON)\"", "_python", "PYTHON=/opt/py/bin/python3")
    assert out.stdout.strip() == "/opt/py/bin/python3"


def test_without_a_python_311_make_says_to_pass_python(tmp_path):
    path = _fake_path(tmp_path, {"python3.11": None, "python3": None})
    out = _make(tmp_path, path, ".venv/.created")
    assert out.returncode != 0
    assert "no Python 3.11 or newer on PATH" in out.stderr and "PYTHON=" in out.stderr, out.stderr
    assert not (tmp_path / ".venv").exists()
    out = _make(tmp_path, path, ".venv/.created", "PYTHON=python3.99")
    assert out.returncode != 0 and "PYTHON=python3.99 is not a command" in out.stderr, out.stderr
