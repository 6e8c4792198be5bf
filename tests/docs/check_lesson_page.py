#!/usr/bin/env python3
"""`rope lesson --html` is the lesson of docs/classroom.md (classroom.zh.md for --lang zh):

  - the page runs exactly the doc's commands: every command the page shows is one of the doc's (the doc's
    `rope explain --step K` stands for K = 1 … 6, with or without --quiet), and every command of the doc,
    from Part 1 on, is on the page (a figure's `--png FILE` aside: the page draws that figure as SVG, so
    `rope matrix --dim 8 --position 3` and its `--png matrix.png` run are one command);
  - it shows what the doc tells the teacher to point at: every string the doc quotes from a command's
    output (the code spans of a "<!-- quotes: rope … -->" paragraph, tests/docs/check_examples.py) is in
    that command's output on the page;
  - its figures carry the doc's captions, in the doc's order;
  - the students' questions and answers of the doc are on the page, every paragraph of them;
  - (Chinese) its <pre> text keeps its columns: every character that is not ASCII sits in a box of its
    terminal width (2 columns for a Chinese character, 1 otherwise, as rope pads its tables:
    rope/core/utf8.hpp display_width). A CJK "monospace" font does not do it: in WenQuanYi Micro Hei Mono
    a Chinese character is 2048 units wide and a digit 1229, 1.67 columns, not 2 (measured with fontTools).

usage: check_lesson_page.py ROPE DOCS_DIR SCRATCH_DIR
"""
import html
import os
import re
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_examples  # noqa: E402  (find_quote_blocks, squeeze)

CODE = re.compile(r'<code class="cmd">\$ (.*?)</code>\n<pre>(.*?)</pre>', re.S)
CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)
PRE = re.compile(r"<pre>(.*?)</pre>", re.S)


def strip_png(command):
    """The command without its figure file and its language (the page's; the Chinese doc writes --lang zh
    in more than one place)."""
    return re.sub(r" --png \S+| --lang zh", "", command.strip())


def doc_lesson(path, first_heading):
    text = open(path, encoding="utf-8").read()
    body = text[text.index(first_heading):]
    prose = re.sub(r"<!--.*?-->", "", body, flags=re.S)
    commands = []
    for m in re.finditer(r"^\$ (rope [^\n]*)|`(rope [^`]*)`", prose, re.M):
        c = re.sub(r"\s+", " ", m.group(1) or m.group(2)).strip()
        if "…" not in c and c not in commands:
            commands.append(c)
    captions = re.findall(r"^!\[(.*?)\]\(", body, re.M)
    return commands, captions, text.splitlines()


def covered(doc_command, page_commands):
    if re.search(r"--step K\b", doc_command):
        base = strip_png(doc_command).replace(" --quiet", "")
        return all(any(re.fullmatch(re.escape(base).replace("K", str(k)) + r"( --quiet)?", strip_png(p))
                       for p in page_commands) for k in range(1, 7))
    return strip_png(doc_command) in {strip_png(p) for p in page_commands}


def is_doc_command(page_command, doc_commands):
    for d in doc_commands:
        if re.search(r"--step K\b", d):
            pattern = re.escape(strip_png(d).replace(" --quiet", "")).replace("K", "[1-6]") + r"( --quiet)?"
            if re.fullmatch(pattern, strip_png(page_command)):
                return True
        elif strip_png(d) == strip_png(page_command):
            return True
    return False


