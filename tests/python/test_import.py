"""`import rope` gives rope.testing, as `import numpy` gives numpy.testing (issue 54 item 4): a kernel suite
calls rope.testing.check_implementation without writing `import rope.testing`. Run in a fresh interpreter, so
that no other test's `import rope.testing` hides a missing attribute."""
import os
import subprocess
import sys

import rope


def test_import_rope_gives_rope_testing():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(rope.__file__)))
    code = ("import rope, sys; assert 'rope.testing' in sys.modules; "
            "print(rope.testing.check_implementation.__name__, rope.testing.cases.__name__, 'testing' in rope.__all__)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["check_implementation", "cases", "True"]
