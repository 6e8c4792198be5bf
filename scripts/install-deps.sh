#!/usr/bin/env bash
# Installs, with apt-get, every Debian 12 package that building, testing and drawing rope need,
# and only the ones that are missing. Safe to run again (it does nothing when all are present).
# Works as root; uses sudo otherwise.
#   --peers  also the large packages that only `make bench-compare` needs (PyTorch and matplotlib for
#            the peers of bench/peers/); `make test` never installs them.
set -euo pipefail

packages=(
  cmake g++ make pkg-config          # toolchain
  libcli11-dev libfmt-dev libeigen3-dev nlohmann-json3-dev   # libraries
  libgtest-dev libgmock-dev libbenchmark-dev                 # tests and benchmarks
  gnuplot-nox fontconfig fonts-wqy-microhei                  # figures (CJK labels need the font)
  python3-numpy                      # independent references in tests/reference/ only
  clang libclang-rt-14-dev           # make fuzz: clang++ and libFuzzer (make sanitize uses g++)
)
if [[ "${1:-}" == "--peers" ]]; then
  packages+=(python3-torch python3-matplotlib)   # bench/peers/ (make bench-compare) only
elif [[ $# -gt 0 ]]; then
  echo "install-deps: unknown option '$1' (the only option is --peers)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if ((EUID == 0)); then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
