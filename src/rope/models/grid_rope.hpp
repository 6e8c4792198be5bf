/// @file
/// The RoPE of image and video diffusion transformers (diffusers, docs/multi-axis.md §8): every pair j of a head
/// turns with one axis a(j) of its token's place in the latent grid (time t, row h, column w; Flux.2's fourth axis
/// l), each axis with its own share of the channels and its own ladder:
///     φ_j = θ_j · s_a(j) · (p_a(j) + o)                                                         (G1)
/// θ_j the pair's frequency, s_a the axis's position scale (1 unless a mistake or a setting scales it), o a shift
/// of every component (LTX-Video's −1/2). The models, read at huggingface/diffusers
/// 58eb52c0803ea9af3abec60841c2a093bdf1f951 (src/diffusers/models/transformers/):
///   Wan 2.x    transformer_wan.py WanRotaryPosEmbed: widths t = d − 2h, h = w = 2⌊d/6⌋ channels, each axis the
///              ladder base^(−2i/d_a) (base 10000), the axes' blocks in the order t, h, w, pairs interleaved   (G2)
///   Flux.1     transformer_flux.py FluxPosEmbed: axes_dims_rope (16, 56, 56), base 10000, blocks, interleaved
///   Flux.2     transformer_flux2.py Flux2PosEmbed: axes_dims_rope (32, 32, 32, 32) over (t, h, w, l), rope_theta
///   Qwen-Image transformer_qwenimage.py QwenEmbedRope: axes_dims_rope (16, 56, 56), base 10000, complex product
///              (interleaved); scale_rope centres rows and columns (negative positions)
///   HunyuanVideo transformer_hunyuan_video.py HunyuanVideoRotaryPosEmbed: rope_axes_dim (16, 56, 56), base 256
///   Cosmos     transformer_cosmos.py CosmosRotaryPosEmbed: widths as Wan's, per-axis NTK bases
///              10000 · rope_scale_a^(d_a/(d_a − 2)), cos = cat([t, h, w]·2): the half layout over chunked axes (G3)
///   LTX-Video  transformer_ltx.py LTXVideoRotaryPosEmbed: over the whole hidden vector D (all heads at once),
///              F = ⌊D/6⌋ frequencies ω_k = (π/2) · base^(k/(F−1)) (log-spaced, increasing), each for the axes
///              t, h, w in turn (pair 3k + a after the padding), D mod 6 channels first that do not turn; the
///              positions 2g − 1 of the grid g the pipeline scales (transformer_ltx.py:217-220, 266)         (G4)
///   Cosmos 3   transformer_cosmos3.py Cosmos3VLTextRotaryEmbedding: one ladder rope_theta^(−2j/d) over the head
///              (θ 5e6), each pair's axis by Qwen3-VL's interleave (A3) of rope_axes_dim [24, 20, 20], rotate_half
///              (the half layout); text and latent in one sequence, pipeline_cosmos3_omni.py's ids: text (m, m, m),
///              the latent's t = f·base_fps/fps + L + margin after L text tokens, h and w from 0              (G5)
///   Z-Image    transformer_z_image.py RopeEmbedder: axes_dims (32, 48, 48), rope_theta 256, complex product
///              (interleaved); the sequence [image, caption] (_build_unified_sequence, basic mode), each padded to a
///              multiple of 32: caption token k (padding included) at (1 + k, 0, 0), the image's (f, h, w) at
///              (L' + 1 + f, h, w) after the padded caption's L' tokens, the image's padding at (0, 0, 0)
///   HunyuanVideo 1.5 transformer_hunyuan_video15.py HunyuanVideo15RotaryPosEmbed: HunyuanVideo's (rope_axes_dim
///              (16, 56, 56), base 256) on the latent grid with patch 1; the text after the latent, not rotated
///   Kandinsky 5 transformer_kandinsky.py Kandinsky5RoPE3D: axes_dims (16, 24, 24), base 10000, each axis's angle
///              divided by the pipeline's scale_factor (s_a = 1/scale_factor_a: the positions rope builds are
///              p / scale_factor); attention_type "nabla" orders the tokens in 8 × 8 blocks (fractal_flatten)
///   LTX-2      transformer_ltx2.py LTX2AudioVideoRotaryPosEmbed (814-1075): (G4)'s table over inner_dim, θ
///              rope_theta; the positions 2g − 1 of g = patch midpoint / (pos_embed_max_pos, base_height,
///              base_width), t in seconds (latent frame · 8 + causal_offset − 8, clamped at 0, ÷ fps), h and w in
///              pixels (· 32); rope_type "interleaved" pairs (2i, 2i + 1) over inner_dim, "split" gives head h the
///              pairs h·P … h·P + P − 1 of the table (P = head_dim/2), rotate_half inside the head               (G6)
///   LTX-2 audio  the same class with modality "audio" (transformer_ltx2.py:943-995, 1003-1075, 1278-1292): one axis
///              t over the audio stream's inner dim D_a (audio heads × audio_attention_head_dim), F = D_a/2
///              frequencies (π/2) · θ^(k/(F−1)), no padding; the positions 2g − 1 of g = the midpoint in seconds /
///              audio_pos_embed_max_pos, latent frame f spanning the mel frames [f·s + c − s, (f + 1)·s + c − s]
///              clamped at 0 (s = audio_scale_factor, c = causal_offset), × hop_length / sampling_rate seconds  (G7)
///   Z-Image omni ZImageOmniPipeline's N condition images, the target and N + 2 prompt segments of L_j tokens
///              (transformer_z_image.py:625-762, 784-788, 838-851): the sequence [captions, images, SigLIP]; caption
///              j's ids (c_j + k, 0, 0) for k < L_j', c_0 = 1, c_{j+1} = c_j + L_j + 2, each followed by L_j' − L_j
///              ids (0, 0, 0) and all cut once at Σ L_j' (later captions read earlier ones' surplus padding ids);
///              image j's grid from (c_j + L_j, 0, 0); SigLIP j's grid (1, R, C) from (c_j + L_j + 1, 0, 0), rows
///              and columns scaled in float32 by (H − 1)/(R − 1), (W − 1)/(C − 1) of the unpatched latent and
///              truncated; every part padded to a multiple of 32 at (0, 0, 0), the target's SigLIP 32 padding   (G8)
#pragma once

