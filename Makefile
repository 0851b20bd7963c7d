# Makefile - wraps CMake so that a fresh Debian machine needs two commands:
#   make demo   install build dependencies, build, run the demo job
#   make test   install build dependencies, build, run every test
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
DEMO_ARGS ?=

.PHONY: all deps bench-deps configure build demo test sanitize fuzz bench bench-build \
  bench-quick bench-search install clean

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

# Every seed table on this machine, peers beside us, energy, plots
# (bench/run.py, the one entry point; bench/README.md).  QUICK=1 is the CI
# mode (a few minutes on 2 cores); RECORD=MACHINE keeps the CSV as
# bench/results/MACHINE/DAY/records.csv; PARTS=search,poster,bm,gpu,pfac,sw,energy
# picks parts.  GPU rows read "skipped (no GPU)" on a machine without one.
# The benchmark programs are built with -DHAY_BENCH=ON (bench/CMakeLists.txt).
bench-deps:
	@scripts/install-deps --bench

# The Python that runs the benchmarks: python3 from PATH, unless it lacks
# matplotlib (for the plots) and the system's has it, as on machines where
# a pyenv python3 shadows Debian's python3-matplotlib.
PYTHON ?= $(shell if python3 -c 'import matplotlib' 2>/dev/null; then echo python3; \
  elif /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then echo /usr/bin/python3; \
  else echo python3; fi)

bench-build: bench-deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	  -DHAY_BENCH=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

bench: bench-build
	$(PYTHON) bench/run.py --build $(BUILD) $(if $(QUICK),--quick) \
	  $(if $(PARTS),--parts $(PARTS)) $(if $(RECORD),--record $(RECORD)) $(BENCH_ARGS)

bench-quick:
	$(MAKE) bench QUICK=1

# The search suite alone (bench/run.py search).
bench-search: bench-build
	$(PYTHON) bench/run.py search --hay $(BUILD)/hay $(BENCH_ARGS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
