# One command surface for people, CI and hooks alike.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed

CORE_VENV ?= .venv-core

.PHONY: install lint format typecheck test test-fast test-reliability test-core-install demo bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@echo "Setting up $(VENV) (first run only, about a minute): installing adk-runtime and its dev tools..."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -e '.[dev,all]'
	@echo "$(VENV) is ready."
	touch $(STAMP)

lint: install
	$(BIN)/ruff check adk_runtime tests bench migrations
	$(BIN)/ruff format --check adk_runtime tests bench migrations
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff check --fix adk_runtime tests bench migrations
	$(BIN)/ruff format adk_runtime tests bench migrations

typecheck: install
	$(BIN)/mypy adk_runtime
	$(BIN)/basedpyright

# Everything: lint, type check, a SQLite-only install, and the whole suite on every backend.
test: lint typecheck test-core-install
	$(BIN)/pytest

# The core package alone (no extra) in a venv of its own: SQLite works, missing extras say so.
test-core-install:
	test -x $(CORE_VENV)/bin/python || $(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet -e .
	cd tests && ../$(CORE_VENV)/bin/python core_install.py

# The suite without the server backends, for a machine with no PostgreSQL or Redis.
test-fast: install
	$(BIN)/pytest -m "not postgres and not redis"

# The long crash/fault/race runs (@pytest.mark.reliability) plus the property tests at 300
# examples each.
test-reliability: install
	$(BIN)/pytest tests/reliability --run-reliability

demo: install
	$(BIN)/adk-runtime demo

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,all,bench]'
	touch $(BENCH_STAMP)

# One report: bench/results/report.md and report.json (BENCH_ARGS=--quick for a smoke run).
bench: $(BENCH_STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(CORE_VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
