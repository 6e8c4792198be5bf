#!/usr/bin/env python3
"""The catalog against the sources: every id given to tr() or msg() in src/ and apps/ (scripts/pot.sh, which
`make pot` runs) has its translation in po/zh_CN.po, as `msgcmp po/zh_CN.po TEMPLATE` checks it (an entry that
is fuzzy or has an empty msgstr does not count: msgcmp runs without --use-fuzzy and --use-untranslated). The
template is extracted afresh into TEMPLATE (the test catalog.complete: the build tree's po/rope.pot); it is not
committed.

A missing translation would show the English under --lang zh (Text::tr falls back to it). Entries of the
catalog that no tr() names are the help texts and the error templates: msgcmp's "not used" warnings about
them are left out of the report.

Usage: check_catalog_complete.py SOURCE_DIR TEMPLATE. Exits 1, listing the ids that lack their Chinese.
"""
import os
import re
import subprocess
import sys


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
    context = [line for line in lines[max(0, start - 1):start] if line.startswith("msgctxt ")]
    return f"  {context[0] + ' ' if context else ''}msgid {' '.join(text)}  ({', '.join(refs)})"


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    root, template = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    catalog = os.path.join(root, "po", "zh_CN.po")
    os.makedirs(os.path.dirname(template), exist_ok=True)
    subprocess.run(["bash", os.path.join(root, "scripts", "pot.sh"), template], check=True)
    cmp = subprocess.run(["msgcmp", catalog, template], capture_output=True, text=True, check=False)
    with open(template, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if cmp.returncode != 0:
        print(f"po/zh_CN.po lacks a translation of these ids of tr()/msg() (msgcmp po/zh_CN.po {template}):")
        for line in cmp.stderr.splitlines():
            used = re.match(re.escape(template) + r":(\d+): this message is used but not defined", line)
            if used:
                print(entry_at(lines, int(used.group(1))))
            elif "this message is not used" not in line:
                print(line)
        return 1
    print(f"every id of tr()/msg() is translated: {sum(line.startswith('msgid ') for line in lines) - 1} ids "
          f"(template {template})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
