"""docs/python.md's rope.watch script, run as the page shows it with Debian's PyTorch: the bug planted in layer 2 is
found there alone and named (base 10000), the other layers pass (issue 54 item 3)."""
import os
import pathlib
import re
import subprocess
import sys

import rope

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_watch_example_prints_the_planted_bug(tmp_path):
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- python-watch-example: (\S+) -->\n```python\n(.*?)```\n<!-- python-watch-example: end -->",
                      text, re.S)
    assert match, "docs/python.md: no python-watch-example block"
    (tmp_path / match.group(1)).write_text(match.group(2), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(rope.__file__)))
    run = subprocess.run([sys.executable, match.group(1)], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    verdicts = [line.split(" (")[0] for line in lines if line.startswith(("PASS", "FAIL"))]
    assert verdicts == ["PASS layer 0", "PASS layer 1", "FAIL layer 2", "PASS layer 3"], run.stdout
    assert "FAIL layer 2 (watch_rope.py:31 in model)" in run.stdout
    # Each failing tensor's report as rope check prints it (Report.summary(), the library's text printer).
    assert len(re.findall(r"diagnosis +matches base 10000, not 500000: is rope_theta read\?", run.stdout)) == 2
    assert lines[-1] == "rope.watch(apply_rotary_pos_emb): 4 calls, 1 failed"
    # The page says what the script prints.
    assert "`FAIL layer 2 (watch_rope.py:31 in model)`" in text.replace("\n", " ")
