/// @file
/// llama.cpp's architectures as rope knows them: the rows "llama_cpp" of data/families.json (compiled in at build
/// time, docs/families.md lists them), one per general.architecture name. A row holds the rope type
/// llama_model_rope_type gives the architecture (how ggml_rope pairs the channels of a head) and what llama.cpp
/// decides for it in code with no key in the file: the layers that slide and their base, the layers without RoPE,
/// MLA heads, the rotary channels at the end of the head, each with the llama.cpp lines it comes from. The GGUF
/// reader (gguf_config.hpp) takes its rules from here; tests/conformance/llama_rope_types.py compares the rows with
/// llama.cpp's source.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// llama.cpp's enum llama_rope_type: how ggml_rope pairs the channels of a head.
enum class GgufRopeType { None, Norm, Neox, Mrope, Imrope, Vision };
/// "NORM", "NEOX", "MROPE", "IMROPE", "VISION", "NONE".
std::string_view to_string(GgufRopeType type);

/// The per-layer rules of an architecture whose loader reads {arch}.rope.freq_base_swa ("sliding" of a row):
/// which layers slide, their base, which layers turn q and k at all.
struct LlamaSlidingRule {
  /// When the architecture has sliding layers at all: always, attention.sliding_window > 0, sliding_window absent
  /// or not 0, block_count 64 (EXAONE 4 32B).
  enum class Gate { Always, Window, WindowUnlessZero, Layers64 };
  /// The base of a sliding layer: rope.freq_base (the graph passes freq_base), rope.freq_base_swa else
  /// rope.freq_base, rope.freq_base_swa else llama.cpp's 10000.
  enum class SwaBase { Global, KeyElseGlobal, KeyElse10000 };
  /// Which layers turn q and k: all; the sliding ones (every layer when none slides); the sliding ones and the
  /// leading dense blocks; not where (il + 1) % 4 == 0; not where il % 4 == 0 when some slide; Llama 4's rule.
  enum class Rotates { All, Sliding, SlidingOrLead, NotEveryFourth, NotFirstOfFour, Llama4 };
  long pattern = 0;          ///< load_swa_pattern's default n (0: the file's array of bools only)
  bool dense_first = false;  ///< load_swa_pattern(ml, n, true): layer il is full iff il % n == 0
  Gate gate = Gate::Always;
  SwaBase base = SwaBase::Global;
  bool scaled = false;  ///< the sliding layers keep the scaling (rope_freq_scale_train_swa = rope_freq_scale_train)
  Rotates rotates = Rotates::All;
  std::string source;  ///< the llama.cpp lines of the rules (the row's layers_source)
  /// The sliding layers' heads and rotary dims from {arch}.attention.key_length_swa (swa_head_key) and, with
  /// swa_rot_key, {arch}.rope.dimension_count_swa (src/llama-model.cpp:1394-1401; the graph's n_rot(il)).
  bool own_dims = false;
  std::string swa_head_key = "attention.key_length_swa";
  bool swa_rot_key = true;
};

/// A lightning indexer whose heads are [rope | nope] (the row's "indexer"): its q and k turn their first
/// rope.dimension_count channels of heads of {arch}.attention.indexer.key_length, with the model's RoPE (base, scaling)
/// and a rope type of its own or the model's, on the layers `layers` names. rope's layer type "indexer".
struct LlamaIndexerRule {
  /// Which layers have it: every layer; those of {arch}.attention.indexer.types (types_default when the key is absent);
  /// the layers that do not slide; those whose {arch}.attention.compress_ratios entry is above 0 and that are not
  /// linear attention ({arch}.attention.recurrent_layers, else every full_attention_interval-th layer is full).
  enum class Layers { Every, IndexerTypes, NotSliding, CompressRatios };
  GgufRopeType type = GgufRopeType::None;  ///< its own rope type; None: the model's
  Layers layers = Layers::Every;
  /// IndexerTypes without the key: every layer when context_length is below all_below_context, else these entries
  /// (layers past the list have none).
  long all_below_context = 0;
  std::vector<int> types_default;
  std::string source;  ///< the llama.cpp lines of its RoPE calls
};

/// How the loader reads {arch}.rope.scaling.yarn_log_multiplier (the row's yarn_log_multiplier; without one llama.cpp
/// does not read the key): mscale_all_dim = the value / divided_by (float32), and mscale = mscale_all_dim for
/// DeepSeek-2 alone, else 1 (src/llama-context.cpp:185-198).
struct LlamaYarnLogRule {
  float divided_by = 1.0f;
  bool mscale_is_mscale_all_dim = false;
  std::string source;
};

