#!/usr/bin/python3
"""Dumps for the round trip `rope positions --csv` → `rope check` / `rope identify --axis-positions` (issue 79 item 3):
for every multi-axis model whose position ids `rope positions` builds, one sequence of text and an image (a video for
Qwen2.5-VL), its position ids computed by the NumPy ports of the model's own code, never by src/, and q turned at
them by the ports of the model's rotation:

    qwen2-vl     positions.py get_rope_index (HF Qwen2VLModel.get_rope_index); mrope.py hf_chunked (HF
                 apply_multimodal_rotary_pos_emb); preset qwen2-vl-7b (θ 1e6, mrope_section [16, 24, 24], d 128)
    qwen2.5-vl   positions.py get_rope_index with tokens_per_second 2 (HF Qwen2.5-VL); mrope.py hf_chunked; preset
                 qwen2.5-vl-7b (θ 1e6, [16, 24, 24])
    qwen3-vl     positions.py get_rope_index_qwen3 (HF Qwen3VLModel.get_rope_index); mrope.py hf_interleaved (HF
                 apply_interleaved_mrope); preset qwen3-vl-8b (θ 5e6, [24, 20, 20])
    openpangu-vl vl_positions.py pangu_case (vLLM get_mrope_input_positions); openpangu_mrope.py vllm_pangu_rotate;
                 data/configs/openpangu-vl.json (θ 5e6, [24, 20, 20])
    bailing      positions.py bailing_case (sglang bailing_3drope_get_input_positions_tensor); make_dumps.py
                 bailing_rotate (vLLM BailingMRotaryEmbedding); data/configs/bailing-moe-v3-vl.json (θ 600000,
                 [12, 10, 10], the rotary part of 64 channels)
    hunyuan-vl   vl_positions.py hunyuan_case (vLLM get_xdrope_input_positions: four streams p, w, h, t);
                 hunyuan_xdrope.py hf_rotate (HF _apply_rotary_pos_emb_xdrope); data/configs/hunyuan-vl.json

`positions_round_trip.py DIR` writes DIR/<case>/q.npy and q_rope.npy ([seq, 2, d] float32), DIR/<case>/port.csv (the
port's ids under a header of the model's axes, t,h,w or p,w,h,t) and DIR/manifest.json: per case the model option
(--model NAME or --config FILE, absolute), the segments as rope positions takes them, the axes and the map identify
should name. tests/cli/test_cmd_positions.cpp (PositionsRoundTrip) runs `rope positions … --csv`, then check and
identify on these dumps with that CSV. A vision tower's 2-D positions are not among them: rope positions builds no
patch grid of a tower (its h,w files are tests/reference/gemma4_vision.py's, read by tests/cli/check_gemma4_vision.py).

    /usr/bin/python3 tests/reference/positions_round_trip.py DIR
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hunyuan_xdrope  # noqa: E402
import make_dumps  # noqa: E402
import mrope  # noqa: E402
import openpangu_mrope  # noqa: E402
import positions  # noqa: E402
import vl_positions  # noqa: E402

CONFIGS = os.path.normpath(os.path.join(HERE, "..", "..", "data", "configs"))
F32 = np.float32


def inv_freq(base, d):
    return 1.0 / (base ** (np.arange(0, d, 2, dtype=np.float64) / d))


def per_token(rotate, q, pos3, base, sections):
    """mrope.py's rotations take one vector and its (t, h, w): every token and head."""
    inv = inv_freq(base, q.shape[-1])
    out = np.empty_like(q, dtype=np.float64)
    for s in range(q.shape[0]):
        for h in range(q.shape[1]):
            out[s, h] = rotate(q[s, h].astype(np.float64), inv, sections, [float(v) for v in pos3[:, s]])
    return out.astype(F32)


def segments_args(segments):
    args = []
    for kind, value in segments:
        args += [f"--{kind}", str(value) if kind == "text" else "x".join(str(v) for v in value)]
    return args


