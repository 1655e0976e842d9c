"""The suite's hypothesis profiles: the same examples on every run of ``make test``, new ones under ``make fuzz``.

``tests/conftest.py`` registers both profiles and loads the one :func:`profile_name` picks
before any test module is imported, so every ``@settings(...)`` of a property test inherits
it (a settings object copies what it does not set from the profile loaded when it is made):

- ``rankeval-ci`` (the default: ``make test``, CI, a plain pytest run): ``derandomize=True``,
  hypothesis seeds each test from a hash of the test itself, and no example database (a
  failure saved on one machine would change what the next run on it draws). Two runs of
  the same code draw the same examples, so a red run is one anyone reproduces.
- ``rankeval-fuzz`` (``RANKEVAL_FUZZ_RANDOM=1``, set by ``make fuzz``): new examples every run,
  and the failing ones kept in hypothesis's database (``.hypothesis/``) to be replayed.

A property test that sets ``derandomize`` or ``database`` itself would escape the profile:
:func:`deviation` names it, and ``conftest.py`` fails such a test before it runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hypothesis import settings

__all__ = ["CI", "FUZZ", "RANDOM_ENV", "fuzz_random", "profile_name", "load", "deviation"]

#: the profile of ``make test`` and of a plain pytest run
CI = "rankeval-ci"
#: the profile of ``make fuzz``
FUZZ = "rankeval-fuzz"
#: the environment variable that selects :data:`FUZZ`
RANDOM_ENV = "RANKEVAL_FUZZ_RANDOM"

settings.register_profile(CI, deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile(FUZZ, deadline=None, derandomize=False, print_blob=True)


def fuzz_random(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``environ`` (default ``os.environ``) asks for random examples: RANKEVAL_FUZZ_RANDOM set, not "0"."""
    environ = os.environ if environ is None else environ
    return environ.get(RANDOM_ENV, "") not in ("", "0")


def profile_name(environ: Mapping[str, str] | None = None) -> str:
    """The profile ``environ`` (default ``os.environ``) selects: :data:`FUZZ` or :data:`CI`."""
    return FUZZ if fuzz_random(environ) else CI


def load(environ: Mapping[str, str] | None = None) -> str:
    """Load the profile ``environ`` (default ``os.environ``) selects; returns its name."""
    name = profile_name(environ)
    settings.load_profile(name)
    return name


def deviation(test: Any) -> str | None:
    """Why a hypothesis test does not follow the loaded profile, or None (also for a plain function).

    Parameters
    ----------
    test : callable
        A test function, wrapped by ``@given`` or not.

    Returns
    -------
    str or None
        What differs: ``derandomize``, or an example database where the profile has none.
    """
    used = getattr(test, "_hypothesis_internal_use_settings", None)
    if used is None:
        return None
    profile = settings.default
    assert profile is not None
    name = getattr(test, "__name__", repr(test))
    if used.derandomize != profile.derandomize:
        return (f"{name} sets derandomize={used.derandomize} but the loaded hypothesis profile has "
                f"{profile.derandomize}: leave derandomize to tests/_hypothesis.py's profiles")
    if profile.database is None and used.database is not None:
        return (f"{name} sets an example database ({used.database!r}) where the loaded hypothesis profile has "
                f"none: a saved failure would change what the next run draws; leave it to tests/_hypothesis.py")
    return None
