"""Headless Chromium (Debian's `chromium`) for the browser tests: one way to load a page, fail on any console
message, and judge a screenshot. Used by check_lesson.py and check_live.py.

One Chromium process per profile serves every page of a test run: the test speaks the DevTools protocol to it
over a pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte on file descriptors 3 and 4; no port, no
network, no package beyond Python's). Each page is loaded from scratch (through about:blank, its address with its
hash) in a tab of the window size asked for (one tab per size); so a page computes what it computed when each was
a Chromium process of its own, and a run no longer pays ~80 browser start-ups (a page and its start-up took ~7 s;
a page alone ~1 s). What a page does on load (the live page computes
synchronously: its WebAssembly is compiled with WASM_ASYNC_COMPILATION=0) is done when its load event fires.
A PDF is printed by the same tab (Page.printToPDF, the page's own @page size, no header or footer: what
--print-to-pdf --no-pdf-header-footer printed as a process of its own)."""
import atexit
import base64
import json
import os
import select
import subprocess
import sys
import tempfile

from PIL import Image

# Flags that keep a headless run quiet and offline: no first-run dialogs, no background networking, no QUIC,
# no component updates; a profile directory per test run so that runs never share state.
QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]
TIMEOUT = 180  # seconds Chromium may stay silent (one page), as the one-process-per-page runs allowed


class Browser:
    """One Chromium process and the DevTools protocol over its pipe."""

    def __init__(self, profile):
        to_chromium, self._send_fd = os.pipe()
        self._recv_fd, from_chromium = os.pipe()

        def descriptors():  # Chromium reads commands on fd 3 and writes answers on fd 4
            a, b = os.dup(to_chromium), os.dup(from_chromium)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = ["chromium", *QUIET, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]
        self._stderr = tempfile.TemporaryFile()  # Chromium's log, shown when it fails
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self._stderr, preexec_fn=descriptors,
                                     close_fds=False)  # keeps 3 and 4 (Python's own are close-on-exec)
        os.close(to_chromium)
        os.close(from_chromium)
        self._buffer, self._next_id, self._events, self._tabs = b"", 0, [], {}

    def _fail(self, what):
        self._stderr.seek(0)
        sys.exit(f"chromium {what}:\n{self._stderr.read().decode(errors='replace')[-2000:]}")

    def _read_message(self):
        while b"\0" not in self._buffer:
            if not select.select([self._recv_fd], [], [], TIMEOUT)[0]:  # a page that never loads
                self._fail(f"answered nothing in {TIMEOUT} s")
            chunk = os.read(self._recv_fd, 1 << 20)
            if not chunk:
                self._fail(f"exited ({self.proc.poll()}) while a page was open")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        """Sends one command and returns its result; events that arrive meanwhile are kept for wait()."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read_message()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    sys.exit(f"chromium: {method} failed: {answer['error']}")
                return answer.get("result", {})
            self._events.append(answer)

    def wait(self, session, method):
        """Returns the events of the session received until `method` (included)."""
        seen = []
        while True:
            event = self._events.pop(0) if self._events else self._read_message()
            if event.get("sessionId") != session:
                continue
            seen.append(event)
            if event.get("method") == method:
                return seen

    def tab(self, window):
        """The tab of this window size (one per size, opened on first use), as (session, target)."""
        if window not in self._tabs:
            target = self.call("Target.createTarget", url="about:blank", width=window[0], height=window[1],
                               newWindow=True)["targetId"]
            session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self.call("Emulation.setDeviceMetricsOverride", session, width=window[0], height=window[1],
                      deviceScaleFactor=1, mobile=False)
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable", session)
            self._tabs[window] = session
        return self._tabs[window]

    def page(self, url, window):
        """Loads url from scratch in the tab of the window's size (through about:blank, so that a page that
        differs from the last one only by its hash is a new document too); returns (session, console
        messages) after its load event."""
        session = self.tab(window)
        self.call("Page.navigate", session, url="about:blank")
        self.wait(session, "Page.loadEventFired")
        self._events = [e for e in self._events if e.get("sessionId") != session]
        self.call("Page.navigate", session, url=url)
        console = []
        for event in self.wait(session, "Page.loadEventFired"):
            method, p = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                console.append(f"console.{p.get('type')}: " +
                               " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = p.get("exceptionDetails", {})
                console.append(f"exception: {details.get('exception', {}).get('description', details.get('text'))}")
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("warning", "error"):
                console.append(f"{p['entry']['level']}: {p['entry'].get('text')}")
        return session, console

    def close(self):
        if self.proc.poll() is None:
            try:
                self.call("Browser.close")
            except SystemExit:
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_browsers = {}


def _browser(profile):
    if profile not in _browsers:
        _browsers[profile] = Browser(profile)
        atexit.register(_browsers[profile].close)
    return _browsers[profile]


def chromium(url, window, profile, *args):
    """Loads url in a window of the given size and returns its DOM (args "--dump-dom") or writes its screenshot
    (args "--screenshot=PATH", a PNG of the window); exits the test on any console message (the pages log
    nothing: an exception is a console message). A PDF: pdf()."""
    if not args or any(a != "--dump-dom" and not a.startswith("--screenshot=") for a in args):
        raise ValueError(f"headless.chromium takes --dump-dom or --screenshot=PATH, not {args}")
    browser = _browser(profile)
    session, console = browser.page(url, window)
    if console:
        sys.exit(f"console messages on {url}:\n" + "\n".join(console))
    out = ""
    for a in args:
        if a == "--dump-dom":
            expression = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')"
                          " + document.documentElement.outerHTML")
            out = browser.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
            out = out["result"]["value"] + "\n"
        else:
            png = browser.call("Page.captureScreenshot", session, format="png")["data"]
            with open(a.split("=", 1)[1], "wb") as f:
                f.write(base64.b64decode(png))
    return out


def pdf(url, window, profile, path):
    """Prints url to the PDF file path as Chromium prints it (the page's @page size and margins, no header or
    footer), after its load event; exits the test on any console message."""
    browser = _browser(profile)
    session, console = browser.page(url, window)
    if console:
        sys.exit(f"console messages on {url}:\n" + "\n".join(console))
    data = browser.call("Page.printToPDF", session, preferCSSPageSize=True, displayHeaderFooter=False)["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


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
