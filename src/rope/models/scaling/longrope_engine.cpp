#include "rope/models/scaling/longrope_engine.hpp"

#include <cmath>
#include <tuple>

#include "rope/core/error.hpp"

namespace rope {

namespace {

constexpr LongRopeEngine kLongRopeEngines[] = {LongRopeEngine::Hf, LongRopeEngine::Vllm, LongRopeEngine::Sglang,
                                               LongRopeEngine::LlamaCpp, LongRopeEngine::Official};

/// The largest position as a whole number (positions of a dump are whole; a fraction counts as its floor).
long whole_position(double m) { return static_cast<long>(std::floor(std::abs(m))); }

}  // namespace

std::string_view to_string(LongRopeEngine engine) {
  switch (engine) {
    case LongRopeEngine::Hf:
      return "hf";
    case LongRopeEngine::Vllm:
      return "vllm";
    case LongRopeEngine::Sglang:
      return "sglang";
    case LongRopeEngine::LlamaCpp:
      return "llamacpp";
    case LongRopeEngine::Official:
      return "official";
  }
  return "hf";
}

std::string_view engine_title(LongRopeEngine engine) {
  switch (engine) {
    case LongRopeEngine::Hf:
      return "Hugging Face";
    case LongRopeEngine::Vllm:
      return "vLLM";
    case LongRopeEngine::Sglang:
      return "SGLang";
    case LongRopeEngine::LlamaCpp:
      return "llama.cpp";
    case LongRopeEngine::Official:
      return "the official inference";
  }
  return "Hugging Face";
}

LongRopeEngine parse_longrope_engine(std::string_view text) {
  for (const LongRopeEngine e : kLongRopeEngines) {
    if (to_string(e) == text) return e;
  }
  throw InvalidArgument(error_msg("unknown engine '{0}': expected hf, vllm, sglang, llamacpp or official", text));
}

LongRopeRule longrope_rule(std::string_view engine, std::optional<long> max_model_len, std::optional<long> n_ctx) {
  LongRopeRule rule;
  if (!engine.empty()) rule.engine = parse_longrope_engine(engine);
  rule.given = !engine.empty();
  for (const auto& [given, key, owner] : {std::tuple{max_model_len, "max_model_len", LongRopeEngine::Vllm},
                                          std::tuple{n_ctx, "n_ctx", LongRopeEngine::LlamaCpp}}) {
    if (!given) continue;
    if (rule.engine != owner) {
      throw InvalidArgument(error_msg("{0} is the context of engine {1}: give {2} {3}", option_name(key),
                                      to_string(owner), option_name("engine"), to_string(owner)));
    }
    if (*given < 1) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", option_name(key), 1, *given));
    rule.context = given;
  }
  return rule;
}

long longrope_rule_length(LongRopeEngine engine, std::optional<long> context, double m) {
  switch (engine) {
    case LongRopeEngine::Vllm:
    case LongRopeEngine::LlamaCpp:
      if (!context) {
        throw InvalidArgument(error_msg("engine {0} chooses LongRoPE's list by its context: give {1}",
                                        to_string(engine),
                                        option_name(engine == LongRopeEngine::Vllm ? "max_model_len" : "n_ctx")));
      }
      return *context;
    case LongRopeEngine::Sglang:
      return whole_position(m);  // torch.any(positions > k)
    case LongRopeEngine::Official:
      throw InvalidArgument(
          error_msg("engine {0} reads DeepSeek-V4's layers; LongRoPE's list is chosen by hf, vllm, "
                    "sglang or llamacpp",
                    to_string(engine)));
    case LongRopeEngine::Hf:
      break;
  }
  return whole_position(m) + 1;  // seq_len = torch.max(position_ids) + 1
}

bool longrope_takes_long(LongRopeEngine engine, std::optional<long> context, double m, long l0) {
  return longrope_rule_length(engine, context, m) > l0;
}

Message longrope_rule_note(LongRopeEngine engine, long n, long l0) {
  const bool long_list = n > l0;
  const char* list = long_list ? "long_factor" : "short_factor";
  const char* cmp = long_list ? ">" : "<=";
  switch (engine) {
    case LongRopeEngine::Vllm:
      return msg("{0}: vLLM's rule, max_model_len {1} {2} L0 {3}, fixed at start-up for every request", list, n, cmp,
                 l0);
    case LongRopeEngine::LlamaCpp:
      return msg("{0}: llama.cpp's rule, n_ctx per sequence {1} {2} L0 {3}, fixed when the context is made", list, n,
                 cmp, l0);
    case LongRopeEngine::Sglang:
      return msg(
          "{0}: SGLang's rule, the largest position of the batch {1} {2} L0 {3} (one long request switches "
          "every request of its batch)",
          list, n, cmp, l0);
    case LongRopeEngine::Hf:
    case LongRopeEngine::Official:
      break;
  }
  return msg("{0}: Hugging Face's rule, seq_len = max(position) + 1 = {1} {2} L0 {3}", list, n, cmp, l0);
}

long vllm_dynamic_length(std::optional<long> context, double factor, long max_position) {
  if (context) return *context;
  return static_cast<long>(std::floor(factor * static_cast<double>(max_position)));  // int(max_len · factor)
}

Message vllm_dynamic_note(long n, bool given, long max_position) {
  if (given) {
    return msg(
        "dynamic NTK at vLLM's max_model_len {0}, computed once at start-up for every request (M = {1}; "
        "below M too, unguarded)",
        n, max_position);
  }
  return msg(
      "dynamic NTK at vLLM's max_model_len {0} = f·M, the length vLLM derives for a dynamic config, computed "
      "once at start-up for every request",
      n);
}

Message longrope_engines_for(bool other_is_short, double m, long l0) {
  const long p = whole_position(m);
  if (other_is_short) {
    if (p + 1 <= l0) {
      return msg(
          "Hugging Face and SGLang take it at this position, vLLM with max_model_len <= {0}, llama.cpp with "
          "n_ctx <= {0}",
          l0);
    }
    if (p == l0) return msg("SGLang takes it at this position (no position > {0}), llama.cpp with n_ctx <= {0}", l0);
    return msg("llama.cpp with n_ctx <= {0} takes it at this position; no other engine does", l0);
  }
  if (p == l0) {
    return msg(
        "Hugging Face takes it at this position (max(position) + 1 > {0}), vLLM with max_model_len > {0}, "
        "llama.cpp with n_ctx > {0}, SGLang when another request of the same batch has a position > {0} (its long "
        "path: every token at position + {0}, the one at {0} included)",
        l0);
  }
  return msg(
      "vLLM with max_model_len > {0} and llama.cpp with n_ctx > {0} take it from start-up, at any position; "
      "SGLang when another request of the same batch has a position > {0}",
      l0);
}

}  // namespace rope
