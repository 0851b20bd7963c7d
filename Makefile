# Makefile - wraps CMake so that a fresh Debian machine needs two commands:
#   make demo   install build dependencies, build, run the demo job
#   make test   install build dependencies, build, run every test
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
DEMO_ARGS ?=

.PHONY: all deps configure build demo test sanitize fuzz bench install clean

all: build

deps:
	@scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/hay demo $(DEMO_ARGS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The same suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHAY_WERROR=ON \
	  -DHAY_SANITIZE=address,undefined -DHAY_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS)

# Short libFuzzer runs of every fuzz target (needs clang).
fuzz: deps
	scripts/fuzz-smoke $(FUZZ_SECONDS)

bench: build
	python3 bench/run.py --hay $(BUILD)/hay $(BENCH_ARGS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
