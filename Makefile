# One command surface for people, CI and hooks alike.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed

CORE_VENV ?= .venv-core

# make demo needs the runtime and its command line only, not the dev tools: it reuses $(VENV)
# when make install made one, else it installs adk-runtime with the 'server' extra (the
# command line, and the HTTP server the demo's closing lines suggest) into a venv of its own.
DEMO_VENV ?= .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed

# Reproducible installs: every install below takes the exact versions the suite passed on from
# constraints.txt (pyproject.toml states the ranges). make test-latest tries the newest
# releases within those ranges in a venv of its own; make constraints then records them.
CONSTRAINTS := constraints.txt
LATEST_VENV ?= .venv-latest
LATEST_STAMP := $(LATEST_VENV)/.passed

# google-adk's source as files, read (never imported) by tests/parity: installed without its
# dependencies in a directory of its own (the pin is the google-adk extra's, in pyproject.toml;
# the dev extra also installs google-adk itself for tests/integrations and tests/browser).
ADK_REFERENCE := $(VENV)/adk-reference
ADK_REFERENCE_STAMP := $(ADK_REFERENCE)/.installed

.PHONY: install lint format typecheck docs test system-deps test-fast test-reliability test-core-install test-latest constraints demo bench clean

install: $(STAMP) $(ADK_REFERENCE_STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@echo "Setting up $(VENV) (first run only, about a minute): installing adk-runtime and its dev tools..."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -c $(CONSTRAINTS) -e '.[dev,all]'
	@echo "$(VENV) is ready."
	touch $(STAMP)

$(ADK_REFERENCE_STAMP): pyproject.toml | $(STAMP)
	rm -rf $(ADK_REFERENCE)
	$(BIN)/python -m pip install --quiet --no-deps --target $(ADK_REFERENCE) \
		"$$(grep -o 'google-adk==[^"]*' pyproject.toml | head -n 1)"
	touch $(ADK_REFERENCE_STAMP)

lint: install
	$(BIN)/ruff check adk_runtime tests bench migrations docs/hooks
	$(BIN)/ruff format --check adk_runtime tests bench migrations docs/hooks
	$(BIN)/lint-imports
	$(BIN)/pytest -q -p no:cacheprovider tests/unit/test_layers.py

format: install
	$(BIN)/ruff check --fix adk_runtime tests bench migrations docs/hooks
	$(BIN)/ruff format adk_runtime tests bench migrations docs/hooks

typecheck: install
	$(BIN)/mypy adk_runtime
	$(BIN)/basedpyright

# The documentation site (mkdocs.yml) into site/; --strict: a broken link or anchor, a page
# missing from the nav, or a docstring griffe cannot read fails the build (make test runs
# it). NO_MKDOCS_2_WARNING silences the theme's banner about its successor.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Everything: lint, type check, the docs site, a SQLite-only install, and the whole suite on
# every backend (tests/test_docs_examples.py runs the docs' code blocks).
# Four pytest workers (pytest-xdist): much of the suite's time is spent waiting on the
# processes and servers the tests start (PostgreSQL, Redis, a Spanner emulator per worker), so
# on a 2-core machine four workers finish the suite in about 15 minutes where three take 17.
# Every test makes its own database, key prefix and ports.
PYTEST_WORKERS ?= 4

test: lint typecheck docs test-core-install system-deps
	$(BIN)/pytest -n $(PYTEST_WORKERS)

