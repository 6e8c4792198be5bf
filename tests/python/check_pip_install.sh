#!/usr/bin/env bash
# python.pip_install: `pip install --no-build-isolation .` from the repository's root into a fresh
# `python3 -m venv --system-site-packages` environment, offline, as docs/python.md shows; then the documented
# example (docs/python.md) run with the environment's pytest, importing the installed module.
#   check_pip_install.sh SOURCE_DIR WORK_DIR [CMAKE_BUILD_DIR]
# With CMAKE_BUILD_DIR (a tree configured with ROPE_PYTHON=ON), setup.py builds the module there
# (ROPE_CMAKE_BUILD_DIR) and compiles nothing that tree already has; without it, setup.py builds its own tree.
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
tree=${3:-}
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
if [[ -n $tree ]]; then export ROPE_CMAKE_BUILD_DIR=$tree; fi
(cd "$src" && "$work/venv/bin/pip" install --no-build-isolation . >"$work/pip.log" 2>&1) || { cat "$work/pip.log"; exit 1; }
# The example, as the page shows it, against the installed module (not the source tree's apps/python).
/usr/bin/python3 - "$src/docs/python.md" "$work/test_my_rope.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<!-- python-example: (\S+) -->\n```python\n(.*?)```\n<!-- python-example: end -->", text, re.S)
open(sys.argv[2], "w", encoding="utf-8").write(m.group(2))
PY
cd "$work"
where=$("$work/venv/bin/python" -c "import rope, os; print(os.path.dirname(rope.__file__))")
[[ $where == "$work/venv/"* ]] || { echo "rope imported from $where, not from the environment"; exit 1; }
"$work/venv/bin/python" -c "import rope; print('rope', rope.__version__, 'installed in', '$where')"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider test_my_rope.py
