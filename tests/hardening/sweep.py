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
    with any exit, no temporary file (".tmp-", "rope-*.gp") is left.

--doc FILE checks (or with --update, writes) the tables of docs/errors.md from the same runs, so the
documented messages are the ones the tests see.
"""

import argparse
import concurrent.futures
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

DURATIONS = []  # (seconds, command line) of every run, for --slowest
TIMEOUT = 60  # seconds per run; a run near it is a hang for this purpose
MEMORY = 3 << 30  # address-space limit per run (not under AddressSanitizer)


def discover(rope):
    """{command: [(option, type_name, group, help)]} from the help texts; positionals have no dashes."""
    top = subprocess.run([rope, "--help"], capture_output=True, text=True, check=True).stdout
    commands = []
    section = None
    for line in top.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line
            continue
        m = re.match(r"^  ([a-z][a-z0-9-]*)(?:, [a-z0-9-]+)*\s{2,}", line)
        if section and section.lower().startswith("subcommands") and m:
            commands.append(m.group(1))
    result = {}
    for command in commands:
        text = subprocess.run([rope, command, "--help"], capture_output=True, text=True, check=True).stdout
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
                m = re.match(r"^\s+(?:-\w,)?(--[a-z][\w-]*)(?: ([^\s\[=]+)(?:=\S*(?: \.\.\.)?)?)?\s*(.*)$", line)
            if m:
                last = None
                if m.group(1) in ("--help", "--version") or not m.group(2):
                    continue
                if m.group(2).startswith(("Excludes", "Needs")):
                    continue
                last = m.group(1)
                options.setdefault(last, [m.group(2), "" if group in ("Options", "Positionals") else group,
                                          m.group(3).strip()])
            elif last and re.match(r"^\s{20,}\S", line) and not options[last][2]:
                options[last][2] = line.strip()  # help on the next line (a long option name)
        result[command] = [(o, t, g, h) for o, (t, g, h) in options.items()]
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


def run_case(rope, work, index, command, option, value, kind, ok_codes):
    """One run; returns (problem or None, exit code, stderr)."""
    run_dir = os.path.join(work, f"run{index}")
    tmp = os.path.join(run_dir, "tmp")
    os.makedirs(tmp)
    full_disk = value.startswith("FULL_DISK:")
    if full_disk:
        value = value[len("FULL_DISK:"):]
    base = list(cases.BASE_ARGS.get(command, []))
    if option in base:
        i = base.index(option)
        del base[i:i + 2]
    args = [rope, command] + base + ([value] if option[0] != "-" else [option, value])
    env = dict(os.environ, TMPDIR=tmp, LC_ALL="C.UTF-8")
    started = time.monotonic()
    try:
        p = subprocess.run([os.fsencode(a) for a in args], cwd=run_dir, env=env, capture_output=True,
                           timeout=TIMEOUT, preexec_fn=limits(full_disk))
    except subprocess.TimeoutExpired:
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"no answer within {TIMEOUT} s", None, ""
    DURATIONS.append((time.monotonic() - started, " ".join(args[1:])[:160]))
    err = p.stderr.decode("utf-8", "replace")
    left = leftovers(run_dir)
    temp_left = [f for f in left if ".tmp-" in f] + os.listdir(tmp)
    injected = os.path.exists(os.path.join(run_dir, "INJECTED"))
    shutil.rmtree(run_dir, ignore_errors=True)
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}", p.returncode, err
    if p.returncode not in ok_codes:
        return f"exit {p.returncode}", p.returncode, err
    if p.returncode in (2, 3):
        if not err.startswith("rope: ") or err.count("\n") != 1 or not err.endswith("\n"):
            return "stderr is not one line 'rope: ...'", p.returncode, err
        if left:
            return f"left files behind: {left[:3]}", p.returncode, err
    if temp_left:
        return f"left temporary files: {temp_left[:3]}", p.returncode, err
    if injected:
        return "a gnuplot command ran", p.returncode, err
    return None, p.returncode, err


def shown_value(value, fix):
    v = re.sub(r"[\udc80-\udcff]", lambda m: "\\x%02x" % (ord(m.group(0)) - 0xDC00), value.replace(fix, "FIX"))
    v = re.sub(r"[\x00-\x09\x0b-\x1f]", lambda m: "\\x%02x" % ord(m.group(0)), v)
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
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)

    commands = discover(rope)
    work = tempfile.mkdtemp(prefix="rope-sweep-")
    fix = os.path.join(work, "fix")
    make_fixtures(fix)
    jobs = []
    for command, options in commands.items():
        for option, type_name, _, _ in options:
            if a.only and not re.search(a.only, f"{command} {option}"):
                continue
            klass = option_class(command, option, type_name)
            bad, extreme = cases.CLASSES[klass]
            for label, value in [(l, v, ) for l, v in bad] + list(extreme):
                is_bad = (label, value) in bad and not accepted(command, option, label)
                ok = {2, 3} if is_bad else {0, 1, 2, 3}
                jobs.append((command, option, klass, label, value.replace("{fix}", fix), ok))

    problems = []
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_case, rope, work, i, c, o, v, k, ok): (c, o, k, l, v)
                   for i, (c, o, k, l, v, ok) in enumerate(jobs)}
        for f in concurrent.futures.as_completed(futures):
            c, o, k, l, v = futures[f]
            problem, code, err = f.result()
            message = re.sub(re.escape(work) + r"/run\d+", "RUN", err.strip().replace(fix, "FIX"))
            results[(c, o, l)] = (code, message, v)
            if problem:
                problems.append(f"rope {c} {o} <{l}: {shown_value(v, fix)}>: {problem}: {err.strip()[:300]}")
                print("problem: " + problems[-1], flush=True)
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
        import errors_doc
        doc_ok = errors_doc.check(a.doc, commands, results, fix_value=lambda v: shown_value(v, fix),
                                  option_class=option_class, update=a.update)
    return 1 if problems or not doc_ok else 0


if __name__ == "__main__":
    sys.exit(main())