/// The softmax scale of the architecture's attention, llama.cpp's kq_scale as its graph computes it (the row's
/// kq_scale; tests/conformance/llama_kq_scale.py reads every graph for it).
struct LlamaKqScale {
  /// 1/√n_embd_head_k; {arch}.attention.scale unless 0, else that; q × f_attention_scale (1/√(n_embd / n_head) for the
  /// 27B, else 1/√n_embd_head_k); 1; mscale²/√n_embd_head_k_mla; 1/√n_embd_head_k_mla; 1/√n_rot; 1/√n_embd_head_v;
  /// 1/n_embd_head (μP); Grok's scores × {arch}.attention.output_scale (default_value without it), capped.
  enum class Rule {
    Default,
    AttentionScaleKey,
    Gemma27B,
    One,
    MlaMscale,
    KeyLengthMla,
    RotaryDim,
    ValueHead,
    InverseHead,
    OutputScaleKey
  };
  Rule rule = Rule::Default;
  long layers_27b = 0;       ///< Gemma27B: block_count of the 27B model
  double default_value = 0;  ///< OutputScaleKey: the scale without the key
  std::optional<double>
      softcap;                 ///< the scores capped, cap·tanh(s / cap): the cap without {arch}.attn_logit_softcapping
  std::string source;          ///< the llama.cpp lines of the rule
  std::string softcap_source;  ///< the llama.cpp lines of the cap
};

/// One architecture (a row "llama_cpp" of data/families.json).
struct GgufArchitecture {
  std::string name;                                 ///< general.architecture: "llama", "qwen2", "gpt-oss", ...
  std::string llm_arch;                             ///< llama.cpp's enum name, "LLM_ARCH_LLAMA"
  GgufRopeType type = GgufRopeType::None;           ///< without dimension_sections
  GgufRopeType with_sections = GgufRopeType::None;  ///< with sections[0] > 0 and sections[1] > 0 (use_mrope)
  bool sections_any = false;                        ///< with_sections when any section is above 0 (dflash)
  bool tested = false;                              ///< a test file of tests/io/write_gguf.py covers it
  bool key_length_mla = false;                      ///< MLA: the head RoPE sees is {arch}.attention.key_length_mla
  bool last_channels = false;  ///< the graph rotates the last rope.dimension_count channels of the head
  std::optional<LlamaSlidingRule> sliding;
  long nope_every = 0;  ///< no RoPE where (il + 1) % nope_every == 0, with no key (SmolLM3)
  /// Linear attention without RoPE on {arch}.attention.recurrent_layers, else on all but every
  /// full_attention_interval-th layer, this without the key (Qwen3.5, Qwen3-Next: 4; MiniMax-01: 8)
  long linear_attention_every = 0;
  std::string rope_off_when_false;  ///< this key false: no RoPE in any layer (Granite's rope.scaling.finetuned)
  std::string rope_pattern_key;     ///< one bool per layer, 1: RoPE (Granite SWA's attention.rope_pattern)
  std::string layers_code;          ///< per-layer rules computed by rope's code of that name: deepseek4, dflash, hy_v4
  std::optional<LlamaIndexerRule> indexer;   ///< a lightning indexer on the first channels (layer type "indexer")
  std::optional<LlamaYarnLogRule> yarn_log;  ///< its loader reads rope.scaling.yarn_log_multiplier
  int full_rotary_divisor = 1;               ///< the full layers rotate rope.dimension_count / n channels (Step 3.5: 2)
  std::string base_alpha_key;                ///< folded into the base, base · alpha^(d/(d − 2)) (HunYuan-VL)
  bool converter_permutes_qk = false;        ///< convert_hf_to_gguf.py permutes q and k for NORM (llama)
  LlamaKqScale kq_scale;                     ///< the softmax scale of its attention
  std::string layers_source;                 ///< the llama.cpp lines of the per-layer rules, cited to users
};
/// The architectures rope maps, in llama.cpp's order of llama_model_rope_type. @throws std::logic_error if the
/// compiled-in table is malformed (a bug: tests/models/gguf/test_gguf_config.cpp reads it).
const std::vector<GgufArchitecture>& gguf_architectures();
/// The row of `name`, or nullptr for a name llama.cpp does not know.
const GgufArchitecture* find_gguf_architecture(std::string_view name);
/// The llama.cpp commit the rows were read at.
const std::string& gguf_architectures_commit();

}  // namespace rope