def check_pre_widths(page, problems):
    """Every character of a <pre> that is not ASCII sits in a box of its terminal width (the page's CSS makes
    .w1 1ch and .w2 2ch wide), so columns line up whatever font draws it; returns the lines checked."""
    if "pre .w1{width:1ch}pre .w2{width:2ch}" not in page and ".w1{width:1ch}" not in page:
        problems.append("the page's CSS does not size .w1 and .w2 to 1ch and 2ch")
    lines = 0
    for pre in PRE.findall(page):
        for span in re.finditer(r'<span class="w(\d)">(.*?)</span>', pre):
            ch = html.unescape(span.group(2))
            want = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
            if len(ch) != 1 or int(span.group(1)) != want:
                problems.append(f"zh <pre>: '{ch}' is boxed {span.group(1)} columns wide, not {want}")
        bare = re.sub(r'<span class="w\d">.*?</span>', "", pre)
        for line in html.unescape(bare).splitlines():
            lines += 1
            for ch in line:
                if ord(ch) >= 0x80 and not unicodedata.combining(ch):
                    problems.append(f"zh <pre>: '{ch}' (U+{ord(ch):04X}) has no box of its width: {line.strip()[:70]}")
    return lines


QUESTIONS = {"en": "## Common student questions", "zh": "## 学生常见问题"}


def main():
    rope, docs, scratch = sys.argv[1:4]
    os.makedirs(scratch, exist_ok=True)
    problems = []
    for lang, doc, heading in (("en", "classroom.md", "## Part 1"), ("zh", "classroom.zh.md", "## 第 1 部分")):
        out = os.path.join(scratch, f"lesson.{lang}.html")
        subprocess.run([rope, "lesson", "--html", out, "--lang", lang], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "LC_ALL": "C.UTF-8"})
        page = open(out, encoding="utf-8").read()
        runs = [(html.unescape(c), html.unescape(re.sub(r"</?span[^>]*>", "", o))) for c, o in CODE.findall(page)]
        page_commands = [c for c, _ in runs]
        doc_commands, doc_captions, doc_lines = doc_lesson(os.path.join(docs, doc), heading)
        for c in page_commands:
            if not is_doc_command(c, doc_commands):
                problems.append(f"{lang}: the page runs '{c}', which {doc} does not")
        for d in doc_commands:
            if not covered(d, page_commands):
                problems.append(f"{lang}: {doc} runs '{d}', which the page does not")
        captions = [html.unescape(c) for c in CAPTION.findall(page)]
        if captions != doc_captions:
            problems.append(f"{lang}: the page's captions {captions} are not {doc}'s {doc_captions}")
        outputs = {strip_png(c): check_examples.squeeze(o) for c, o in runs}
        quoted = 0
        for line, command, files, quotes in check_examples.find_quote_blocks(doc_lines):
            key = strip_png(re.sub(r" --keep-script \S+", "", command))
            if files or key not in outputs:
                continue
            for _, q in quotes:
                quoted += 1
                if check_examples.squeeze(q) not in outputs[key]:
                    problems.append(f"{lang}: {doc}:{line + 1} points at `{q}` of '{command}', not on the page")
        # The students' questions and answers, as the doc writes them (issue 51): every question, and every
        # paragraph's text (the doc's marks and line breaks aside), is on the page.
        text = open(os.path.join(docs, doc), encoding="utf-8").read()
        section = text[text.index(QUESTIONS[lang]):]
        shown = re.sub(r"\s+", "", html.unescape(re.sub(r"<[^>]+>", "", page)))
        answered = 0
        for paragraph in re.split(r"\n\s*\n", section.split("\n", 1)[1]):
            if paragraph.startswith(("```", "![", "<!--", "## ")):
                continue
            answered += 1
            words = re.sub(r"\s+", "", re.sub(r"[`*]", "", paragraph))
            if words not in shown:
                problems.append(f"{lang}: {doc}'s paragraph of {QUESTIONS[lang]} is not on the page: {paragraph[:70]}…")
        if answered < 4:
            problems.append(f"{lang}: {doc} has {answered} paragraphs of questions and answers, expected at least 4")
        lines = check_pre_widths(page, problems) if lang == "zh" else 0
        print(f"{lang}: {len(page_commands)} commands, {len(captions)} figures, {quoted} quoted strings"
              + (f", {lines} lines of <pre> measured" if lang == "zh" else ""))
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"{len(problems)} problems")
    print("the lesson pages run the lessons' commands and show what they point at")


if __name__ == "__main__":
    main()
