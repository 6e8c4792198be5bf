#!/usr/bin/env python3
"""Records ONNX's RotaryEmbedding (opset 23) as onnxruntime and the onnx package's reference evaluator compute it, on
the inputs tests/reference/onnx_rotary.py writes (its port of the standard's reference op and node test cases), for
tests/data/onnxruntime/ (run where onnx and onnxruntime are installed; CI reads the recorded outputs in
tests/cli/check_onnx_rotary.py). Writes OUT_DIR/onnxruntime.npz (one array per case: onnxruntime's output, CPU
execution provider), OUT_DIR/versions.txt, and prints per case the largest difference of each implementation from the
port. Usage: record_onnx.py OUT_DIR
"""
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import onnx_rotary  # noqa: E402


def model(case_attrs, feeds):
    import onnx
    from onnx import TensorProto, helper
    kinds = {"X": TensorProto.FLOAT, "cos_cache": TensorProto.FLOAT, "sin_cache": TensorProto.FLOAT,
             "position_ids": TensorProto.INT64}
    names = list(feeds)
    inputs = [helper.make_tensor_value_info(k, kinds[k], list(feeds[k].shape)) for k in names]
    node = helper.make_node("RotaryEmbedding", names, ["Y"], **case_attrs)
    graph = helper.make_graph([node], "rotary", inputs,
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(feeds["X"].shape))])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 11  # the IR version that introduced opset 23
    onnx.checker.check_model(m)
    return m


def main(out):
    import onnx
    import onnxruntime as ort
    from onnx.reference import ReferenceEvaluator
    with tempfile.TemporaryDirectory() as tmp:
        sys.argv = ["onnx_rotary.py", tmp]
        onnx_rotary.main()
        manifest = json.load(open(os.path.join(tmp, "manifest.json")))
        outputs, lines = {}, []
        for (name, shape, cache, with_ids, attrs, _), row in zip(onnx_rotary.CASES, manifest):
            d = os.path.join(tmp, name)
            feeds = {"X": np.load(os.path.join(d, "x.npy")), "cos_cache": np.load(os.path.join(d, "cos.npy")),
                     "sin_cache": np.load(os.path.join(d, "sin.npy"))}
            if with_ids:
                feeds["position_ids"] = np.load(os.path.join(d, "position_ids.npy"))
            port = np.load(os.path.join(d, "y.npy"))
            m = model(attrs, feeds)
            ref = ReferenceEvaluator(m).run(None, feeds)[0]
            sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            got = sess.run(None, feeds)[0]
            outputs[name] = got
            lines.append(f"{name:48s} reference == port: {np.array_equal(ref, port)} "
                         f"max|ort - port| {np.abs(got.astype(np.float64) - port).max():.3e} "
                         f"ort == port: {np.array_equal(got, port)}")
    np.savez(os.path.join(out, "onnxruntime.npz"), **outputs)
    versions = {"onnx": onnx.__version__, "onnxruntime": ort.__version__, "numpy": np.__version__}
    with open(os.path.join(out, "versions.txt"), "w") as f:
        f.write(json.dumps(versions) + "\n" + "\n".join(lines) + "\n")
    print(json.dumps(versions))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
