#!/usr/bin/env python3
"""Every CTest test carries exactly one of the labels `fast` and `slow` (docs/architecture.md, "Tests"),
so `ctest -L fast` plus `ctest -L slow` is the whole suite and `make test-fast` leaves nothing out by
accident. Reads the tests of a configured build tree from `ctest --show-only=json-v1`, GoogleTest's
discovered tests included (a rope_tests that is not built shows as rope_tests_NOT_BUILT, without a label).

Usage: check_labels.py CTEST BUILD_DIR. Prints each test without a label (or with both) and exits 1 if any.
"""
import json
import subprocess
import sys

LABELS = {"fast", "slow"}


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ctest, build = sys.argv[1], sys.argv[2]
    shown = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True,
                           check=False)
    if shown.returncode != 0:
        print(f"ctest --show-only failed:\n{shown.stderr}")
        return 1
    tests = json.loads(shown.stdout)["tests"]
    problems, counts = [], {label: 0 for label in sorted(LABELS)}
    for test in tests:
        labels = set()
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels.update(prop["value"])
        ours = labels & LABELS
        if len(ours) != 1:
            problems.append(f"  {test['name']}: labels {sorted(labels) or 'none'}")
        for label in ours:
            counts[label] += 1
    if problems:
        print(f"{len(problems)} of {len(tests)} tests do not carry exactly one of the labels fast, slow "
              "(set_tests_properties(... PROPERTIES LABELS fast) in tests/CMakeLists.txt):")
        print("\n".join(problems))
        return 1
    print(f"every test carries one label: {len(tests)} tests, "
          + ", ".join(f"{n} {label}" for label, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
