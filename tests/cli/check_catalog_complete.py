#!/usr/bin/env python3
"""The catalog against the sources: every id given to tr() or msg() in src/ and apps/ (scripts/pot.sh, which
`make pot` runs) has its translation in po/zh_CN.po, as `msgcmp po/zh_CN.po TEMPLATE` checks it, and the
committed template po/rope.pot is the one the sources give (its POT-Creation-Date aside).

A missing translation would show the English under --lang zh (Text::tr falls back to it). Entries of the
catalog that no tr() names are the help texts and the error templates: msgcmp's "not used" warnings about
them are left out of the report.

Usage: check_catalog_complete.py SOURCE_DIR. Exits 1, listing what is missing or stale.
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile


def entry_at(lines, number):
    """The msgid and the references of the template entry at line `number` (1-based; msgcmp names its msgstr)."""
    start = number - 1
    while start > 0 and not lines[start].startswith("msgid "):
        start -= 1
    text = [lines[start][len("msgid "):].strip()]
    for line in lines[start + 1:]:
        if not line.startswith('"'):
            break
        text.append(line.strip())
    refs = [line[3:].strip() for line in lines[max(0, start - 3):start] if line.startswith("#: ")]
    return f"  msgid {' '.join(text)}  ({', '.join(refs)})"


def without_date(text):
    return [line for line in text.splitlines(keepends=True) if not line.startswith('"POT-Creation-Date:')]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    catalog, committed = os.path.join(root, "po", "zh_CN.po"), os.path.join(root, "po", "rope.pot")
    failed = False
    with tempfile.TemporaryDirectory(prefix="rope-pot-") as work:
        template = os.path.join(work, "rope.pot")
        subprocess.run(["bash", os.path.join(root, "scripts", "pot.sh"), template], check=True)
        cmp = subprocess.run(["msgcmp", catalog, template], capture_output=True, text=True, check=False)
        with open(template, encoding="utf-8") as f:
            fresh = f.read()
        lines = fresh.splitlines()
        if cmp.returncode != 0:
            failed = True
            print("po/zh_CN.po lacks a translation of these ids of tr()/msg() (msgcmp po/zh_CN.po po/rope.pot):")
            for line in cmp.stderr.splitlines():
                used = re.match(re.escape(template) + r":(\d+): this message is used but not defined", line)
                if used:
                    print(entry_at(lines, int(used.group(1))))
                elif "this message is not used" not in line:
                    print(line.replace(template, "po/rope.pot"))
    with open(committed, encoding="utf-8") as f:
        old = f.read()
    if without_date(old) != without_date(fresh):
        failed = True
        print("po/rope.pot is not the template of the sources: run `make pot` and commit it")
        sys.stdout.writelines(difflib.unified_diff(without_date(old), without_date(fresh), "po/rope.pot", "sources", n=1))
    if not failed:
        print(f"every id of tr()/msg() is translated: {fresh.count(chr(10) + 'msgid ') - 1} ids, po/rope.pot current")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
