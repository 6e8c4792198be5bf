# The front door: `./make.sh demo` and `./make.sh test` work on a fresh Debian 12 machine that has only
# git and a shell (make.sh installs make and the packages, then runs this Makefile).
BUILD ?= build
OUT ?= out
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
ROPE := $(BUILD)/bin/rope
# Every configuration states the options it needs, so `demo` (the executable only) and `build` (tests
# and benchmarks too) can share one build tree: switching between them rebuilds nothing.
CONFIGURE := cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROPE_UNITY_CLI=ON -DROPE_UNITY_LIBRARY=ON
# The trees that run tests also build the Python module (docs/python.md); the same value everywhere, so that
# switching between build, test-e2e and conformance rebuilds nothing.
PYTHON_MODULE := -DROPE_PYTHON=ON

.PHONY: all deps build python test test-fast test-e2e conformance demo gallery docs pot format bench bench-compare clean sanitize sanitize-build fuzz install deb browser-test browser-test-lesson browser-test-live web web-page

all: build

deps:
	bash scripts/install-deps.sh test

build: deps
	$(CONFIGURE) -DBUILD_TESTING=ON -DROPE_BUILD_BENCH=ON -DROPE_UNIT_TESTS=ON -DROPE_E2E_TESTS=ON -DROPE_CONFORMANCE=OFF $(PYTHON_MODULE)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite (docs/architecture.md lists its labels); `make test-fast` leaves out the tests
# labelled slow (the malformed-input sweep, the documented examples, the gallery, the install check).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L fast

# CI's first tier: the end-to-end tests in Release (the benchmarks compiled too, not run), without building
# the unit tests: they run under the sanitizers (`make sanitize`), so CI compiles each program once.
# E2E_EXCLUDE: a regular expression of tests to leave out (CI leaves out python.pip_install, whose clean build of
# the library from a copy of the sources costs about 4.5 minutes on 2 cores; `make test` runs it).
E2E_EXCLUDE ?=
test-e2e: deps
	$(CONFIGURE) -DBUILD_TESTING=ON -DROPE_BUILD_BENCH=ON -DROPE_UNIT_TESTS=OFF -DROPE_E2E_TESTS=ON -DROPE_CONFORMANCE=OFF $(PYTHON_MODULE)
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(if $(E2E_EXCLUDE),-E '$(E2E_EXCLUDE)')

# The conformance tier (label conformance): rope against the real llama.cpp, whose prebuilt libraries and source
# `scripts/install-deps.sh llama` installs outside the repository (tests/conformance/). test-e2e's options plus
# ROPE_CONFORMANCE, so after test-e2e (CI) only the harness is compiled; the other targets configure it off.
conformance:
	bash scripts/install-deps.sh llama
	$(CONFIGURE) -DBUILD_TESTING=ON -DROPE_BUILD_BENCH=ON -DROPE_UNIT_TESTS=OFF -DROPE_E2E_TESTS=ON -DROPE_CONFORMANCE=ON $(PYTHON_MODULE)
	cmake --build $(BUILD) -j $(JOBS) --target rope rope_ggml_rope_cases rope_llama_pipeline
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L conformance

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

# The Python module rope (docs/python.md) in $(BUILD)/python: PYTHONPATH=$(BUILD)/python python3 -c "import rope".
# pybind11 from Debian; the library is compiled with position-independent code for it.
python: deps
	test -f $(BUILD)/CMakeCache.txt || $(CONFIGURE) -DBUILD_TESTING=OFF -DROPE_BUILD_BENCH=OFF
	cmake -S . -B $(BUILD) $(PYTHON_MODULE)
	cmake --build $(BUILD) -j $(JOBS) --target rope_python
	@echo "the module: PYTHONPATH=$(BUILD)/python python3 -c 'import rope; print(rope.__version__)'"

# The rope executable, the library, its headers and its CMake package (find_package(rope)), and the Python
# module (docs/python.md: PREFIX/lib/python3.X/dist-packages on Debian) under $(PREFIX); `make deb` builds a
# Debian package of the same files in $(BUILD).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

deb: build
	cd $(BUILD) && cpack -G DEB

