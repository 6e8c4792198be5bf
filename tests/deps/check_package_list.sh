#!/usr/bin/env bash
# deps.package_list: every level of scripts/install-deps.sh that builds the rope executable lists the libraries
# it links (CMakeLists.txt, src/CMakeLists.txt), so that the front door (`./make.sh`, `make build`) installs them.
set -euo pipefail
root=${1:?usage: check_package_list.sh REPO_ROOT}
fail=0
for level in demo test fuzz peers torch browser llama; do
  list=$(bash "$root/scripts/install-deps.sh" "$level" --list)
  for p in cmake g++ libcli11-dev libfmt-dev libeigen3-dev nlohmann-json3-dev libminizip-dev zlib1g-dev; do
    if ! grep -qx -- "$p" <<<"$list"; then
      echo "install-deps.sh $level does not list $p, which the rope executable needs" >&2
      fail=1
    fi
  done
done
exit $fail
