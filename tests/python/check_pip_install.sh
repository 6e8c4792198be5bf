#!/usr/bin/env bash
# python.pip_install: `pip install --no-build-isolation .` from a clean copy of the repository into a fresh
# `python3 -m venv --system-site-packages` environment, offline, as docs/python.md shows; then the documented
# example (docs/python.md) run with the environment's pytest, importing the installed module.
#   check_pip_install.sh SOURCE_DIR WORK_DIR
# The copy is what a clone of the work tree holds: the files git tracks and the new ones it does not ignore
# (`git ls-files`), without any build tree, so that setup.py configures and compiles the library and the module
# from nothing, out of the source tree (a temporary directory). Outside a git work tree, every file but build*/ is
# copied. pip runs with -v: its log must show setup.py's progress lines and CMake's, and the copy must hold no file
# pip or setup.py wrote (no build/, no egg-info).
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
rm -rf "$work"
mkdir -p "$work/rope"
start=$(date +%s)
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # --ignore-failed-read: a tracked file deleted in the work tree is not in the clone-to-be either.
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/rope"
else
  (cd "$src" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$work/rope"
fi
[[ ! -e $work/rope/build ]] || { echo "the copy holds a build tree"; exit 1; }
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
unset ROPE_CMAKE_BUILD_DIR PYTHONPATH
touch "$work/before-pip"
sleep 1
(cd "$work/rope" && "$work/venv/bin/pip" install -v --no-build-isolation . >"$work/pip.log" 2>&1) || { cat "$work/pip.log"; exit 1; }
echo "pip install from a clean copy: $(($(date +%s) - start)) s"
grep -E "rope setup.py: (configuring|compiling|built in)" "$work/pip.log"
grep -qE "\[ *[0-9]+%\] Building CXX object" "$work/pip.log" || { echo "pip -v showed no CMake progress"; exit 1; }
written=$(find "$work/rope" -newer "$work/before-pip" -print | head -5)
[[ -z $written ]] || { echo "pip install wrote into the source tree:"; echo "$written"; exit 1; }
# The example, as the page shows it, against the installed module (not the copy's apps/python).
/usr/bin/python3 - "$src/docs/python.md" "$work/test_my_rope.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<!-- python-example: (\S+) -->\n```python\n(.*?)```\n<!-- python-example: end -->", text, re.S)
open(sys.argv[2], "w", encoding="utf-8").write(m.group(2))
PY
rm -rf "$work/rope"  # the installed module must not need its sources
cd "$work"
where=$("$work/venv/bin/python" -c "import rope, os; print(os.path.dirname(rope.__file__))")
[[ $where == "$work/venv/"* ]] || { echo "rope imported from $where, not from the environment"; exit 1; }
"$work/venv/bin/python" -c "import rope; print('rope', rope.__version__, 'installed in', '$where')"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider test_my_rope.py
