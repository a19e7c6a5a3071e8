# Thin entry points over CMake. `make` builds everything into build/,
# `make test` runs every test through ctest, `make check` the quick tier of
# them for day-to-day work, `make soak` a fork soak of every
# instance (tools/soak.py), `make bench` the benchmarks,
# `make install [PREFIX=...]` installs (docs/mortise.md).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all configure test check soak bench install clean tags

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

# Every test once, then one more run of each failed test that is not labelled
# hang_sensitive (the machine is shared: foreign load can break a wall-clock
# bound once); a hang_sensitive test (fork, threads, churn, sync, programs:
# a failure there can be a hang) fails the run at its first failure. The end
# names every test that passed only on the retry, and the last line is
# `make test: P passed, F failed` (tools/run_tests.py, docs/testing.md).
# CTEST_ARGS='-L conformance' narrows the first run.
test: all
	tools/run_tests.py $(BUILD) -j $(JOBS) --timeout 900 $(if $(CTEST_ARGS),-- $(CTEST_ARGS))

# The quick tier (docs/testing.md): the core's and the port layer's unit
# tests, every trunk, add-on, OS-layer, sync, stats and safety test of its
# own layer, every instance's conformance cases api and random (linked), the
# spec compiler, the catalogue and reference-page checks (check_catalogue.py,
# check_docs.py), the C sources' format (tools/check_format.sh; --fix
# rewrites them) and the zero-cost proof (gcc). What
# it leaves to `make test`: the other conformance cases and modes, the
# bad-input corpus, fuzzing, sanitizers, real programs, the ports and the
# paper's lines.
CHECK_TESTS = ^(unit|pal|check|safety|stats|addons|sockets|layer_example|instances|affinity_pool|wfslab_mem|os_layers|sync|bench_harness|trunk_[a-z_]+)[.]|^conformance[.][a-z_0-9]+[.]linked[.](api|random)$$|^zero_cost[.][a-z_0-9]+$$|^tools[.](unit|check_catalogue|check_docs|format)$$
check: all
	tools/run_tests.py $(BUILD) -j $(JOBS) --timeout 900 --name 'make check' -- -R '$(CHECK_TESTS)'

# `make soak INSTANCES=hslab,affinity MODES=static,preload FORKS=500`: the
# conformance fork case, FORKS (2000) forks per instance and mode under 4
# allocating threads, hangs and failures counted apart (tools/soak.py,
# docs/testing.md). Not part of `make test`.
SOAK_ARGS = $(if $(INSTANCES),--instances=$(INSTANCES)) $(if $(MODES),--modes=$(MODES)) \
	$(if $(FORKS),--forks=$(FORKS))
soak: configure
	cmake --build $(BUILD) --target soak_deps -j $(JOBS)
	tools/soak.py $(BUILD) $(SOAK_ARGS)

# `make bench ALLOCATORS=wfslab,mimalloc WORKLOADS=larson RUNS=5 THREADS=4
# FULL=1 NO_INSTALL=1 SCALE=N PROFILES=0|1`: tools/bench.py's options (docs/bench.md).
# Then the affinity benchmarks side by side (tools/affinity_bench.py,
# docs/affinity.md; AFFINITY=0 skips them) and the scaling of tlsfcc's
# combining lock against tlsf's mutex at 1, cores and 2 x cores threads
# (tools/scaling_bench.py, docs/bench.md; SCALING=0 skips it).
BENCH_ARGS = $(if $(ALLOCATORS),--allocators=$(ALLOCATORS)) $(if $(WORKLOADS),--workloads=$(WORKLOADS)) \
	$(if $(RUNS),--runs=$(RUNS)) $(if $(THREADS),--threads=$(THREADS)) $(if $(SCALE),--scale=$(SCALE)) \
	$(if $(filter-out 0,$(FULL)),--full) $(if $(filter-out 0,$(NO_INSTALL)),--no-install) \
	$(if $(PROFILES),$(if $(filter-out 0,$(PROFILES)),--profiles,--no-profiles))

bench: configure
	cmake --build $(BUILD) --target bench_deps -j $(JOBS)
	tools/bench.sh $(BUILD) $(BENCH_ARGS)
	$(if $(filter 0,$(AFFINITY)),,tools/affinity_bench.py $(BUILD) --runs $(or $(RUNS),5) --scale 0.2 \
		$(if $(filter-out 0,$(NO_INSTALL)),--no-install))
	$(if $(filter 0,$(SCALING)),,tools/scaling_bench.py $(BUILD) --runs $(or $(RUNS),5))

# Headers, every built allocator library, the mortise command, mortise.pc and
# the CMake package (cmake/MortiseInstall.cmake) under PREFIX (default: the
# configured CMAKE_INSTALL_PREFIX, /usr/local); DESTDIR is honoured.
PREFIX ?=
install: all
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# A tags file (vi, emacs with etags-compatible readers) that also finds the
# functions the preprocessor writes (shared fragments' MT_SELF(x), renamed
# instances, the glue of compositions that call MT_COMPOSE themselves) by
# their real names: `vi -t mmap_heap_alloc` (tools/tags.py; needs
# universal-ctags). The ready allocators' glue and forwarders are plain C in
# instances/chains/ (tools/compose_chain.py), which grep and ctags find as is.
tags:
	tools/tags.py -o tags

clean:
	rm -rf $(BUILD)