# Debian packages the tests start themselves (PgBouncer, in front of the test PostgreSQL;
# chromium and its driver for tests/browser, which drives serve --dev-ui): installed when
# missing and this runs as root; otherwise a one-line error says what to install. (The
# chromium-driver package's command is chromedriver.) The Cloud Spanner emulator the Spanner
# tests start comes from Google Cloud's apt repository, which this does not add: when it is
# missing, the one-line error names the package and the repository.
SYSTEM_PACKAGES := pgbouncer chromium chromium-driver
SPANNER_EMULATOR := /usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main
system-deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
	  c=$$p; [ $$p = chromium-driver ] && c=chromedriver; \
	  command -v $$c >/dev/null 2>&1 || test -x /usr/sbin/$$c || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian packages for the tests:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing:$$missing -- install the Debian package(s) (apt-get install$$missing)" >&2; exit 1; fi; \
	fi
	@test -x $${SPANNER_EMULATOR_BINARY:-$(SPANNER_EMULATOR)} || { echo "missing: the Cloud Spanner emulator ($(SPANNER_EMULATOR)) -- install the Debian package google-cloud-cli-spanner-emulator from Google Cloud's apt repository (https://packages.cloud.google.com/apt), or set SPANNER_EMULATOR_BINARY" >&2; exit 1; }

# The core package alone (no extra) in a venv of its own: SQLite works, missing extras say so.
test-core-install:
	test -x $(CORE_VENV)/bin/python || $(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet -c $(CONSTRAINTS) -e .
	cd tests && ../$(CORE_VENV)/bin/python core_install.py

# The whole suite on the newest releases pyproject.toml allows (constraints.txt ignored), in
# $(LATEST_VENV), so a new release that breaks us is seen before users see it. Afterwards pip
# lists the releases beyond pyproject.toml's upper bounds (widen a bound once they pass).
test-latest: system-deps
	rm -f $(LATEST_STAMP)
	test -x $(LATEST_VENV)/bin/python || $(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install --upgrade --upgrade-strategy eager -e '.[dev,all]'
	rm -rf $(LATEST_VENV)/adk-reference
	$(LATEST_VENV)/bin/python -m pip install --quiet --no-deps --target $(LATEST_VENV)/adk-reference \
		"$$(grep -o 'google-adk==[^"]*' pyproject.toml | head -n 1)"
	ADK_RUNTIME_ADK_REFERENCE=$(abspath $(LATEST_VENV))/adk-reference $(LATEST_VENV)/bin/pytest -n $(PYTEST_WORKERS)
	touch $(LATEST_STAMP)
	$(LATEST_VENV)/bin/python -m pip list --outdated --exclude-editable

# Rewrite constraints.txt from the venv make test-latest passed in (run that first).
constraints:
	@test -f $(LATEST_STAMP) || { echo "run make test-latest first: constraints.txt records only versions the suite passed on" >&2; exit 1; }
	{ sed -n '/^#/p' $(CONSTRAINTS); \
	  $(LATEST_VENV)/bin/python -m pip freeze --exclude-editable | grep -viE '^adk[-_]runtime([=@ ]|$$)'; \
	} > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)

# The suite without the server backends, for a machine with no PostgreSQL, Redis or Spanner
# emulator.
test-fast: install
	$(BIN)/pytest -m "not postgres and not redis and not redis_cluster and not spanner"

# The long crash/fault/race runs (@pytest.mark.reliability) plus the property tests at 300
# examples each.
test-reliability: install
	$(BIN)/pytest tests/reliability tests/server/test_fuzz.py --run-reliability

$(DEMO_STAMP): pyproject.toml $(CONSTRAINTS)
	@echo "Setting up $(DEMO_VENV) (first run only, under a minute): installing adk-runtime with its command line..."
	test -x $(DEMO_VENV)/bin/python || $(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS) -e '.[server]'
	@echo "$(DEMO_VENV) is ready."
	touch $(DEMO_STAMP)

ifneq ($(wildcard $(STAMP)),)
demo: $(STAMP)
	$(BIN)/adk-runtime demo
else
demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/adk-runtime demo
endif

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[dev,all,bench]'
	touch $(BENCH_STAMP)

# One report: bench/results/report.md and report.json (BENCH_ARGS=--quick for a smoke run).
bench: $(BENCH_STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(CORE_VENV) $(LATEST_VENV) $(DEMO_VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis site
