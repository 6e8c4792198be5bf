// The scaling part of gguf_config.hpp's mapping: {arch}.rope.scaling.* and the rope_freqs /
// rope_factors_long / rope_factors_short tensors, read as llama.cpp reads them (src/llama-model.cpp
// load_hparams) and written as convert_hf_to_gguf.py writes them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::detail {

namespace {

/// Llama 3.1's band parameters (meta-llama/Llama-3.1-8B config.json rope_scaling; Llama 3.2's are the
/// same): the converter keeps only their result, the rope_freqs factors, so rope assumes them and
/// reports how well they reproduce the file's factors.
constexpr double kLlama3Low = 1.0, kLlama3High = 4.0;
constexpr long kLlama3OriginalContext = 8192;

class Scaling {
 public:
  Scaling(const GgufFile& f, const std::string& arch, GgufModel& g) : f_(f), arch_(arch), g_(g), r_(g.model.rope) {}
  void run();

 private:
  std::string key(std::string_view k) const { return fmt::format("{}.{}", arch_, k); }
  [[noreturn]] void fail(const std::string& k, const std::string& rule) const {
    throw InvalidArgument(fmt::format("{}: {}: {}", f_.name, k, rule));
  }
  /// A context length: a whole number in 1 … 2^30.
  std::optional<long> length(const std::string& k) const {
    const auto x = number(k, true);
    if (!x) return std::nullopt;
    if (*x > static_cast<double>(1L << 30) || std::floor(*x) != *x) {
      fail(k, fmt::format("expected a whole number in 1 … {}, got {}", 1L << 30, format_number(*x)));
    }
    return static_cast<long>(*x);
  }
  std::optional<double> number(const std::string& k, bool positive) const {
    const GgufValue* v = f_.find(k);
    if (!v) return std::nullopt;
    const auto x = v->as_number();
    if (!x) fail(k, fmt::format("expected a number, got {}", to_string(v->type)));
    if (!std::isfinite(*x)) fail(k, fmt::format("expected a finite number, got {}", format_number(*x)));
    if (positive ? *x <= 0 : *x < 0)
      fail(k, fmt::format("{} must be {}", format_number(*x), positive ? "> 0" : ">= 0"));
    return x;
  }
  /// "what: value (from)"; `from` is a key (the same in every language), or words of their own.
  void origin(std::string_view what, const std::string& value, const Message& from) {
    g_.model.origin.push_back(origin_line(Message::same(std::string(what)), value, from));
  }
  void origin(std::string_view what, const std::string& value, const std::string& from) {
    origin(what, value, Message::same(from));
  }
  void note(Message message) { g_.model.notes.push_back(std::move(message)); }
  /// The tensor llama.cpp reads as `name` (its full name, "rope_freqs.weight").
  const std::vector<float>* tensor(const char* name) const {
    const auto it = f_.tensor_data.find(name);
    return it == f_.tensor_data.end() ? nullptr : &it->second;
  }
  std::vector<double> pair_list(const char* name) const;
  void original_context(bool required);
  void linear(double factor, const std::string& from);
  void yarn();
  void ext_factor();
  void longrope();
  void llama3(const std::vector<float>& ff);

