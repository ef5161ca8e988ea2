# Two commands: `make run` (set up + serve on the embedded default) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The CPU build of torch must be installed before anything that depends on it,
# otherwise pip resolves torch from the index with several GB of CUDA packages.
TORCH  := torch==2.13.0
STAMP_RUN  := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test test-fast coverage-fast install install-dev lint typecheck bench docs clean

run: $(STAMP_RUN)
	$(BIN)/phronesis db upgrade
	$(BIN)/phronesis serve --dev

# every test, one worker per core (each file on one worker: its module fixtures started once),
# and the 30 slowest named at the end of the log (issue 45)
PYTEST_ALL := -n auto --dist loadfile --durations=30

test: $(STAMP_TEST)
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/mypy
	$(BIN)/pytest $(PYTEST_ALL)

# the inner loop (issue 45): everything no slow marker names (pyproject's markers), on SQLite only
FAST := not (process or browser or fuzz or celery or journey or model or postgres or pgvector)
test-fast: $(STAMP_TEST)
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/pytest -n auto -m "$(FAST)"
	@echo "make test-fast left out the tests marked process, browser, fuzz, celery, journey, model, postgres, pgvector: make test runs everything"

# line coverage of the fast set (every process the tests start measured too): .coverage, then a report
coverage-fast: $(STAMP_TEST)
	rm -f .coverage .coverage.*
	COVERAGE_FILE=$(CURDIR)/.coverage $(BIN)/coverage run -m pytest -n auto -q -m "$(FAST)"
	COVERAGE_FILE=$(CURDIR)/.coverage $(BIN)/coverage combine -q
	COVERAGE_FILE=$(CURDIR)/.coverage $(BIN)/coverage report --skip-covered --sort=cover

install: $(STAMP_RUN)
install-dev: $(STAMP_TEST)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

$(STAMP_RUN): pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e '.[all]' -c requirements.lock
	touch $@

$(STAMP_TEST): $(STAMP_RUN) pyproject.toml
	$(BIN)/pip install --quiet -e '.[all]' --group dev -c requirements.lock
	touch $@

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests benchmarks examples tools

typecheck: $(STAMP_TEST)
	$(BIN)/mypy

bench: $(STAMP_TEST)
	$(BIN)/python benchmarks/bench_heuristics.py

# the documentation site, offline: the reference pages generated from the code, then mkdocs
# --strict (a broken link, a missing page or anchor fails it) into site/
docs: $(STAMP_TEST)
	$(BIN)/python -m tools.settings_reference
	$(BIN)/python -m tools.api_reference
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis .coverage .coverage.* site
