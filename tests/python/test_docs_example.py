"""docs/python.md's pytest file for "my kernel against Llama 3.1's config", run as the page shows it: at most
20 lines, and every test in it passes."""
import os
import re
import subprocess
import sys

import rope


def example(root):
    text = (root / "docs" / "python.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- python-example: (\S+) -->\n```python\n(.*?)```\n<!-- python-example: end -->", text, re.S)
    assert match, "docs/python.md: no python-example block"
    return match.group(1), match.group(2)


def test_example_is_at_most_20_lines(root):
    _, code = example(root)
    assert len(code.strip().splitlines()) <= 20


def test_example_passes(root, tmp_path):
    name, code = example(root)
    (tmp_path / name).write_text(code, encoding="utf-8")
    # The module where this test imported it from (the build tree, or where pip installed it).
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(rope.__file__)))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name], cwd=tmp_path,
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"\b7 passed\b", run.stdout), run.stdout
