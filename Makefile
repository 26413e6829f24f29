# Front door for a fresh machine. `make run` installs what is missing, builds,
# and runs the main job (clock synchronization accuracy check on 4 local
# ranks); `make test` does the same set-up and runs every test.
BUILD ?= build
NP ?= 4
SPEC ?= hca3
MPIRUN := $(CURDIR)/tools/mpirun-local

.PHONY: all deps build run test bench clean

all: build

deps:
	@bash tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j 2

run: build
	$(MPIRUN) -np $(NP) $(BUILD)/isochron-clock --sync $(SPEC) --wait 0,1,10 --jsonl $(BUILD)/clock-run.jsonl
	@echo "results: $(BUILD)/clock-run.jsonl"

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300

bench: build
	bash bench/clock_accuracy.sh

clean:
	rm -rf $(BUILD)