#include <Eigen/Core>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"

namespace rope {

/// The diffusers transformers rope reads, by their config's `_class_name`.
enum class GridModel {
  Wan,
  Flux,
  Flux2,
  QwenImage,
  HunyuanVideo,
  Ltx,
  Cosmos,
  Cosmos3,
  ZImage,
  HunyuanVideo15,
  Kandinsky5,
  Ltx2
};

/// "WanTransformer3DModel", "FluxTransformer2DModel", …
std::string_view class_name(GridModel model);
/// The model of a `_class_name`, or nullopt for another class.
std::optional<GridModel> grid_model_of_class(std::string_view name);
/// "Wan 2.x", "Flux.1", "Flux.2", "Qwen-Image", "HunyuanVideo", "LTX-Video", "Cosmos-Predict2", "Cosmos 3", "Z-Image",
/// "HunyuanVideo 1.5", "Kandinsky 5", "LTX-2".
std::string_view display_name(GridModel model);

/// How the channels of a head are shared among the axes: one block per axis in the axes' order (G2), LTX's
/// per-frequency interleave (G4), or one ladder over the head with Qwen3-VL's interleave of the axes (G5).
enum class GridOrder { Blocks, PerFrequency, Interleaved };

/// A diffusers transformer's RoPE, as its config gives it (hf/diffusers_config.cpp): what (G1)–(G4) need, and
/// what its pipeline needs to build the positions (grid_positions).
struct GridRope {
  GridModel model = GridModel::Wan;
  int head_dim = 0;               ///< channels the rotation is applied to (LTX: the hidden size, all heads)
  std::vector<int> widths;        ///< channels per axis, in the axes' order (Σ = head_dim − 2·padding); (G5): twice
                                  ///< rope_axes_dim, the pairs (A3) interleaves
  std::vector<double> bases;      ///< each axis's base (Blocks); LTX's one base in bases[0]
  std::vector<std::string> axes;  ///< the axes' names: "t", "h", "w" (and "l")
  GridOrder order = GridOrder::Blocks;
  int padding = 0;  ///< pairs first that do not turn (LTX's D mod 6 channels)
  int heads = 0;    ///< (G6) split: the heads each taking its slice of the table (0: the table turns as one vector)
  Layout layout = Layout::Interleaved;
  double offset = 0;                               ///< o of (G1) (0 for the seven models)
  std::array<double, kMaxAxes> scale{1, 1, 1, 1};  ///< s_a of (G1)
  // The pipeline's positions (grid_positions).
  std::array<long, 3> patch{1, 1, 1};  ///< the transformer's patch (t, h, w)
  long pack = 1;               ///< the pipeline's packing of the latent per side before the transformer (Flux: 2)
  bool centred = false;        ///< Qwen-Image's scale_rope: rows and columns centred
  double base_fps = 0;         ///< Cosmos, Cosmos 3: 24 (the temporal positions × base_fps / fps)
  bool fps_modulation = true;  ///< Cosmos 3: enable_fps_modulation (fps scales t only when true)
  long text_margin = 0;        ///< Cosmos 3: unified_3d_mrope_temporal_modality_margin (the latent's t after L + it)
  bool reset_spatial = true;   ///< Cosmos 3: unified_3d_mrope_reset_spatial_ids (h, w from 0; else from the offset)
  std::array<double, 3> ltx_base{20, 2048, 2048};  ///< LTX's base_num_frames, base_height, base_width
  std::array<double, 3> ltx_vae{8, 32, 32};        ///< LTX's VAE compression: temporal, spatial, spatial
  double causal_offset = 1;                        ///< LTX-2's causal_offset (the first frame's stride of 1)
  double default_fps = 0;                          ///< the pipeline's default frame rate (LTX 25, Cosmos-Predict2 16)
  long seq_multiple = 0;  ///< Z-Image: SEQ_MULTI_OF (32), the multiple each of image and caption is padded to
  std::array<long, 3> table_length{0, 0, 0};  ///< Z-Image: axes_lens, the rows of each axis's table (0: no table)
  bool fractal = false;  ///< Kandinsky 5: attention_type "nabla", the tokens in 8 × 8 blocks (fractal_flatten)
  /// LTX-2's audio stream (G7), read from the same config as its video (transformer_ltx2.py:1139-1187, 1278-1292).
  struct Ltx2Audio {
    int heads = 32;                ///< audio_num_attention_heads
    int head_dim = 64;             ///< audio_attention_head_dim
    double max_pos = 20;           ///< audio_pos_embed_max_pos: g's denominator, seconds
    double sampling_rate = 16000;  ///< audio_sampling_rate
    double hop_length = 160;       ///< audio_hop_length: samples per mel frame
    double scale_factor = 4;       ///< audio_scale_factor: mel frames per latent frame
    long patch_t = 1;              ///< audio_patch_size_t
    std::vector<Message> origin;   ///< one line per value: where it came from
  };
  std::optional<Ltx2Audio> ltx2_audio;  ///< LTX-2: its audio stream's settings (the video's GridRope and the audio's)
  bool audio = false;                   ///< this is LTX-2's audio stream (G7): one axis t, latent[0] its frames
  std::vector<Message> origin;          ///< one line per value: where it came from
  std::vector<Message> notes;
  std::string source;  ///< the module and lines of the source ("transformer_wan.py:354-419")
};

/// LTX-2's audio stream (G7) of its video's GridRope (ltx2_audio set): one axis t over audio heads × audio head dim,
/// the video's θ and rope_type.
/// @throws InvalidArgument where the model is not LTX-2.
GridRope ltx2_audio_rope(const GridRope& video);

/// The frequency of every pair (G2)–(G4): padding pairs 0 first, then the axes' ladders.
/// @throws InvalidArgument for widths that are odd or do not fit head_dim, a base not above 1, no frequencies.
Eigen::VectorXd grid_theta(const GridRope& g);

/// The axis of every pair (padding pairs: axis 0, θ 0) as an AxisMap: order SectionOrder::Grid, sections the pairs
/// per axis, the axes' names, the offset o and the scales s_a.
AxisMap grid_axis_map(const GridRope& g);

/// The positions of a latent the transformer receives, as the pipeline builds them (docs/multi-axis.md §8).
struct GridRequest {
  std::array<long, 3> latent{1, 1, 1};  ///< F, H, W of the latent (frames 1 for an image)
  long text = 0;              ///< text tokens in the same sequence (Flux, Flux.2, Qwen-Image, HunyuanVideo, Cosmos 3)
  long reference_images = 0;  ///< Flux.2: reference images of the latent's size
  std::optional<double> fps;  ///< LTX, Cosmos, Cosmos 3
  /// Kandinsky 5: the pipeline's scale_factor (t, h, w); without it, the rule of the pipeline the latent implies
  /// (kandinsky5_scale_factor)
  std::optional<std::array<double, 3>> scale_factor;
  /// LTX-2's audio tokens (G7): latent {frames, 1, 1} the audio latent's frames, positioned by its audio stream
  bool audio = false;
  /// Z-Image's omni mode (ZImageOmniPipeline, (G8)), also set by condition images; false: the basic mode
  bool omni = false;
  /// Z-Image's omni mode: the N condition images' latents (F, H, W), in the sequence before the target `latent`
  std::vector<std::array<long, 3>> condition_images;
  /// Z-Image's omni mode: each prompt segment's tokens (the pipeline's N + 2 segments, one without a condition
  /// image; `text` their sum)
  std::vector<long> captions;
  /// Z-Image's omni mode: each condition image's SigLIP grid (rows, columns), one per condition image, or none
  std::vector<std::array<long, 2>> siglip;
};

/// Kandinsky 5's scale_factor for a latent F × H × W: Kandinsky5T2VPipeline._get_scale_factor
/// (pipeline_kandinsky.py:209-227) on the frame of 8·H × 8·W pixels for a video (F > 1): (1, 2, 2) when both sides
/// are within 480 … 854, else (1, 3.16, 3.16); the image pipeline's (1, 1, 1) for F = 1
/// (pipeline_kandinsky_t2i.py:713).
std::array<double, 3> kandinsky5_scale_factor(const std::array<long, 3>& latent);

struct GridToken {
  std::array<double, kMaxAxes> p{};
  /// 0 latent, 1 text, 2 reference image, 3 padding (Z-Image's multiple of 32), 4 audio (LTX-2), 5 SigLIP (Z-Image's
  /// omni mode)
  int kind = 0;
};

struct GridPositions {
  bool audio = false;  ///< LTX-2's audio tokens (G7)
  std::vector<std::string> axes;
  std::vector<GridToken> tokens;
  std::array<long, 3> grid{1, 1, 1};  ///< tokens per axis of the latent (t, h, w)
  std::vector<Message> notes;         ///< how they were built (the pipeline's lines)
};

/// Most tokens grid_positions builds (checked before any is made).
inline constexpr long kMaxGridTokens = 1L << 22;

/// @throws InvalidArgument for a latent not divisible by the patch, a request the model does not take (text where
/// the model has none in the same sequence, reference images other than Flux.2's, fps other than LTX's and
/// Cosmos's, audio tokens other than LTX-2's, fps with audio tokens), more than kMaxGridTokens tokens.
GridPositions grid_positions(const GridRope& g, const GridRequest& r);

}  // namespace rope
