/// @file
/// The table of known variants of docs/check.md ("What each diagnosis means"), written by rope_docgen from the rows of
/// the variant table (src/rope/analysis/check/check_table.hpp) between the markers `<!-- rope_docgen: variants -->` and
/// `<!-- rope_docgen: end -->`: per row, in the order check compares the variants, its `matches` id, how it is found
/// and the keys of its `found` (from the row), then the docs' words below: an example of its diagnosis, what the dump
/// matches and the usual cause, with the sources that cite it. The words are the docs' (they spell the command line's
/// options, which no library string may), one entry per row or per set of rows said in one sentence ("(or f16)"); an
/// entry without a row follows the one before it ("": a diagnosis beside that row's, its first column "—"), or comes
/// after every row ("*": the diagnoses no row names).
/// rope_docgen fails naming a row without an entry, or an entry naming no row: adding a known bug is its row, its
/// catalog entry, its entry here and a dump for its test.
#pragma once

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope/analysis/check/check_table.hpp"

namespace rope::docs {

/// The docs' words of one row or of a set of rows.
struct VariantDoc {
  const char* names;  ///< the rows' `matches` ids, space-separated; "": follows the entry before; "*": after every row
  const char* diagnosis;  ///< an example of the diagnosis, as the report says it (markdown)
  const char* matches;    ///< what the dump matches
  const char* cause;      ///< the usual cause, with its sources
};

// clang-format off
inline const std::vector<VariantDoc> kVariantDocs = {
    {"layout-swapped",
     R"md(`matches the interleaved layout; the spec implies half` (or the reverse))md",
     R"md(the other pairing: (2j, 2j+1) against (j, j + d/2))md",
     R"md(a kernel hard-coding one pairing (vllm-ascend #12765); q/k not (un)permuted when converting between HF and GGUF (karpathy/llama2.c PR #286))md"},
    {"",  // follows layout-swapped: some heads in the other layout
     R"md(`heads 2, 3 match the interleaved layout while the others match half`)md",
     R"md(some heads in the other pairing)md",
     R"md(the GQA permutation done with the wrong number of heads (llama.cpp #2376, #3018; transformers #31766))md"},
    {"base-10000",
     R"md(`matches base 10000, not 500000: is rope_theta read?`)md",
     R"md(default base)md",
     R"md(`rope_theta` missing from the config reader, or a default overriding it)md"},
    {"axis-positions-scaled",
     R"md(`matches the time positions scaled by 1.5 (Cosmos's fps modulation, base_fps / fps = 24 / 16, diffusers #14768)`)md",
     R"md(a diffusion transformer's time positions × 24/16 (grid_rope.hpp (G1) with s_t = 1.5), the scale in `found.scale`)md",
     R"md(diffusers' Cosmos2VideoToWorldPipeline passes fps 16, so CosmosRotaryPosEmbed scales t by base_fps / fps, where the released Predict2 checkpoints disable the modulation (diffusers #14768))md"},
    {"axis-widths-other",
     R"md(`matches the tables split among t, h and w as [22, 21, 21] channels where they were built with [24, 20, 20]: pairs 11, 21 read another axis, or take their cos and their sin at two (diffusers #12538 …)`)md",
     R"md(a latent grid's cos/sin tables, built per axis with one set of widths, split among the axes with another: a pair reads another axis's position, or its cos and its sin two axes' (`found.t`, `found.h`, `found.w`: the channels used))md",
     R"md(diffusers' `WanRotaryPosEmbed` before PR #12594: `__init__` gives h and w 2⌊d/6⌋ channels, `forward` split the tables ⌊d/3⌋ per axis; the two agree at d = 128 and part at d = 64 (diffusers #12538). In bf16 the slow pairs it touches stay within the tolerance and the dump passes)md"},
    {"axis-not-centred",
     R"md(`matches rows and columns counted from 0 where the model centres them, the rows from -3 and the columns from -2, and its text after them: is scale_rope read? (Qwen-Image's QwenEmbedRope)`)md",
     R"md(the image's rows and columns from 0 and the text from max(H, W), where `scale_rope` centres them (found `h_start`, `w_start`: the centred first row and column))md",
     R"md(a port of Qwen-Image's `QwenEmbedRope` without `scale_rope` (transformer_qwenimage.py), or positions built as Flux's)md"},
    {"text-positions-other",
     R"md(`matches the text tokens at positions from 0 on every axis, where the model places them from 2, after the image's rows and columns (…)`)md",
     R"md(a joint sequence's text tokens from 0 on every axis (found `text_start` 0, `expected_start`))md",
     R"md(Qwen-Image's text ids started at 0 instead of after the image's centred rows and columns (`QwenEmbedRope.forward`'s `max_vid_index`))md"},
    {"scaled-base-10000",
     R"md(`matches the llama3 scaling at base 10000, not 500000: rope_theta is not read while the scaling is kept`)md",
     R"md(the model's scaling recomputed at base 10000 (JSON `scaled-base-10000`, found `base`))md",
     R"md(a config reader that keeps `rope_scaling` and drops `rope_theta`; `rope identify` fits the same family at base 10000 (tests/cli/check_buggy_kernels.py runs both))md"},
    {"inv-freq-bf16 inv-freq-f16",
     R"md(`matches inv_freq rounded to bf16 with m·θ computed in float32` (or f16))md",
     R"md(θ rounded to bf16 or float16, the product m·θ in float32 (JSON `inv-freq-bf16`, `inv-freq-f16`))md",
     R"md(an `inv_freq` buffer kept in the model's dtype (sglang-jax #1472), where `angles computed in bf16` also rounds the positions and the product)md"},
    {"scaling-ignored",
     R"md(`matches plain RoPE with base … and no attention factor: the scaling is not applied`)md",
     R"md(unscaled frequencies)md",
     R"md(`rope_scaling` ignored (Gemma-3's global factor 8: mlx-vlm PR #1709))md"},
    {"attention-factor-missing",
     R"md(`the attention factor 1.13863 is missing`)md",
     R"md(the right frequencies without the factor)md",
     R"md(YaRN/LongRoPE's factor not multiplied into cos and sin; `attn_factor` spelled where `attention_factor` is expected (deepseek-ai/DeepSeek-R1 #684))md"},
    {"positions-plus-one positions-minus-one",
     R"md(`matches positions shifted by +1` (or −1))md",
     R"md(positions off by one)md",
     R"md(a position counter started at 1, a BOS token counted twice, a KV-cache offset)md"},
    {"positions-offset",
     R"md(`matches every position shifted by +40000 (the first at 40000 where the positions given start at 0): the positions are missing or offset; give the dump's own (--positions)`; with batch rows or packed sequences `1 of 2 batch rows fail, each matching its positions shifted by a constant (row: shift) 1: +5000`)md",
     R"md(the positions plus a constant δ (JSON `positions-offset`, found `offset`), per batch row or packed sequence)md",
     R"md(positions not given to rope (a dump at 40000 + i checked at 0 … n − 1), a row's or sequence's start left out of `position_ids`, a context-parallel rank checked at another rank's positions (contiguous layout: one offset). Where one offset does not fit the whole, the next is measured where it stops fitting, at most 4 pieces (`matches the positions shifted by a constant in pieces (from index: shift) 0: +64, 64: -64`, found `offset`, `from`, `offset_1`, `from_1`, …); where some heads fail and the others pass, each failing head's δ is measured at its vector of the first failing index and the heads are confirmed over the whole dump (under each δ, its heads fail nowhere): `1 of 4 heads fail, each matching its positions shifted by a constant (head: shift) 3: +5000, the other heads pass: those heads' positions are offset` (found `offset`, `head`, then `offset_1`, `head_1`, …, `batch` where the heads' groups span batch rows, and `heads` the number of failing heads; at most 16 heads, not on the failing path's sample of a streamed dump; `rope identify` names the same heads with the same shifts, `head_offsets`); pieces that are one sequence's context-parallel ranks (zigzag, contiguous or round-robin, cp size up to 64, at least 4 positions; `rope positions --cp-size`) are named as the rank: `matches context-parallel rank 1's positions (zigzag, cp size 2) where rank 0's are given` (found `cp_size`, `cp_rank`, `given_rank`), or, where the positions given restart per sequence, as the rank of the packed batch cut as one sequence (found `one_sequence`; the example in "Dumps of a distributed run" below). Over packed sequences, the dump's position is read at every token ((P1) with δ = 0 allowed, \|δ\| ≤ 64·n, at most 2^16 tokens) and the whole rank is named when its every token fits: another rank's positions of the same packed batch (its sequences each cp times as long, zigzag or contiguous; found `cp_rank`, `given_rank`, with the `rope positions` command of the batch), the rank's own positions of the batch cut as one sequence (found `one_sequence`), or the rank's token order 0 … n − 1 where a rank's positions are given (`matches the positions 0 … 15, the tokens' order on this rank, where a context-parallel rank's positions are given: the positions were not offset per rank`, found `not_offset`; a cos/sin cache read at p mod L fits one sequence of such a rank by coincidence); a sequence whose pieces are such a rank's is never said to be shifted by a constant. δ is measured from the first failing vector's pair angles: δ·θ_i ≡ φ_i − p·θ_i (mod 2π) for every pair, unwrapped from the lowest frequency up, rounded to an integer (\|δ\| ≤ 2^24), and confirmed by comparing the whole dump (src/rope/analysis/check/position_offset.hpp (P1)))md"},
    {"partial-rotary-whole-head",
     R"md(`matches RoPE over the whole head (d = 64): the partial rotary dimension 32 is ignored`)md",
     R"md(every channel rotated)md",
     R"md(`partial_rotary_factor` / `rotary_pct` not read)md"},
    {"partial-rotary-twice",
     R"md(`matches a rotary dimension of 16 instead of 32: the partial rotary factor is applied twice`)md",
     R"md(a smaller rotary dimension)md",
     R"md(the factor multiplied in twice (vLLM PR #30384, lmdeploy PR #3861))md"},
    {"angles-bf16 angles-f16",
     R"md(`correct until position 69, then drifts: angles computed in bf16?`)md",
     R"md(positions and θ rounded to bfloat16 before m·θ)md",
     R"md(the cos/sin table built in the model dtype; bfloat16 holds every integer only up to 256 (docs/precision.md))md"},
    {"cos-sin-table-bf16",
     R"md(`matches a cos/sin table rounded to bf16 after float32 angles: cos and sin are cast to the model's dtype before they multiply (keep the table in float32)`)md",
     R"md(m·θ in float32, then cos and sin rounded to bfloat16; where the float32 angle's own bound (C2) reaches a bfloat16 rounding boundary, one bfloat16 step of cos or sin more in that element's tolerance)md",
     R"md(a float32 cos/sin cache cast in place to the query's dtype (SGLang PR #33117: `MRotaryEmbedding` calls `_match_cos_sin_cache_dtype(query)`). Seen on a float32 or float64 dump: in a bf16 dump the table's rounding (2⁻⁹ of ‖x‖ at most) lies within bf16's own tolerance, and the dump passes)md"},
    {"mrope-chunked mrope-interleaved",
     R"md(`matches mrope_section [24, 20, 20] in chunks, the model's code interleaves them` (or the reverse))md",
     R"md(HF's other M-RoPE map, (A2) against (A3))md",
     R"md(a Qwen3-VL port reusing Qwen2-VL's `apply_multimodal_rotary_pos_emb`, or the reverse)md"},
    {"mrope-openpangu-order mrope-qwen3-order",
     R"md(`matches mrope_section [24, 20, 20] in openPangu-VL's greedy order (vLLM rope_type openpangu), where the model interleaves them as Qwen3-VL does: the two orders agree on pairs 0 … 22 and part at pair 23` (or the reverse))md",
     R"md(the other interleave of the same sections, (A10) against (A3) (JSON `mrope-openpangu-order`, `mrope-qwen3-order`, found `pair`: the first pair where they part, 23 for [24, 20, 20], 3 for [16, 24, 24]; not tried where the two orders are one, as with [22, 21, 21]))md",
     R"md(an openPangu-VL checkpoint served through Qwen3-VL's M-RoPE (`rope_type` default with `mrope_interleaved`), or a Qwen3-VL config given `rope_type` openpangu; tests/reference/openpangu_mrope.py ports both codes and tests/cli/check_openpangu_mrope.py checks each dump both ways)md"},
    {"xdrope-tencent-map xdrope-hf-map",
     R"md(`matches xdrope_section [16, 16, 16, 16] in Tencent's XD-RoPE map (the list repeated: both channels of a pair on one stream, as mlx-vlm too), where the model doubles each section as HF's code does: the maps part at pair 0` (or the reverse))md",
     R"md(HunyuanVL's other XD-RoPE map, (A11) of docs/multi-axis.md (JSON `xdrope-tencent-map`, `xdrope-hf-map`, found `pair`: the first pair one of whose channels reads another stream, 0 for [16, 16, 16, 16]))md",
     R"md(a HunyuanVL dump written by Tencent's or mlx-vlm's code checked as HF's (the config's default), or the reverse: `--xdrope-map tencent` or `hf` passes it; tests/reference/hunyuan_xdrope.py ports both codes and tests/cli/check_hunyuan_xdrope.py checks each dump both ways; `rope identify` names the dump's map without the config, at the same pair (`xdrope.map`, `xdrope.parts_at`))md"},
    {"mrope-ignored",
     R"md(`matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached`)md",
     R"md(1-D positions for every token)md",
     R"md(a config with `rope_type: default` beside `mrope_section` taking the text path (ml-explore/mlx-lm PR #1768))md"},
    {"positions-restart",
     R"md(`the positions restart at index 128`)md",
     R"md(the positions given, starting again from the first at that index (and at the next ones, up to 64))md",
     R"md(chunked prefill or packed sequences checked against one running range: give the dump's positions or `--sequence-starts`)md"},
    {"bf16-as-float32",
     R"md(`looks like bf16 saved as float32: add --dtype bf16`)md",
     R"md(the expected RoPE under bf16's tolerance; every value of the dump has 16 zero low bits)md",
     R"md(a bf16 model's tensor saved with `.float()`: its rounding is bf16's (when the dump still fails under bf16's tolerance, this is a note after the diagnosis))md"},
    {"yarn-without-ext-factor",
     R"md(`matches linear interpolation by 4 at every pair, without YaRN's ramp and magnitude`)md",
     R"md(θ_i/f at every pair, attention factor 1)md",
     R"md(YaRN run without `ext_factor` (llama.cpp's `yarn_ext_factor` 0: ggml's `rope_yarn` then skips the ramp and the magnitude 1 + 0.1·ln f))md"},
    {"rotary-dim-halved",
     R"md(`matches a rotary dimension of 64 instead of 128: the model rotates the whole head, the code rotated half of it`)md",
     R"md(the first d/2 channels at base^(−2i/(d/2)), the rest unchanged)md",
     R"md(`n_dims = d/2` (or `rope.dimension_count` halved) for a model that rotates the whole head)md"},
    {"e-slot-unrotated",
     R"md(`matches pairs 61, 62 left unrotated: llama.cpp feeds them from its fourth position slot`)md",
     R"md(Hugging Face's interleaved M-RoPE map with the pairs of llama.cpp's IMROPE e-slot not turning)md",
     R"md(a llama.cpp Qwen3-VL dump (text tokens (p, p, p, 0)) checked with the Hugging Face config: check it with the GGUF file)md"},
    {"e-slot-unrotated",
     R"md(`matches pairs 61, 62 left unrotated: they read the fourth position slot, which the dump took as 0`)md",
     R"md(a GGUF's MROPE or IMROPE map with the fourth slot's pairs not turning, the positions given having a value there)md",
     R"md(a kernel or harness that wrote a text token's (p, p, p, 0) where the model's code passes a fourth position (Qwen4-exp's block keys (b, b, b, b)))md"},
    {"before-equals-after",
     R"md(`the dump after RoPE equals the dump before it: nothing turned`)md",
     R"md(no rotation at all)md",
     R"md(the "before" tensor read after ggml's in-place RoPE (llama.cpp after a q-norm: copy `src[0]` when the eval callback asks, "From llama.cpp" above), or RoPE never applied)md"},
    {"longrope-other-list",
     R"md(`matches LongRoPE's short factors, not the long ones the rule checked takes (length 4097 > L0 4096) at the dump's largest position 4096: SGLang takes it at this position …` (or the reverse))md",
     R"md(the other LongRoPE factor list)md",
     R"md(the engines choose Phi-3's list by different rules (docs/scaling.md, "Which LongRoPE list, per engine"): HF by max(position) + 1 > L0, SGLang by any position > L0 of the whole batch, vLLM by max_model_len and llama.cpp by n_ctx, both fixed at start-up; the sentence names the engines whose rule takes the list the dump matches; `--engine hf\|vllm\|sglang\|llamacpp` checks with that engine's rule)md"},
    {"axes-swapped",
     R"md(`matches each patch turned by (column, row) instead of (row, column)` (a vision tower), `matches the positions with h and w exchanged` (M-RoPE))md",
     R"md(the positions given with their height and width components exchanged (tried only where some position has h ≠ w))md",
     R"md(a patch grid flattened column by column where the model goes row by row (`x = idx % side` against `idx // side`), or `(h, w)` written as `(w, h)` into `position_ids`; the Python module takes a tower's `patches`)md"},
    {"*",
     R"md(`this layer has no RoPE in smollm3-3b (…), but the dump is rotated: it matches the RoPE of the model's layers that have one`)md",
     R"md(the RoPE of the model's other layers, on a layer without RoPE (`--layer-type`))md",
     R"md(a port that applies RoPE in every layer where the model skips some (SmolLM3's `no_rope_layers`, Llama 4's every 4th layer, Qwen3-Next's linear-attention layers))md"},
    {"rotation-reversed",
     R"md(`matches the rotation reversed, every pair turned by −m·θ`)md",
     R"md(R(−m·θ): sin's sign flipped)md",
     R"md(`q·cos − rotate_half(q)·sin`, or the transpose R(m)ᵀ applied: m − n and n − m written interchangeably; `rope identify` says "every pair turns clockwise" and exits 1)md"},
    {"base-other",
     R"md(`matches base 1000000, not 500000: is rope_theta read?`)md",
     R"md(the default ladder of another base (10000 has its row above): the one the first departing pair's angle gives (θ_i = φ/m, base = θ_i^(−r/(2i)), to 3 digits), tried as a variant, the base in `found.base`)md",
     R"md(`rope_theta` not read and a code base's own default in its place)md"},
    {"inv-freq-integer-division",
     R"md(`matches θ = 1 for every pair: inv_freq computed with integer division`)md",
     R"md(θ_i = 1 for every pair)md",
     R"md(`1 / base ** (arange(0, d, 2) // d)`: every exponent 0)md"},
    {"partial-rotary-pairing",
     R"md(`matches pair i rotated with channel i + 32 instead of i + 16`)md",
     R"md(partial rotary with the pairs (i, i + d/2) instead of (i, i + r/2), the partner distance in `found.partner`)md",
     R"md(`rotate_half` over the whole head where it belongs over the rotary part)md"},
    {"scaling-applied-twice",
     R"md(`matches the scaling applied twice: frequencies divided by up to 64 where the scaling divides by 8`)md",
     R"md(θ_i·(θ_i/θ0_i): the scaling's ratio per pair applied twice, the factor in `found.factor`)md",
     R"md(GGUF `rope_freqs` (Llama 3.1's factors) applied on top of the llama3 (or YaRN) frequencies)md"},
    {"rope-applied-twice",
     R"md(`matches RoPE applied twice: every pair turned by 2·m·θ_i and scaled by a² = 1.2 (the magnitude 1.09543 applied twice), the rotation of a fused path and the model's own both applied`)md",
     R"md(every pair turned by 2·m·θ_i, the attention factor a applied twice (a²))md",
     R"md(q and k rotated by a fused kernel and again by the model's own RoPE (TensorRT-LLM PR #16378: with `rope_fusion=False`, YaRN was missing from `is_rope()`, so GPT-OSS's q and k were turned by 2m with YaRN's magnitude squared in the cached K))md"},
    {"cos-sin-cache-short",
     R"md(`matches a cos/sin cache of 8192 positions clamped to its last row: correct below position 8192` (or `read at p mod 8192`))md",
     R"md(positions ≥ L turned as L − 1 (or as p mod L), L in `found.length` (tried at the first failing position and the power of two and multiple of 1024 just below it))md",
     R"md(a cos/sin cache built for a shorter length and reused, its index clamped or wrapped; wrapped from position 0 it is the positions restarting at L (that row); `rope identify` says where the positions stop (`held_from` L, `held_position` L − 1: "the positions stop at index 512") or restart (the wrap) and fits the frequencies on the dump's own positions)md"},
    {"angles-f16-overflow",
     R"md(`the tensor after RoPE holds NaN from position 65520 on: angles computed in float16`)md",
     R"md(NaN or inf from a position ≥ 65520, the largest float16 being 65504, `found.position`)md",
     R"md(m·θ computed in float16 (gpt-oss): compute the angles in float32)md"},
    {"position-ids-ignored",
     R"md(`matches positions counted across the packed sequences (from 0, one per index), without their restart at index 128`)md",
     R"md(the positions 0 … n − 1 across the whole batch where the positions given restart (`found.restart`, the first restart))md",
     R"md(`position_ids` of packed sequences ignored: the kernel numbers tokens by their index in the batch)md"},
    {"heads-seq-mixed",
     R"md(`matches each vector turned at the position of index (s·4 + h) mod 16: heads and sequence mixed by a reshape`)md",
     R"md(vector (s, h) turned at the position of index (s·H + h) mod S (`found.groups` = H))md",
     R"md(`q.view(B, H, S, D)` where `q.transpose(1, 2)` belongs)md"},
    {"mrope-t-for-all",
     R"md(`matches the t position on every axis: the M-RoPE kernel reads the t row for h and w too`)md",
     R"md(M-RoPE with (t, t, t) for every token)md",
     R"md(an M-RoPE kernel indexing the positions' first row (`position_ids[0]`) for every section: right on text, whose ids are (p, p, p), wrong on every image and video token (`rope.testing.cases`' `mrope-image-video` case))md"},
    {"mrope-axes-shifted",
     R"md(`matches the axis slots shifted by one, (h, w, t) read for (t, h, w)` (or by two))md",
     R"md(the position's components cyclically shifted, `found.shift`)md",
     R"md(the sections' slots out of step with the positions' rows (vLLM PR #40680, under torch.compile))md"},
    {"mrope-batch-rows",
     R"md(`matches position_ids [3, batch, seq] read as [batch, 3, seq]`)md",
     R"md(M-RoPE with batch row b's t, h, w taken from the flat rows 3b, 3b + 1, 3b + 2 of the positions (batch rows of equal length, positions `[3, batch, seq]`), `found.batch`)md",
     R"md(HF's `position_ids` `[3, batch, seq]` indexed as `[batch, 3, seq]`: invisible with one row, every row wrong with several; `rope identify` finds the sections at the positions so read (`mrope_batch_rows`, the rows))md"},
    {"mrope-text-rows-as-axes",
     R"md(`matches text position_ids [batch, seq] read as M-RoPE's [3, seq]: every one of the 3 batch rows is turned at the t, h and w of rows 0, 1 and 2 of the positions`)md",
     R"md(M-RoPE with text positions of a batch of at least 3 equal rows (`[batch, seq]`), every row's index i turned at (t, h, w) = (row 0, row 1, row 2 at i), `found.batch` (JSON `mrope-text-rows-as-axes`))md",
     R"md(a kernel that takes text `position_ids` `[batch, seq]` where the model's code expands them to `[3, batch, seq]`, and indexes `position_ids[0]`, `[1]`, `[2]` as t, h, w: right for one row of (p, p, p) text, wrong wherever the rows' positions differ (left padding, per-row decode offsets))md"},
    {"fope-sin-padded-one",
     R"md(`matches FoPE with its 19 padded pairs (pairs 45 … 63) padded with sin 1 as well as cos 1, so that each is √2·R(π/4) (x_a − x_b, x_b + x_a) where vLLM's fope.py @ 151a2c744a pads sin with 0 and lets them pass through`)md",
     R"md(FoPE (docs/multi-axis.md (F1)–(F4), `--coefficients`) with the padded pairs' sin 1 instead of 0, (F3) (JSON `fope-sin-padded-one`, `found.padded`: the count of padded pairs, head_dim/2 − K))md",
     R"md(vLLM's fope.py @ c215d1e62d, SGLang's `FourierRotaryEmbedding` (rope_variant.py @ 0b1fd02d56f0) and Intern-S1-Pro's own modeling_interns1_pro.py pad sin with 1, vLLM @ 151a2c744a with 0 (vllm-project/vllm #55204); tests/reference/fope.py ports both and tests/cli/check_fope.py names the earlier one; `rope identify` names it in the same words without the coefficients (`fope.padded`))md"},
    {"fope-kv-head-other",
     R"md(`matches key-value head 1's coefficients, not head 0's: the dump holds key-value head 1's heads (--kv-head 1)`)md",
     R"md(with `--kv-head H` and a coefficient matrix per key-value head (`fope_sep_head`): each other head's matrix, every vector on it (JSON `fope-kv-head-other`, `found.kv_head`: the head it matches))md",
     R"md(a dump of one head sliced from another key-value head than the one named (`k[:, h]` for head h′, a query head's group taken as h / group of another group size); data/dumps/fope_tiny_k1*.npy checked with `--kv-head 0` (docs/multi-axis.md §7), tests/cli/test_cmd_check_qk.cpp with tests/reference/fope.py's `vllm_kv2`)md"},
    {"mrope-delta-missing",
     R"md(`matches the decode tokens at their sequence index, without rope_deltas -12`)md",
     R"md(the decode tokens at index instead of index + δ (given `--rope-delta δ`), `found.delta`)md",
     R"md(the M-RoPE delta dropped after the prefill (TensorRT-LLM PR #15661: positions `index` instead of `index + rope_deltas`))md"},
    {"pass-through-changed",
     R"md(`the rotated channels match, but pass-through channels changed (1, the first: channel 37)`)md",
     R"md(the expected RoPE on the rotated channels, the pass-through channels not as they were (`found.channel`, `found.channels`))md",
     R"md(a fused kernel that ignores `rotary_dim`, rotating or writing beyond it (vLLM PR #43676, GLM-4.7 with partial 0.5))md"},
    {"yarn-truncated",
     R"md(`matches YaRN's correction range rounded to whole pairs: the config says truncate: false`)md",
     R"md(YaRN with the ramp's ends floored and ceiled)md",
     R"md(an engine that truncates the correction range whatever `truncate` says (vLLM #27722; gpt-oss has `truncate: false`))md"},
    {"norm-scaled",
     R"md(`the output's norm is scaled by 1.05: each rotated pair's norm is that many times a·‖x‖`)md",
     R"md(every rotated pair's norm s times a·‖x‖ (`found.factor` = s, the energy-weighted ratio √(Σ‖y‖²/Σ(a·‖x‖)²)), beyond the pair-norm bound (N1) 2·(ε_T + ε_A) of check.hpp (bf16 1.56 %, float16 0.2 %, float32 4.8e-7): a rotation keeps each pair's norm within its rounding, so the pairs are checked by their norm as well as element by element (bf16's element tolerance lets a norm off by up to 12 % through))md",
     R"md(an attention factor applied where none belongs (YaRN's mscale on a model without it), or a wrong one: multiply cos and sin by the model's attention factor only)md"},
    {"*",
     R"md(`PASS as a sliding_attention layer: the model has the layer types sliding_attention, full_attention; give --layer-type to check one type` (a note), or `the dump matches none of the model's layer types (sliding_attention, full_attention)`)md",
     R"md(a model of several layer types checked without `--layer-type` (Gemma 3: sliding layers base 10000 unscaled, full layers base 1e6 with linear 8): when the default type fails, each distinct RoPE of the types is checked once (names that share one share a try; every type's RoPE from the run's one resolution of the model), at most 16 of them, the types of the others named as not tried (a note; JSON `layer_types_not_tried`), and the dump passes as the one it matches (JSON `layer_type`, `layer_types`); a message lists at most 16 names of at most 48 bytes each, then "and N more")md",
     R"md(not a bug: a dump of layer 0 of Gemma 3 is a sliding layer; give `--layer-type` (a name or a layer index) to check one type)md"},
    {"output-interleaved",
     R"md(`the output is interleaved, as llama.cpp computes it: pair i is written back at channels (2i, 2i + 1), where HF's DeepSeek-V3 (apply_rotary_pos_emb_interleave) de-interleaves it to (i, i + 32)`)md",
     R"md(the expected RoPE with each pair written back at (2i, 2i + 1), where the spec writes it at (i, i + r/2))md",
     R"md(not a bug, so the check passes as equivalent (`verdict  PASS, equivalent: the output in the interleaved order, as llama.cpp writes it`, exit 0; JSON `passed: true`, `equivalent: "interleaved-in-place"`; the header's `output order` row says the spec's order; `--strict-order` makes it a FAIL, exit 1): a llama.cpp dump checked as Hugging Face's DeepSeek-V3 (Kimi K2, Mistral 4). llama.cpp's deepseek2 graph rotates `q_pe` with ggml's mode NORM and keeps the channels in that order (src/models/deepseek2.cpp, ggml-org/llama.cpp at 07bede6a8f32); HF's `apply_rotary_pos_emb_interleave` de-interleaves q and k (`view(b, h, s, d/2, 2).transpose(4, 3).reshape`) before `rotate_half` (src/transformers/models/deepseek_v3/modeling_deepseek_v3.py, transformers at 00b676f8f048); q·k is the same. Check with the GGUF file, or add `--layout interleaved`)md"},
    {"output-deinterleaved",
     R"md(`the output is de-interleaved, as HF's DeepSeek-V3 computes it (apply_rotary_pos_emb_interleave)`)md",
     R"md(the reverse: each pair read at (2i, 2i + 1) and written at (i, i + r/2), where the spec writes it back in place)md",
     R"md(not a bug, so the check passes as equivalent (JSON `equivalent: "de-interleaved"`; `--strict-order` fails it): an HF DeepSeek-V3 dump checked with the GGUF file or `--layout interleaved`; check it with `--model` or its config.json, without `--layout`; `rope identify` reads such an output back in place and names the order (`output_order: "de-interleaved"`))md"},
    {"rotary-offset-other",
     R"md(`matches the 64 rotated channels at 0–63 (offset 0) instead of 128–191`)md",
     R"md(the rotated block elsewhere in the head: at its end where the spec has it first, first where the spec has it after pass-through channels, or from the first channel outside the spec's block that the dump changed (`found.offset`))md",
     R"md(the rope part taken from the wrong place: DeepSeek's q = cat(q_nope, q_pe) rotates its last `qk_rope_head_dim` channels (`rope identify` on such a dump: "interleaved pairs on the last 64 channels (offset 128)"), a partial rotary head its first)md"},
    {"*",
     R"md(``no known variant explains the dump (the closest, angles computed in f16, explains 70000 of 131072 elements, 53.4 %): run `rope identify` to see what the dump does``)md",
     R"md(nothing known; a closest variant that explains at least half of the dump's elements)md",
     R"md(the closest variant in this table's words, with the share of the dump's elements it gets within tolerance; look at the first failing position and pair, and run `rope identify`)md"},
    {"*",
     R"md(``no known variant comes close (none explains half of the dump); the dump first departs at position 1, pair 0 (channels 0, 32): it turns that pair by 2 rad where RoPE turns it by 1 rad, its norm ×1``)md",
     R"md(nothing known, no variant explaining half of the dump (here: positions doubled))md",
     R"md(no hint that would point the wrong way: where the dump first departs (position, pair, channels) and what it does to that pair there (the angle and the norm identify measures), in `departure` of `--json`)md"},
    {"output-zero",
     R"md(`every element of the gradient is 0: the backward never wrote it`)md",
     R"md(0 everywhere (a `--grad` check))md",
     R"md(no backward (candle #3568: fused `rope`, `rope_i`, `rope_thd`); [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"magnitude-reapplied",
     R"md(`the magnitude applied again at the shift: every key turned by δ = -512 and scaled by 1.13863`)md",
     R"md(a·R(δ)·k (a `--shift` check, `found.factor`))md",
     R"md(the attention factor (YaRN's 1 + 0.1·ln f) multiplied in at every shift; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"heads-zeroed",
     R"md(`the gradient is 0 on heads 1, 3 (2 of 4) and right on the others`)md",
     R"md(0 on some heads, right on the others (a `--grad` check, `found.heads`, `found.head`))md",
     R"md(a launch grid that skips heads; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"heads-uninitialised",
     R"md(`the gradient is wrong on heads 1, 3 (2 of 4), neither 0 nor another head's, and right on the others`)md",
     R"md(neither right, nor 0, nor another head's on some heads (a `--grad` check))md",
     R"md(`torch.empty` never written, a race; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"heads-crossed",
     R"md(`heads 1 (1 of 4) hold another head's gradient (head 1 that of head 2), the others their own`)md",
     R"md(another head's gradient on some heads (a `--grad` check, `found.head`, `found.from`; `found.offset` when every head is))md",
     R"md(a split→interleaved relayout racing across warps (Megatron-LM PR #5980/#5981); [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"channels-zeroed",
     R"md(`the gradient is 0 on channels 8–15 (8 channels) of every vector and right on the others`)md",
     R"md(one channel range 0 in every vector (a `--grad` check, `found.channel`, `found.channels`))md",
     R"md(a kernel writing part of the head; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"channels-uninitialised",
     R"md(`the gradient is wrong on channels 8–15 (8 channels) of every vector, not 0, and right on the others`)md",
     R"md(one channel range wrong, not 0, in every vector (a `--grad` check, `found.channel`, `found.channels`))md",
     R"md(a kernel writing part of the head; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md"},
    {"shift-map-offset",
     R"md(`matches every key turned by new − old +3: the new positions are all off by +3`)md",
     R"md(k′ = R(new + c − old)·k for one constant c (a `--shift-map` check, `found.offset`))md",
     R"md(the new positions counted with the evicted tokens left in, or from another start (VeloxQuant #137); [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md"},
    {"shift-map-not-rotated",
     R"md(`the keys after the move equal the keys before`)md",
     R"md(k′ = k: the keys moved to their new slots, not turned (a `--shift-map` check))md",
     R"md(a cache compacted without re-rotating its keys; [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md"},
    {"shift-map-sign",
     R"md(`matches every key turned by old − new instead of new − old`)md",
     R"md(k′ = R(old − new)·k (a `--shift-map` check))md",
     R"md(δ computed as old − new; [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md"},
    {"qk-crossed",
     R"md(`matches q and k crossed: the second element of each of q's rotated pairs is k's pair rotated, the first of each of k's is q's`)md",
     R"md(with `--k-before`/`--k-after`: out_q1 from k's pair, out_k0 from q's (q head h with k head h/(H_q/H_k)); named in both tensors' diagnoses)md",
     R"md(a fused q/k kernel loading the other tensor's half (ColossalAI issue #6428, PR #6429: Triton `fused_rotary_emb`); [q and k together](#q-and-k-together---k-before---k-after))md"},
    {"k-with-query-heads",
     R"md(`matches k read with q's head count: k has 2 heads, q 8, and key (t, h) is turned at the position of index ⌊(t·2 + h) / 8⌋`)md",
     R"md(with `--k-before`/`--k-after` under GQA: k's buffer walked with q's head count (`found.q_heads`, `found.k_heads`), named in k's diagnosis; `rope identify` on k alone reads the keys at the positions so walked and says q's head count (`query_heads`))md",
     R"md(`k_head_num = q.shape[1]` or q's token stride used for k (ColossalAI PR #6429); [q and k together](#q-and-k-together---k-before---k-after))md"},
    {"angles-fast-math",
     R"md(`matches sin and cos of float32 angles by a fast unit without range reduction, as CUDA's __sinf/__cosf under nvcc's use_fast_math: every angle falls short by 4.03e-08 of itself (fl32(1/2π)'s shortfall is 4.03e-08), an error that grows with m·θ`)md",
     R"md(with `--angles float64` alone: the float32 angle taken to revolutions by fl32(1/2π), 4.03·10⁻⁸ of itself short, then sin(2πx). Told from a plain float32 product (which errs as much, by rounding either way) by its pattern: per pair the slope of the phase error against m·θ_i (least squares over the 512 vectors of the largest positions, 2 heads) less θ_i's own float32 rounding, pairs measured within 5·10⁻⁹ kept (at least 8), their median `found.bias`; named where it lies within half of 4.03·10⁻⁸ of −4.03·10⁻⁸ (nearer the unit's shortfall than a product's 0), then confirmed under a float32 angle's tolerance widened by the shortfall, the angle's rounding in revolutions (ε_f32·m·θ) and the unit's own error (2⁻²⁰ in cos and in sin, above the CUDA C++ Programming Guide's 2⁻²¹·⁴¹ on [−π, π]). Under the default float32 angle model such a dump passes: its error is the size of the float32 product's own, within (C2). A float32 product held to float64 measures a bias near 0 (1.4·10⁻¹¹ by the same statistic in NumPy over all 272 positions of tests/reference/buggy_kernels.py's `angles_float32_product`, the fast path's −4.027·10⁻⁸) and is not named)md",
     R"md(a kernel built with `--use_fast_math`, whose `sinf`/`cosf` become `__sinf`/`__cosf` (PTX `sin` of `.approx.f32`: the hardware's range reduction RRO, then its SIN, NVIDIA developer forums, "arithmetical functions various"; NVIDIA developer forums, "Improving the accuracy of the __sincosf function": an error "linear in the argument", removed by a correction of 4.07·10⁻⁸ of it); imp PR #1325: 10⁻² at position 131071 where its tests used positions up to 40. Reduce the angle first (in double, or modulo 2π before the intrinsic), or keep `sinf`/`cosf`)md"},
};
// clang-format on

inline constexpr const char* kVariantsMarker = "<!-- rope_docgen: variants -->";
inline constexpr const char* kVariantsEnd = "<!-- rope_docgen: end -->";

/// How a row is found, in the words of the paragraph above the table.
inline const char* found_how(VariantDetection detection) {
  switch (detection) {
    case VariantDetection::Compared:
      return "compared";
    case VariantDetection::FromDump:
      return "built from the dump";
    case VariantDetection::Measured:
      return "measured";
    case VariantDetection::Searched:
      return "searched";
    case VariantDetection::Screened:
      return "screened";
    case VariantDetection::InMode:
      return "in its mode";
    case VariantDetection::Paired:
      return "with q and k";
  }
  return "?";
}

inline std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::istringstream in(names);
  for (std::string name; in >> name;) out.push_back(name);
  return out;
}

