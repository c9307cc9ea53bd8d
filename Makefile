# Two commands do everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
DEMO_REGISTRY := demo_registry

.PHONY: demo test lint bench fuzz clean

$(VENV)/bin/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11 or newer) on PATH, or make PYTHON=python3.x"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: $(VENV)/bin/python pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	@echo "== the gate accepts a well-formed tool"
	$(VENV)/bin/dyntools check examples/slugify_text.py
	@echo "== the gate rejects an escape attempt, with its reasons"
	-$(VENV)/bin/dyntools check examples/attack_dunder_escape.py

test: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy dyntools

bench: $(VENV)/.installed-dev
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

fuzz: $(VENV)/.installed-dev
	$(PY) -m pip install --quiet -e '.[fuzz]'
	$(PY) tests/fuzz/fuzz_gate.py -max_total_time=$${SECONDS_TO_FUZZ:-60} tests/fuzz/corpus

clean:
	rm -rf $(VENV) $(DEMO_REGISTRY) .pytest_cache .ruff_cache .mypy_cache .hypothesis
