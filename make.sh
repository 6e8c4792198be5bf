#!/bin/sh
# The front door on a fresh Debian 12 machine that has only git and a shell:
#   ./make.sh demo    installs what the demo needs, builds the rope executable, runs the demo
#   ./make.sh test    installs what the tests need, builds everything, runs every test
# Any other Makefile target works the same way (./make.sh gallery, ./make.sh install PREFIX=...).
# It installs make itself when it is missing (with the demo's packages, the smallest level of
# scripts/install-deps.sh); each Makefile target then installs what it needs. Installing packages
# needs root or sudo.
set -eu
cd "$(dirname "$0")"
command -v make >/dev/null 2>&1 || bash scripts/install-deps.sh demo
exec make "$@"