# The lesson page (rope lesson --html) in headless Chromium, English and Chinese: no console message,
# its script runs, the screenshots are not blank (tests/browser/check_lesson.py). Installs Chromium; builds
# the rope executable in $(BUILD) as it is configured (as for the demo when it is new).
# Then the live lesson page (`make web-page`, below) built from the sources: tests/browser/check_live.py moves
# its controls in Chromium and compares the numbers it shows with the rope executable's for the same inputs.
# It tests the page the sources build and never byte-compares it with the committed docs/live/lesson.html, so a
# library change never waits for the page: `make web` refreshes that copy.
# The two checks run side by side (make -O prints each one's output whole when it ends): the lesson page's
# (check_lesson.py, the native rope only) while the live page's WebAssembly is built, then the live page's.
browser-test:
	bash scripts/install-deps.sh browser
	test -f $(BUILD)/CMakeCache.txt || $(CONFIGURE) -DBUILD_TESTING=OFF -DROPE_BUILD_BENCH=OFF
	cmake --build $(BUILD) -j $(JOBS) --target rope
	$(MAKE) --no-print-directory -O -j $(JOBS) browser-test-lesson browser-test-live

browser-test-lesson:
	/usr/bin/python3 tests/browser/check_lesson.py $(ROPE) $(BUILD)/browser-test

browser-test-live: web-page
	/usr/bin/python3 tests/browser/check_live.py $(ROPE) $(WEB_BUILD)/lesson.html $(BUILD)/browser-test

# The live lesson page: the library's code compiled to WebAssembly by Debian's emscripten (web/CMakeLists.txt,
# its own build tree, so the native build never needs emscripten), inlined with web/lesson.html, web/lesson.js
# and the page's Chinese into one file (scripts/live_page.py). `make web-page` builds it in $(WEB_BUILD);
# `make web` also writes it to docs/live/lesson.html, the committed page (for readers without emscripten; CI tests
# the page the sources build, not that copy). NODE_PATH: emscripten's tools need Debian's node-acorn, which a
# Node.js from outside Debian does not search.
WEB_BUILD ?= build-web
EM_ENV := NODE_PATH=/usr/share/nodejs
web-page:
	bash scripts/install-deps.sh browser
	test -f $(WEB_BUILD)/CMakeCache.txt || $(EM_ENV) emcmake cmake -S web -B $(WEB_BUILD) -DCMAKE_BUILD_TYPE=Release
	$(EM_ENV) cmake --build $(WEB_BUILD) -j $(JOBS)
	/usr/bin/python3 scripts/live_page.py $(WEB_BUILD)/rope_web.js $(WEB_BUILD)/lesson.html

web: web-page
	cp $(WEB_BUILD)/lesson.html docs/live/lesson.html

gallery: build
	/usr/bin/python3 scripts/gallery.py --rope $(ROPE) --out docs

# The option tables of docs/cli.md, rewritten from the commands' CLI11 definitions (tests/docs/rope_docgen.cpp,
# apps/rope/cli/option_tables.hpp), and docs/check.md's table of known variants from the rows of the variant table
# (tests/docs/variant_table.hpp: each variant file's words); the tests docs.option_tables and docs.variant_table fail while a page differs.
docs: build
	$(BUILD)/tests/rope_docgen --write docs/cli.md
	$(BUILD)/tests/rope_docgen --write docs/check.md
	python3 scripts/families_doc.py

# The message template po/rope.pot, for translators: every id of tr() and msg() in src/ and apps/, extracted by
# GNU xgettext (scripts/pot.sh). Not committed (.gitignore): it is generated from the sources. po/zh_CN.po must
# translate each id; the test catalog.complete extracts its own template into the build tree and checks that
# with msgcmp. `deps` installs gettext.
pot: deps
	bash scripts/pot.sh po/rope.pot

# The C++ sources rewritten as .clang-format shapes them (clang-format-14); the test format.check fails while
# one differs.
format: deps
	bash scripts/format.sh

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

# One sanitizer tree, shared by `make sanitize` and `make fuzz` (it builds what they run: the unit tests and the fuzz
# targets, not the rope executable, which the end-to-end tests run in Release): clang++ with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage (fuzzer-no-link) on the library, the command line
# and the fuzz targets (the benchmarks are compiled in Release by `make test-e2e`); the unit tests' own files, linked
# with the sanitizers' runtime, are compiled without instrumentation (ROPE_TEST_FLAGS: CMakeLists.txt says why).
# -O1 -gline-tables-only keeps the build and the runs short while a report still names file and line. The command
# line's files at -O0 (ROPE_CLI_OPTIMIZATION: CMakeLists.txt says why). UndefinedBehaviorSanitizer without its
# object-size check: an access beyond the object __builtin_object_size knows is one AddressSanitizer's redzones
# already catch (it checks every access against the allocation's bounds), and the check cost a tenth of the
# instrumented build's CPU time (a batch of the core layer: 14.7 CPU-s without it, 16.5 with it, 10.6 with
# AddressSanitizer alone). Linked by lld (scripts/install-deps.sh fuzz), a fifth of GNU ld's time on these programs.
SAN_BUILD ?= build-san
SAN_FLAGS := -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link \
  -fno-sanitize=object-size -fno-sanitize-recover=all
