#!/bin/sh
# The front door on a fresh Debian 12 machine that has only git and a shell:
#   ./make.sh demo    installs what the demo needs, builds the rope executable, runs the demo
#   ./make.sh test    installs what the tests need, builds everything, runs every test
# Any other Makefile target works the same way (./make.sh gallery, ./make.sh install PREFIX=...).
# Installing packages needs root or sudo (scripts/install-deps.sh); then it is `make` with the
# arguments given.
set -eu
cd "$(dirname "$0")"
level=test
for arg in "$@"; do
  case "$arg" in
    demo) level=demo ;;
    fuzz) level=fuzz ;;
    bench-compare) level=peers ;;
  esac
done
bash scripts/install-deps.sh "$level"
exec make "$@"
