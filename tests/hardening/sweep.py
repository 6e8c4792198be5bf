#!/usr/bin/env python3
"""The malformed-input sweep: every option that takes a value, of every command, given every bad value of
its class (cases.py), run as a user runs rope. Commands and options are discovered from `rope --help`
and `rope COMMAND --help` (CLI11's own listing), so a new command or option is swept without an edit.

Each run happens in a fresh empty working directory with TMPDIR inside it, under a memory limit and a
time limit. It passes when:
  - the process was not killed by a signal, did not time out, and did not exit 4 (internal error);
  - a bad value gave exit 2 or 3 (an "extreme" or ACCEPTED value may also give 0 or 1);
  - with exit 2 or 3, stderr is exactly one line starting "rope: ";
  - with exit 2 or 3, the working directory and TMPDIR are left empty (no output, no temporary file);
    with any exit, no temporary file (".rope-*") is left;
  - stderr holds no control character (C0, DEL, C1): every one is escaped.

--doc FILE checks (or with --update, writes) the tables of docs/errors.md from the same runs, so the
documented messages are the ones the tests see.

--lang zh gives every run `--lang zh` as well (but the runs of --lang itself, whose language is then
unknown) and also requires each error line to be Chinese: no message rope can print stays English
(apps/rope/cli/error_zh.hpp; CTest hardening.sweep_zh).

--driver PATH (tests/hardening/sweep_driver.cpp) runs the cases in-process instead, through
rope::cli::run in one driver process per worker, because starting a process per case was most of the
sweep's time on a slow machine. The directories, limits and checks are the same; a driver that dies or
does not answer in time is that case's problem, and a new driver takes the next case. The executable
itself (main.cpp, real stderr) is still run for every --process-sample'th case (10 by default), and it
must give the same exit status and stderr as the driver.
"""

import argparse
import concurrent.futures
import os
import re
import resource
import shutil
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

DURATIONS = []  # (seconds, command line) of every run, for --slowest
LANG = None  # --lang zh: every run in Chinese
TIMEOUT = 60  # seconds per run; a run near it is a hang for this purpose
MEMORY = 3 << 30  # address-space limit per run (not under AddressSanitizer)


def discover(rope):
    """{command: [(option, type_name, group, help)]} from the help texts; positionals have no dashes."""
    # the help is parsed in English, whatever the locale, and unbroken (help_pages.hpp help_width)
    english = dict(os.environ, LC_ALL="C.UTF-8", COLUMNS="100000")
    top = subprocess.run([rope, "--help"], capture_output=True, text=True, check=True, env=english).stdout
    commands = []
    section = None
    for line in top.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line
            continue
        m = re.match(r"^  ([a-z][a-z0-9-]*)(?:, [a-z0-9-]+)*\s{2,}", line)
        if section and m:  # the commands, in groups (Learn:, Compute:, …)
            commands.append(m.group(1))
    result = {}
    for command in commands:
        text = subprocess.run([rope, command, "--help-all"], capture_output=True, text=True, check=True,
                              env=english).stdout
        options = {}
        group = ""
        last = None
        for line in text.splitlines():
            h = re.match(r"^\s*\[?(?:Option Group: )?([A-Z][A-Za-z ]*):\]?$", line)
            if h:
                group = h.group(1)
                last = None
                continue
            if group == "Positionals":
                m = re.match(r"^\s+([a-z][a-z_-]*) ([A-Za-z][\w,]*)\s*(.*)$", line)
            else:
                # "--opt TYPE", "--opt TYPE=default", "--opt TYPE ... (default: a b)", then REQUIRED and the help
                m = re.match(r"^\s+(?:-\w,)?(--[a-z][\w-]*)(?: ([^\s\[=]+)(?:=\S*)?(?: \.\.\.(?: \(default: [^)]*\))?)?)?\s*(.*)$",
                             line)
            if m:
                last = None
                if m.group(1) in ("--help", "--help-all", "--version") or not m.group(2):
                    continue
                if m.group(2).startswith(("Excludes", "Needs")):
                    continue
                last = m.group(1)
                # "Needs: --xpos" and "Excludes: --encoding" (declared rules) come before the help
                help_ = re.sub(r"^(?:(?:Needs|Excludes):(?: -[\w-]+)+\s*)+", "", m.group(3))
                options.setdefault(last, [m.group(2), "" if group in ("Options", "Positionals") else group,
                                          " ".join(help_.split())])
            elif last and re.match(r"^\s{20,}\S", line) and not options[last][2]:
                options[last][2] = line.strip()  # help on the next line (a long option name)
        result[command] = [(o, t, g, h) for o, (t, g, h) in options.items()]
    return result


