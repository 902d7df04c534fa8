# fiverow: every target sets up what it needs (virtual environment, system
# packages, the C extension) before it runs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXT_STAMP := $(VENV)/.extension
C_SOURCES := $(wildcard csrc/*.c csrc/*.h)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup sysdeps browser build run test bench lint format clean

all: test

# System packages: the HDF5 C library (trajectory writer) and pkg-config.
sysdeps:
	@if ! pkg-config --exists hdf5 2>/dev/null; then \
		echo "installing libhdf5-dev and pkg-config with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libhdf5-dev pkg-config >/dev/null; \
	fi

# A headless browser for the game viewer's test (Debian's chromium); without
# one that test skips, saying why.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "installing chromium with apt-get (the viewer's browser test)"; \
		($(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null) || \
		echo "chromium could not be installed: the viewer's browser test will skip"; \
	fi

$(STAMP): pyproject.toml setup.py | sysdeps
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP) $(EXT_STAMP)

setup: $(STAMP)

# Rebuild the extension in place when the C sources change.
$(EXT_STAMP): $(C_SOURCES) $(STAMP)
	$(PY) setup.py -q build_ext --inplace
	touch $(EXT_STAMP)

build: $(EXT_STAMP)

# The main job on a small built-in default: a dataset of every preset (the
# heuristic player against random), written to HDF5, and its summary.
run: build
	@mkdir -p build
	$(VENV)/bin/fiverow generate --mix all --games 480 --black heuristic --white random \
		--seed 1 --out build/run.h5 --overwrite

test: build browser
	$(PY) -m pytest -q

bench: build
	$(PY) benchmarks/bench_step.py

lint: setup
	$(VENV)/bin/ruff check python tests benchmarks examples
	$(VENV)/bin/ruff format --check python tests benchmarks examples
	$(VENV)/bin/clang-format --dry-run -Werror csrc/*.c csrc/*.h tests/c/*.c
	$(VENV)/bin/mypy

format: setup
	$(VENV)/bin/ruff format python tests benchmarks examples
	$(VENV)/bin/ruff check --fix python tests benchmarks examples
	$(VENV)/bin/clang-format -i csrc/*.c csrc/*.h tests/c/*.c

clean:
	rm -rf build $(VENV) python/fiverow/*.so tests/c/build .pytest_cache
