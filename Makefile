# Front door for a fresh machine. `make run` installs what is missing, builds, runs the clock
# synchronization accuracy check, a small benchmark and the barrier experiments on 4 local
# ranks, and writes an HTML report of the three (its path is printed last); `make test` does the same set-up and runs every
# test: CTest (C, real mpirun jobs) and pytest (the Python analysis package).
BUILD ?= build
NP ?= 4
SPEC ?= hca3
MPIRUN := $(CURDIR)/tools/mpirun-local
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: all deps pydeps build run test pytest bench bench-scripts clean

all: build

deps:
	@bash tools/install-deps.sh

# The Python package, editable, with its test dependencies, in $(VENV); reinstalled only when
# importing it (from this tree) or a dependency fails.
pydeps: deps
	@$(PY) -c 'import isochron, pandas, matplotlib, scipy, pytest, jsonschema, ruff, mypy, sys; \
	  sys.exit(not isochron.__file__.startswith("$(CURDIR)/python/"))' 2>/dev/null || { \
	  echo "installing the Python package and its dependencies into $(VENV)"; \
	  rm -rf $(VENV) && $(PYTHON) -m venv $(VENV) && \
	  $(PY) -m pip install -q --upgrade pip && \
	  $(PY) -m pip install -q -e 'python[test]'; }

# A plain build installs nothing (`make deps` does; run and test call it first).
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j 2

run: deps build pydeps
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-clock --sync $(SPEC) --wait 0,1,10 --jsonl $(BUILD)/clock-run.jsonl
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-bench --ops allreduce,bcast --sizes 8,1K,64K --raw --jsonl $(BUILD)/bench-run.jsonl
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-barrier --calls 300 --trials 100 --payoff-trials 50 --jsonl $(BUILD)/barrier-run.jsonl
	@# OpenSHMEM, when built (mpirun-local turns Open MPI's memory patcher off: README "OpenSHMEM")
	@rm -f $(BUILD)/shmem-run.jsonl
	@if [ -x $(BUILD)/isochron-shmem ]; then $(MPIRUN) -np $(NP) $(BUILD)/isochron-shmem --ops rma,nbi,bcast_method --sizes 8,4K --jsonl $(BUILD)/shmem-run.jsonl; fi
	@echo "report:"
	@$(VENV)/bin/isochron report $(BUILD)/clock-run.jsonl $(BUILD)/bench-run.jsonl $(BUILD)/barrier-run.jsonl $$(ls $(BUILD)/shmem-run.jsonl 2>/dev/null) -o $(BUILD)/report

# Runs that must fail (label "error") mostly wait for mpirun and run 4 at a time; the rest one by one.
test: deps build pydeps
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
