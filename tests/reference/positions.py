#!/usr/bin/python3
"""Independent NumPy port of Hugging Face's get_rope_index (transformers
src/transformers/models/qwen2_vl/modeling_qwen2_vl.py, Qwen2VLModel.get_rope_index, and the
Qwen2.5-VL version in models/qwen2_5_vl/modeling_qwen2_5_vl.py), written from that code, not from
src/: the sequence is cut at each vision block; the text before it gets
arange(text_len) + st_idx on all three rows; the block of grid (t, h, w) gets, on the merged grid
(h // spatial_merge_size, w // spatial_merge_size),
    t_index = arange(t).view(-1, 1).expand(-1, h * w).flatten()      (Qwen2-VL)
    t_index = (arange(t) * second_per_grid_t * tokens_per_second).long() ... (Qwen2.5-VL; images 0;
              second_per_grid_t a float32 tensor, so both products are float32)
    h_index = arange(h).view(1, -1, 1).expand(t, -1, w).flatten()
    w_index = arange(w).view(1, 1, -1).expand(t, h, -1).flatten()
plus text_len + st_idx; st_idx = max of everything so far + 1. Text after the last block continues
the same way.

Qwen3-VL (transformers src/transformers/models/qwen3_vl/modeling_qwen3_vl.py @ 00709b862bb8f14a5435bb7195592579168496e4,
Qwen3VLModel.get_rope_index): video_grid_thw = repeat_interleave(video_grid_thw, video_grid_thw[:, 0]) with its
t set to 1, since each frame of a video comes after its own timestamp text ("<t1> <vision_start> <frame1>
<vision_end> <t2> ..."); the loop scans input_ids for the next image or video token from st, as below
(get_rope_index_qwen3, on a token list built by qwen3_tokens).

Decoding (the same three files' forward, the branch after the prefill): rope_deltas = llm_positions.max() + 1 -
len(input_ids) from the prefill, and position_ids = arange(seq_length) + cache_position[0] + rope_deltas, expanded
to the three rows (decode_ids).

Bailing (Ling/Ming VL; sglang python/sglang/srt/layers/rotary_embedding/bailing_mrope.py @
31767460685a308b66712cb6ffe14dbfd27a5435, BailingMRotaryEmbedding.bailing_3drope_get_input_positions_tensor), ported in
get_rope_index_bailing on a token list: scale_factor = 2.0 and second_per_grid_ts forced to None, so
    time_index = arange(t) (expanded over h * w) * 2 + text_len + position_start
    height_index = arange(h) (expanded) - (h - 1) // 2 + time_index
    width_index  = arange(w) (expanded) - (w - 1) // 2 + time_index
on the merged grid; position_start = position_chunks[-1][0].max() + 1 (the last chunk's TIME row only), and
position_delta = positions[0].max() + 1 - len(input_ids); use_interleaved_frame_timestamp repeats a video's grid per
frame with t = 1 (BAILING_CASES' frame_text).

Writes positions_cases.csv next to itself: case,token,t,h,w (one case per sequence below; the decode cases'
rows go on past the prefill, one row per decode token).

    /usr/bin/python3 tests/reference/positions.py
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (segments, merge, tokens_per_second or None, second_per_grid)
CASES = {
    "text5-image1x4x6-text3": ([("text", 5), ("image", (1, 4, 6)), ("text", 3)], 2, None, 1.0),
    "text2-video3x4x2-text1": ([("text", 2), ("video", (3, 4, 2)), ("text", 1)], 2, None, 1.0),
    "qwen2.5-text2-video4x2x4-tps2-spg0.5": ([("text", 2), ("video", (4, 2, 4)), ("text", 2)], 2, 2.0, 0.5),
    "qwen2.5-text1-image1x4x4-video2x2x2-tps4": ([("text", 1), ("image", (1, 4, 4)), ("video", (2, 2, 2)), ("text", 1)],
                                                2, 4.0, 1.0),
    "image2x6x2-merge1": ([("image", (2, 6, 2))], 1, None, 1.0),
    # float32 against float64: frame 3 at 0.7 s per grid and 10 tokens per second is 3 · 0.7 · 10 =
    # 20.999999999999996 in float64 but 21 in float32; frame 69 at 1/15 s and 25 tokens per second is 115 in float32
    # (and exactly), 114.99999999999999 in float64.
    "qwen2.5-text1-video4x2x2-tps10-spg0.7-text1": ([("text", 1), ("video", (4, 2, 2)), ("text", 1)], 2, 10.0, 0.7),
    "qwen2.5-video70x2x2-tps25-spg1/15": ([("video", (70, 2, 2))], 2, 25.0, 1 / 15),
}

# Decoding after a prefill: name: (segments, merge, tokens_per_second or None, second_per_grid, frame_text or None
# (Qwen3-VL's split video), decode steps). rope_deltas: text alone 0; an image of 2 x 3 merged tokens spans ids
# 5 ... 7, so the prefill of 14 tokens ends at id 10: delta = 11 - 14 = -3.
DECODE_CASES = {
    "decode-text5-image1x4x6-text3": ([("text", 5), ("image", (1, 4, 6)), ("text", 3)], 2, None, 1.0, None, 3),
    "decode-text6": ([("text", 6)], 2, None, 1.0, None, 2),
    "decode-qwen2.5-text2-video4x2x4-tps2-spg0.5": ([("text", 2), ("video", (4, 2, 4)), ("text", 2)], 2, 2.0, 0.5,
                                                    None, 4),
    # Qwen2.5-VL stretches time: 3 frames at 2 s per grid and 4 tokens/s put frame 2 at 16, past the 12 tokens.
    "decode-qwen2.5-text1-video3x2x2-tps4-spg2-text1": ([("text", 1), ("video", (3, 2, 2)), ("text", 1)], 2, 4.0, 2.0,
                                                        None, 2),
    "decode-qwen3-text2-video3x4x4-frame4-text2": ([("text", 2), ("video", (3, 4, 4)), ("text", 2)], 2, None, 1.0, 4,
                                                   3),
    "decode-qwen3-image1x4x4-video2x2x4-frame0": ([("image", (1, 4, 4)), ("video", (2, 2, 4))], 2, None, 1.0, 0, 1),
}

# Bailing: name: (segments, merge, frame_text or None (use_interleaved_frame_timestamp), decode steps).
BAILING_CASES = {
    "bailing-text3-image1x4x6-text2": ([("text", 3), ("image", (1, 4, 6)), ("text", 2)], 2, None, 0),
    "bailing-image1x6x4-text2": ([("image", (1, 6, 4)), ("text", 2)], 2, None, 0),
    "bailing-text2-video3x4x4-text1-decode2": ([("text", 2), ("video", (3, 4, 4)), ("text", 1)], 2, None, 2),
    "bailing-text1-image1x2x2-video2x4x6-merge1": ([("text", 1), ("image", (1, 2, 2)), ("video", (2, 4, 6))], 1, None,
                                                   0),
    "bailing-text2-video2x4x4-frame3-text1-decode1": ([("text", 2), ("video", (2, 4, 4)), ("text", 1)], 2, 3, 1),
}


def get_rope_index(segments, merge, tps, spg):
    pieces = []
    st_idx = 0
    text_len = 0
    for kind, value in segments:
        if kind == "text":
            text_len += value
            continue
        t, h, w = value[0], value[1] // merge, value[2] // merge
        if text_len:
            pieces.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
        if tps is None:
            t_index = np.broadcast_to(np.arange(t).reshape(-1, 1), (t, h * w)).flatten()
        else:
            second = 0.0 if kind == "image" else spg
            # torch multiplies the int64 arange by the float32 second_per_grid_t in float32, then by
            # tokens_per_second, still float32; .long() truncates.
            tau = (np.arange(t).astype(np.float32) * np.float32(second)) * np.float32(tps)
            assert tau.dtype == np.float32
            t_index = np.broadcast_to(tau.astype(np.int64).reshape(-1, 1), (t, h * w)).flatten()
        h_index = np.broadcast_to(np.arange(h).reshape(1, -1, 1), (t, h, w)).flatten()
        w_index = np.broadcast_to(np.arange(w).reshape(1, 1, -1), (t, h, w)).flatten()
        pieces.append(np.stack([t_index, h_index, w_index]) + text_len + st_idx)
        st_idx = int(pieces[-1].max()) + 1
        text_len = 0
    if text_len:
        pieces.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
    return np.concatenate(pieces, axis=1)


def qwen3_tokens(segments, merge, frame_text):
    """The input ids of a Qwen3-VL prompt, as kinds: "T" text (timestamps and vision start/end tokens included),
    "I" an image's tokens, "V" a video's; each video frame after `frame_text` text tokens (its timestamp)."""
    tokens, image_grids, video_grids = [], [], []
    for kind, value in segments:
        if kind == "text":
            tokens += ["T"] * value
        elif kind == "image":
            image_grids.append(value)
            tokens += ["I"] * (value[0] * (value[1] // merge) * (value[2] // merge))
        else:
            video_grids.append(value)
            for _ in range(value[0]):
                tokens += ["T"] * frame_text + ["V"] * ((value[1] // merge) * (value[2] // merge))
    return tokens, image_grids, video_grids


def get_rope_index_qwen3(tokens, image_grids, video_grids, merge):
    """Qwen3VLModel.get_rope_index for one sequence without padding: (position ids [3, L], rope_deltas)."""
    frames = []
    for t, h, w in video_grids:  # repeat_interleave by t, then t = 1
        frames += [(1, h, w)] * t
    blocks = len(image_grids) + len(frames)
    pieces, st, image_index, video_index = [], 0, 0, 0
    for _ in range(blocks):
        ed_image = tokens.index("I", st) if image_index < len(image_grids) else len(tokens) + 1
        ed_video = tokens.index("V", st) if video_index < len(frames) else len(tokens) + 1
        if ed_image < ed_video:
            t, h, w = image_grids[image_index]
            image_index += 1
            ed = ed_image
        else:
            t, h, w = frames[video_index]
            video_index += 1
            ed = ed_video
        t, h, w = t, h // merge, w // merge
        text_len = ed - st
        st_idx = int(pieces[-1].max()) + 1 if pieces else 0
        pieces.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
        t_index = np.broadcast_to(np.arange(t).reshape(-1, 1), (t, h * w)).flatten()
        h_index = np.broadcast_to(np.arange(h).reshape(1, -1, 1), (t, h, w)).flatten()
        w_index = np.broadcast_to(np.arange(w).reshape(1, 1, -1), (t, h, w)).flatten()
        pieces.append(np.stack([t_index, h_index, w_index]) + text_len + st_idx)
        st = ed + t * h * w
    if st < len(tokens):
        st_idx = int(pieces[-1].max()) + 1 if pieces else 0
        text_len = len(tokens) - st
        pieces.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + st_idx)
    pos = np.concatenate(pieces, axis=1)
    return pos, int(pos.max()) + 1 - len(tokens)


def bailing_tokens(segments, merge, frame_text):
    """A Bailing prompt as kinds: "T" text, "I" an image's patch tokens, "V" a video's; with frame_text (the
    interleaved frame timestamps) each frame after that many text tokens."""
    tokens, image_grids, video_grids = [], [], []
    for kind, value in segments:
        if kind == "text":
            tokens += ["T"] * value
        elif kind == "image":
            image_grids.append(value)
            tokens += ["I"] * (value[0] * (value[1] // merge) * (value[2] // merge))
        else:
            video_grids.append(value)
            per_frame = (value[1] // merge) * (value[2] // merge)
            if frame_text is None:
                tokens += ["V"] * (value[0] * per_frame)
            else:
                for _ in range(value[0]):
                    tokens += ["T"] * frame_text + ["V"] * per_frame
    return tokens, image_grids, video_grids


def get_rope_index_bailing(tokens, image_grids, video_grids, merge, interleaved_frames):
    """bailing_3drope_get_input_positions_tensor for one sequence: (position ids [3, L], position_delta)."""
    if interleaved_frames:
        frames = []
        for t, h, w in video_grids:
            frames += [(1, h, w)] * t
        video_grids = frames
    chunks, start, image_index, video_index = [], 0, 0, 0
    for _ in range(len(image_grids) + len(video_grids)):
        image_start = tokens.index("I", start) if image_index < len(image_grids) and "I" in tokens[start:] else \
            len(tokens) + 1
        video_start = tokens.index("V", start) if video_index < len(video_grids) and "V" in tokens[start:] else \
            len(tokens) + 1
        if image_start < video_start:
            t, h, w = image_grids[image_index]
            image_index += 1
            media_start = image_start
        else:
            t, h, w = video_grids[video_index]
            video_index += 1
            media_start = video_start
        gt, gh, gw = t, h // merge, w // merge
        text_len = media_start - start
        position_start = int(chunks[-1][0].max()) + 1 if chunks else 0
        chunks.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + position_start)
        time_index = np.broadcast_to(np.arange(gt).reshape(-1, 1), (gt, gh * gw)).flatten()
        height_index = np.broadcast_to(np.arange(gh).reshape(1, -1, 1), (gt, gh, gw)).flatten() - (gh - 1) // 2
        width_index = np.broadcast_to(np.arange(gw).reshape(1, 1, -1), (gt, gh, gw)).flatten() - (gw - 1) // 2
        time_index = time_index * 2.0  # scale_factor, a float: the ids go through float and back
        time_index = time_index + text_len + position_start
        chunks.append(np.stack([time_index, height_index + time_index, width_index + time_index]))
        start = media_start + gt * gh * gw
    if start < len(tokens):
        position_start = int(chunks[-1][0].max()) + 1 if chunks else 0
        text_len = len(tokens) - start
        chunks.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + position_start)
    pos = np.concatenate(chunks, axis=1).astype(np.int64)
    assert pos.shape[1] == len(tokens)
    return pos, int(pos[0].max()) + 1 - len(tokens)


def bailing_case(segments, merge, frame_text, steps):
    """A Bailing prefill's ids and its decode tokens' (the same index + delta as Qwen's, delta of (B1))."""
    tokens, images, videos = bailing_tokens(segments, merge, frame_text)
    prefill, delta = get_rope_index_bailing(tokens, images, videos, merge, frame_text is not None)
    return np.concatenate([prefill, decode_ids(prefill.shape[1], delta, steps)], axis=1), delta


def rope_deltas(pos):
    """get_rope_index's mrope_position_deltas of one unpadded sequence: llm_positions.max() + 1 - its length."""
    return int(pos.max()) + 1 - pos.shape[1]


def decode_ids(prefill_length, delta, steps):
    """The forward after the prefill, one token per step: cache_position[0] = prefill_length + k,
    position_ids = arange(1) + cache_position[0] + rope_deltas on the three rows."""
    out = []
    for k in range(steps):
        cache_position = prefill_length + k
        out.append(np.broadcast_to(np.arange(1) + cache_position + delta, (3, 1)))
    return np.concatenate(out, axis=1) if out else np.zeros((3, 0), dtype=np.int64)


def decode_case(segments, merge, tps, spg, frame_text, steps):
    """The prefill's ids and the decode tokens' after them ([3, L + steps]) and rope_deltas."""
    if frame_text is None:
        prefill = get_rope_index(segments, merge, tps, spg)
        delta = rope_deltas(prefill)
    else:
        prefill, delta = get_rope_index_qwen3(*qwen3_tokens(segments, merge, frame_text), merge)
    return np.concatenate([prefill, decode_ids(prefill.shape[1], delta, steps)], axis=1), delta


def main():
    with open(os.path.join(HERE, "positions_cases.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# generated by tests/reference/positions.py: /usr/bin/python3 tests/reference/positions.py\n")
        fh.write("case,token,t,h,w\n")
        for name, (segments, merge, tps, spg) in CASES.items():
            pos = get_rope_index(segments, merge, tps, spg)
            for k in range(pos.shape[1]):
                fh.write(f"{name},{k},{pos[0, k]},{pos[1, k]},{pos[2, k]}\n")
        for name, case in DECODE_CASES.items():
            pos, _ = decode_case(*case)
            for k in range(pos.shape[1]):
                fh.write(f"{name},{k},{pos[0, k]},{pos[1, k]},{pos[2, k]}\n")
        for name, case in BAILING_CASES.items():
            pos, _ = bailing_case(*case)
            for k in range(pos.shape[1]):
                fh.write(f"{name},{k},{pos[0, k]},{pos[1, k]},{pos[2, k]}\n")
    # Bailing by hand: 3 text tokens (0 … 2), then an image of 2 × 3 merged tokens at time 3, its rows centred on
    # (2 − 1) // 2 = 0 and columns on (3 − 1) // 2 = 1: (3, 3, 2) … (3, 4, 4); the text after it starts at the largest
    # time id + 1 = 4, not at 5: 3 + 6 + 2 = 11 tokens, time ids to 5, delta 6 − 11 = −5.
    pos, delta = bailing_case(*BAILING_CASES["bailing-text3-image1x4x6-text2"])
    if pos[:, 3].tolist() != [3, 3, 2] or pos[:, 8].tolist() != [3, 4, 4] or pos[:, 9].tolist() != [4, 4, 4] or \
            delta != -5:
        print(f"Bailing worked case differs: {pos.T.tolist()}, delta {delta}", file=sys.stderr)
        return 1
    # The worked case of docs/multi-axis.md: 5 text tokens (0 … 4), an image of 2 × 3 merged tokens
    # starting at 5 ((5, 5..6, 5..7)), then text from 8.
    pos = get_rope_index(*CASES["text5-image1x4x6-text3"])
    if pos[:, 5].tolist() != [5, 5, 5] or pos[:, 10].tolist() != [5, 6, 7] or pos[:, 11].tolist() != [8, 8, 8]:
        print("worked case differs", file=sys.stderr)
        return 1
    # rope_deltas by hand: the worked case's 14 tokens end at id 10 (delta 11 - 14 = -3); its first decode token, at
    # index 14, is at 11 on every axis. Qwen3-VL: 2 text, then 3 frames of 2 x 2 after 4 timestamp tokens each
    # (text ids 2..5, frame 6..7, text 8..11, frame 12..13, text 14..17, frame 18..19), then text 20, 21: 22 ids
    # for 2 + 3 * (4 + 4) + 2 = 28 tokens, delta -6; index 10 (the text after the first frame) is at 8.
    pos, delta = decode_case(*DECODE_CASES["decode-text5-image1x4x6-text3"][:5], 1)
    if delta != -3 or pos[:, 14].tolist() != [11, 11, 11]:
        print(f"worked decode case differs: delta {delta}, {pos[:, 16].tolist()}", file=sys.stderr)
        return 1
    pos, delta = decode_case(*DECODE_CASES["decode-qwen3-text2-video3x4x4-frame4-text2"][:5], 0)
    if delta != -6 or pos[:, 10].tolist() != [8, 8, 8] or pos[:, 27].tolist() != [21, 21, 21]:
        print(f"Qwen3-VL decode case differs: delta {delta}", file=sys.stderr)
        return 1
    print("wrote tests/reference/positions_cases.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
