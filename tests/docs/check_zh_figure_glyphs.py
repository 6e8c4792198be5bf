#!/usr/bin/env python3
"""Every character of every Chinese figure is in the font that draws it (po/glossary.md, "Notation in
figures"). The figures are those of docs/gallery.md: each of its commands runs again with --lang zh and
--keep-script, its outputs in a scratch directory (an animation with 3 frames: the texts of a frame do not
depend on how many there are). Every string of the gnuplot scripts ('…' and "…") is a text gnuplot draws or
a setting; each of its characters must be in the charset of the font fontconfig gives for the Chinese
figures' face, "WenQuanYi Micro Hei" (fc-match, then fc-query --format '%{charset}'), where the figure is drawn
into a GIF: gnuplot's GIF and sixel terminals (libgd) draw one font, a missing glyph as an empty box, so a
character outside that set is a visible defect, not a style question. A figure drawn only by the cairo terminals
(PNG, PDF) or as SVG takes a glyph WenQuanYi lacks from the fallback font, DejaVu Sans (fc-match "Sans"): its
characters must be in one of the two.

usage: check_zh_figure_glyphs.py ROPE GALLERY_MD SCRATCH_DIR
"""
import os
import re
import shlex
import subprocess
import sys

FACE = "WenQuanYi Micro Hei"
OUTPUTS = {"--png", "--svg", "--pdf", "--gif", "-o", "--output"}


def font_charset(face):
    match = subprocess.run(["fc-match", "--format", "%{file}\n%{index}", face], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    path, index = match[0], match[1] if len(match) > 1 and match[1] else "0"
    if face == FACE and FACE.split()[0].lower() not in os.path.basename(path).lower() and "wqy" not in path:
        sys.exit(f"fontconfig gives {path} for '{face}': install fonts-wqy-microhei")
    ranges = subprocess.run(["fc-query", "-i", index, "--format", "%{charset}", path], capture_output=True, text=True,
                            check=True).stdout.split()
    chars = set()
    for r in ranges:
        lo, _, hi = r.partition("-")
        chars.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return path, chars


def gallery_commands(path):
    commands, in_sh = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_sh = line.strip() == "```sh"
            continue
        if in_sh and line.startswith("rope "):
            commands.append(shlex.split(line)[1:])
    return commands


def script_strings(text):
    """The single- and double-quoted strings of a gnuplot script (comments left out)."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        out += [m.group(1) or m.group(2) or "" for m in re.finditer(r"'((?:[^']|'')*)'|\"((?:[^\"\\\\]|\\\\.)*)\"", line)]
    return out


def main():
    rope, gallery, scratch = sys.argv[1:4]
    os.makedirs(scratch, exist_ok=True)
    font, charset = font_charset(FACE)
    fallback, fallback_charset = font_charset("Sans")
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data")
    problems, figures, checked = [], 0, 0
    for n, args in enumerate(gallery_commands(gallery)):
        if args[0] == "lesson":
            continue
        args = [a.replace("../data/", data + "/") for a in args]
        run = []
        k = 0
        while k < len(args):
            if args[k] in OUTPUTS and k + 1 < len(args):
                ext = os.path.splitext(args[k + 1])[1]
                run += [args[k], os.path.join(scratch, f"fig{n}{ext}")]
                k += 2
            elif args[k] == "--frames":
                k += 2
            elif args[k] == "--lang":
                k += 2
            else:
                run.append(args[k])
                k += 1
        if "--gif" in run:
            run += ["--frames", "3"]
        gp = os.path.join(scratch, f"fig{n}.gp")
        r = subprocess.run([rope, *run, "--lang", "zh", "--keep-script", gp], capture_output=True, text=True,
                           env={**os.environ, "LC_ALL": "C.UTF-8"}, timeout=300)
        if r.returncode != 0:
            problems.append(f"rope {' '.join(run)} --lang zh: exit {r.returncode}: {r.stderr.strip()}")
            continue
        figures += 1
        one_font = "--gif" in run
        for s in script_strings(open(gp, encoding="utf-8").read()):
            for ch in set(s):
                checked += 1
                if ord(ch) < 0x80 or ord(ch) in charset or (not one_font and ord(ch) in fallback_charset):
                    continue
                where = font if one_font else f"{font} nor {fallback}"
                problems.append(f"rope {' '.join(args)} --lang zh: '{ch}' (U+{ord(ch):04X}) is not in {where}: …{s[:60]}…")
    for p in sorted(set(problems)):
        print(p)
    if problems:
        sys.exit(f"{len(set(problems))} problems in the Chinese figures")
    print(f"{figures} Chinese figures: every character of their texts is in {font} (a GIF) or in it or {fallback} "
          f"({checked} checked)")


if __name__ == "__main__":
    main()
