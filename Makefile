# Thin wrapper over CMake. The two README commands are `make demo` and `make test`;
# each installs what it needs first, so they work on a fresh Debian 12 machine.

JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=

.PHONY: all deps build build-asan test test-plain test-asan demo bench fuzz crash-campaign image clean

all: build

deps:
	deploy/install-deps.sh build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMUSTER_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# Both builds, every test: once plain, once under AddressSanitizer + UBSan.
test:
	deploy/install-deps.sh test
	$(MAKE) test-plain
	$(MAKE) test-asan

test-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

demo:
	deploy/install-deps.sh demo
	$(MAKE) build
	$(BUILD)/musterd --demo --db $(BUILD)/demo.db --scenario deploy/scenarios/demo.yaml

bench:
	deploy/install-deps.sh bench
	$(MAKE) build
	$(BUILD)/muster-bench

# libFuzzer campaigns (clang). FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	deploy/install-deps.sh test
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DMUSTER_FUZZ=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	for t in build-fuzz/fuzz-*; do n=$$(basename $$t); \
	  $$t -max_total_time=$(FUZZ_SECONDS) build-fuzz/corpus-$$n $$(test -d tests/fuzz/seeds/$$n && echo tests/fuzz/seeds/$$n) || exit 1; done

# The container image from deploy/Dockerfile, built with buildah (no Docker engine), then
# smoke-tested: musterd --demo in the image answers /healthz. Takes minutes; not part of test.
image:
	deploy/build-image.sh

# The long crash campaign of issue 15 (not in `make test`): tests/integration/dispatch_crash.sh
# with CRASH_POINTS kills (half the restarts armed with a named step boundary), then the
# convergence check. About 20 minutes for 1,000 points on two cores (docs/testing.md).
CRASH_POINTS ?= 1000
CRASH_SEED ?= $(shell date +%s)
crash-campaign: build
	mkdir -p $(BUILD)/test-tmp
	cd $(BUILD) && MUSTER_TEST_TMP=$$PWD/test-tmp MUSTER_CRASH_POINTS=$(CRASH_POINTS) \
	  MUSTER_CRASH_SEED=$(CRASH_SEED) MUSTER_CRASH_NAMED=1 MUSTER_STREAM_PAUSE=0.25 \
	  MUSTER_CRASH_CONVERGE=900 \
	  ../tests/integration/dispatch_crash.sh ./musterd ./muster-sim ./muster-dispatch-check

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
