#!/usr/bin/env bash
# Writes the message template (po/rope.pot, GNU gettext) from the C++ sources of src/ and apps/: every id
# given to tr (Text::tr, FigureOptions::tr, apps/rope/cli/lang.hpp) and msg, each with the files it is in.
# `make pot` runs it; the test catalog.complete runs it into a temporary file and checks, with msgcmp,
# that po/zh_CN.po translates every id (and that po/rope.pot is current).
#   scripts/pot.sh OUT.pot    (from any directory)
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/pot.sh OUT.pot}")
cd "$(dirname "$0")/.."
find src apps -name '*.cpp' -o -name '*.hpp' | LC_ALL=C sort |
  xgettext --language=C++ --from-code=UTF-8 --keyword= --keyword=tr:1 --keyword=msg:1 \
    --add-comments=TRANSLATORS: --package-name=rope --add-location=file --files-from=- -o "$out"
