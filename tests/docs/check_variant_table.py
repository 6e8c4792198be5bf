#!/usr/bin/env python3
"""The table of known variants of docs/check.md against the rows of the variant table (tests/docs/variant_table.hpp).

  marker    the page holds the block `<!-- rope_docgen: variants -->` … `<!-- rope_docgen: end -->` once: a page
            without it would regenerate to itself and hide a variant.
  table     `rope_docgen --print` writes the block from the rows of src/rope/analysis/variants/ (their
            ids, how each is found, the keys of its `found`) and the docs' words of each; the page must be byte for
            byte what it prints. rope_docgen fails on a row without its words, or words that name no row. A difference
            is printed as a unified diff, with the command that fixes it.

Usage: check_variant_table.py --docgen PATH DOC. Exit status 1 if a check fails.
"""
import argparse
import difflib
import subprocess
import sys

MARKER = "<!-- rope_docgen: variants -->\n"
FIX = "make docs   (or: cmake --build build --target rope_docgen && build/tests/rope_docgen --write {doc})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docgen", required=True, help="the rope_docgen executable")
    parser.add_argument("doc", help="docs/check.md")
    args = parser.parse_args()
    with open(args.doc, encoding="utf-8", newline="") as f:
        text = f.read()
    count = text.count(MARKER)
    if count != 1:
        print(f"marker: {args.doc} has {count} '{MARKER.strip()}' blocks (needs one: the table of known variants)")
        return 1
    generated = subprocess.run([args.docgen, "--print", args.doc], capture_output=True, text=True, check=False)
    if generated.returncode != 0:
        print(f"table: rope_docgen failed:\n{generated.stderr}")
        return 1
    if generated.stdout == text:
        rows = generated.stdout.split(MARKER, 1)[1].split("<!-- rope_docgen: end -->", 1)[0].count("\n") - 2
        print(f"table: {args.doc} has the table of known variants generated from the variant table ({rows} rows)")
        return 0
    diff = difflib.unified_diff(text.splitlines(keepends=True), generated.stdout.splitlines(keepends=True),
                                fromfile=f"{args.doc} (as committed)", tofile=f"{args.doc} (generated from the rows)")
    sys.stdout.writelines(diff)
    print(f"\ntable: {args.doc} differs from the table generated from the variant table (diff above). "
          f"Fix: {FIX.format(doc=args.doc)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
