# Two commands for a fresh machine (see README):
#   make demo   set up .venv, install trailblaze and a browser, run the example trails
#   make test   lint, type-check, run the whole test suite (the docs site's build included)
VENV ?= .venv
PYTHON ?= python3
NPM ?= npm
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# every package the development and CI environment installs, pinned with hashes (`make lock`
# regenerates it; `make test-latest` runs the suite against the newest releases instead)
LOCK := requirements/dev.txt
# pip is quiet twice over: errors still show, but not the notes of this machine's package index
# or setuptools' boxed note on editable installs
PIP := $(BIN)/python -m pip --quiet --quiet
# npm packages from package-lock.json files: the third-party MCP servers the tests run
PEERS := tests/mcp_toolsets/peers
# a real Appium 3 server with its fake driver, which the appium driver's tests run (APPIUM_HOME is the folder)
APPIUM_PEERS := tests/drivers/appium/peers
# the third-party servers the benchmarks measure against (@playwright/mcp), and the web
# applications they run an agent's task on (datasette, Django's admin: pinned in apps.txt, in an
# environment of their own)
BENCH_PEERS := benchmarks/peers
BENCH_APPS := $(BENCH_PEERS)/.venv-apps
# the @trailblaze/scripting SDK for tools in TypeScript: its sources, built with tsc into dist/,
# then bundled with esbuild into the package trailblaze carries (what the wheel holds and npm would
# publish; the build backend makes it the same way when a wheel is built)
SDK := sdks/typescript
SDK_BUNDLE := trailblaze/scripting-sdk
SDK_BUILT := $(SDK_BUNDLE)/build-info.json

.PHONY: setup browser demo demo-mcp test lint typecheck pytest peers bench-peers sdk sdk-test bench wheel smoke clean lock \
	test-latest test-playwright-range docs dist

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --require-hashes --no-deps -r $(LOCK)
	$(PIP) install --no-deps -e .
	$(BIN)/python scripts/check_lock.py $(LOCK)
	touch $(STAMP)

# after changing dependencies in pyproject.toml: pin the newest releases that satisfy them
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --quiet --extra all --extra dev --extra docs --generate-hashes --universal \
		--python-version 3.11 --custom-compile-command 'make lock' -o $(LOCK)

# the whole suite against the newest releases of everything (a separate .venv-latest); when it
# fails and `make test` passes, a new release broke something: the script names what moved
test-latest: peers
	$(PYTHON) scripts/test_latest.py $(LOCK)

# the web screen and locator tests on the oldest and the newest Playwright pyproject.toml
# allows, each in a scratch environment (.venv-playwright/) beside .venv
test-playwright-range: setup
	$(BIN)/python scripts/test_playwright_range.py

setup: $(STAMP) browser

browser: $(STAMP)
	$(BIN)/python scripts/ensure_browser.py

demo: setup
	$(BIN)/trailblaze run trails/

peers: $(PEERS)/node_modules/.installed $(APPIUM_PEERS)/node_modules/.installed $(SDK_BUILT)

bench-peers: $(BENCH_PEERS)/node_modules/.installed $(BENCH_APPS)/.installed

$(BENCH_APPS)/.installed: $(BENCH_PEERS)/apps.txt
	$(PYTHON) -m venv $(BENCH_APPS)
	$(BENCH_APPS)/bin/python -m pip --quiet --quiet install --require-hashes --no-deps -r $<
	touch $@

%/node_modules/.installed: %/package-lock.json
	$(NPM) ci --prefix $* --no-audit --no-fund
	touch $@

sdk: $(SDK_BUILT)

$(SDK_BUILT): $(SDK)/node_modules/.installed $(SDK)/tsconfig.json $(SDK)/package.json $(SDK)/README.md \
		$(wildcard $(SDK)/src/*.ts) $(SDK)/scripts/bundle.mjs trailblaze/__init__.py
	$(NPM) run --prefix $(SDK) --silent build
	$(NPM) run --prefix $(SDK) --silent bundle

# the SDK's own tests, with node's test runner
sdk-test: sdk
	cd $(SDK) && node --test test/

demo-mcp: setup $(SDK_BUILT)
	cd plugins-examples/mcp-toolsets && $(CURDIR)/$(BIN)/trailblaze run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# three pytest-xdist workers, each test file on one of them (module fixtures run once): on two
# cores the third fills the time the others wait on timeouts and servers (docs: Performance);
# `$(BIN)/pytest tests/…` runs a part of the suite in one process
# compileall first: the tests start trailblaze in hundreds of subprocesses, and where
# PYTHONDONTWRITEBYTECODE is set (as on these machines) each would compile every module again
pytest: setup peers
	$(BIN)/python -m compileall -q trailblaze tests/support
	$(BIN)/pytest -n 3 --dist loadfile --durations=15

# lint, type-check, the SDK's tests and the suite (which builds the docs site strictly:
# tests/docs/test_site.py, so a broken link fails it); then the oldest and newest Playwright the
# range allows, where they are not the locked one; then what a user installs (`make smoke`)
test: lint typecheck sdk-test pytest
	$(BIN)/python scripts/test_playwright_range.py --skip-locked
	$(MAKE) --no-print-directory smoke

# the wheel, installed into a fresh environment outside the checkout and tried as a user would:
# the getting-started commands, the examples, upstream's scripted tools, `trailblaze mcp`, the
# SDK's npm package (scripts/smoke_wheel.py says what it runs)
smoke: wheel
	$(BIN)/python scripts/smoke_wheel.py dist/trailblaze-*-py3-none-any.whl

# the documentation site (mkdocs.yml, docs/) into site/, strictly: a broken link, a missing page or
# a page left out of the nav fails it. The variables turn off the notices Material for MkDocs and
# MkDocs plugins print about MkDocs' future on every build (they are not about this site).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --quiet

bench: setup peers bench-peers
	$(BIN)/python benchmarks/run.py

# a wheel to install where the repository is not (no release is on PyPI): dist/trailblaze-*.whl
wheel: $(STAMP) $(SDK_BUILT)
	rm -rf build dist/trailblaze-*.whl
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

# what a release publishes (.github/workflows/release.yml does the same): the sdist and the wheel in
# dist/, checked as PyPI will read them (twine) and for the files they must and must not hold
dist: $(STAMP) $(SDK_BUILT)
	rm -rf build dist
	$(BIN)/python -m build --quiet --sdist --wheel --outdir dist .
	$(BIN)/twine check --strict dist/*
	$(BIN)/python scripts/check_dist.py dist

clean:
	rm -rf $(VENV) .venv-latest .venv-playwright site .pytest_cache .mypy_cache .ruff_cache .trailblaze build dist *.egg-info $(PEERS)/node_modules \
		$(APPIUM_PEERS)/node_modules \
		$(SDK)/node_modules $(SDK)/dist $(SDK_BUNDLE) $(BENCH_PEERS)/node_modules $(BENCH_APPS)
