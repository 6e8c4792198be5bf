"""Headless Chromium (Debian's `chromium`) for the browser tests: one way to load a page, fail on any console
message, and judge a screenshot. Used by check_lesson.py and check_live.py."""
import os
import subprocess
import sys

from PIL import Image

# Flags that keep a headless run quiet and offline: no first-run dialogs, no background networking, no QUIC,
# no component updates; a profile directory per test run so that runs never share state.
QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]


def chromium(url, window, profile, *args):
    """Runs Chromium on url and returns its stdout; exits the test on a non-zero status or any console
    message (the pages log nothing: an exception is a console message)."""
    cmd = ["chromium", *QUIET, f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}", *args, url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        sys.exit(f"chromium failed ({r.returncode}) on {url}:\n{r.stderr[-2000:]}")
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    if console:
        sys.exit(f"console messages on {url}:\n" + "\n".join(console))
    return r.stdout


def screenshot(url, window, profile, path, min_drawn, min_colours):
    """Takes a screenshot of url into path and exits the test when it looks blank: fewer than min_drawn of the
    pixels not white, or fewer than min_colours colours. Returns the pixels (to compare two screenshots)."""
    chromium(url, window, profile, f"--screenshot={path}")
    with Image.open(path) as im:
        rgb = im.convert("RGB")
        if rgb.size != tuple(window):
            sys.exit(f"{path}: screenshot is {rgb.size}, expected {tuple(window)}")
        pixels = list(rgb.getdata())
    drawn = sum(1 for p in pixels if min(p) < 240) / len(pixels)
    colours = len(set(pixels))
    if drawn < min_drawn or colours < min_colours:
        sys.exit(f"{path}: looks blank ({drawn:.1%} of the pixels drawn, {colours} colours)")
    print(f"  {os.path.basename(path)}: {drawn:.1%} of the pixels drawn, {colours} colours")
    return pixels
