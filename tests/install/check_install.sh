#!/usr/bin/env bash
# install.consumer: `cmake --install` of the build tree into a fresh prefix, then a project of its own
# (tests/install/consumer) configured with find_package(rope) against that prefix, built and run; its
# output is compared with values derivable by hand. Also runs the installed executable.
#   check_install.sh BUILD_DIR WORK_DIR [CXX CXXFLAGS LDFLAGS]
# The consumer is compiled like the build it installs (the same compiler and flags: under `make
# sanitize` the library holds sanitizer calls that the consumer's link must resolve).
set -euo pipefail
build=$1
work=$2
cxx=${3:-c++}
cxxflags=${4:-}
ldflags=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in bin/rope include/rope/version.hpp include/rope/core/frequencies.hpp lib/librope.a \
         lib/cmake/rope/rope-config.cmake lib/cmake/rope/rope-config-version.cmake; do
  [[ -e "$work/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done
# Nothing of the command line is part of the library's installed headers.
if [[ -e "$work/prefix/include/rope/cli" ]]; then echo "the CLI headers were installed"; exit 1; fi

# Every installed header compiles with Eigen alone (no private dependency leaks into the interface).
headers="$work/all_headers.cpp"
(cd "$work/prefix/include" && find rope -name '*.hpp' | sort | sed 's/.*/#include "&"/') >"$headers"
count=$(wc -l <"$headers")
[[ $count -ge 30 ]] || { echo "only $count headers installed"; exit 1; }
cmake -S "$here/consumer" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DROPE_CONSUMER_EXTRA="$headers" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" >"$work/configure.log"
cmake --build "$work/build" >"$work/build.log"
version=$("$work/prefix/bin/rope" --version)
expected="version ${version#rope }
theta 1
theta 0.1
theta 0.01
theta 0.001
rotated 0.540302305868 0.841470984808 0
scaled 0.25
scaled 0.025
scaled 0.0025
scaled 0.00025
factor: 4 (factor on the command line)"
actual=$(cd "$work" && "$work/build/consumer")
if [[ "$actual" != "$expected" ]]; then
  echo "consumer printed:"; echo "$actual"; echo "expected:"; echo "$expected"; exit 1
fi
# The Python module, when the tree builds it (ROPE_PYTHON): installed beside the executable, importable from there
# alone, and of the executable's version.
module=$(find "$work/prefix/lib" -path '*-packages/rope/_rope*.so' 2>/dev/null | head -n 1)
if grep -q '^ROPE_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  [[ -n $module ]] || { echo "ROPE_PYTHON is on but the module rope was not installed"; exit 1; }
  site=$(dirname "$(dirname "$module")")
  python_version=$(cd "$work" && PYTHONPATH=$site /usr/bin/python3 -c \
    "import rope, os; assert rope.__file__.startswith('$site'), rope.__file__; print(rope.__version__)")
  [[ "rope $python_version" == "$version" ]] || { echo "python module $python_version, executable $version"; exit 1; }
fi
echo "install.consumer: installed into $work/prefix, $count headers compiled, consumer built with find_package(rope) and its output checked"
