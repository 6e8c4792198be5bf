# The front door: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
OUT ?= out
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ROPE := $(BUILD)/bin/rope

.PHONY: all deps build test demo gallery clean

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

clean:
	rm -rf $(BUILD) $(OUT)