  const GgufFile& f_;
  const std::string& arch_;
  GgufModel& g_;
  RopeConfig& r_;
};

std::vector<double> Scaling::pair_list(const char* name) const {
  const std::vector<float>* t = tensor(name);
  if (!t) fail(name, "missing: longrope needs both rope_factors_long.weight and rope_factors_short.weight");
  const std::size_t pairs = static_cast<std::size_t>(g_.rotary_dim / 2);
  if (t->size() != pairs)
    fail(name, fmt::format("{} factors, the rotary dimension {} has {} pairs", t->size(), g_.rotary_dim, pairs));
  std::vector<double> out;
  for (float x : *t) {
    if (!std::isfinite(x) || x <= 0) fail(name, fmt::format("factor {} is not a positive number", format_number(x)));
    out.push_back(x);
  }
  return out;
}

void Scaling::original_context(bool required) {
  const std::string k = key("rope.scaling.original_context_length");
  if (const auto l0 = length(k)) {
    r_.original_max_position_embeddings = *l0;
    origin("original_max_position_embeddings", std::to_string(*l0), k);
  } else if (r_.max_position_embeddings) {
    r_.original_max_position_embeddings = *r_.max_position_embeddings;
    origin("original_max_position_embeddings", std::to_string(*r_.max_position_embeddings),
           msg("no {0}: llama.cpp's n_ctx_orig_yarn = context_length", k));
  } else if (required) {
    fail(k, "missing, and no context_length to take its place");
  }
}

void Scaling::linear(double factor, const std::string& from) {
  r_.type = ScalingType::Linear;
  r_.factor = factor;
  origin("factor", format_number(factor), from);
}

void Scaling::yarn() {
  r_.type = ScalingType::Yarn;
  const std::string fk = key("rope.scaling.factor");
  const auto factor = number(fk, true);
  if (!factor) fail(fk, "missing: yarn needs the factor");
  r_.factor = *factor;
  origin("factor", format_number(*factor), fk);
  original_context(false);
  note(msg(
      "YaRN in llama.cpp (ggml_rope_yarn_corr_dims) rounds the correction range outward with floor and ceil, as HF's "
      "truncate: true; a config.json with truncate: false (gpt-oss) gives HF slightly other frequencies"));
  if (const auto b = number(key("rope.scaling.yarn_beta_fast"), false)) {
    r_.beta_fast = *b;
    origin("beta_fast", format_number(*b), key("rope.scaling.yarn_beta_fast"));
  }
  if (const auto b = number(key("rope.scaling.yarn_beta_slow"), false)) {
    r_.beta_slow = *b;
    origin("beta_slow", format_number(*b), key("rope.scaling.yarn_beta_slow"));
  }
  ext_factor();
  const std::string lk = key("rope.scaling.yarn_log_multiplier");
  // llama.cpp reads a multiplier of 0 as none (src/llama-context.cpp:185, `rope_yarn_log_mul != 0`), and
  // llama_model_save_to_file writes 0 for every model without one.
  const GgufArchitecture* row = find_gguf_architecture(g_.architecture);
  const LlamaYarnLogRule* rule = row && row->yarn_log ? &*row->yarn_log : nullptr;
  const auto mul = number(lk, false);
  if (mul && *mul != 0 && !rule) {
    note(msg("{0} {1}: llama.cpp does not read this key for {2}, it changes nothing", lk, format_number(*mul),
             g_.architecture));
  } else if (mul && *mul != 0) {
    // The loader's float32 division (DeepSeek's converter writes 0.1 · mscale_all_dim: conversion/deepseek.py:386;
    // Mistral 3's writes mscale_all_dim itself: conversion/mistral3.py:29), then llama-context.cpp's mscale:
    // mscale_all_dim for DeepSeek-2 alone, else 1.
    const bool fits = std::fabs(*mul) <= std::numeric_limits<float>::max();  // a float64 key may not
    const double m = fits ? static_cast<double>(static_cast<float>(*mul) / rule->divided_by)
                          : std::numeric_limits<double>::infinity();
    // A multiplier near float32's largest (1e38 / 0.1) is infinite here, and get_mscale would refuse it later
    // without the file or the key: refused at reading, with the rule.
    if (!std::isfinite(m)) {
      fail(lk, fmt::format("{} / {} is not a finite float32 (llama.cpp's loader divides it in float32, {}): "
                           "mscale_all_dim must be at most {}",
                           format_number(*mul), fmt::format("{:g}", rule->divided_by), rule->source,
                           format_number(std::numeric_limits<float>::max())));
    }
    r_.mscale_all_dim = m;
    r_.mscale = rule->mscale_is_mscale_all_dim ? m : 1.0;
    origin("mscale_all_dim", format_number(m),
           rule->divided_by == 1.0f ? msg("{0} {1} ({2})", lk, format_number(*mul), rule->source)
                                    : msg("{0} {1} / {2} ({3})", lk, format_number(*mul),
                                          fmt::format("{:g}", rule->divided_by), rule->source));
    if (rule->mscale_is_mscale_all_dim) {
      note(
          msg("{0} {1}: mscale_all_dim {2}; llama.cpp takes mscale = mscale_all_dim for {3} ({4}): the rotation's "
              "attention factor is 1 and the softmax scale carries mscale²",
              lk, format_number(*mul), format_number(m), g_.architecture, rule->source));
    } else {
      origin("mscale", "1",
             msg("llama.cpp takes mscale = mscale_all_dim for deepseek2 only (src/llama-context.cpp:185-198)"));
    }
  } else if (r_.ext_factor == 0.0) {
    // ggml's rope_yarn leaves the magnitude out with ext_factor 0: cos and sin × attn_factor alone.
    r_.attention_factor = g_.attn_factor;
    origin("attention_factor", format_number(g_.attn_factor),
           msg("{0} 0: no YaRN magnitude (ggml rope_yarn), attn_factor {1}", key("rope.scaling.yarn_ext_factor"),
               format_number(g_.attn_factor)));
  } else if (f_.find(key("rope.scaling.attn_factor"))) {
    // ggml's rope_yarn: magnitude = attn_factor · (1 + 0.1·ln(1/freq_scale)) when YaRN extrapolates.
    r_.attention_factor = g_.attn_factor * yarn_get_mscale(*factor);
    origin("attention_factor", format_number(*r_.attention_factor),
           msg("{0} {1} × (0.1·ln f + 1), as ggml's rope_yarn", key("rope.scaling.attn_factor"),
               format_number(g_.attn_factor)));
  }
}

void Scaling::ext_factor() {
  // ikawrakow/ik_llama.cpp @ 8337e4cd3861 src/llama-hparams.cpp:348, 1724 (the loader reads the key, optional),
  // src/llama.cpp:8090, 8192-8194 (a negative value means "not set": 1 for YaRN), ggml rope_yarn (the ramp's
  // extrapolation × ext_factor; the magnitude only when it is not 0).
  const std::string k = key("rope.scaling.yarn_ext_factor");
  const GgufValue* v = f_.find(k);
  if (!v) return;
  const auto e = v->as_number();
  if (!e) fail(k, fmt::format("expected a number, got {}", to_string(v->type)));
  if (!std::isfinite(*e)) fail(k, fmt::format("expected a finite number, got {}", format_number(*e)));
  if (*e < 0) {
    origin("ext_factor", "1", msg("{0} {1}: negative, which llama.cpp reads as not set", k, format_number(*e)));
    return;
  }
  r_.ext_factor = *e;
  origin("ext_factor", format_number(*e), k);
  if (*e == 0.0) {
    note(msg("{0} 0: llama.cpp turns every pair by θ_i/f, without YaRN's ramp and magnitude (ggml rope_yarn)", k));
  } else if (*e != 1.0) {
    note(msg("{0} {1}: llama.cpp weighs YaRN's extrapolation by {1}: θ_i/f·(1 − (1 − r_i)·{1}) + θ_i·(1 − r_i)·{1}", k,
             format_number(*e)));
  }
}

void Scaling::longrope() {
  r_.type = ScalingType::LongRope;
  r_.long_factor = pair_list(kGgufRopeFactorsLong);
  r_.short_factor = pair_list(kGgufRopeFactorsShort);
  origin("long_factor", fmt::format("{} numbers", r_.long_factor.size()), msg("tensor rope_factors_long"));
  origin("short_factor", fmt::format("{} numbers", r_.short_factor.size()), msg("tensor rope_factors_short"));
  original_context(true);
  if (f_.find(key("rope.scaling.attn_factor"))) {
    r_.attention_factor = g_.attn_factor;
    origin("attention_factor", format_number(g_.attn_factor), key("rope.scaling.attn_factor"));
  }
}

void Scaling::llama3(const std::vector<float>& ff) {
  const std::size_t pairs = static_cast<std::size_t>(g_.rotary_dim / 2);
  if (ff.size() != pairs) {
    fail(kGgufRopeFreqs,
         fmt::format("{} factors, the rotary dimension {} has {} pairs", ff.size(), g_.rotary_dim, pairs));
  }
  for (float x : ff) {
    if (!std::isfinite(x) || x <= 0)
      fail(kGgufRopeFreqs, fmt::format("factor {} is not a positive number", format_number(x)));
  }
  g_.rope_freqs = ff;
  const double f = *std::max_element(ff.begin(), ff.end());
  if (f == 1.0 && *std::min_element(ff.begin(), ff.end()) == 1.0) {
    origin("rope_type", "default", msg("tensor rope_freqs: every factor 1"));
    g_.rope_freqs_difference = 0.0;
    return;
  }
  r_.type = ScalingType::Llama3;
  r_.factor = f;
  r_.low_freq_factor = kLlama3Low;
  r_.high_freq_factor = kLlama3High;
  origin("rope_type", "llama3", msg("tensor rope_freqs: {0} per-pair factors", pairs));
  origin("factor", format_number(f), msg("the largest factor of rope_freqs"));
  const std::string lk = key("rope.scaling.original_context_length");
  if (const auto l0 = length(lk)) {
    r_.original_max_position_embeddings = *l0;
    origin("original_max_position_embeddings", std::to_string(*l0), lk);
  } else {
    r_.original_max_position_embeddings = kLlama3OriginalContext;
    origin("original_max_position_embeddings", std::to_string(kLlama3OriginalContext),
           msg("Llama 3.1's value, assumed"));
  }
  origin("low_freq_factor", format_number(kLlama3Low), msg("Llama 3.1's value, assumed"));
  origin("high_freq_factor", format_number(kLlama3High), msg("Llama 3.1's value, assumed"));
  // rope's own llama3 factors θ_i / θ'_i against the file's.
  RopeParameters p;
  try {
    p = rope_parameters(r_);
  } catch (const InvalidArgument& e) {
    fail(kGgufRopeFreqs, e.what());
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < pairs; ++i) {
    const double theta = std::pow(r_.base, -2.0 * static_cast<double>(i) / g_.rotary_dim);
    const double mine = theta / p.inv_freq[static_cast<Eigen::Index>(i)];
    worst = std::max(worst, std::abs(static_cast<double>(ff[i]) - mine) / ff[i]);
  }
  g_.rope_freqs_difference = worst;
  const bool ok = worst <= kRopeFreqsTolerance;
  note(
      msg("rope_freqs: the GGUF stores Llama 3.1's per-pair factors, not its parameters; rope's llama3 factors with "
          "factor {0}, low_freq_factor 1, high_freq_factor 4, L0 {1} differ from the file's by at most {2:.3g} "
          "(relative; tolerance {3:g}, float32 rounding){4}",
          format_number(f), *r_.original_max_position_embeddings, worst, double{kRopeFreqsTolerance},
          ok ? Message::same("") : msg(": NOT Llama 3.1's band parameters, rope's frequencies are not llama.cpp's")));
  if (ok) return;
  // Not Llama 3.1's bands (other parameters, or an original_context_length that is not the one they were made
  // with, as llama_model_save_to_file writes n_ctx_train): the factors as they are. llama.cpp divides θ_i by
  // rope_freqs[i] (ggml_rope_cache_init's theta/ff), which is LongRoPE's rule with one list and no attention factor.
  r_.type = ScalingType::LongRope;
  r_.long_factor.assign(ff.begin(), ff.end());
  r_.short_factor = r_.long_factor;
  r_.attention_factor = 1.0;
  origin("rope_type", "longrope", msg("tensor rope_freqs: θ_i / rope_freqs[i] for every position, as llama.cpp"));
  origin("attention_factor", "1", msg("tensor rope_freqs: llama.cpp applies no attention factor with it"));
}

void Scaling::run() {
  // rope.scaling.alpha, read for every architecture (src/llama-model.cpp:1364; 0, as llama_model_save_to_file writes
  // it, is none): HunYuan-VL's XDRoPE folds it into the base, base · alpha^(d/(d − 2)) with d the head size, in float32
  // (src/models/hunyuan-vl.cpp:7-12; the row's base_alpha_key); no other architecture uses it.
  const std::string ak = key("rope.scaling.alpha");
  const GgufArchitecture& row = *find_gguf_architecture(arch_);
  if (const auto alpha = number(ak, false); alpha && *alpha > 0 && !row.base_alpha_key.empty()) {
    const float d = static_cast<float>(g_.head_dim);
    r_.base = static_cast<float>(static_cast<float>(r_.base) * std::pow(static_cast<float>(*alpha), d / (d - 2.0f)));
    origin("rope_theta", format_number(r_.base),
           msg("rope.freq_base · {0}^(d/(d − 2)), d = {1}: llama.cpp's HunYuan-VL", ak, g_.head_dim));
  } else if (alpha && *alpha > 0) {
    note(msg("{0} {1}: llama.cpp uses it for hunyuan_vl only, it changes nothing here", ak, format_number(*alpha)));
  }
  const std::string tk = key("rope.scaling.type");
  std::optional<std::string> type;
  if (const GgufValue* v = f_.find(tk)) {
    if (v->type != GgufType::String) fail(tk, fmt::format("expected a string, got {}", to_string(v->type)));
    type = v->text;
  }
  if (const auto a = number(key("rope.scaling.attn_factor"), true)) g_.attn_factor = *a;
  const std::string fk = key("rope.scaling.factor");
  const std::string lk = key("rope.scale_linear");
  const auto factor = f_.find(fk) ? number(fk, false) : number(lk, false);
  const std::string factor_key = f_.find(fk) ? fk : lk;
  const bool longrope_tensors = tensor(kGgufRopeFactorsLong) || tensor(kGgufRopeFactorsShort);
  std::string name = type.value_or("");
  Message from = Message::same(tk);
  if (!type) {
    // llama.cpp: the type defaults to "linear", and a factor of 0 (absent) means none.
    name = longrope_tensors ? "longrope" : factor && *factor != 0 && *factor != 1 ? "linear" : "none";
    from = longrope_tensors ? msg("tensors rope_factors_long/short") : msg("no {0}", tk);
  }
  const bool no_factor = !factor || *factor == 0 || *factor == 1;
  if (longrope_tensors && (name == "none" || (name == "linear" && no_factor))) {
    // llama.cpp passes the long or short factors whatever the scaling type (llama_model::get_rope_factors,
    // src/llama-model.cpp:2259-2272); llama_model_save_to_file writes type linear with factor 0 beside them.
    name = "longrope";
    from = msg("tensors rope_factors_long/short");
  }
  if (name == "none" || (name == "linear" && no_factor)) {
    if (!tensor(kGgufRopeFreqs)) origin("rope_type", "default", from);
  } else if (name == "linear") {
    origin("rope_type", "linear", from);
    linear(*factor, factor_key);
    if (factor_key == lk) note(msg("{0}: the legacy key of the linear factor (ggml docs/gguf.md)", lk));
  } else if (name == "yarn") {
    origin("rope_type", "yarn", from);
    yarn();
  } else if (name == "longrope") {
    origin("rope_type", "longrope", from);
    longrope();
  } else {
    fail(tk, fmt::format("'{}' is not a scaling type llama.cpp knows (none, linear, yarn, longrope)", printable(name)));
  }
  if (g_.attn_factor != 1.0 && r_.type != ScalingType::Yarn && r_.type != ScalingType::LongRope) {
    g_.model.warnings.push_back(
        msg("{0} {1}: llama.cpp multiplies cos and sin by it whatever the scaling "
            "(src/llama-context.cpp:214); rope's {2} scaling has no attention factor, so "
            "rope expects 1",
            key("rope.scaling.attn_factor"), format_number(g_.attn_factor), to_string(r_.type)));
  }
  // llama.cpp reads these tensors by their full names only (tn(LLM_TENSOR_ROPE_FREQS, "weight"), e.g.
  // src/models/llama.cpp:62-67, phi3.cpp:54-55 at de3ff815ea7d): a tensor without ".weight" is not read.
  for (const char* full : {kGgufRopeFreqs, kGgufRopeFactorsLong, kGgufRopeFactorsShort}) {
    const std::string bare(std::string_view(full).substr(0, std::string_view(full).size() - 7));
    if (f_.tensor_data.count(bare) && !tensor(full)) {
      g_.model.warnings.push_back(
          msg("tensor {0} has no .weight suffix: llama.cpp reads {1} only, so it ignores this tensor; "
              "so does rope",
              bare, full));
    }
  }
  if (const std::vector<float>* ff = tensor(kGgufRopeFreqs)) {
    if (r_.type != ScalingType::Default) {
      fail(kGgufRopeFreqs,
           fmt::format("present together with scaling type {}: rope maps rope_freqs as Llama 3.1's only",
                       to_string(r_.type)));
    }
    const std::size_t pairs = static_cast<std::size_t>(g_.rotary_dim / 2);
    if (row.full_rotary_divisor != 1 && ff->size() > pairs) {
      // One tensor of n_rot_max / 2 factors for every layer; a layer uses the first n_rot(il) / 2 of them
      // (src/models/step35.cpp:59-63 at de3ff815ea7d): the full layers, which rotate half, the first half.
      origin("rope_freqs", fmt::format("{} of {}", pairs, ff->size()),
             msg("llama.cpp: a layer uses the first n_rot / 2 factors of rope_freqs (Step 3.5)"));
      llama3(std::vector<float>(ff->begin(), ff->begin() + static_cast<std::ptrdiff_t>(pairs)));
    } else {
      llama3(*ff);
    }
  }
}

}  // namespace

void gguf_scaling(const GgufFile& file, const std::string& arch, GgufModel& g) { Scaling(file, arch, g).run(); }

}  // namespace rope::detail
