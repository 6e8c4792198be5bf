# The front door: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
OUT ?= out
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ROPE := $(BUILD)/bin/rope

.PHONY: all deps build test demo clean

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
	$(ROPE) decay --base 10000 --dim 128 --csv $(OUT)/decay.csv
	@echo "demo output in $(OUT)/"

clean:
	rm -rf $(BUILD) $(OUT)
