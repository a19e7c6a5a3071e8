# Thin entry points over CMake. `make` builds everything into build/,
# `make test` runs every test through ctest, `make bench` the benchmarks.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all configure test bench clean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

bench: all
	tools/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD)
