"""Running the rope executable from the scripts of tests/cli (check_shapes.py, check_cp_mistakes.py,
check_flat_heads.py, check_diffusers.py, check_rank_files.py): one command, its exit code and outputs, and its
`--json` report parsed where it printed one."""
import json
import subprocess


def run(rope, args, timeout=None):
    """`rope ARGS`: (exit code, stdout, stderr), text."""
    p = subprocess.run([rope] + list(args), capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_json(rope, args, timeout=None):
    """`rope ARGS` (with --json among them): (exit code, the report parsed, or None where stdout is empty or not
    JSON, stderr)."""
    code, stdout, stderr = run(rope, args, timeout)
    try:
        return code, json.loads(stdout) if stdout.strip() else None, stderr
    except json.JSONDecodeError:
        return code, None, stderr