SAN_REPORTS := $(abspath $(SAN_BUILD))/sanitizer-reports
# The unit tests as SAN_SHARDS processes (GoogleTest's sharding), not one process per test (tests/CMakeLists.txt).
SAN_SHARDS ?= 12
sanitize-build:
	bash scripts/install-deps.sh fuzz
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ -DBUILD_TESTING=ON \
	  -DROPE_UNIT_TESTS=ON -DROPE_E2E_TESTS=OFF -DROPE_BUILD_BENCH=OFF -DROPE_FUZZ=ON -DCMAKE_CXX_FLAGS="$(SAN_FLAGS)" \
	  -DROPE_TEST_OPTIMIZATION=-O0 -DROPE_CLI_OPTIMIZATION=-O0 -DROPE_TEST_FLAGS="-fno-sanitize=all;-g0;-DROPE_ADDRESS_SANITIZER=1" -DROPE_UNITY_CLI=ON -DROPE_UNITY_LIBRARY=ON -DROPE_UNITY_TESTS=ON -DROPE_UNIT_TEST_SHARDS=$(SAN_SHARDS) \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -fuse-ld=lld"
	cmake --build $(SAN_BUILD) -j $(JOBS) --target rope_tests $(addprefix fuzz_,$(FUZZ_TARGETS))

# The unit tests (the library, and every command in-process through rope::cli::run) under the
# sanitizers. Every report goes to a file in $(SAN_REPORTS); any such file fails the target. The
# end-to-end tests run in Release (`make test`); the command line under the sanitizers is also what
# `make fuzz` exercises.
sanitize: sanitize-build
	rm -rf $(SAN_REPORTS) && mkdir -p $(SAN_REPORTS)
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:log_path=$(SAN_REPORTS)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_REPORTS)/ubsan \
	  ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS)
	@if [ -n "$$(ls -A $(SAN_REPORTS))" ]; then \
	  echo "sanitize: sanitizer reports in $(SAN_REPORTS):"; cat $(SAN_REPORTS)/*; exit 1; fi
	@echo "sanitize: no sanitizer report"

# libFuzzer on the command line, the config reader and the tensor readers, in the sanitizer tree: first
# every saved regression (tests/fuzz/regressions/) and seed (tests/fuzz/corpus_*) replayed, then
# FUZZ_SECONDS of fuzzing per target (new inputs go to $(SAN_BUILD)/corpus_*, not into the
# repository). A crash leaves crash-* in $(SAN_BUILD) and fails the target: add it to
# tests/fuzz/regressions/. The targets run JOBS at a time (each libFuzzer process is one thread), each
# into its own log, $(SAN_BUILD)/fuzz_<target>.log: its final statistics are printed when it passes, its
# whole log when it fails.
FUZZ_SECONDS ?= 150
FUZZ_DIR = $(abspath $(SAN_BUILD))
FUZZ_TARGETS := cli config gguf ranks tensor weights
fuzz: sanitize-build
	$(MAKE) --no-print-directory -j $(JOBS) $(addprefix fuzz-target-,$(FUZZ_TARGETS))

fuzz-target-%:
	@mkdir -p $(FUZZ_DIR)/corpus_$*
	@echo "fuzz: $* ($(FUZZ_SECONDS) s) -> $(FUZZ_DIR)/fuzz_$*.log"
	@{ if [ -d tests/fuzz/regressions/$* ]; then \
	     $(FUZZ_DIR)/tests/fuzz/fuzz_$* $(abspath tests/fuzz)/regressions/$*/* || exit 1; fi && \
	   ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/tests/fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) \
	     -timeout=60 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ \
	     $(FUZZ_DIR)/corpus_$* $(abspath tests/fuzz)/corpus_$*; } > $(FUZZ_DIR)/fuzz_$*.log 2>&1 \
	  && { echo "fuzz: $* passed"; grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' $(FUZZ_DIR)/fuzz_$*.log | sed 's/^/fuzz: $*: /'; } \
	  || { echo "fuzz: $* FAILED; its log:"; cat $(FUZZ_DIR)/fuzz_$*.log; exit 1; }

clean:
	rm -rf $(BUILD) $(OUT) $(SAN_BUILD)
