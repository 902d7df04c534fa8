# fiverow: every target sets up what it needs (virtual environment, system
# packages, the C extension) before it runs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXT_STAMP := $(VENV)/.extension
C_SOURCES := $(wildcard csrc/*/*.c csrc/*/*.h)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all setup sysdeps browser fuzzdeps build run test check fuzz bench lint format clean wheel sdist test-portable docs

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

# clang with libFuzzer and OpenMP: the fuzz targets of the C core (tests/fuzz/),
# which the suite builds. Probed by compiling a tiny target.
fuzzdeps:
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' | \
		clang -x c - -fsanitize=fuzzer,address,undefined -fopenmp -o /dev/null 2>/dev/null; then \
		echo "installing clang, libclang-rt-dev and libomp-dev with apt-get"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq clang libclang-rt-dev libomp-dev >/dev/null; \
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

# The main job on a small built-in default (`fiverow demo`): self-play of
# heuristic(epsilon=0.1) on every preset to HDF5, the first seat's advantage
# per preset with its interval, one game per preset in the HTML viewer, and
# every output's path. It needs the package only, not the test extras.
RUN_STAMP := $(VENV)/.installed-run
$(RUN_STAMP): pyproject.toml setup.py | sysdeps
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(RUN_STAMP)

run: $(RUN_STAMP)
	$(PY) setup.py -q build_ext --inplace
	$(VENV)/bin/fiverow demo --out build/run --overwrite

# The test suite (README: which command runs what). `make test`: every test of
# the package's behaviour, in parallel on every core (pytest-xdist; tests that
# share a module's fixture, like one Ray, stay on one worker: a file is one
# unit of work), then the ones that cannot
# share the machine (timing, kill races), alone. `make check`: `make test`, then
# the heavy checks marked slow (the wheel in a fresh venv without the system
# HDF5, the long sanitizer and fuzz runs, the kill runs), the portable build
# and the docs site. Quick local loop: `pytest -n auto --dist loadfile -m "not slow and not serial"`.
PYTEST_PARALLEL := -n auto --dist loadfile
# pytest's status 5 is "no test selected": a pass with nothing to run
PYTEST_ALONE := $(PY) tests/run_selected.py -q -p no:xdist
test: build browser fuzzdeps
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not slow and not serial"
	$(PYTEST_ALONE) -m "serial and not slow"

check: test test-portable docs
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m "slow and not serial"
	$(PYTEST_ALONE) -m "slow and serial"

# Long fuzz runs: FUZZ_SECONDS per libFuzzer target (5 targets: 30 min by
# default), then the property tests with many examples. New corpus entries
# and crashes go to build/fuzz/ (docs/fuzzing.md).
FUZZ_SECONDS ?= 360
fuzz: build fuzzdeps
	$(PY) tests/fuzz/run_fuzz.py --seconds $(FUZZ_SECONDS) --out build/fuzz
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q tests/test_properties.py

bench: build
	$(PY) benchmarks/bench_step.py

# A wheel for any x86-64 (csrc/base/cpu_dispatch.h) with the HDF5 C library inside
# (fiverow.libs/, by auditwheel), built from the sdist so that nothing of this
# tree's own build (objects compiled for this CPU) leaks in; both go to dist/.
wheel: setup
	rm -rf build/wheel
	FIVEROW_DISPATCH=1 $(PY) -m build --no-isolation --outdir build/wheel .
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/auditwheel repair --wheel-dir dist build/wheel/*.whl
	cp build/wheel/*.tar.gz dist/

# The portable C (no -march, no CPU intrinsics: what a compiler for any CPU
# family builds) in its own tree, through the tests of the rules and the envs.
PORTABLE_TESTS := tests/test_golden.py tests/test_rules_lines.py tests/test_renju_rule.py \
	tests/test_gomorpion.py tests/test_hex.py tests/test_modlinseq.py tests/test_determinism.py \
	tests/test_state.py tests/test_connect6.py tests/test_pente.py
test-portable: setup
	rm -rf build/portable && mkdir -p build/portable && cp -r python/fiverow build/portable/
	rm -f build/portable/fiverow/*.so
	FIVEROW_MARCH= CFLAGS=-DFIVEROW_NO_INTRINSICS $(PY) setup.py -q build_ext \
		--build-lib build/portable --build-temp build/portable-obj --force
	PYTHONPATH=build/portable $(PY) -c 'import fiverow; assert fiverow.__file__.startswith("$(CURDIR)/build/portable")'
	PYTHONPATH=build/portable $(PY) -m pytest -q -p no:cacheprovider -n auto $(PORTABLE_TESTS)

sdist: setup
	$(PY) -m build --sdist --no-isolation --outdir dist .

# The documentation site (Sphinx, furo, MyST) with warnings as errors, then
# looked at in a headless browser (screenshots in docs/screenshots/).
docs: build browser
	rm -rf docs/_build
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html
	$(PY) docs/check_site.py docs/_build/html

lint: setup
	$(VENV)/bin/ruff check python tests benchmarks examples
	$(VENV)/bin/ruff format --check python tests benchmarks examples
	$(VENV)/bin/clang-format --dry-run -Werror csrc/*/*.c csrc/*/*.h tests/c/*.c tests/fuzz/*.c tests/fuzz/*.h
	$(PY) tests/check_rooms.py
	$(VENV)/bin/mypy

format: setup
	$(VENV)/bin/ruff format python tests benchmarks examples
	$(VENV)/bin/ruff check --fix python tests benchmarks examples
	$(VENV)/bin/clang-format -i csrc/*/*.c csrc/*/*.h tests/c/*.c tests/fuzz/*.c tests/fuzz/*.h

clean:
	rm -rf build dist $(VENV) python/fiverow/*.so tests/c/build .pytest_cache
