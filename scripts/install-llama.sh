#!/usr/bin/env bash
# The conformance tier's llama.cpp (scripts/install-deps.sh llama runs this; docs/check.md "Conformance with
# llama.cpp"): the prebuilt CPU libraries of llama.cpp and its source, at one pinned version, from the npm
# registry, without Node.js mattering: `npm pack` fetches the two tarballs (a plain `npm install` would pull the
# CUDA and Vulkan builds), their sha512 is checked against the registry's integrity pinned here, and they are
# unpacked into a cache directory outside the repository:
#   ${ROPE_LLAMA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rope/llama-npm-3.22.1}
#     lib/   libggml-base.so, libggml.v0.5.0.so, libllama.v0.5.0.so, the CPU variants libggml-cpu-*.so
#     src/   llama.cpp's source, cloned from the package's llama/gitRelease.bundle (commit de3ff815ea7d;
#            llama.cpp tag v0.5.0, upstream 0ad4a86): the headers the harness compiles against, gguf-py
# CMake finds them there (ROPE_LLAMA_DIR, the same default). Nothing is copied into the repository. Safe to run
# again: a complete directory is left as it is.
set -euo pipefail

VERSION=3.22.1
LIBS_INTEGRITY="sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg=="
SOURCE_INTEGRITY="sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw=="
COMMIT=de3ff815ea7d559ee917f063901b8986f038abc6
DEST=${ROPE_LLAMA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rope/llama-npm-$VERSION}

if [[ -f "$DEST/complete" ]]; then
  echo "install-llama: $DEST is there (llama.cpp $COMMIT)"
  exit 0
fi
for tool in npm git openssl tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-llama: needs $tool (scripts/install-deps.sh llama installs it)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "@node-llama-cpp/linux-x64@$VERSION" "node-llama-cpp@$VERSION" >/dev/null
check() {
  local got
  got="sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)"
  if [[ "$got" != "$2" ]]; then
    echo "install-llama: $1: integrity $got, expected $2" >&2
    exit 1
  fi
}
check "node-llama-cpp-linux-x64-$VERSION.tgz" "$LIBS_INTEGRITY"
check "node-llama-cpp-$VERSION.tgz" "$SOURCE_INTEGRITY"
mkdir libs big
tar xzf "node-llama-cpp-linux-x64-$VERSION.tgz" -C libs
tar xzf "node-llama-cpp-$VERSION.tgz" -C big package/llama/gitRelease.bundle
rm -rf "$DEST"
mkdir -p "$DEST"
cp -a libs/package/bins/linux-x64 "$DEST/lib"
git -c advice.detachedHead=false clone -q big/package/llama/gitRelease.bundle "$DEST/src"
if [[ "$(git -C "$DEST/src" rev-parse HEAD)" != "$COMMIT" ]]; then
  echo "install-llama: the bundle's commit is $(git -C "$DEST/src" rev-parse HEAD), expected $COMMIT" >&2
  exit 1
fi
echo "$VERSION $COMMIT" >"$DEST/complete"
echo "install-llama: llama.cpp $COMMIT in $DEST"
