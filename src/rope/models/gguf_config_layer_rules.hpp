// Internal to gguf_config_layers.cpp: the per-layer rules of llama.cpp's graphs, one row per architecture.
//
// What llama.cpp computes on layer il (ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle, commit
// de3ff815ea7d). Which layers slide:
//   src/llama-model.cpp:3308-3315     load_swa_pattern(ml, n, dense_first): {arch}.attention.sliding_window_pattern,
//                                     an array of bools (per layer) or a number n replacing the default
//   src/llama-hparams.cpp:8-17        set_swa_pattern: layer il slides iff il % n < n − 1, or with dense_first
//                                     iff il % n != 0; n = 0: every layer
//   src/llama-hparams.h:151-153,258   rope_freq_base_train_swa = 10000, rope_freq_scale_train_swa = 1,
//                                     n_no_rope_layer_step = 4 unless an architecture sets them
//   src/llama-model.cpp:2251-2257     get_rope_freq_base/scale(il): a sliding layer's base and scale
// Each architecture's load_arch_hparams (the lines of load_swa_pattern) and graph (the lines that decide, per
// layer, whether and how q and k turn), src/models/:
//   gemma2.cpp:5      pattern 2; base_swa = freq_base, scale_swa = the scaling's, then rope.freq_base_swa
//   gemma3.cpp:3-12   only when sliding_window > 0; pattern 6; rope.freq_base_swa else 10000, unscaled
//   gemma3n.cpp:3-10  pattern 5; rope.freq_base_swa else 10000, unscaled
//   openai-moe.cpp    gpt-oss: pattern 2, as gemma2
//   plamo3.cpp:3-12   only when sliding_window > 0; pattern 8; as gemma3
//   mimo2.cpp:3-13    the array only; as gemma3
//   gemma-embedding.cpp:5,94   pattern 6; rope.freq_base_swa else 10000, unscaled
//   modern-bert.cpp:4-8,94     only when sliding_window > 0; pattern 3 dense_first; as gemma-embedding
//   cohere2.cpp:5,72-98        pattern 4; RoPE on the sliding layers only, with freq_base and the scaling
//                              (get_rope_freq_base is commented out: rope.freq_base_swa is read, never used)
//   cohere2moe.cpp:28,171-194  pattern 4 dense_first; RoPE on the sliding layers and the leading dense blocks
//   exaone4.cpp:4-11,111-132   a sliding pattern 4 only for 64 layers (32B); then RoPE on the sliding layers only
//   exaone-moe.cpp:6,131-155   pattern 4; RoPE on the sliding layers only, with freq_base and the scaling
//   olmo2.cpp:6-13,115-142     olmo2/olmo3: only when sliding_window > 0; pattern 4; sliding layers freq_base with
//                              freq_scale 1, ext_factor 0, attn_factor 1
//   mellum.cpp:8-16,120-147    as olmo2
//   muse-glimmer.cpp:9-13,88   pattern 4; RoPE on the sliding layers only, rope.freq_base_swa else freq_base, scale 1
//   maple.cpp:10-14,90-98      the array only; RoPE on the sliding layers only, rope.freq_base_swa else freq_base
//   laguna.cpp:36-47,173-189   only when sliding_window > 0; pattern 4 dense_first; rope.freq_base_swa else
//                              freq_base, scale 1, ext_factor 0, attn_factor 1
//   afmoe.cpp:15-21,129-136    only when sliding_window > 0: pattern 4, rope.freq_base_swa else freq_base with the
//                              scaling; with or without it no RoPE where (il + 1) % 4 == 0
//   smallthinker.cpp:6-16,100-107  only when sliding_window > 0: pattern 4 dense_first, rope.freq_base_swa else
//                              freq_base with the scaling, no RoPE where il % 4 == 0; without it RoPE everywhere
//   llama4.cpp:8-23,128-166   chunked attention (pattern 4) unless sliding_window is 0: rope.freq_base_swa else
//                              freq_base with the scaling, no RoPE where (il + 1) % 4 == 0, those layers' query
//                              times the temperature of floor scale 8192, scale 0.1, offset 1 (src/llama-graph.cpp:
//                              157-170, HF's (S20)); with sliding_window 0 n_no_rope_layer_step = n_layer: the
//                              last layer has no RoPE, and its temperature of scale 0 aborts the decode
//                              (src/llama-graph.cpp:161 GGML_ASSERT(f_attn_temp_scale != 0.0f), seen on libllama)
//   gemma4.cpp:5,191-227       the array only; sliding layers at rope.freq_base_swa else 10000, unscaled, with
//                              their own head (attention.key_length_swa) and n_rot(il) (rope.dimension_count_swa,
//                              src/llama-model.cpp:1394-1401); the full ones with rope_freqs (proportional RoPE)
//   gemma4-assistant.cpp:6-18,128-147  as gemma4 (the draft model of Gemma 4: q only)
//   step35.cpp:5-26,244-255    the array only; sliding layers at rope.freq_base_swa else 10000, unscaled, no
//                              rope_freqs, with their own head and n_rot(il) = rope.dimension_count_swa else
//                              rope.dimension_count (n_rot_swa is set before load_arch_hparams halves n_rot_full:
//                              src/llama-model.cpp:1400,1411); the full layers rotate rope.dimension_count / 2
//                              channels (step35.cpp:9) with the first n_rot/4 factors of rope_freqs (:59-60)
//   spark2-5.cpp:5-12,76-87    the array only; rope.freq_base_swa else freq_base, with the scaling, own head and
//                              n_rot(il); no rope_freqs on any layer (nullptr)
//   dots3note.cpp:23-34,179-339  the array only; rope.freq_base_swa (required) with freq_scale, ext_factor and
//                              attn_factor of the model; MLA heads per kind (attention.key_length_mla and
//                              key_length_mla_swa), both rotating their last n_rot channels (q_pe, k_pe views)
//   dflash.cpp:48-103,585-605  one RoPE for every layer ("the SWA rope == main rope"); with
//                              hyper_connection.count > 0 (the DeepSeek-V4 DSpark draft) every stage is an
//                              uncompressed DeepSeek-V4 layer: rope.freq_base unscaled, the last n_rot channels
//                              (gguf_config_deepseek4.cpp)
//   smollm3.cpp:5,69           no RoPE where (il + 1) % 4 == 0, decided in code with no key
#pragma once

