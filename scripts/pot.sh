#!/usr/bin/env bash
# Writes the message template (po/rope.pot, GNU gettext) from the C++ sources of src/, apps/ and web/: every id
# given to tr (Text::tr, FigureOptions::tr, apps/rope/cli/lang.hpp) and msg, each with the files it is in,
# with its context where given by trc (Text::trc) or msgc (core/message_context.hpp: the layout glossary, layout_term),
# and every error's id given to error_msg (core/message.hpp) in the context "error"; and from the live
# lesson page's script, web/lesson.js, every id given to tr and N_ (scripts/live_page.py).
# `make pot` runs it (po/rope.pot is generated, not committed: .gitignore); the test catalog.complete runs it
# into the build tree and checks, with msgcmp, that po/zh_CN.po translates every id.
#   scripts/pot.sh OUT.pot    (from any directory)
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/pot.sh OUT.pot}")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find src apps web -name '*.cpp' -o -name '*.hpp' | LC_ALL=C sort >"$tmp/files"
extract() {  # extract KEYWORDS... OUT: xgettext with only these keywords
  local target=${*: -1}
  local keywords=("${@:1:$#-1}")
  xgettext --language=C++ --from-code=UTF-8 --keyword= "${keywords[@]/#/--keyword=}" --force-po \
    --add-comments=TRANSLATORS: --package-name=rope --add-location=file --files-from="$tmp/files" -o "$target"
}
extract tr:1 msg:1 trc:1c,2 msgc:1c,2 "$tmp/text.pot"
extract error_msg:1 "$tmp/errors.pot"
# xgettext cannot give a keyword a fixed context: every entry of errors.pot but its header gets "error".
awk 'BEGIN { header = 1 }
     /^msgid / { if (!header) print "msgctxt \"error\""; header = 0 }
     { print }' "$tmp/errors.pot" >"$tmp/errors_ctx.pot"
xgettext --language=JavaScript --from-code=UTF-8 --keyword= --keyword=tr:1 --keyword=N_:1 --force-po \
  --package-name=rope --add-location=file -o "$tmp/web.pot" web/lesson.js
msgcat --use-first -o "$out" "$tmp/text.pot" "$tmp/errors_ctx.pot" "$tmp/web.pot"
