#!/usr/bin/env python3
"""Writes the live lesson page: one HTML file that works offline, from
  web/lesson.html   the page (markup and style), with three places to fill:
  web/lesson.js     the page's script (/*SCRIPT*/),
  MODULE.js         the library compiled to WebAssembly by web/CMakeLists.txt, wasm inlined (/*MODULE*/),
  po/zh_CN.po       the page's Chinese (/*CATALOG*/): the entries of the ids the script and the page use,
                    and those of the library's messages and errors (warnings and errors reach the page
                    as the library's messages, translated by it through set_catalog).
Fails naming the id when a text of the page has no Chinese. `make web` runs it.

usage: live_page.py MODULE.js OUT.html
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def unquote(s):
    return json.loads('"' + s.replace("\t", "\\t") + '"')


def read_po(path):
    """Every entry of a GNU gettext catalog: (context, id, translation, locations)."""
    entries, entry, field = [], None, None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines() + [""]:
            if not line.strip():
                if entry and "msgid" in entry:
                    entries.append(entry)
                entry, field = None, None
                continue
            entry = entry if entry is not None else {"locations": []}
            if line.startswith("#:"):
                entry["locations"] += line[2:].split()
            elif line.startswith("#"):
                continue
            else:
                m = re.match(r'(msgctxt|msgid|msgstr) "(.*)"$', line)
                if m:
                    field = m.group(1)
                    entry[field] = unquote(m.group(2))
                elif line.startswith('"') and field:
                    entry[field] += unquote(line[1:-1])
    return [(e.get("msgctxt", ""), e["msgid"], e.get("msgstr", ""), e["locations"]) for e in entries if e["msgid"]]


def page_ids(script, page):
    ids = set(re.findall(r'\b(?:tr|N_)\("((?:[^"\\]|\\.)*)"', script))
    ids = {unquote(i) for i in ids}
    missing = [i for i in re.findall(r'data-tr="([^"]*)"', page) if i not in ids]
    if missing:
        sys.exit(f"live_page: data-tr texts not listed with N_() in web/lesson.js: {missing}")
    return ids


def main():
    module_path, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(ROOT, "web", "lesson.html"), encoding="utf-8") as f:
        page = f.read()
    with open(os.path.join(ROOT, "web", "lesson.js"), encoding="utf-8") as f:
        script = f.read()
    with open(module_path, encoding="utf-8") as f:
        module = f.read()
    ids = page_ids(script, page)
    catalog = {}
    for context, msgid, msgstr, locations in read_po(os.path.join(ROOT, "po", "zh_CN.po")):
        library = any(loc.startswith(("src/rope/core/", "src/rope/models/", "src/rope/analysis/")) for loc in locations)
        if (not context and msgid in ids) or context == "error" or library:
            if msgstr:
                catalog[context + "\u0004" + msgid] = msgstr
    missing = sorted(i for i in ids if "\u0004" + i not in catalog)
    if missing:
        sys.exit("live_page: no Chinese in po/zh_CN.po for: " + "; ".join(missing))
    text = json.dumps(catalog, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for mark, value in (("/*CATALOG*/", text), ("/*MODULE*/", module), ("/*SCRIPT*/", script)):
        if page.count(mark) != 1:
            sys.exit(f"live_page: web/lesson.html must hold {mark} once")
        page = page.replace(mark, value.replace("</script", "<\\/script"))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, out)
    print(f"live_page: {out} ({os.path.getsize(out)} bytes, {len(catalog)} catalog entries)")


if __name__ == "__main__":
    main()
