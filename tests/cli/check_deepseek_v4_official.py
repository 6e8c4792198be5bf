#!/usr/bin/python3
"""`rope check --engine` on DeepSeek-V4's layers against tests/reference/deepseek_v4_official.py, a NumPy port of the
official inference (deepseek-ai inference/model.py: precompute_freqs_cis, Attention.__init__, apply_rotary_emb): an
official-style q of a compressed layer passes under --engine official (and vllm, which follows it) and is named
`engine-reading-other` under HF's reading; HF's port's q of that layer is named the other way under --engine
official; a ratio-0 layer passes under both; the MTP layer (compress_ratios' entry past num_hidden_layers) is
addressable; the attention output turned back by R(−m) passes as --grad; the planted mistake (a compressed layer
without YaRN) is named. Also `rope inspect --layer-type 2 --engine official`: the layer's note.

Usage: check_deepseek_v4_official.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_dynamic_engines import check_cases  # noqa: E402
from manifest_cases import generated_cases, inspect_says  # noqa: E402


def main():
    a, manifest = generated_cases("deepseek_v4_official.py")
    failures = []
    check_cases(a, manifest, failures)
    inspect_says(a.rope, manifest["config"],
                 [(["--layer-type", "2", "--engine", "official"], "layer 2 as the official inference reads"),
                  (["--layer-type", "7"], "the MTP (draft) layers")], failures)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
