# Front door for a fresh machine. `make run` finds or brings what is missing (tools/install-deps.sh:
# Debian's packages as root; else nothing system-wide, MPI and CMake from PyPI into $(VENV) when not on
# PATH), builds, runs the clock synchronization accuracy check, a small benchmark and the barrier
# experiments on 4 local ranks, and writes an HTML report of the three (its path is printed last);
# `make test` does the same set-up and runs every test: CTest (C, real mpirun jobs) and pytest (the
# Python analysis package).
BUILD ?= build
NP ?= 4
SPEC ?= hca3
MPIRUN := $(CURDIR)/tools/mpirun-local
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
# An MPI or CMake that tools/install-deps.sh brought from PyPI is linked here: first on PATH for every
# command below (the build, its tests and the runs use it); absent otherwise.
export PATH := $(abspath $(VENV))/isochron-bin:$(PATH)

.PHONY: all deps pydeps pyreport py-test py-report configure build drivers run test pytest bench bench-scripts clean

all: build

deps:
	@VENV=$(VENV) PYTHON=$(PYTHON) bash tools/install-deps.sh

# The Python package, editable, in $(VENV): with its test dependencies (pydeps, for `make test`) or
# without (pyreport: the report of `make run`); installed only when importing it (from this tree) or a
# dependency fails, not byte-compiled (half of pip's time; Python compiles what it imports). The venv
# is made anew only when its Python does not run (it may hold the MPI and CMake from PyPI:
# tools/install-deps.sh).
define pyinstall
@$(PY) -c 'import sys, isochron, $(1); sys.exit(not isochron.__file__.startswith("$(CURDIR)/python/"))' 2>/dev/null || { \
  echo "installing the Python package and its dependencies into $(VENV)"; \
  { $(PY) -c 'import sys' 2>/dev/null || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }; } && \
  { $(PY) -c 'import pip, sys; sys.exit(int(pip.__version__.split(".")[0]) < 21)' || $(PY) -m pip install -q --upgrade pip; } && \
  $(PY) -m pip install -q --no-compile -e '$(2)'; }
endef
# ($(,) is a comma inside $(call))
, := ,
PYMODS := pandas, matplotlib, scipy, jsonschema
pydeps: deps py-test
pyreport: deps py-report
py-test:
	$(call pyinstall,$(PYMODS)$(,) pytest$(,) ruff$(,) mypy,python[test])
py-report:
	$(call pyinstall,$(PYMODS),python)

# A plain build installs nothing (`make deps` does; run and test call it first).
configure:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# (MAKEFLAGS= : cmake's own make gets -j 2, not this make's job server)
build: configure
	MAKEFLAGS= cmake --build $(BUILD) -j 2
# the drivers `make run` runs
drivers: configure
	MAKEFLAGS= cmake --build $(BUILD) -j 2 --target isochron-clock isochron-bench isochron-barrier \
	  $$(MAKEFLAGS= cmake --build $(BUILD) --target help | grep -ow 'isochron-shmem' | head -1)

# run and test: the set-up first, then the build and the Python package side by side (pip mostly waits
# for the network and the disk)
run: deps
	@$(MAKE) --no-print-directory -j 2 drivers py-report
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-clock --sync $(SPEC) --wait 0,1,10 --jsonl $(BUILD)/clock-run.jsonl
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-bench --ops allreduce,bcast --sizes 8,1K,64K --raw --jsonl $(BUILD)/bench-run.jsonl
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-barrier --calls 300 --trials 100 --payoff-trials 50 --jsonl $(BUILD)/barrier-run.jsonl
	@# OpenSHMEM, when built (mpirun-local turns Open MPI's memory patcher off: README "OpenSHMEM")
	@rm -f $(BUILD)/shmem-run.jsonl
	@if [ -x $(BUILD)/isochron-shmem ]; then $(MPIRUN) -np $(NP) $(BUILD)/isochron-shmem --ops rma,nbi,bcast_method --sizes 8,4K --jsonl $(BUILD)/shmem-run.jsonl; fi
	@echo "report:"
	@$(VENV)/bin/isochron report $(BUILD)/clock-run.jsonl $(BUILD)/bench-run.jsonl $(BUILD)/barrier-run.jsonl $$(ls $(BUILD)/shmem-run.jsonl 2>/dev/null) -o $(BUILD)/report

# Runs that must fail (label "error") mostly wait for mpirun and run 4 at a time; the rest one by one.
test: deps
	@$(MAKE) --no-print-directory -j 2 build py-test
	cd $(BUILD) && rc=0; ctest --output-on-failure --timeout 300 -L error -j 4 || rc=1; \
	  ctest --output-on-failure --timeout 300 -LE 'error|bench_scripts' || rc=1; exit $$rc
	$(PY) -m pytest -q python/tests

# every bench script once in its quick mode (BENCH_QUICK=1; tests/bench_scripts): minutes, not in `test`
bench-scripts: build
	cd $(BUILD) && ctest --output-on-failure -L bench_scripts

pytest: pydeps
	$(PY) -m pytest -q python/tests

bench: build
	bash bench/clock_accuracy.sh
	bash bench/engine_schemes.sh
	bash bench/barrier_sync.sh

clean:
	rm -rf $(BUILD)