def chinese_help(rope, commands):
    """The same options with the Chinese of their help (`--help --lang zh`), for docs/errors.zh.md."""
    result = {}
    for command, options in commands.items():
        text = subprocess.run([rope, command, "--help-all", "--lang", "zh"], capture_output=True, text=True,
                              check=True, env=dict(os.environ, LC_ALL="C.UTF-8", COLUMNS="100000")).stdout
        zh, last = {}, None
        for line in text.splitlines():
            line = re.sub(r"(?: (?:需要|不能与之同用)：(?: ?-[\w-]+)+)+", "", line)  # the declared rules, as above
            m = re.match(r"^\s+(?:-\w,)?(--[a-z][\w-]*|[a-z][a-z_-]*) (?:\S+)(?:=\S*)?(?: \.\.\.(?:（[^）]*）)?)?"
                         r"(?: 必需)?\s{2,}(\S.*)$", line)
            if m:
                zh[m.group(1)] = " ".join(m.group(2).split())
                last = None
                continue
            m = re.match(r"^\s+(?:-\w,)?(--[a-z][\w-]*|[a-z][a-z_-]*) \S+\s*$", line)
            if m:
                last = m.group(1)
            elif last and re.match(r"^\s{20,}\S", line):
                zh[last] = line.strip()
                last = None
        result[command] = [(o, t, g, zh.get(o, h)) for o, t, g, h in options]
    return result


def option_class(command, option, type_name):
    if type_name == "FILE" and ({f"{command} {option}", f"* {option}"} & cases.INPUT_FILES):
        return "input"
    return cases.TYPE_CLASSES.get(type_name, "string")


def accepted(command, option, label):
    for key in (f"{command} {option}", f"* {option}"):
        if key in cases.ACCEPTED:
            labels = cases.ACCEPTED[key][0]
            if labels == "*" or label in labels:
                return True
    return False


def make_fixtures(fix):
    os.makedirs(fix, exist_ok=True)
    write = lambda name, data: open(os.path.join(fix, name), "wb").write(data)  # noqa: E731
    write("binary.txt", b"1,2\x00\x01\x02\xff")
    write("huge.txt", b"1," * (3 << 20))  # 6 MiB: over the 4 MiB limits
    write("empty.txt", b"")
    write("many.txt", b"1\n" * 70000)  # over the 65536-item limit, under the byte limit
    write("invalid.json", b'{"head_dim": 128,')
    write("deep.json", b"[" * 1000 + b"]" * 1000)
    write("huge_number.json", b'{"head_dim": 128, "rope_theta": 1e400}')
    write("wrong_type.json", b'{"head_dim": "128", "rope_theta": 10000}')
    write("duplicate.json", b'{"head_dim": 128, "head_dim": 64, "rope_theta": 10000}')
    if not os.path.exists(os.path.join(fix, "fifo")):
        os.mkfifo(os.path.join(fix, "fifo"))  # no writer: reading it must not wait


def limits(full_disk):
    def apply():
        if not os.environ.get("ASAN_OPTIONS"):
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        if full_disk:
            # Writes past 0 bytes fail with EFBIG, as on a full disk (SIGXFSZ ignored, as writes then
            # just fail); gnuplot inherits the limit.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    return apply


def leftovers(directory):
    found = []
    for root, dirs, files in os.walk(directory):
        for name in files + [d for d in dirs if os.path.join(root, d) != os.path.join(directory, "tmp")]:
            found.append(os.path.relpath(os.path.join(root, name), directory))
    return sorted(found)


class Driver:
    """One rope_sweep_driver process, used by one worker thread at a time; started again after a crash
    or a timeout. Its stderr is the sweep's: a sanitizer report or a crash message shows in the log."""

    ALL = []  # every driver started, to end them and check their exit status at the end

    def __init__(self, path):
        self.path = path
        self.p = None

    def start(self):
        self.p = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                  env=dict(os.environ, LC_ALL="C.UTF-8"), preexec_fn=limits(False))
        Driver.ALL.append(self.p)

    def read(self, n, deadline):
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.p.stdout.fileno(), n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def run(self, args, run_dir, tmp, full_disk):
        """(exit status, stderr bytes); raises TimeoutError, or RuntimeError when the driver died."""
        if self.p is None:
            self.start()
        fields = [os.fsencode(f) for f in [run_dir, tmp, "1" if full_disk else "0"] + args]
        request = struct.pack("<I", len(fields)) + b"".join(struct.pack("<I", len(f)) + f for f in fields)
        try:
            view = memoryview(request)
            while view:  # a raw pipe may take part of a long request (100 000-character values)
                view = view[self.p.stdin.write(view):]
            code, n = struct.unpack("<II", self.read(8, time.monotonic() + TIMEOUT))
            return code, self.read(n, time.monotonic() + TIMEOUT)
        except (BrokenPipeError, EOFError, TimeoutError) as e:
            self.p.kill()
            status = self.p.wait()
            self.p = None
            if isinstance(e, TimeoutError):
                raise
            raise RuntimeError(f"killed by signal {-status}" if status < 0 else f"exit {status}")


