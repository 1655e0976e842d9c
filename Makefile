# Two commands do all the set-up: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test install install-test bench clean

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml constraints.txt
	$(PIP) install -c constraints.txt -e '.[plot]'
	touch $@

$(VENV)/.installed-test: $(VENV)/.created pyproject.toml constraints.txt
	$(PIP) install -c constraints.txt -e '.[test,plot,parquet]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: $(VENV)/.installed
	$(PY) examples/demo.py

test: $(VENV)/.installed-test
	$(PY) -m pytest rankeval tests

bench: $(VENV)/.installed-test
	$(PY) benchmarks/bench_core.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
