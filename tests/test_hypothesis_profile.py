"""The hypothesis profile of the suite (tests/_hypothesis.py): derandomized under ``make test``, random
under ``make fuzz`` (RANKEVAL_FUZZ_RANDOM=1), and no property test escaping it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from . import _hypothesis
from ._hypothesis import CI, FUZZ, RANDOM_ENV, deviation, profile_name

ROOT = Path(__file__).resolve().parents[1]


def test_the_loaded_profile_follows_the_environment():
    random = os.environ.get(RANDOM_ENV, "") not in ("", "0")
    loaded = settings.default
    assert settings.get_current_profile_name() == (FUZZ if random else CI)
    assert loaded.derandomize is not random
    if not random:
        assert loaded.database is None and loaded.deadline is None


@pytest.mark.parametrize(("value", "expected"), [(None, CI), ("", CI), ("0", CI), ("1", FUZZ)])
def test_the_profile_picked_for_an_environment(value, expected):
    environ = {} if value is None else {RANDOM_ENV: value}
    assert profile_name(environ) == expected
    assert settings.get_profile(expected).derandomize is (expected == CI)


@pytest.mark.parametrize(("value", "derandomized"), [(None, True), ("1", False)])
def test_conftest_loads_the_profile_of_the_environment(value, derandomized):
    """conftest.py itself, in a fresh interpreter: derandomized by default, random under RANKEVAL_FUZZ_RANDOM=1."""
    env = {k: v for k, v in os.environ.items() if k not in (RANDOM_ENV, "CI")}
    if value is not None:
        env[RANDOM_ENV] = value
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = ("import tests.conftest; from hypothesis import settings; "
            "print(settings.get_current_profile_name(), settings.default.derandomize, settings.default.database)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300, check=True)
    name, derandomize, database = out.stdout.split()
    assert (name, derandomize == "True") == ((CI, True) if derandomized else (FUZZ, False))
    assert (database == "None") is derandomized  # make test saves no failure to replay; make fuzz keeps them


def test_a_property_test_with_its_own_derandomize_or_database_is_named():
    settings.load_profile(CI)
    try:
        @given(st.integers())
        @settings(max_examples=3)
        def inherits(x):
            pass

        @given(st.integers())
        @settings(derandomize=False)
        def random(x):
            pass

        @given(st.integers())
        @settings(database=InMemoryExampleDatabase())
        def saved(x):
            pass

        assert deviation(inherits) is None and deviation(lambda: None) is None
        assert "sets derandomize=False but the loaded hypothesis profile has True" in (deviation(random) or "")
        assert "sets an example database" in (deviation(saved) or "")
    finally:
        _hypothesis.load()


def test_no_test_file_sets_its_own_profile_seed_or_database():
    """A second line behind conftest.py's check: the profile is chosen in tests/_hypothesis.py only."""
    pattern = re.compile(r"derandomize\s*=|\bdatabase\s*=|register_profile|load_profile")
    own = {Path(_hypothesis.__file__).resolve(), Path(__file__).resolve()}
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in sorted((ROOT / "tests").rglob("*.py")) if path.resolve() not in own
             and "hypothesis" in (text := path.read_text(encoding="utf-8"))
             for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    assert not found, "hypothesis settings outside tests/_hypothesis.py:\n" + "\n".join(found)