def finish_drivers():
    """Ends every driver (end of input); a nonzero exit (a LeakSanitizer report: 23) is a problem."""
    problems = []
    for p in Driver.ALL:
        if p.poll() is None:
            p.stdin.close()
            status = p.wait()
            if status != 0:
                problems.append(f"a driver exited {status} at the end of its input")
    return problems


def command_line(rope, command, option, value):
    """(argv, full_disk) for one case."""
    full_disk = value.startswith("FULL_DISK:")
    if full_disk:
        value = value[len("FULL_DISK:"):]
    base = list(cases.BASE_ARGS.get(command, []))
    if option in base:
        i = base.index(option)
        del base[i:i + 2]
    lang = ["--lang", LANG] if LANG and option != "--lang" else []
    return [rope, command] + base + ([value] if option[0] != "-" else [option, value]) + lang, full_disk


def one_run(args, full_disk, run_dir, ok_codes, driver):
    """One run in a process of its own (driver None) or in the driver; returns (problem or None, exit
    code, stderr)."""
    tmp = os.path.join(run_dir, "tmp")
    os.makedirs(tmp)
    started = time.monotonic()
    try:
        if driver:
            code, err = driver.run(args, run_dir, tmp, full_disk)
        else:
            env = dict(os.environ, TMPDIR=tmp, LC_ALL="C.UTF-8")
            p = subprocess.run([os.fsencode(a) for a in args], cwd=run_dir, env=env, capture_output=True,
                               timeout=TIMEOUT, preexec_fn=limits(full_disk))
            code, err = p.returncode, p.stderr
    except (subprocess.TimeoutExpired, TimeoutError):
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"no answer within {TIMEOUT} s", None, ""
    except RuntimeError as e:  # the driver died: a crash of the run, as a signal is in a process
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"the driver died ({e})", None, ""
    DURATIONS.append((time.monotonic() - started, " ".join(args[1:])[:160]))
    err = err.decode("utf-8", "replace")
    left = leftovers(run_dir)
    temp_left = [f for f in left if ".rope-" in os.path.basename(f)] + os.listdir(tmp)
    injected = os.path.exists(os.path.join(run_dir, "INJECTED"))
    shutil.rmtree(run_dir, ignore_errors=True)
    if code < 0:
        return f"killed by signal {-code}", code, err
    if code not in ok_codes:
        return f"exit {code}", code, err
    if code in (2, 3):
        if not err.startswith("rope: ") or err.count("\n") != 1 or not err.endswith("\n"):
            return "stderr is not one line 'rope: ...'", code, err
        if re.search("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]", err):
            return "a control character reached stderr unescaped", code, err
        if LANG == "zh" and args[-2:] == ["--lang", "zh"] and not re.search("[\u4e00-\u9fff]", err):
            return "the message is not in Chinese (add its entry to po/zh_CN.po, msgctxt error)", code, err
        if left:
            return f"left files behind: {left[:3]}", code, err
    if temp_left:
        return f"left temporary files: {temp_left[:3]}", code, err
    if injected:
        return "a gnuplot command ran", code, err
    return None, code, err


def run_case(rope, work, index, command, option, value, ok_codes, driver_path, sample):
    """One case: in a process of its own, or in this thread's driver and, every sample'th case, also in
    a process (which must give the same exit status and stderr, its run directory aside)."""
    args, full_disk = command_line(rope, command, option, value)
    if not driver_path:
        return one_run(args, full_disk, os.path.join(work, f"run{index}"), ok_codes, None)
    local = WORKER.__dict__
    driver = local.setdefault("driver", Driver(driver_path))
    problem, code, err = one_run(args, full_disk, os.path.join(work, f"run{index}"), ok_codes, driver)
    if sample and index % sample == 0:
        p_problem, p_code, p_err = one_run(args, full_disk, os.path.join(work, f"run{index}p"), ok_codes, None)
        same = lambda e, d: e.replace(os.path.join(work, d), "RUN")  # noqa: E731
        if p_problem and not problem:
            problem, code, err = f"as a process: {p_problem}", p_code, p_err
        elif not problem and (p_code, same(p_err, f"run{index}p")) != (code, same(err, f"run{index}")):
            problem = f"as a process: exit {p_code}, stderr {p_err.strip()[:200]!r}; in the driver: exit {code}"
    return problem, code, err


WORKER = threading.local()  # each worker thread's driver