def cases():
    image = [("text", 2), ("image", (1, 4, 6)), ("text", 3)]
    video = [("text", 1), ("image", (1, 4, 4)), ("video", (3, 4, 2)), ("text", 2)]
    out = []
    # Qwen2-VL, chunked (A2)
    pos = positions.get_rope_index(image, 2, None, 1.0)
    out.append(dict(name="qwen2-vl", model=["--model", "qwen2-vl-7b"], segments=image, pos=pos, axes="t,h,w", d=128,
                    rotate=lambda q, p: per_token(mrope.hf_chunked, q, p, 1e6, [16, 24, 24]),
                    sections=[16, 24, 24], order="chunked"))
    # Qwen2.5-VL: the video's time index × tokens_per_second 2 (the preset's vision_config), second_per_grid 1
    pos = positions.get_rope_index(video, 2, 2.0, 1.0)
    out.append(dict(name="qwen2.5-vl", model=["--model", "qwen2.5-vl-7b"], segments=video, pos=pos, axes="t,h,w",
                    d=128, rotate=lambda q, p: per_token(mrope.hf_chunked, q, p, 1e6, [16, 24, 24]),
                    sections=[16, 24, 24], order="chunked"))
    # Qwen3-VL, interleaved (A3)
    tokens, images, videos = positions.qwen3_tokens(image, 2, None)
    pos, _ = positions.get_rope_index_qwen3(tokens, images, videos, 2)
    out.append(dict(name="qwen3-vl", model=["--model", "qwen3-vl-8b"], segments=image, pos=pos, axes="t,h,w", d=128,
                    rotate=lambda q, p: per_token(mrope.hf_interleaved, q, p, 5e6, [24, 20, 20]),
                    sections=[24, 20, 20], order="interleaved"))
    # openPangu-VL, its greedy interleave (A10)
    pos, _ = vl_positions.pangu_case(image, 2, 1.0, 0)
    out.append(dict(name="openpangu-vl", model=["--config", os.path.join(CONFIGS, "openpangu-vl.json")],
                    segments=image, pos=pos, axes="t,h,w", d=128,
                    rotate=lambda q, p: openpangu_mrope.vllm_pangu_rotate(q, p, 5e6, [24, 20, 20]),
                    sections=[24, 20, 20], order="openPangu"))
    # Bailing (A9): h and w alternating, then t; height and width centred on the grid
    bailing = [("text", 3), ("image", (1, 4, 6)), ("text", 2)]
    pos, _ = positions.bailing_case(bailing, 2, None, 0)
    out.append(dict(name="bailing", model=["--config", os.path.join(CONFIGS, "bailing-moe-v3-vl.json")],
                    segments=bailing, pos=pos, axes="t,h,w", d=64,
                    rotate=lambda q, p: make_dumps.bailing_rotate(q, p, 600000.0, [12, 10, 10]),
                    sections=[12, 10, 10], order="Bailing"))
    # HunyuanVL's XD-RoPE (A11): four streams p, w, h, t; HF's map
    hunyuan = [("text", 3), ("image", (1, 8, 12)), ("text", 3)]  # identify needs the rows of a larger image
    pos = vl_positions.hunyuan_case(hunyuan, 2, 0)
    out.append(dict(name="hunyuan-vl", model=["--config", os.path.join(CONFIGS, "hunyuan-vl.json")],
                    segments=hunyuan, pos=pos, axes="p,w,h,t", d=128,
                    rotate=lambda q, p: hunyuan_xdrope.hf_rotate(q, p, [16, 16, 16, 16]),
                    sections=[16, 16, 16, 16], order="XD-RoPE (HF)"))
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: positions_round_trip.py DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(79_2)
    manifest = []
    for c in cases():
        pos = np.asarray(c["pos"], dtype=np.int64)
        n = pos.shape[1]
        # Every axis moves apart from the others somewhere, so that the positions say which axis a pair reads.
        assert len({tuple(row) for row in pos.T if len(set(row)) > 1}) > 0, c["name"]
        q = rng.standard_normal((n, 2, c["d"])).astype(F32)
        y = c["rotate"](q, pos)
        d = os.path.join(out, c["name"])
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), y)
        with open(os.path.join(d, "port.csv"), "w") as f:
            f.write(c["axes"] + "\n" + "".join(",".join(str(int(v)) for v in row) + "\n" for row in pos.T))
        manifest.append(dict(name=c["name"], dir=c["name"], model=c["model"], positions=segments_args(c["segments"]),
                             tokens=int(n), axes=c["axes"], sections=c["sections"], order=c["order"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(script="tests/reference/positions_round_trip.py", cases=manifest), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
