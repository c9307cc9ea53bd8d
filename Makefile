# Two commands do everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
DEMO_REGISTRY := demo_registry
DT := DYNTOOLS_REGISTRY=$(DEMO_REGISTRY) $(VENV)/bin/dyntools

CHROMIUM ?= /usr/bin/chromium
# The suite waits on processes (CLI commands, workers, servers, a browser) much of its time:
# two workers, each taking whole test files (module fixtures stay shared), keep both cores
# busy. `make test TEST_WORKERS=` runs it in one process.
TEST_WORKERS ?= -n 2 --dist loadfile
CHROMIUM_INSTALL ?= yes

.PHONY: demo test lint bench fuzz clean browser

$(VENV)/bin/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11 or newer) on PATH, or make PYTHON=python3.x"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# Python 3.11's venv seeds setuptools, whose distutils-precedence.pth imports
	@# _distutils_hack at every start of every Python here (~1 ms of a `dyntools check`).
	@# Nothing needs it (hatchling builds in pip's own isolated environment), and venvs
	@# from Python 3.12 on have none. A package that requires it installs it again.
	$(PY) -m pip uninstall --quiet --yes setuptools

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(PY) -m pip install --quiet -e .
	@touch $@

# The dev install includes every framework adapter's extra and the ray executor's: their tests
# run in `make test`, and there (DYNTOOLS_REQUIRE_EXTRAS=1) a missing framework or a missing
# Ray is an error, never a skip (the Ray tests start their own local cluster on 127.0.0.1).
$(VENV)/.installed-dev: $(VENV)/bin/python pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev,adapters,ray]'
	@touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	@rm -rf $(DEMO_REGISTRY)
	@echo "== 1. ensure slugify_text: not there, so it is generated (offline templates: no key,"
	@echo "==    no network), gated, verified in the sandbox, persisted and activated; then called"
	$(DT) ensure slugify_text --params '{"text": "Hello World"}'
	@echo "== 2. the same again: already there, served from the registry, nothing generated"
	$(DT) ensure slugify_text --params '{"text": "Hello World"}'
	$(DT) call slugify_text --params '{"text": "Crème brûlée, à la carte"}'
	@echo "== 3. force a V2: it must also pass what V1 passed; then it takes new calls"
	$(DT) ensure slugify_text --new-version --params '{"text": "Hello World"}'
	$(DT) list
	$(DT) show slugify_text | head -n 5
	@echo "== 4. a file that tries to escape is refused at the gate; nothing is written"
	@$(DT) ensure word_count --generator file --from examples/attack_dunder_escape.py \
		|| echo "(exit code $$?: refused at the gate)"
	@test ! -e $(DEMO_REGISTRY)/word_count && echo "(no $(DEMO_REGISTRY)/word_count: nothing written)"
	@echo "== 5. a tool that reaches the world only through the host: page_title declares"
	@echo "==    CAPABILITIES; it is verified from the exchanges its examples record (no"
	@echo "==    network), then called for real under the demo's capability policy, which"
	@echo "==    grants one page on 127.0.0.1:8765 and nothing else"
	$(DT) ensure page_title
	@$(PY) examples/demo_server.py 8765 & server=$$!; trap 'kill $$server 2>/dev/null' EXIT; \
	  $(PY) examples/demo_server.py --wait 8765 || exit 1; \
	  echo '$$ dyntools call page_title --params {"url": "http://127.0.0.1:8765/"} --capabilities examples/demo_capabilities.toml'; \
	  $(DT) call page_title --capabilities examples/demo_capabilities.toml \
	    --params '{"url": "http://127.0.0.1:8765/"}' || exit 1; \
	  echo '$$ dyntools call page_title --params {"url": "https://example.com/"} ...  (declared, not granted)'; \
	  $(DT) call page_title --capabilities examples/demo_capabilities.toml \
	    --params '{"url": "https://example.com/"}' \
	    || echo "(exit code $$?: refused by the operator's policy; no request was made)"
	@echo "== the audit log: one JSON event per station, in $(DEMO_REGISTRY)/audit.log"
	@grep -c '"pipeline.station"' $(DEMO_REGISTRY)/audit.log | sed 's/$$/ station events/'

# The UI's page tests (tests/ui) drive Debian's chromium through Playwright; no browser can be
# downloaded here. Installed when missing and we may (root, or sudo without a password);
# otherwise (or with CHROMIUM_INSTALL=no) make test stops here and says what is missing.
browser:
	@if [ -x "$(CHROMIUM)" ] || [ "$(CHROMIUM_INSTALL)" != yes ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "== installing Debian's chromium for the UI page tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then \
		echo "== installing Debian's chromium for the UI page tests (sudo)"; \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@[ -x "$(CHROMIUM)" ] || { echo "make test: the UI page tests need Chromium and $(CHROMIUM) is missing."; \
		echo "  install Debian's package as root (apt-get install chromium), or run"; \
		echo "  make test CHROMIUM=/path/to/chromium"; exit 2; }

test: $(VENV)/.installed-dev browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy dyntools
	DYNTOOLS_REQUIRE_EXTRAS=1 DYNTOOLS_CHROMIUM=$(CHROMIUM) $(PY) -m pytest -q $(TEST_WORKERS)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy dyntools

bench: $(VENV)/.installed-dev
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# Past the suite's budget: atheris on the gate, the property tests with thousands of examples
# and the large walks whole (tests/support/budget.py), and the reachability walk.
fuzz: $(VENV)/.installed-dev
	$(PY) -m pip install --quiet -e '.[fuzz]'
	@# --timeout: one test here runs minutes (libcst's 1,000 programs took 376 s on a loaded
	@# machine), past the suite's 300 s per test; still bounded.
	DYNTOOLS_FUZZ=1 DYNTOOLS_LAYER_MUTANTS=0 $(PY) -m pytest -q -p no:cacheprovider -m '' --timeout 1800 \
		tests/gate/test_properties.py tests/gate/test_fast_paths.py \
		"tests/sandbox/test_layer_matrix.py::test_the_gate_reject_corpus_reaches_nothing_on_the_host" \
		"tests/registry/test_review_workflow.py::test_interrupting_ensure_at_random_points_leaves_the_registry_reviewable"
	$(PY) tests/fuzz/fuzz_gate.py -max_total_time=$${SECONDS_TO_FUZZ:-60} tests/fuzz/corpus
	$(PY) tests/sandbox/reachability_walk.py --calls $${WALK_CALLS:-1000000} --depth 2

clean:
	rm -rf $(VENV) $(DEMO_REGISTRY) .pytest_cache .ruff_cache .mypy_cache .hypothesis
