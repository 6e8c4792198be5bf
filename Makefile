# The front door: `./make.sh demo` and `./make.sh test` work on a fresh Debian 12 machine that has only
# git and a shell (make.sh installs make and the packages, then runs this Makefile).
BUILD ?= build
OUT ?= out
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
ROPE := $(BUILD)/bin/rope
# Every configuration states the options it needs, so `demo` (the executable only) and `build` (tests
# and benchmarks too) can share one build tree: switching between them rebuilds nothing.
CONFIGURE := cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps build test test-fast demo gallery bench bench-compare clean sanitize fuzz install deb browser-test

all: build

deps:
	bash scripts/install-deps.sh test

build: deps
	$(CONFIGURE) -DBUILD_TESTING=ON -DROPE_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite (docs/architecture.md lists its labels); `make test-fast` leaves out the tests
# labelled slow (the malformed-input sweep, the documented examples, the gallery, the install check).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L fast

# Builds only what it runs: the rope executable (no tests, no benchmarks).
demo:
	bash scripts/install-deps.sh demo
	$(CONFIGURE) -DBUILD_TESTING=OFF -DROPE_BUILD_BENCH=OFF
	cmake --build $(BUILD) -j $(JOBS) --target rope
	mkdir -p $(OUT)
	$(ROPE) verify
	$(ROPE) decay --base 10000 --dim 128 --csv $(OUT)/decay.csv --png $(OUT)/decay.png
	$(ROPE) wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png $(OUT)/wavelengths.png
	$(ROPE) matrix --dim 64 --position 3 --png $(OUT)/matrix.png
	@echo "demo output in $(OUT)/"

# The rope executable, the library, its headers and its CMake package (find_package(rope)) under
# $(PREFIX); `make deb` builds a Debian package of the same files in $(BUILD).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

deb: build
	cd $(BUILD) && cpack -G DEB

# The lesson page (rope lesson --html) in headless Chromium, English and Chinese: no console message,
# its script runs, the screenshots are not blank (tests/browser/check_lesson.py). Installs Chromium.
browser-test: build
	bash scripts/install-deps.sh browser
	/usr/bin/python3 tests/browser/check_lesson.py $(ROPE) $(BUILD)/browser-test

gallery: build
	/usr/bin/python3 scripts/gallery.py --rope $(ROPE) --out docs

# Google Benchmark programs of bench/ (docs/performance.md); each prints its own table.
bench: build
	cmake --build $(BUILD) -j $(JOBS) --target rope_benchmarks
	for b in $(BUILD)/bench/bench_*; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

# rope against NumPy, PyTorch and the memory bandwidth in one run: ratios, PASS/FAIL per target and the
# equality checks. Installs the peers' Debian packages (python3-torch, python3-matplotlib) first.
bench-compare: build
	bash scripts/install-deps.sh peers
	cmake --build $(BUILD) -j $(JOBS) --target rope_benchmarks
	/usr/bin/python3 bench/compare.py --build $(BUILD)

# AddressSanitizer + UndefinedBehaviorSanitizer build running the whole test suite. Every report, also
# from a rope process a test script ran (whatever that test checks), goes to a file in
# $(SANITIZE_BUILD)/sanitizer-reports/; any such file fails the target.
SANITIZE_BUILD ?= build-sanitize
SANITIZE_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZE_REPORTS := $(abspath $(SANITIZE_BUILD))/sanitizer-reports
sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=None -DROPE_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	rm -rf $(SANITIZE_REPORTS) && mkdir -p $(SANITIZE_REPORTS)
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:log_path=$(SANITIZE_REPORTS)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SANITIZE_REPORTS)/ubsan \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)
	@if [ -n "$$(ls -A $(SANITIZE_REPORTS))" ]; then \
	  echo "sanitize: sanitizer reports in $(SANITIZE_REPORTS):"; cat $(SANITIZE_REPORTS)/*; exit 1; fi
	@echo "sanitize: no sanitizer report"

# libFuzzer (clang++): the command line, the config reader and the tensor readers, FUZZ_SECONDS each, from the seed
# corpora in tests/fuzz/ (new inputs go to $(FUZZ_BUILD)/corpus_*, not into the repository). A crash
# leaves crash-* in $(FUZZ_BUILD) and fails the target: add it to tests/fuzz/regressions/.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 150
FUZZ_DIR = $(abspath $(FUZZ_BUILD))
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
fuzz:
	bash scripts/install-deps.sh fuzz
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ -DBUILD_TESTING=OFF \
	  -DROPE_FUZZ=ON -DCMAKE_CXX_FLAGS="$(FUZZ_FLAGS)" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_cli fuzz_config fuzz_gguf fuzz_tensor
	for t in cli config gguf tensor; do \
	  mkdir -p $(FUZZ_DIR)/corpus_$$t && \
	  if [ -d tests/fuzz/regressions/$$t ]; then \
	    $(FUZZ_DIR)/tests/fuzz/fuzz_$$t $(abspath tests/fuzz)/regressions/$$t/* || exit 1; fi && \
	  ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=60 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ \
	    $(FUZZ_DIR)/corpus_$$t $(abspath tests/fuzz)/corpus_$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD) $(OUT)
