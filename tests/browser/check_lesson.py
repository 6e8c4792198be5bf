#!/usr/bin/env python3
"""The lesson page in a real browser: headless Chromium (Debian's `chromium`) loads the page that
`rope lesson --html` writes, in English and in Chinese, and
  - logs no console message at all (the page logs nothing; an exception is a console message),
  - runs its script: opened at #frame=11 the DOM shows the last frame's counter "12 / 12",
  - draws something: the screenshot is not blank (>= 2 % of the pixels not white, >= 16 colours),
  - shows another frame at #frame=11 than at #frame=0 (the slider's frames are precomputed SVGs),
  - folds the exercises' answers (<details>, closed) and prints as the class's handout (issues 68 and 81): Chromium's
    print of the page (DevTools' Page.printToPDF, its @page size: A4) is four pages in both languages, as
    docs/classroom.md and docs/classroom.zh.md say (the print stylesheet
    keeps each part's title, the figures two to a row and the exercises, and leaves out the outputs, the sliders
    and the answers), and its text (poppler's pdftotext) holds every part's title as the page writes it and no
    raw Markdown (a link's "](", "**", a backquote).
Run by `make browser-test` (and CI), not by ctest: Chromium is a large package, installed by
`scripts/install-deps.sh browser`. Needs python3-pil (same level) to read the screenshot and poppler-utils (same
level) for pdftotext.

usage: check_lesson.py ROPE OUTDIR
"""
import html
import os
import re
import subprocess
import sys
import tempfile

import headless

WINDOW = (1100, 3000)  # tall enough for Part 1 and its frames
PROFILE = None  # set by main: a fresh Chromium profile for this run


def chromium(url, *args):
    return headless.chromium(url, WINDOW, PROFILE, *args)


def screenshot(url, path):
    return headless.screenshot(url, WINDOW, PROFILE, path, min_drawn=0.02, min_colours=16)


def main():
    global PROFILE
    rope, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as PROFILE:
        check(rope, out)


def check(rope, out):
    for lang in ("en", "zh"):
        page = os.path.abspath(os.path.join(out, f"lesson.{lang}.html"))
        subprocess.run([rope, "lesson", "--html", page, "--lang", lang], check=True, stdout=subprocess.DEVNULL)
        url = "file://" + page
        print(f"{lang}: {page}")
        dom = chromium(url + "#frame=11", "--dump-dom")
        if not re.search(r'id="frames1-n">12 / 12<', dom):
            sys.exit(f"{lang}: the page's script did not show frame 12 of 12 at #frame=11")
        answers = re.findall(r'<details class="answer"( open)?>', dom)
        if len(answers) < 4 or any(answers):
            sys.exit(f"{lang}: {len(answers)} folded answers on the page (expected 4 to 6, all closed)")
        pdf = os.path.join(out, f"handout.{lang}.pdf")
        headless.pdf(url, WINDOW, PROFILE, pdf)
        with open(pdf, "rb") as f:
            pages = len(re.findall(rb"/Type\s*/Page\b", f.read()))
        if pages != 4:  # docs/classroom.md, classroom.zh.md: four pages, Part 9's figures and the questions on the last
            sys.exit(f"{lang}: the printed handout is {pages} A4 pages (the docs say four)")
        printed = re.sub(r"\s+", "", subprocess.run(["pdftotext", "-enc", "UTF-8", pdf, "-"], check=True,
                                                     capture_output=True, text=True).stdout)
        titles = [html.unescape(t) for t in re.findall(r'<section id="(?:part\d+|exercises)">\s*<h2>(.*?)</h2>', dom)]
        if len(titles) < 9:
            sys.exit(f"{lang}: {len(titles)} part titles on the page (expected the parts and the exercises)")
        missing = [t for t in titles if re.sub(r"\s+", "", t) not in printed]
        if missing:
            sys.exit(f"{lang}: the printed handout leaves out these titles: {missing}")
        markdown = [m for m in ("](", "**", "`") if m in printed]
        if markdown:
            sys.exit(f"{lang}: the printed handout shows raw Markdown: {markdown}")
        print(f"{lang}: the handout prints on {pages} A4 pages, with its {len(titles)} titles")
        first = screenshot(url + "#frame=0", os.path.join(out, f"lesson.{lang}.first.png"))
        last = screenshot(url + "#frame=11", os.path.join(out, f"lesson.{lang}.last.png"))
        if first == last:
            sys.exit(f"{lang}: #frame=0 and #frame=11 look the same: the slider shows no other frame")
    print("browser test passed: both pages load without console messages, draw, and step through frames")


if __name__ == "__main__":
    main()
