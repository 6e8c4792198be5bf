"""The table a bench script prints when it runs on its own (bench/compare.py runs the same `run` functions into its
own report): one row per target or check, then the notes; exit 1 when a row fails."""
import argparse
import os
import shutil
import tempfile


class Report:
    def __init__(self):
        self.rows = []

    def target(self, name, value, wanted, ok, unit="×"):
        self.rows.append((name, f"{value:.3g}{unit}", wanted, "PASS" if ok else "FAIL"))

    def info(self, name, value):
        self.rows.append((name, f"{value:.3g}×", "(no target)", "info"))

    def check(self, name, ok, detail):
        self.rows.append((name, detail, "equal", "PASS" if ok else "FAIL"))


def main(run, description, prefix, tool=lambda build: os.path.join(build, "bin", "rope")):
    """Parses --build, --quick and --dir, runs `run(report, tool(build), directory, quick)` in a temporary directory
    named `prefix`… (or --dir, kept), prints the table and returns the exit status."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--dir", help="where to write the dumps (default: a temporary directory)")
    a = p.parse_args()
    tmp = a.dir or tempfile.mkdtemp(prefix=prefix)
    r = Report()
    try:
        notes = run(r, tool(a.build), tmp, a.quick)
    finally:
        if not a.dir:
            shutil.rmtree(tmp, ignore_errors=True)
    print("| target | measured | wanted | |\n|---|---|---|---|")
    for row in r.rows:
        print("| " + " | ".join(row) + " |")
    print()
    for n in notes:
        print("- " + n)
    return 1 if any(row[3] == "FAIL" for row in r.rows) else 0
