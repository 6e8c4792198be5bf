#!/usr/bin/python3
"""The position ids of HunyuanVL (XD-RoPE, four streams) and of openPangu-VL (M-RoPE) as vLLM's model files build them
for a prefill, ported to NumPy from that code (docs/multi-axis.md (X1), (X2), (P1)), written from the sources, not
from src/. Each port runs on a token list built as vLLM's processor expands a prompt's placeholders.

  HunyuanVL   vllm-project/vllm vllm/model_executor/models/hunyuan_vision.py @ 1c1b86e1664b8b04423ffc4102f6dd922a97ecbf
              HunYuanVLMultiModalProcessor._get_prompt_updates: the image token of the placeholder
              get_placeholder_str gives (image start, image, image end) becomes
              (grid_h // merge_size) * (grid_w // merge_size + 1) + 2 image tokens;
              HunYuanVLForConditionalGeneration.get_xdrope_input_positions: p, w, h, t = arange(len(input_tokens)); for
              image i at the i-th image_start_token_id, pos = its index + 2 ("+1 : first image_token, +2: for xdrope
              positions"), token_num = (llm_grid_w + 1) * llm_grid_h; w[pos : pos + token_num] = arange(llm_grid_w + 1)
              per row, h[...] = the row, t[...] = i; stacked [p, w, h, t] when xdrope_section has 4 entries.
              The decode steps: huggingface/transformers src/transformers/models/hunyuan_vl/modular_hunyuan_vl.py
              @ 17963211f43b2f111dfb05c2460a9c0da7bca4f8 HunYuanVLForConditionalGeneration.prepare_inputs_for_generation
              (a decode step's position_ids = cache_position[-1:] expanded over the 4 streams) and
              HunYuanVLDenseV1Attention.forward (with a cache, position_ids[:, 0, :]: the stream p alone).
  openPangu   vllm-project/vllm vllm/model_executor/models/openpangu_vl.py @ 00d1d4c552037d5ce0991b7ae0167b09e0bfea63
              OpenPanguVLMultiModalProcessor._get_prompt_updates (an image: grid_thw.prod() // merge_size**2 image
              tokens; a video: per frame [vision_start] + video tokens + [vision_end], the frames concatenated, the
              first and the last token dropped) and OpenPanguVLForConditionalGeneration.get_mrope_input_positions with
              _get_llm_pos_ids_for_vision: text (s, s, s) from s = max + 1; an image's t_index =
              (arange(grid_t) * 1 * tokens_per_second).long() (tokens_per_second from vision_config, default 1.0),
              (t + s, h + s, w + s); a video frame by frame: (cur, cur + h, cur + w), cur += max(llm_H, llm_W), its end
              token at cur (cur += 1) and the next frame's start token at cur (cur += 1); mrope_position_delta = max + 1 -
              len(input_tokens). Decoding as Qwen-VL's: index + delta on t, h, w (vLLM's MRotaryEmbedding
              get_next_input_positions, the delta the function returns). The same file at
              e57b02ee77673fcd9ca7f6cc16079494d878a0d1 (iter_mm_grid_thw) gives the same ids for every video and every
              image of one frame, and asserts an image has one frame: the cases of 2 and 3 frames are 00d1d4c552's.

Writes vl_positions_cases.csv next to itself: case,token,p,w,h,t for HunyuanVL's cases, case,token,,t,h,w (p empty)
for openPangu-VL's, one row per token, the decode rows after the prefill's.

    /usr/bin/python3 tests/reference/vl_positions.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import positions as qwen  # noqa: E402  (the port of HF's get_rope_index: openPangu-VL against Qwen2-VL)

TEXT = 11
HY_START, HY_IMAGE, HY_END = 120118, 120120, 120119
PG_START, PG_IMAGE, PG_VIDEO, PG_END = 1018, 1019, 1032, 1020
F32 = np.float32


def hunyuan_tokens(segments, merge):
    """The prompt as vLLM's processor expands it: an image is its start token, the image tokens, its end token."""
    tokens, grids = [], []
    for kind, size in segments:
        if kind == "text":
            tokens += [TEXT] * size
        else:
            _, h, w = size
            tokens += [HY_START] + [HY_IMAGE] * ((h // merge) * (w // merge + 1) + 2) + [HY_END]
            grids.append(size)
    return tokens, grids


def get_xdrope_input_positions(input_tokens, image_grid_thw, merge):
    tokens = np.array(input_tokens)
    starts = np.argwhere(tokens == HY_START)[:, 0]
    n = len(tokens)
    p, w, h, t = (np.arange(n) for _ in range(4))
    for image_index, start in enumerate(starts):
        pos = start + 2
        _, gh, gw = image_grid_thw[image_index]
        llm_h, llm_w = gh // merge, gw // merge
        token_num = (llm_w + 1) * llm_h
        w[pos:pos + token_num] = np.broadcast_to(np.arange(llm_w + 1).reshape(1, -1), (llm_h, llm_w + 1)).reshape(-1)
        h[pos:pos + token_num] = np.broadcast_to(np.arange(llm_h).reshape(-1, 1), (llm_h, llm_w + 1)).reshape(-1)
        t[pos:pos + token_num] = image_index
    return np.stack([p, w, h, t])


def hunyuan_case(segments, merge=2, decode=0):
    tokens, grids = hunyuan_tokens(segments, merge)
    pos = get_xdrope_input_positions(tokens, grids, merge)
    n = pos.shape[1]
    steps = np.stack([np.arange(n, n + decode)] * 4)  # cache_position on every stream; attention reads p
    return np.concatenate([pos, steps], axis=1)


def pangu_tokens(segments, merge):
    tokens, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            tokens += [TEXT] * size
        elif kind == "image":
            tokens += [PG_IMAGE] * (int(np.prod(size)) // merge ** 2)
            images.append(size)
        else:
            tt, h, w = size
            frame = [PG_START] + [PG_VIDEO] * (h * w // merge ** 2) + [PG_END]
            tokens += (frame * tt)[1:-1]
            videos.append(size)
    return tokens, images, videos


def get_mrope_input_positions(src, image_grid_thw, video_grid_thw, merge, tokens_per_second=1.0):
    image_grid_thw = np.array(image_grid_thw).reshape(-1, 3)
    video_grid_thw = np.array(video_grid_thw).reshape(-1, 3)
    chunks, new_src = [], []
    image_idx = video_idx = 0
    idx = 0
    while idx < len(src):
        before = len(new_src)
        start_idx = max(c.max() for c in chunks) + 1 if chunks else 0
        if src[idx] not in (PG_VIDEO, PG_IMAGE):
            new_src.append(src[idx])
            chunks.append(np.full((3, 1), start_idx))
        elif src[idx] == PG_IMAGE:
            grid_t, gh, gw = image_grid_thw[image_idx]
            # arange (int64) * 1 * a Python float: a float32 tensor, then .long()
            t_index = ((np.arange(grid_t) * 1).astype(F32) * F32(tokens_per_second)).astype(np.int64)
            llm_h, llm_w = gh // merge, gw // merge
            hh = np.broadcast_to(np.arange(llm_h).reshape(1, -1, 1), (len(t_index), llm_h, llm_w)).reshape(-1)
            ww = np.broadcast_to(np.arange(llm_w).reshape(1, 1, -1), (len(t_index), llm_h, llm_w)).reshape(-1)
            tt = np.broadcast_to(t_index.reshape(-1, 1), (len(t_index), llm_h * llm_w)).reshape(-1)
            chunks.append(np.stack([tt, hh, ww]) + start_idx)
            new_src += [PG_IMAGE] * (grid_t * gh * gw // merge ** 2)
            image_idx += 1
        else:
            frames, gh, gw = video_grid_thw[video_idx]
            llm_h, llm_w = gh // merge, gw // merge
            current = start_idx
            for t in range(frames):
                if t != 0:
                    new_src.append(PG_START)
                    chunks.append(np.full((3, 1), current))
                    current += 1
                hh = np.broadcast_to(np.arange(llm_h).reshape(-1, 1), (llm_h, llm_w)).reshape(-1)
                ww = np.broadcast_to(np.arange(llm_w).reshape(1, -1), (llm_h, llm_w)).reshape(-1)
                chunks.append(np.stack([np.zeros_like(hh), hh, ww]) + current)
                new_src += [PG_VIDEO] * (llm_h * llm_w)
                current += max(llm_h, llm_w)
                if t != frames - 1:
                    new_src.append(PG_END)
                    chunks.append(np.full((3, 1), current))
                    current += 1
            video_idx += 1
        idx += len(new_src) - before
    pos = np.concatenate(chunks, axis=1)
    return pos, int(pos.max()) + 1 - len(src)


def pangu_case(segments, merge=2, tokens_per_second=1.0, decode=0):
    tokens, images, videos = pangu_tokens(segments, merge)
    pos, delta = get_mrope_input_positions(tokens, images, videos, merge, tokens_per_second)
    n = pos.shape[1]
    steps = np.stack([np.arange(n, n + decode) + delta] * 3)
    return np.concatenate([pos, steps], axis=1), delta


# name: (segments, merge size, decode steps); the arguments of rope positions are in tests/cli/check_vl_positions.py.
HUNYUAN_CASES = {
    "hunyuan-text6": ([("text", 6)], 2, 0),
    "hunyuan-text3-image1x4x6-text2": ([("text", 3), ("image", (1, 4, 6)), ("text", 2)], 2, 0),
    "hunyuan-text2-image1x4x4-text1-image1x6x2-text2":
        ([("text", 2), ("image", (1, 4, 4)), ("text", 1), ("image", (1, 6, 2)), ("text", 2)], 2, 0),
    "hunyuan-text1-image1x6x10-text1": ([("text", 1), ("image", (1, 6, 10)), ("text", 1)], 2, 0),
    "hunyuan-image1x3x5-merge1-text1": ([("image", (1, 3, 5)), ("text", 1)], 1, 0),
    "hunyuan-text2-image1x4x4-text1-decode3": ([("text", 2), ("image", (1, 4, 4)), ("text", 1)], 2, 3),
}
# name: (segments, merge size, tokens_per_second, decode steps)
PANGU_CASES = {
    "pangu-text5-image1x4x6-text3": ([("text", 5), ("image", (1, 4, 6)), ("text", 3)], 2, 1.0, 0),
    "pangu-text2-video3x4x4-text2": ([("text", 2), ("video", (3, 4, 4)), ("text", 2)], 2, 1.0, 0),
    "pangu-text1-video2x4x6-image1x2x2-text1-decode2":
        ([("text", 1), ("video", (2, 4, 6)), ("image", (1, 2, 2)), ("text", 1)], 2, 1.0, 2),
    "pangu-text1-image2x4x2-text1": ([("text", 1), ("image", (2, 4, 2)), ("text", 1)], 2, 1.0, 0),
    "pangu-text1-image3x2x2-tps2.5-text1": ([("text", 1), ("image", (3, 2, 2)), ("text", 1)], 2, 2.5, 0),
}


def qwen2_segments(segments):
    return [(k, s) if k == "text" else (k, tuple(s)) for k, s in segments]


def main():
    with open(os.path.join(HERE, "vl_positions_cases.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# generated by tests/reference/vl_positions.py: /usr/bin/python3 tests/reference/vl_positions.py\n")
        fh.write("case,token,p,w,h,t\n")
        for name, (segments, merge, decode) in HUNYUAN_CASES.items():
            pos = hunyuan_case(segments, merge, decode)
            for k in range(pos.shape[1]):
                fh.write(f"{name},{k},{pos[0, k]},{pos[1, k]},{pos[2, k]},{pos[3, k]}\n")
        for name, (segments, merge, tps, decode) in PANGU_CASES.items():
            pos, _ = pangu_case(segments, merge, tps, decode)
            for k in range(pos.shape[1]):
                fh.write(f"{name},{k},,{pos[0, k]},{pos[1, k]},{pos[2, k]}\n")
    # HunyuanVL by hand (docs/multi-axis.md): text 0 … 2; the image's start token 3 and first image token 4 at their
    # index; its 2 rows of 3 + 1 tokens from 5: (5, 0, 0, 0) … (8, 3, 0, 0) (the newline), (9, 0, 1, 0) …
    # (12, 3, 1, 0); the image token 13 and end token 14 at their index; text 15, 16. 17 tokens.
    pos = hunyuan_case(*HUNYUAN_CASES["hunyuan-text3-image1x4x6-text2"])
    if pos.shape[1] != 17 or pos[:, 4].tolist() != [4] * 4 or pos[:, 5].tolist() != [5, 0, 0, 0] or \
            pos[:, 8].tolist() != [8, 3, 0, 0] or pos[:, 12].tolist() != [12, 3, 1, 0] or \
            pos[:, 13].tolist() != [13] * 4 or pos[:, 16].tolist() != [16] * 4:
        print(f"HunyuanVL worked case differs: {pos.T.tolist()}", file=sys.stderr)
        return 1
    # The second image's grid tokens have t = 1.
    pos = hunyuan_case(*HUNYUAN_CASES["hunyuan-text2-image1x4x4-text1-image1x6x2-text2"])
    if pos[3, 2 + 2 + 6 + 2 + 1 + 2] != 1 or pos[3, 2 + 2] != 0:
        print(f"HunyuanVL's second image differs: {pos.T.tolist()}", file=sys.stderr)
        return 1
    # openPangu-VL equals Qwen2-VL's get_rope_index on text and images at tokens_per_second 1, and differs on a video
    # (its frames split, two tokens between two frames) and at another tokens_per_second (a scaled image time).
    for name, (segments, merge, tps, decode) in PANGU_CASES.items():
        ours, _ = pangu_case(segments, merge, tps, 0)
        theirs = qwen.get_rope_index(qwen2_segments(segments), merge, None, 1.0)
        same = ours.shape == theirs.shape and bool((ours == theirs).all())
        want_same = tps == 1.0 and all(k != "video" for k, _ in segments)
        if same != want_same:
            print(f"{name}: openPangu-VL {'equals' if same else 'differs from'} Qwen2-VL", file=sys.stderr)
            return 1
    # The split video by hand: text 0, 1; frame 0 (2 × 2) at 2 (ids to 3), its end token at 4, the next start at 5,
    # frame 1 at 6 …, its end 8, start 9, frame 2 at 10 (ids to 11); text 12, 13. 20 tokens, delta 14 − 20 = −6.
    pos, delta = pangu_case(*PANGU_CASES["pangu-text2-video3x4x4-text2"])
    if delta != -6 or pos[:, 2].tolist() != [2, 2, 2] or pos[:, 5].tolist() != [2, 3, 3] or \
            pos[:, 6].tolist() != [4, 4, 4] or pos[:, 7].tolist() != [5, 5, 5] or pos[:, 8].tolist() != [6, 6, 6] or \
            pos[:, 18].tolist() != [12, 12, 12]:
        print(f"openPangu-VL worked video differs: delta {delta}, {pos.T.tolist()}", file=sys.stderr)
        return 1
    print("wrote tests/reference/vl_positions_cases.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
