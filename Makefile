# The front door: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
OUT ?= out
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ROPE := $(BUILD)/bin/rope

.PHONY: all deps build test demo gallery bench bench-compare clean

all: build

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	mkdir -p $(OUT)
	$(ROPE) verify
	$(ROPE) decay --base 10000 --dim 128 --csv $(OUT)/decay.csv --png $(OUT)/decay.png
	$(ROPE) wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png $(OUT)/wavelengths.png
	$(ROPE) matrix --dim 64 --position 3 --png $(OUT)/matrix.png
	@echo "demo output in $(OUT)/"

gallery: build
	/usr/bin/python3 scripts/gallery.py --rope $(ROPE) --out docs

# Google Benchmark programs of bench/ (docs/performance.md); each prints its own table.
bench: build
	cmake --build $(BUILD) -j $(JOBS) --target rope_benchmarks
	for b in $(BUILD)/bench/bench_*; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

# rope against NumPy, PyTorch and the memory bandwidth in one run: ratios, PASS/FAIL per target and the
# equality checks. Installs the peers' Debian packages (python3-torch, python3-matplotlib) first.
bench-compare: build
	bash scripts/install-deps.sh --peers
	cmake --build $(BUILD) -j $(JOBS) --target rope_benchmarks
	/usr/bin/python3 bench/compare.py --build $(BUILD)

clean:
	rm -rf $(BUILD) $(OUT)
