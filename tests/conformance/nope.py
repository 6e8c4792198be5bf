"""A layer without RoPE through `rope check --layer-type`: its model's code uses q and k as projected, so rope
expects the dump after to equal the dump before (issue 32's rule, docs/check.md). Both judges of the tier ask it
twice: the unchanged dump (before given as after) must pass, and a rotated dump must fail, with the report
naming the layer among those without RoPE."""
import json
import subprocess


def check_nope_layer(rope, before, after, positions_args, config_args, layer):
    """(ok, text): rope check on layer `layer` passes before → before and fails before → after (rotated)."""
    base = [rope, "check", "--before", before, "--json", *positions_args, *config_args, "--layer-type", str(layer)]
    same = subprocess.run(base + ["--after", before], capture_output=True, text=True)
    rotated = subprocess.run(base + ["--after", after], capture_output=True, text=True)
    if same.returncode != 0 or rotated.returncode != 1:
        return False, (f"unchanged dump: exit {same.returncode} {same.stderr.strip()}; rotated dump: exit "
                       f"{rotated.returncode} {rotated.stderr.strip()}")
    layers = json.loads(rotated.stdout).get("expected", {}).get("no_rope", {}).get("layers", [])
    ok = layer in layers
    return ok, (f"unchanged dump passes, rotated dump fails; the report's layers without RoPE: {layers}")
