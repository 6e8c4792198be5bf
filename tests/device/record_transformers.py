#!/usr/bin/env python3
"""Records what transformers itself computes for the rotary embedding of each case of tests/reference/hf_families.py
(run where transformers is installed; CI reads the record, tests/data/transformers/rotary.json, in
tests/cli/check_hf_families.py): per case its config class (AutoConfig.for_model of the case's config.json, the text
config of a nested one), the modeling module's rotary class built from it, and that class's inv_freq buffers (one
per layer type where it keeps several) and attention scaling, as the model would hold them before any sequence.
Usage: record_transformers.py OUT_DIR
"""
import importlib
import inspect
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import hf_families  # noqa: E402


def rotary_of(cfg):
    """The rotary classes of cfg's modeling module (the text model's first), built from cfg."""
    module = importlib.import_module(type(cfg).__module__.replace(".configuration_", ".modeling_"))
    classes = [c for n, c in vars(module).items() if n.endswith("RotaryEmbedding") and inspect.isclass(c)]
    prefix = type(cfg).__name__.replace("Config", "")
    classes.sort(key=lambda c: (not c.__name__.startswith(prefix), "Vision" in c.__name__, c.__name__))
    out = {}
    for cls in classes:
        try:
            rope = cls(cfg)
        except Exception as e:  # noqa: BLE001
            out[cls.__name__] = {"error": f"{type(e).__name__}: {e}"[:300]}
            continue
        bufs = {n: [float(x) for x in b.flatten().tolist()] for n, b in rope.named_buffers() if "inv_freq" in n}
        scal = {n: float(v) for n, v in vars(rope).items()
                if "scaling" in n and isinstance(v, (int, float))}
        scal.update({n: {k: float(x) for k, x in v.items()} for n, v in vars(rope).items()
                     if "scaling" in n and isinstance(v, dict)})
        out[cls.__name__] = {"inv_freq": bufs, "attention_scaling": scal,
                             "rope_type": getattr(rope, "rope_type", None)}
    return out


def main(out):
    import transformers
    from transformers import AutoConfig
    record = {"transformers": transformers.__version__, "cases": {}}
    for case in hf_families.CASES:
        name = case["name"]
        try:
            cfg_dict = json.loads(json.dumps(hf_families.case_config(case)))
            model_type = cfg_dict.pop("model_type")
            cfg = AutoConfig.for_model(model_type, **cfg_dict)
            text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
            record["cases"][name] = {"config_class": type(text).__name__, "rotary": rotary_of(text)}
        except Exception:  # noqa: BLE001
            record["cases"][name] = {"error": traceback.format_exc(limit=2)[-600:]}
    with open(os.path.join(out, "rotary.json"), "w") as f:
        json.dump(record, f, indent=1)
    ok = sum(1 for c in record["cases"].values() if "rotary" in c and any("inv_freq" in r for r in c["rotary"].values()))
    print(f"transformers {transformers.__version__}: {ok} of {len(record['cases'])} cases read")
    for n, c in record["cases"].items():
        if "error" in c:
            print(n, "ERROR", c["error"].strip().splitlines()[-1][:200])
        else:
            print(n, c["config_class"], {k: (sorted(v.get("inv_freq", {})), v.get("error", "")[:80]) for k, v in c["rotary"].items()})


if __name__ == "__main__":
    main(sys.argv[1])
