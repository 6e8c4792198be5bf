#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages that a part of rope's work needs, and only the ones
# that are missing. Safe to run again (it does nothing when all are present). Works as root; uses sudo
# otherwise. `./make.sh` and the Makefile call it; each level includes the ones before it:
#   demo    build the rope executable and draw figures: the toolchain (make included), the libraries
#           (minizip and zlib among them, for torch.save files), gnuplot and a Chinese font
#   test    (the default) also build and run every test: GoogleTest, Google Benchmark, NumPy, gettext
#           (the catalog tests, `make pot`), pybind11 and pytest (the Python module), clang-format-14 (the
#           test format.check, `make format`)
#   fuzz    also clang++, libFuzzer and LLVM's linker lld (make fuzz and make sanitize)
#   browser also headless Chromium, python3-pil and poppler-utils (pdftotext: the printed handout's text), for
#           `make browser-test` (the lesson pages in a real
#           browser), and emscripten, which compiles the live lesson page's WebAssembly (`make web`);
#           large, so no other level installs them
#   peers   also the large packages that only `make bench-compare` needs (PyTorch and matplotlib for
#           the peers of bench/peers/); no other target installs them
#   torch   the test level and PyTorch (python3-torch, CPU, about 700 MB): the Python module's tests with torch
#           tensors and rope.watch (CTest python.torch, registered where torch imports); CI's stage torch
#   llama   the test level, then the conformance tier's llama.cpp (`make conformance`): npm, git and openssl,
#           then scripts/install-llama.sh fetches llama.cpp's prebuilt libraries and source at a pinned
#           version from the npm registry into a cache directory outside the repository (it says where)
set -euo pipefail

level=${1:-test}
packages=(
  cmake g++ make pkg-config                                  # toolchain
  libcli11-dev libfmt-dev libeigen3-dev nlohmann-json3-dev   # libraries
  libminizip-dev zlib1g-dev                                  # the zip layer of torch.save files (io/torch_file)
  gnuplot-nox fontconfig fonts-dejavu-core fonts-wqy-microhei  # figures (a font for the text; CJK labels need wqy)
)
case "$level" in
  demo|test|fuzz|peers|torch|browser|llama) ;;
  --peers) level=peers ;;  # the spelling of earlier versions
  *)
    echo "install-deps: unknown level '$level' (demo, test, fuzz, peers, torch, browser or llama)" >&2
    exit 2 ;;
esac
if [[ $level != demo ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev)    # tests and benchmarks
  packages+=(python3-numpy)          # independent references in tests/reference/, test scripts
  # gettext: xgettext and msgcat (scripts/pot.sh: `make pot`, and the test catalog.complete, which extracts the
  # template, not committed, and checks it with msgcmp) and msgfmt (catalog.msgfmt). Every tree with the
  # end-to-end tests needs it at configure time (tests/CMakeLists.txt), so every level but demo has it.
  packages+=(gettext)
  # clang-format-14: the shape of the C++ sources (.clang-format, scripts/format.sh), checked by format.check
  packages+=(clang-format-14)
  # the Python module (apps/python/, docs/python.md): pybind11 and the headers to build it, pytest to test it,
  # venv, setuptools and wheel for `pip install --no-build-isolation .` into a virtual environment
  packages+=(pybind11-dev python3-dev python3-pytest python3-venv python3-setuptools python3-wheel)
fi
if [[ $level == fuzz ]]; then
  # lld links the sanitizer tree's programs (each about 150 MB): 1.2 CPU-s for rope_tests against GNU ld's 5.6
  packages+=(clang libclang-rt-14-dev lld)
fi
if [[ $level == browser ]]; then
  packages+=(chromium python3-pil poppler-utils emscripten)
fi
if [[ $level == llama ]]; then
  packages+=(git openssl ca-certificates)
  # npm only when there is none: Debian's npm package conflicts with a Node.js that ships its own.
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
if [[ $level == peers ]]; then
  packages+=(python3-torch python3-matplotlib)
fi
if [[ $level == torch ]]; then
  packages+=(python3-torch)
fi

# `install-deps.sh LEVEL --list`: the level's packages, one a line, nothing installed (the test deps.package_list
# checks that every level that builds the rope executable has its libraries).
if [[ ${2:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

install_packages() {
  if ((${#missing[@]} == 0)); then
    echo "install-deps: all ${#packages[@]} packages present"
    return 0
  fi
  local sudo=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}
install_packages
if [[ $level == llama ]]; then
  bash "$(dirname "$0")/install-llama.sh"
fi