namespace rope::detail::layer_rules {

/// When an architecture has sliding layers at all.
enum class Gate { Always, Window, WindowUnlessZero, Layers64 };
/// The base of a sliding layer: the file's rope.freq_base (the graph passes freq_base), rope.freq_base_swa else
/// rope.freq_base, rope.freq_base_swa else llama.cpp's 10000.
enum class SwaBase { Global, KeyElseGlobal, KeyElse10000 };
/// Which layers turn q and k at all.
enum class Rotates { All, Sliding, SlidingOrLead, NotEveryFourth, NotFirstOfFour, Llama4 };

/// How an architecture's layers are turned (the sources above).
struct SwaRule {
  const char* arch;
  long pattern;      ///< load_swa_pattern's default n (0: the file's array of bools only)
  bool dense_first;  ///< load_swa_pattern(ml, n, true): layer il is full iff il % n == 0
  Gate gate;
  SwaBase base;
  bool scaled;       ///< the sliding layers keep the scaling (rope_freq_scale_train_swa = rope_freq_scale_train)
  Rotates rotates;
  const char* source;
  bool own_dims = false;  ///< the sliding layers' heads and rotary dims from {arch}.attention.key_length_swa and
                          ///< {arch}.rope.dimension_count_swa (src/llama-model.cpp:1394-1401; the graph's n_rot(il))
  /// The key of the sliding layers' head with own_dims ("attention.key_length_swa"; dots3note's MLA heads:
  /// "attention.key_length_mla_swa"), and whether their rotary dim is n_rot(il) (else n_rot: dots3note).
  const char* swa_head_key = "attention.key_length_swa";
  bool swa_rot_key = true;
};
constexpr SwaRule kSwaRules[] = {
    {"gemma2", 2, false, Gate::Always, SwaBase::KeyElseGlobal, true, Rotates::All, "src/models/gemma2.cpp"},
    {"gemma3", 6, false, Gate::Window, SwaBase::KeyElse10000, false, Rotates::All, "src/models/gemma3.cpp"},
    {"gemma3n", 5, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All, "src/models/gemma3n.cpp"},
    {"gpt-oss", 2, false, Gate::Always, SwaBase::KeyElseGlobal, true, Rotates::All, "src/models/openai-moe.cpp"},
    {"plamo3", 8, false, Gate::Window, SwaBase::KeyElse10000, false, Rotates::All, "src/models/plamo3.cpp"},
    {"mimo2", 0, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All, "src/models/mimo2.cpp"},
    {"gemma-embedding", 6, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All, "src/models/gemma-embedding.cpp:5,94"},
    {"modern-bert", 3, true, Gate::Window, SwaBase::KeyElse10000, false, Rotates::All, "src/models/modern-bert.cpp:4-8,94"},
    {"cohere2", 4, false, Gate::Always, SwaBase::Global, true, Rotates::Sliding, "src/models/cohere2.cpp:5,89"},
    {"cohere2moe", 4, true, Gate::Always, SwaBase::Global, true, Rotates::SlidingOrLead, "src/models/cohere2moe.cpp:28,184"},
    {"exaone4", 4, false, Gate::Layers64, SwaBase::Global, true, Rotates::Sliding, "src/models/exaone4.cpp:4,111"},
    {"exaone-moe", 4, false, Gate::Always, SwaBase::Global, true, Rotates::Sliding, "src/models/exaone-moe.cpp:6,131"},
    {"olmo2", 4, false, Gate::Window, SwaBase::Global, false, Rotates::All, "src/models/olmo2.cpp:9,117"},
    {"mellum", 4, false, Gate::Window, SwaBase::Global, false, Rotates::All, "src/models/mellum.cpp:11,122"},
    {"muse-glimmer", 4, false, Gate::Always, SwaBase::KeyElseGlobal, false, Rotates::Sliding, "src/models/muse-glimmer.cpp:13,88"},
    {"maple", 0, false, Gate::Always, SwaBase::KeyElseGlobal, true, Rotates::Sliding, "src/models/maple.cpp:10,90", true},
    {"laguna", 4, true, Gate::Window, SwaBase::KeyElseGlobal, false, Rotates::All, "src/models/laguna.cpp:39,180", true},
    {"afmoe", 4, false, Gate::Window, SwaBase::KeyElseGlobal, true, Rotates::NotEveryFourth, "src/models/afmoe.cpp:17,135"},
    {"smallthinker", 4, true, Gate::Window, SwaBase::KeyElseGlobal, true, Rotates::NotFirstOfFour, "src/models/smallthinker.cpp:9,106"},
    {"llama4", 4, false, Gate::WindowUnlessZero, SwaBase::KeyElseGlobal, true, Rotates::Llama4, "src/models/llama4.cpp:19,143"},
    {"gemma4", 0, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All, "src/models/gemma4.cpp:5,191-227", true},
    {"gemma4-assistant", 0, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All,
     "src/models/gemma4-assistant.cpp:7,128-147", true},
    {"step35", 0, false, Gate::Always, SwaBase::KeyElse10000, false, Rotates::All, "src/models/step35.cpp:26,244-255", true},
    {"spark2_5", 0, false, Gate::Always, SwaBase::KeyElseGlobal, true, Rotates::All, "src/models/spark2-5.cpp:8,76-87", true},
    {"dots3note", 0, false, Gate::Always, SwaBase::KeyElseGlobal, true, Rotates::All, "src/models/dots3note.cpp:33,335-339",
     true, "attention.key_length_mla_swa", false},
};
// The rows above are exactly the architectures whose load_arch_hparams reads {arch}.rope.freq_base_swa
// (LLM_KV_ROPE_FREQ_BASE_SWA in src/models/*.cpp); for any other llama.cpp never reads the key (llama_model_save_to_file
// writes it for every model). tests/conformance/llama_rope_types.py compares the rows with the source.
}  // namespace rope::detail::layer_rules
