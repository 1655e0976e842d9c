"""The switch that keeps parity tests from vanishing: a reference package that fails to
import fails the run under ``make test`` (RANKEVAL_REQUIRE_PEERS), and only skips elsewhere.

Each case runs a parity module in a subprocess where the reference is hidden behind a
package of the same name that raises ModuleNotFoundError (not installed) or ImportError
(installed but broken).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from . import _require
from ._require import required, unavailable

ROOT = Path(__file__).resolve().parents[1]


def _run(target: list[str], hidden: str, tmp_path: Path, require: bool,
         error: str = "ModuleNotFoundError") -> subprocess.CompletedProcess[str]:
    fake = tmp_path / hidden
    fake.mkdir()
    (fake / "__init__.py").write_text(f"raise {error}('{hidden} hidden by the test')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKEVAL_REQUIRE")}
    env["PYTHONPATH"] = str(tmp_path)
    if require:
        env["RANKEVAL_REQUIRE_PEERS"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *target], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


#: a module that needs the reference at import, one that needs it inside a test, an optional frame kind
CASES = [(["--collect-only", "tests/test_peers.py"], "ranx"),
         (["tests/metrics/test_trec_metrics.py", "-k", "trec_eval_bpref and 0"], "pytrec_eval"),
         (["--collect-only", "tests/test_beyond_plots.py"], "matplotlib"),
         (["tests/test_split_splits.py", "-k", "polars_and_arrow"], "polars")]


@pytest.mark.parametrize("error", ["ModuleNotFoundError", "ImportError"])
@pytest.mark.parametrize(("target", "hidden"), CASES)
def test_a_missing_or_broken_reference_fails_the_run_when_required(target, hidden, error, tmp_path):
    out = _run(target, hidden, tmp_path, require=True, error=error)
    assert out.returncode not in (0, 5), out.stdout[-2000:]
    assert f"{hidden} hidden by the test" in out.stdout + out.stderr


@pytest.mark.parametrize(("target", "hidden"), CASES)
def test_without_the_switch_a_missing_reference_skips(target, hidden, tmp_path):
    out = _run(target, hidden, tmp_path, require=False)
    assert out.returncode in (0, 5), out.stdout[-2000:]  # 5: nothing collected, the module skipped
    assert "skipped" in out.stdout.lower(), out.stdout[-2000:]


def test_make_test_sets_the_switch():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile[makefile.index("\ntest:"):].split("\n\n")[0]
    assert "RANKEVAL_REQUIRE_PEERS=1" in recipe
    if os.environ.get("RANKEVAL_REQUIRE_PEERS"):
        assert required("ranx") and required("pytrec_eval")


def test_unavailable_fails_when_required_and_skips_otherwise(monkeypatch):
    for name in ("RANKEVAL_REQUIRE_PEERS", "RANKEVAL_REQUIRE_SPARK"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no wheel"):
        unavailable("recbole", "no wheel")
    monkeypatch.setenv("RANKEVAL_REQUIRE_PEERS", "1")
    with pytest.raises(pytest.fail.Exception, match="no wheel"):
        unavailable("recbole", "no wheel")


#: pytest's ways to skip, by the name after ``pytest.`` or ``pytest.mark.``
_SKIPS = {"importorskip", "skip", "skipif"}
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return f"{_dotted(node.value)}.{node.attr}" if isinstance(node, ast.Attribute) else ""


def _fails(handler: ast.ExceptHandler) -> bool:
    """An ``except ImportError`` that fails the test (``pytest.fail`` or a raise) rather than skip it."""
    first = handler.body[0]
    if isinstance(first, ast.Raise):
        return True
    return (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
            and _dotted(first.value.func) == "pytest.fail")


def _own_skips(path: Path, root: Path = ROOT) -> list[str]:
    """Every skip of ``path`` that does not go through tests/_require.py, as ``path:line: what`` (path from ``root``)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    # pytest.skip.Exception (what a test of a skip catches) names the exception, it does not skip
    named = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "Exception"}
    for node in ast.walk(tree):
        what = ""
        if (isinstance(node, ast.Attribute) and node.attr in _SKIPS and id(node) not in named
                and _dotted(node.value) in ("pytest", "pytest.mark")):
            what = _dotted(node)
        elif isinstance(node, ast.ImportFrom) and node.module == "pytest" and {a.name for a in node.names} & _SKIPS:
            what = "from pytest import " + ", ".join(sorted({a.name for a in node.names} & _SKIPS))
        elif isinstance(node, ast.ExceptHandler) and node.type is not None and not _fails(node):
            caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if {_dotted(c) for c in caught} & _IMPORT_ERRORS:
                what = "except ImportError that does not fail"
        if what:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {what}")
    return found


def test_every_skip_goes_through_require():
    """No test skips on a missing package (or anything else) by itself: RANKEVAL_REQUIRE_PEERS could not
    turn that skip into a failure. Use tests/_require.py's require() or unavailable()."""
    helper = Path(_require.__file__).resolve()
    found = [hit for path in sorted((ROOT / "tests").rglob("*.py")) if path.resolve() != helper
             for hit in _own_skips(path)]
    assert not found, "skips outside tests/_require.py:\n" + "\n".join(found)


def test_the_skip_guard_sees_each_way_to_skip(tmp_path):
    cases = {"pytest.importorskip": "import pytest\npolars = pytest.importorskip('polars')\n",
             "pytest.skip": "import pytest\ndef test():\n    pytest.skip('no polars')\n",
             "pytest.mark.skipif": "import pytest\n@pytest.mark.skipif(True, reason='')\ndef test():\n    pass\n",
             "from pytest import importorskip": "from pytest import importorskip\n",
             "except ImportError that does not fail": "try:\n    import polars\nexcept ImportError:\n    polars = None\n"}
    for what, source in cases.items():
        (tmp_path / "case.py").write_text(source)
        assert [hit.split(": ", 1)[1] for hit in _own_skips(tmp_path / "case.py", tmp_path)] == [what]
    (tmp_path / "case.py").write_text("import pytest\ntry:\n    import polars\nexcept ImportError:\n"
                                      "    pytest.fail('the tests need polars')\n")
    assert _own_skips(tmp_path / "case.py", tmp_path) == []


def test_a_peer_a_stack_cannot_install_skips_there_and_only_there(monkeypatch):
    from ._require import required

    monkeypatch.setenv("RANKEVAL_REQUIRE_PEERS", "1")
    monkeypatch.setenv("RANKEVAL_PEERS_ABSENT", "cornac,powerlaw")
    assert not required("cornac.eval_methods") and not required("powerlaw")
    assert required("ranx") and required("statsmodels")
    monkeypatch.delenv("RANKEVAL_PEERS_ABSENT")
    assert required("cornac")
