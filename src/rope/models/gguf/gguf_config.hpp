/// @file
/// A GGUF file's RoPE (rope/io/gguf.hpp reads it) as the ModelConfig a config.json gives
/// (model_config.hpp), with the same "where each value came from" lines, e.g.
/// "rope_theta: 500000 (llama.rope.freq_base)". What llama.cpp does with the keys
/// (ggml-org/llama.cpp src/llama-model.cpp load_hparams and llama_model_rope_type, src/llama-arch.cpp
/// for the key names, convert_hf_to_gguf.py for what a converter writes) decides every value:
///   head_dim       {arch}.attention.key_length, else embedding_length / head_count
///   rotary dim     {arch}.rope.dimension_count, else head_dim (n_rot)
///   rope_theta     {arch}.rope.freq_base, else llama.cpp's default 10000
///   context        {arch}.context_length (n_ctx_train) → max_position_embeddings
///   scaling        {arch}.rope.scaling.type none/linear/yarn/longrope with .factor (legacy .scale_linear),
///                  .attn_factor, .original_context_length (default: context_length, as llama.cpp's
///                  n_ctx_orig_yarn), .yarn_beta_fast/.yarn_beta_slow, .yarn_log_multiplier (DeepSeek-2:
///                  0.1·mscale_all_dim); the rope_freqs tensor (Llama 3.1's per-pair factors, written by
///                  the converter instead of any key), the rope_factors_long/short tensors (Phi-3 longrope)
///   layout         the architecture's rope type: NORM pairs (2i, 2i+1) → interleaved; NEOX, MROPE, IMROPE,
///                  VISION pair (i, i + n_rot/2) → half
///   SWA, sections  {arch}.rope.freq_base_swa, {arch}.rope.dimension_sections (M-RoPE)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/io/gguf.hpp"
#include "rope/models/gguf/llama_architectures.hpp"
#include "rope/models/model_config.hpp"

namespace rope {

/// The RoPE tensors as llama.cpp names and reads them (ggml-org/llama.cpp src/llama-arch.cpp:438, 495-496
/// LLM_TENSOR_ROPE_FREQS, _LONG, _SHORT with the suffix "weight" every model adds, e.g. src/models/llama.cpp:62-67;
/// gguf-py/gguf/constants.py:675-677; at the node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d). One tensor
/// for every layer: no "blk.N." prefix.
inline constexpr const char* kGgufRopeFreqs = "rope_freqs.weight";
inline constexpr const char* kGgufRopeFactorsLong = "rope_factors_long.weight";
inline constexpr const char* kGgufRopeFactorsShort = "rope_factors_short.weight";
/// The tensors read_gguf_model reads: the three, and their names without ".weight" (to say llama.cpp ignores them).
const std::vector<std::string>& gguf_rope_tensor_names();

/// Everything read from a GGUF file: the ModelConfig the commands use, and the facts a RoPE spec needs
/// beyond it (the rope type, the sliding-window base, the M-RoPE sections, the attention shape).
struct GgufModel {
  ModelConfig model;  ///< model_type = general.architecture
  std::string architecture;
  GgufRopeType rope_type = GgufRopeType::Norm;
  int head_dim = 0;                     ///< per head (key_length)
  int rotary_dim = 0;                   ///< n_rot = rope.dimension_count
  long n_head = 0;                      ///< attention.head_count (0 when absent)
  long n_head_kv = 0;                   ///< attention.head_count_kv, else n_head
  double attn_factor = 1.0;             ///< rope.scaling.attn_factor as llama.cpp reads it (1 when absent)
  std::optional<double> freq_base_swa;  ///< rope.freq_base_swa: the sliding-window layers' base
  std::optional<long> sliding_window;   ///< attention.sliding_window
  std::vector<long> sections;           ///< rope.dimension_sections (M-RoPE), as in the file
  std::vector<float> rope_freqs;        ///< the rope_freqs tensor, when present
  /// Largest |file factor − rope's llama3 factor| / file factor over the pairs, when rope_freqs is present.
  std::optional<double> rope_freqs_difference;
};

/// Relative tolerance for rope_freqs against rope's llama3 factors: the file holds float32 (rounding
/// 2^-24 ≈ 6e-8 relative) of factors computed in float64; 1e-6 leaves room for the double rounding of the
/// ramp formula, while other band parameters move some factor by more than 1e-3.
inline constexpr double kRopeFreqsTolerance = 1e-6;

/// The mapping. @throws InvalidArgument "NAME: KEY: RULE" for a missing or mistyped key, an
/// architecture without RoPE or not covered, inconsistent sizes or sections.
GgufModel gguf_model(const GgufFile& file);

/// read_gguf (with the rope tensors) and gguf_model.
GgufModel read_gguf_model(const std::string& path);

/// The head counts rope permute needs, from a GGUF file ({arch}.attention.head_count, .head_count_kv) or a
/// config.json (num_attention_heads, num_key_value_heads, else equal; text_config first when present). The
/// model's RoPE is resolve_model_rope's (resolve.hpp), not read here a second time.
struct AttentionShape {
  long n_head = 0;
  long n_head_kv = 0;
  bool gguf = false;
  std::string architecture;  ///< GGUF only
};
/// @throws InvalidArgument when the counts are missing or not positive whole numbers; as read_model_file.
AttentionShape read_attention_shape(const std::string& path);

namespace detail {
/// Internal (gguf_config_scaling.cpp): the scaling keys and tensors of `file` into g.model.rope, with
/// their origin lines and notes; g's shape (head_dim, rotary_dim) is already read.
void gguf_scaling(const GgufFile& file, const std::string& arch, GgufModel& g);
/// Internal (gguf_config_layers.cpp): the layers whose RoPE differs (Gemma 3's sliding layers, SmolLM3's NoPE
/// layers) into
/// g.model.layer_types; g.model.rope is already read.
void gguf_layers(const GgufFile& file, const std::string& arch, GgufModel& g);
/// Internal (gguf_config_attention.cpp): the softmax scale llama.cpp's graph of `arch` uses (its kq_scale) into
/// g.model.attention_scale; g's shape and scaling are already read.
void gguf_attention_scale(const GgufFile& file, const std::string& arch, GgufModel& g);
/// Internal (gguf_config_layers.cpp): rot / head, nudged up by ulps so that int(head · factor) gives back rot.
double gguf_rotary_factor(long rot, long head);
/// Internal (gguf_config_layers.cpp): {arch}.block_count, a whole number in 1 … 4096, required for `why`.
long gguf_block_count(const GgufFile& file, const std::string& arch, const char* why);
/// Internal (gguf_config_deepseek4.cpp): DeepSeek-V4's compressed and sliding-only layers.
void gguf_deepseek4_layers(const GgufFile& file, const std::string& arch, GgufModel& g);
/// Internal (gguf_config_deepseek4.cpp): whether a dflash file is the DeepSeek-V4 DSpark draft
/// ({arch}.hyper_connection.count > 0), and its RoPE (every stage uncompressed).
bool gguf_dflash_dspark(const GgufFile& file, const std::string& arch);
void gguf_dflash_layers(const GgufFile& file, const std::string& arch, GgufModel& g);
}  // namespace detail

}  // namespace rope