def shown_value(value, fix):
    v = re.sub(r"[\udc80-\udcff]", lambda m: "\\x%02x" % (ord(m.group(0)) - 0xDC00), value.replace(fix, "FIX"))
    v = re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group(0)), v)
    v = re.sub(r"[\x80-\x9f]", lambda m: "\\u%04x" % ord(m.group(0)), v)  # C1 controls: never raw in the page
    if len(v) > 40:
        v = v[:20] + f"…({len(v)} chars)"
    return v.replace("\n", "\\n").replace("|", "\\|")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rope", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", help="regex on 'command option' to run a part")
    ap.add_argument("--doc", help="docs/errors.md: check its generated tables against these runs")
    ap.add_argument("--update", action="store_true", help="with --doc: rewrite the generated tables")
    ap.add_argument("--slowest", type=int, default=0, metavar="N", help="print the N slowest runs and their times")
    ap.add_argument("--driver", help="rope_sweep_driver: run the cases in-process (see above)")
    ap.add_argument("--process-sample", type=int, default=10, metavar="N",
                    help="with --driver: also run every N-th case as a process (0: none, 1: all)")
    ap.add_argument("--lang", choices=["zh"], help="run every case with --lang zh and require Chinese errors")
    ap.add_argument("--every-group", action="store_true",
                    help="give a shared group's options (Figure, Scaling, ...) every bad value in every command "
                         "that has the group, not only in the first")
    ap.add_argument("--doc-cases", action="store_true",
                    help="run only the cases whose results the --doc tables show")
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    global LANG
    LANG = a.lang

    commands = discover(rope)
    work = tempfile.mkdtemp(prefix="rope-sweep-")
    fix = os.path.join(work, "fix")
    make_fixtures(fix)
    import errors_doc
    forms = {(c, o) for _, c, o, _ in errors_doc.FORMS}
    jobs = []
    groups_done = set()  # shared option groups already swept whole on an earlier command
    for command, options in commands.items():
        groups_here = set()
        for option, type_name, group, _ in options:
            if a.only and not re.search(a.only, f"{command} {option}"):
                continue
            klass = option_class(command, option, type_name)
            bad, extreme = cases.CLASSES[klass]
            repeated = group and group in groups_done and not a.every_group
            if group:
                groups_here.add(group)
            for label, value in [(l, v, ) for l, v in bad] + list(extreme):
                is_bad = (label, value) in bad and not accepted(command, option, label)
                if a.doc_cases and (repeated or (label not in errors_doc.DOC_LABELS[klass]
                                                 and (command, option) not in forms)):
                    continue
                # A shared group's option is parsed by the same code in every command: its bad values are
                # swept on the first command that has the group (where docs/errors.md lists them); later
                # commands get the extreme values, which are accepted and reach each command's own work.
                if repeated and is_bad:
                    continue
                ok = {2, 3} if is_bad else {0, 1, 2, 3}
                jobs.append((command, option, klass, label, value.replace("{fix}", fix), ok))
        groups_done |= groups_here

    problems = []
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        driver = os.path.abspath(a.driver) if a.driver else None
        futures = {pool.submit(run_case, rope, work, i, c, o, v, ok, driver, a.process_sample): (c, o, k, l, v)
                   for i, (c, o, k, l, v, ok) in enumerate(jobs)}
        for f in concurrent.futures.as_completed(futures):
            c, o, k, l, v = futures[f]
            problem, code, err = f.result()
            message = re.sub(re.escape(work) + r"/run\d+", "RUN",
                             err.strip().replace(fix, "FIX").replace(cases._DUMPS, cases.SHOWN_DUMPS))
            results[(c, o, l)] = (code, message, v)
            if problem:
                problems.append(f"rope {c} {o} <{l}: {shown_value(v, fix)}>: {problem}: {err.strip()[:300]}")
                print("problem: " + problems[-1], flush=True)
    problems += finish_drivers()
    shutil.rmtree(work, ignore_errors=True)

    n_options = sum(1 for c in commands for _ in commands[c])
    print(f"sweep: {len(commands)} commands, {n_options} options taking a value, {len(jobs)} runs, "
          f"{len(problems)} problems")
    for p in sorted(problems):
        print("  " + p)
    if a.slowest:
        total = sum(t for t, _ in DURATIONS)
        print(f"sweep: {total:.1f} s in all runs; the {a.slowest} slowest:")
        for t, line in sorted(DURATIONS, reverse=True)[:a.slowest]:
            print(f"  {t:7.3f} s  rope {shown_value(line, fix)}")

    doc_ok = True
    if a.doc:
        shown_commands = chinese_help(rope, commands) if LANG == "zh" else commands
        doc_ok = errors_doc.check(a.doc, shown_commands, results, fix_value=lambda v: shown_value(v, fix),
                                  option_class=option_class, update=a.update, zh=LANG == "zh")
    return 1 if problems or not doc_ok else 0


if __name__ == "__main__":
    sys.exit(main())
