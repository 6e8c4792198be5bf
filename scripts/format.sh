#!/usr/bin/env bash
# The C++ sources as .clang-format shapes them (clang-format-14, Debian 12's): every .cpp and .hpp of src/,
# apps/, tests/, bench/ and web/, build trees left out.
#   scripts/format.sh           rewrite the files that differ (`make format`)
#   scripts/format.sh --check   change nothing; name each file that differs and exit 1 (the test format.check)
# The formatter keeps the order of #include lines (SortIncludes: Never): docs/architecture.md orders them
# by layer. The commit that first applied it is listed in .git-blame-ignore-revs
# (git config blame.ignoreRevsFile .git-blame-ignore-revs).
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$formatter" >/dev/null 2>&1; then
  echo "format: $formatter not found: scripts/install-deps.sh (level test) installs it" >&2
  exit 2
fi
mapfile -d '' files < <(find src apps tests bench web \( -name 'build*' -o -name '.*' \) -prune -o \
  -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)
if [[ ${1:-} == --check ]]; then
  # --dry-run names each line it would change as FILE:LINE:COLUMN: warning: …; one file is named once.
  report=$(printf '%s\0' "${files[@]}" | xargs -0 "$formatter" --style=file --dry-run --ferror-limit=1 2>&1) || {
    printf '%s\n' "$report" | grep -v 'code should be clang-formatted' | head -5 >&2
    echo "format: $formatter failed" >&2
    exit 2
  }
  mapfile -t differ < <(printf '%s\n' "$report" |
    sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)
  if ((${#differ[@]})); then
    for f in "${differ[@]}"; do echo "format: $f differs from what $formatter makes of it" >&2; done
    echo "format: ${#differ[@]} of ${#files[@]} files differ; \`make format\` (scripts/format.sh) rewrites them" >&2
    exit 1
  fi
  echo "format: all ${#files[@]} files as .clang-format shapes them"
else
  printf '%s\0' "${files[@]}" | xargs -0 -P 2 -n 40 "$formatter" --style=file -i
  echo "format: ${#files[@]} files"
fi
