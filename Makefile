# Two commands for a fresh machine (see README):
#   make demo   set up .venv, install trailblaze and a browser, run the example trails
#   make test   lint, type-check, run the whole test suite
VENV ?= .venv
PYTHON ?= python3
NPM ?= npm
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# npm packages from package-lock.json files: the third-party MCP servers the tests run, and
# the JavaScript example toolset's SDK
PEERS := tests/mcp_toolsets/peers
JS_EXAMPLE := plugins-examples/mcp-toolsets/js_tools

.PHONY: setup browser demo demo-mcp test lint typecheck pytest peers bench wheel clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

setup: $(STAMP) browser

browser: $(STAMP)
	$(BIN)/python scripts/ensure_browser.py

demo: setup
	$(BIN)/trailblaze run trails/

peers: $(PEERS)/node_modules/.installed $(JS_EXAMPLE)/node_modules/.installed

%/node_modules/.installed: %/package-lock.json
	$(NPM) ci --prefix $* --no-audit --no-fund
	touch $@

demo-mcp: setup $(JS_EXAMPLE)/node_modules/.installed
	cd plugins-examples/mcp-toolsets && $(CURDIR)/$(BIN)/trailblaze run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# two pytest-xdist workers, each test file on one of them (module fixtures run once);
# `$(BIN)/pytest tests/…` runs a part of the suite in one process
# compileall first: the tests start trailblaze in hundreds of subprocesses, and where
# PYTHONDONTWRITEBYTECODE is set (as on these machines) each would compile every module again
pytest: setup peers
	$(BIN)/python -m compileall -q trailblaze tests/support
	$(BIN)/pytest -n 2 --dist loadfile

test: lint typecheck pytest

bench: setup peers
	$(BIN)/python benchmarks/run.py

# a wheel to install where the repository is not (no release is on PyPI): dist/trailblaze-*.whl
wheel: $(STAMP)
	rm -rf build dist/trailblaze-*.whl
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .trailblaze build dist *.egg-info $(PEERS)/node_modules $(JS_EXAMPLE)/node_modules
