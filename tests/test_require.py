"""The switch that keeps parity tests from vanishing: a reference package that fails to
import fails the run under ``make test`` (RANKEVAL_REQUIRE_PEERS), and only skips elsewhere.

Each case runs a parity module in a subprocess where the reference is hidden behind a
package of the same name that raises ModuleNotFoundError (not installed) or ImportError
(installed but broken).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ._require import required

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


#: a module that needs the reference at import, one that needs it inside a test
CASES = [(["--collect-only", "tests/test_peers.py"], "ranx"),
         (["tests/metrics/test_trec_metrics.py", "-k", "trec_eval_bpref and 0"], "pytrec_eval"),
         (["--collect-only", "tests/test_beyond_plots.py"], "matplotlib")]


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