/// The first column of an entry: its rows' ids, how they are found and the keys of their `found`.
inline std::string rows_cell(const std::vector<const VariantRow*>& rows) {
  if (rows.empty()) return "—";
  std::string ids, found, keys = rows.front()->parameters;
  for (const VariantRow* row : rows) ids += (ids.empty() ? "`" : ", `") + std::string(row->name) + "`";
  std::replace(keys.begin(), keys.end(), ',', ' ');
  for (const std::string& key : split_names(keys)) found += (found.empty() ? "`" : ", `") + key + "`";
  std::string how = found_how(rows.front()->detection);
  if (rows.front()->from_dump && rows.front()->detection != VariantDetection::FromDump) how += ", built from the dump";
  return ids + " (" + how + (found.empty() ? "" : "; found " + found) + ")";
}

/// The table, in the variant table's order, from its rows and kVariantDocs. @throws std::runtime_error naming a row
/// without an entry or an entry naming no row.
inline std::string variant_table_markdown() {
  const std::vector<VariantRow>& table = variant_table();
  const auto row_named = [&](const std::string& name) -> const VariantRow* {
    for (const VariantRow& row : table) {
      if (name == row.name) return &row;
    }
    return nullptr;
  };
  // Each entry (with its followers) under the first of its rows in the table's order.
  struct Placed {
    std::size_t at;
    std::vector<const VariantRow*> rows;
    std::vector<const VariantDoc*> docs;  // the entry and the ones that follow it
  };
  std::vector<Placed> placed, last;
  std::vector<Placed>* previous = nullptr;  // the list of the entry before
  std::vector<int> documented(table.size(), 0);
  for (const VariantDoc& doc : kVariantDocs) {
    const std::string names = doc.names;
    if (names.empty()) {
      if (previous == nullptr) throw std::runtime_error("the first variant docs entry follows nothing");
      previous->back().docs.push_back(&doc);
      continue;
    }
    if (names == "*") {
      last.push_back({table.size(), {}, {&doc}});
      previous = &last;
      continue;
    }
    Placed p{table.size(), {}, {&doc}};
    for (const std::string& name : split_names(names)) {
      const VariantRow* row = row_named(name);
      if (row == nullptr) throw std::runtime_error("the variant docs name no row " + name);
      const auto k = static_cast<std::size_t>(row - table.data());
      ++documented[k];
      p.at = std::min(p.at, k);
      p.rows.push_back(row);
    }
    std::sort(p.rows.begin(), p.rows.end());
    placed.push_back(std::move(p));
    previous = &placed;
  }
  for (std::size_t k = 0; k < table.size(); ++k) {
    if (table[k].kind != VariantKind::Expected && documented[k] == 0) {
      throw std::runtime_error(std::string("the variant ") + table[k].name +
                               " has no entry in tests/docs/variant_docs.hpp (its row of docs/check.md's table)");
    }
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.at < b.at; });
  std::string out = "| `matches` | diagnosis | the dump matches | usual cause |\n|---|---|---|---|\n";
  for (const std::vector<Placed>* part : {&placed, &last}) {
    for (const Placed& p : *part) {
      for (const VariantDoc* doc : p.docs) {  // an entry that follows another names no row of its own: "—"
        const std::string rows = doc == p.docs.front() ? rows_cell(p.rows) : rows_cell({});
        out += "| " + rows + " | " + doc->diagnosis + " | " + doc->matches + " | " + doc->cause + " |\n";
      }
    }
  }
  return out;
}

/// `markdown` with the block between kVariantsMarker and kVariantsEnd written from the rows (unchanged without the
/// marker). @throws std::runtime_error for a marker without its end.
inline std::string update_variant_table(const std::string& markdown) {
  const std::size_t begin = markdown.find(std::string(kVariantsMarker) + "\n");
  if (begin == std::string::npos) return markdown;
  const std::size_t body = begin + std::string(kVariantsMarker).size() + 1;
  const std::size_t end = markdown.find(std::string(kVariantsEnd) + "\n", body);
  if (end == std::string::npos) {
    throw std::runtime_error(std::string("the block '") + kVariantsMarker + "' has no '" + kVariantsEnd + "'");
  }
  return markdown.substr(0, body) + variant_table_markdown() + markdown.substr(end);
}

}  // namespace rope::docs
