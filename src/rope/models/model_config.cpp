#include "rope/models/model_config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "rope/core/error.hpp"

namespace rope {

namespace detail {
// Defined in the model_presets.cpp that src/CMakeLists.txt generates from data/models/*.json,
// in file-name order.
std::size_t embedded_preset_count();
const char* embedded_preset_name(std::size_t i);
const char* embedded_preset_json(std::size_t i);
}  // namespace detail

namespace {

using json = nlohmann::json;

/// Deeper nesting is refused before it is built (real configs nest 3 levels).
constexpr int kMaxJsonDepth = 64;

/// Positions and dimensions read from a config must fit comfortably in a long and a double.
constexpr double kMaxInteger = 9007199254740992.0;  // 2^53

std::string num(double v) { return fmt::format("{}", v); }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string child(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key);
}

// ---- JSON text → DOM, refusing duplicate keys and deep nesting ------------------------------------

/// One open object or array while parsing, for duplicate keys and error paths.
struct Frame {
  bool object = true;
  std::set<std::string> keys;  // object: keys seen so far
  std::string key;             // object: the key whose value is being read
  std::size_t count = 0;       // array: elements begun so far
};

std::string path_of(const std::vector<Frame>& stack) {
  std::string path;
  for (const Frame& f : stack) {
    if (f.object) {
      if (!f.key.empty()) path = child(path, f.key);
    } else if (f.count > 0) {
      path += fmt::format("[{}]", f.count - 1);
    }
  }
  return path;
}

json parse_json(std::string_view text, const std::string& name) {
  std::vector<Frame> stack;
  const auto begin_element = [&stack] {
    if (!stack.empty() && !stack.back().object) ++stack.back().count;
  };
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        begin_element();
        if (depth >= kMaxJsonDepth) {
          throw InvalidArgument(fmt::format("{}: JSON nested more than {} levels deep", name, kMaxJsonDepth));
        }
        stack.push_back(Frame{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) {
          f.key.clear();
          const std::string where = path_of(stack);
          throw InvalidArgument(fmt::format("{}: {}duplicate key '{}'", name, where.empty() ? "" : where + ": ", key));
        }
        f.key = std::move(key);
        break;
      }
      case json::parse_event_t::value:
        begin_element();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 2, column 3: syntax error ..." → from "at line".
    const std::string what = e.what();
    const auto at = what.find("parse error");
    std::string reason = at == std::string::npos ? what : what.substr(at + std::strlen("parse error"));
    if (!reason.empty() && reason.front() == ':') reason.erase(0, 1);
    while (!reason.empty() && reason.front() == ' ') reason.erase(0, 1);
    throw InvalidArgument(fmt::format("{}: not valid JSON: {}", name, reason));
  } catch (const json::exception& e) {
    throw InvalidArgument(fmt::format("{}: not valid JSON: {}", name, e.what()));
  }
}

// ---- Typed access with JSON paths -------------------------------------------------------------------

/// Reads values out of the parsed config, failing with "<name>: <path>: <what>". A key that is absent
/// or null is "not given".
class Reader {
 public:
  explicit Reader(const std::string& name) : name_(name) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InvalidArgument(fmt::format("{}: {}: {}", name_, path, what));
  }

  static const json* find(const json& obj, std::string_view key) {
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  const json* object(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (v && !v->is_object()) fail(child(prefix, key), fmt::format("expected an object, got {}", v->type_name()));
    return v;
  }

  std::optional<std::string> string(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(child(prefix, key), fmt::format("expected a string, got {}", v->type_name()));
    return v->get<std::string>();
  }

  std::optional<double> number(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    return number_value(*v, child(prefix, key));
  }

  double number_value(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, fmt::format("expected a number, got {}", v.type_name()));
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(path, "expected a finite number");
    return x;
  }

  /// A number > 0.
  std::optional<double> positive(const json& obj, const std::string& prefix, std::string_view key) const {
    const auto x = number(obj, prefix, key);
    if (x && !(*x > 0)) fail(child(prefix, key), fmt::format("must be positive, got {}", num(*x)));
    return x;
  }

  /// A number >= 0.
  std::optional<double> non_negative(const json& obj, const std::string& prefix, std::string_view key) const {
    const auto x = number(obj, prefix, key);
    if (x && *x < 0) fail(child(prefix, key), fmt::format("must not be negative, got {}", num(*x)));
    return x;
  }

  /// A whole number > 0 (4096 and 4096.0 are both accepted; JSON does not tell them apart for HF).
  std::optional<long> count(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    const std::string path = child(prefix, key);
    if (!v->is_number()) fail(path, fmt::format("expected an integer, got {}", v->type_name()));
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxInteger)) {
      fail(path, fmt::format("is out of range, got {}", v->dump()));
    }
    if (v->is_number_integer() && !v->is_number_unsigned()) {
      const auto i = v->get<std::int64_t>();
      if (i <= 0) fail(path, fmt::format("must be positive, got {}", i));
      if (i > static_cast<std::int64_t>(kMaxInteger)) fail(path, fmt::format("is out of range, got {}", i));
      return static_cast<long>(i);
    }
    const double x = v->get<double>();
    if (x != std::floor(x)) fail(path, fmt::format("expected an integer, got {}", num(x)));
    if (!(x > 0)) fail(path, fmt::format("must be positive, got {}", num(x)));
    if (x > kMaxInteger) fail(path, fmt::format("is out of range, got {}", num(x)));
    return static_cast<long>(x);
  }

  std::optional<bool> boolean(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(child(prefix, key), fmt::format("expected true or false, got {}", v->type_name()));
    return v->get<bool>();
  }

  /// A list of positive numbers.
  std::optional<std::vector<double>> factors(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    const std::string path = child(prefix, key);
    if (!v->is_array()) fail(path, fmt::format("expected a list of numbers, got {}", v->type_name()));
    std::vector<double> out;
    out.reserve(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string item = fmt::format("{}[{}]", path, i);
      const double x = number_value((*v)[i], item);
      if (!(x > 0)) fail(item, fmt::format("must be positive, got {}", num(x)));
      out.push_back(x);
    }
    return out;
  }

 private:
  const std::string& name_;
};

// ---- Semantics -----------------------------------------------------------------------------------

/// HF spellings of rope_type (and the legacy `type`); scaling.hpp's ScalingType.
std::optional<ScalingType> scaling_type_named(std::string_view s) {
  static const std::pair<std::string_view, ScalingType> kNames[] = {
      {"default", ScalingType::Default}, {"none", ScalingType::Default},   {"mrope", ScalingType::Default},
      {"linear", ScalingType::Linear},   {"ntk", ScalingType::Ntk},        {"dynamic", ScalingType::Dynamic},
      {"yarn", ScalingType::Yarn},       {"llama3", ScalingType::Llama3},  {"longrope", ScalingType::LongRope},
      {"su", ScalingType::LongRope},     {"proportional", ScalingType::Proportional},
  };
  for (const auto& [name, type] : kNames) {
    if (name == s) return type;
  }
  return std::nullopt;
}

std::string_view type_name(ScalingType t) {
  switch (t) {
    case ScalingType::Default: return "default";
    case ScalingType::Linear: return "linear";
    case ScalingType::Ntk: return "ntk";
    case ScalingType::Dynamic: return "dynamic";
    case ScalingType::Yarn: return "yarn";
    case ScalingType::Llama3: return "llama3";
    case ScalingType::LongRope: return "longrope";
    case ScalingType::Proportional: return "proportional";
  }
  return "default";
}

/// model_type values whose HF modeling code pairs channels (2i, 2i+1) (scaling-methods.md §8).
bool interleaved_model_type(std::string_view t) {
  return t == "gptj" || t == "deepseek_v2" || t == "deepseek_v3" || t == "cohere" || t == "glm";
}

/// Keys that only make sense inside a scaling dict; their presence without a type is an error.
constexpr std::string_view kScalingKeys[] = {"factor",         "original_max_position_embeddings",
                                             "beta_fast",      "beta_slow",
                                             "truncate",       "mscale",
                                             "mscale_all_dim", "attention_factor",
                                             "low_freq_factor", "high_freq_factor",
                                             "short_factor",   "long_factor"};

bool has_any_scaling_key(const json& dict) {
  return std::any_of(std::begin(kScalingKeys), std::end(kScalingKeys),
                     [&dict](std::string_view k) { return Reader::find(dict, k) != nullptr; });
}

/// The scaling dict after resolving v4/v5 spelling and per-layer-type entries.
struct ScalingDict {
  const json* dict = nullptr;  // null: no scaling dict
  std::string path;            // e.g. "rope_scaling", "rope_parameters.full_attention"
};

/// v5 per-layer-type form: {"full_attention": {...}, "sliding_attention": {...}}.
bool is_per_layer_type(const json& dict) {
  if (dict.empty()) return false;
  if (Reader::find(dict, "rope_type") || Reader::find(dict, "type") || Reader::find(dict, "rope_theta") ||
      has_any_scaling_key(dict)) {
    return false;
  }
  return std::all_of(dict.begin(), dict.end(), [](const json& v) { return v.is_object(); });
}

class ConfigParser {
 public:
  ConfigParser(const json& doc, const std::string& name) : doc_(doc), r_(name), name_(name) { m_.name = name; }

  ModelConfig parse() {
    if (!doc_.is_object()) {
      throw InvalidArgument(fmt::format("{}: expected a JSON object at the top level, got {}", name_, doc_.type_name()));
    }
    select_text_config();
    select_scaling_dict();
    read_head_dim();
    read_partial_rotary();
    read_base();
    read_layout();
    read_positions();
    read_scaling();
    return std::move(m_);
  }

 private:
  /// "what: value (from)"; `from` is a JSON path, or words given in both languages.
  void origin(std::string_view what, const std::string& value, const std::string& from, const std::string& from_zh = "") {
    m_.origin.push_back({fmt::format("{}: {} ({})", what, value, from),
                         fmt::format("{}: {} ({})", what, value, from_zh.empty() ? from : from_zh)});
  }
  void note(std::string en, std::string zh) { m_.notes.push_back({std::move(en), std::move(zh)}); }

  // Multimodal wrappers (Gemma 3, Llava, …) keep the language model's keys in text_config.
  void select_text_config() {
    const auto top_type = r_.string(doc_, "", "model_type");
    if (const json* tc = r_.object(doc_, "", "text_config")) {
      cfg_ = tc;
      prefix_ = "text_config";
      const auto text_type = r_.string(*tc, prefix_, "model_type");
      m_.model_type = text_type ? *text_type : top_type.value_or("");
      note(fmt::format("text_config: the RoPE keys are read from the language model's config{}",
                       top_type ? fmt::format(" (model_type {} wraps {})", *top_type, m_.model_type) : ""),
           fmt::format("text_config:RoPE 的键从语言模型的配置中读取{}",
                       top_type ? fmt::format("(model_type {} 包含 {})", *top_type, m_.model_type) : ""));
    } else {
      cfg_ = &doc_;
      m_.model_type = top_type.value_or("");
    }
  }

  void select_scaling_dict() {
    const json* v4 = r_.object(*cfg_, prefix_, "rope_scaling");
    const json* v5 = r_.object(*cfg_, prefix_, "rope_parameters");
    if (v4 && v4->empty()) v4 = nullptr;  // HF: `rope_scaling or rope_parameters`; {} is falsy
    if (v5 && v5->empty()) v5 = nullptr;
    if (v4 && v5) {
      note("rope_scaling and rope_parameters are both given: rope_scaling is used, as HF v5 does "
           "(rope_parameters = rope_scaling or rope_parameters)",
           "同时给出了 rope_scaling 和 rope_parameters:与 HF v5 一样使用 rope_scaling"
           "(rope_parameters = rope_scaling or rope_parameters)");
    }
    if (v4) {
      scaling_ = {v4, child(prefix_, "rope_scaling")};
    } else if (v5) {
      scaling_ = {v5, child(prefix_, "rope_parameters")};
    }
    if (scaling_.dict && is_per_layer_type(*scaling_.dict)) {
      const json& layers = *scaling_.dict;
      std::vector<std::string> names;
      for (auto it = layers.begin(); it != layers.end(); ++it) names.push_back(it.key());
      std::string chosen;
      if (layers.contains("full_attention")) {
        chosen = "full_attention";
      } else if (names.size() == 1) {
        chosen = names.front();
      } else {
        r_.fail(scaling_.path, fmt::format("per-layer-type entries without full_attention (got {})", join(names)));
      }
      std::vector<std::string> others;
      for (auto it = layers.begin(); it != layers.end(); ++it) {
        if (it.key() == chosen) continue;
        const std::string p = child(scaling_.path, it.key());
        const auto type = r_.string(*it, p, "rope_type");
        const auto theta = r_.number(*it, p, "rope_theta");
        others.push_back(fmt::format("{}: rope_type {}{}", it.key(), type.value_or("default"),
                                     theta ? ", rope_theta " + num(*theta) : ""));
      }
      note(fmt::format("{}: per-layer-type entries ({}); the {} entry is used{}", scaling_.path, join(names), chosen,
                       others.empty() ? "" : "; other layers: " + join(others)),
           fmt::format("{}:按层类型分别给出({});使用 {} 这一项{}", scaling_.path, join(names), chosen,
                       others.empty() ? "" : ";其他层:" + join(others)));
      scaling_.path = child(scaling_.path, chosen);
      scaling_.dict = &layers[chosen];
    }
  }

  void read_head_dim() {
    const json& c = *cfg_;
    if (const auto rope_dim = r_.count(c, prefix_, "qk_rope_head_dim")) {
      head_dim_ = *rope_dim;
      origin("head_dim", std::to_string(*rope_dim), child(prefix_, "qk_rope_head_dim"));
      const auto nope = r_.count(c, prefix_, "qk_nope_head_dim");
      note(fmt::format("qk_rope_head_dim {}: multi-head latent attention rotates only these channels of each head{}",
                       *rope_dim, nope ? fmt::format("; the other qk_nope_head_dim {} carry no position", *nope) : ""),
           fmt::format("qk_rope_head_dim {}:多头潜在注意力(MLA)只旋转每个头的这些通道{}", *rope_dim,
                       nope ? fmt::format(";其余 qk_nope_head_dim {} 个通道不携带位置", *nope) : ""));
    } else if (const auto hd = r_.count(c, prefix_, "head_dim")) {
      head_dim_ = *hd;
      origin("head_dim", std::to_string(*hd), child(prefix_, "head_dim"));
    } else {
      // GPT-J and GPT-2 style configs spell these n_embd and n_head (HF attribute_map).
      const char* hidden_key = Reader::find(c, "hidden_size") || !Reader::find(c, "n_embd") ? "hidden_size" : "n_embd";
      const char* heads_key =
          Reader::find(c, "num_attention_heads") || !Reader::find(c, "n_head") ? "num_attention_heads" : "n_head";
      const auto hidden = r_.count(c, prefix_, hidden_key);
      const auto heads = r_.count(c, prefix_, heads_key);
      if (hidden && heads) {
        head_dim_ = *hidden / *heads;
        origin("head_dim", std::to_string(head_dim_),
               fmt::format("{} {} / {} {}", child(prefix_, hidden_key), *hidden, child(prefix_, heads_key), *heads));
        if (*hidden % *heads != 0) {
          note(fmt::format("{} {} is not a multiple of {} {}: head_dim rounded down to {}, as HF's // does",
                           hidden_key, *hidden, heads_key, *heads, head_dim_),
               fmt::format("{} {} 不是 {} {} 的倍数:与 HF 的 // 一样,head_dim 向下取整为 {}",
                           hidden_key, *hidden, heads_key, *heads, head_dim_));
        }
      } else if (m_.model_type == "gemma3_text") {
        head_dim_ = 256;
        origin("head_dim", "256", "HF Gemma3TextConfig default", "HF Gemma3TextConfig 默认值");
        note("head_dim not given: HF's Gemma3TextConfig default 256 assumed", "未给出 head_dim:采用 HF Gemma3TextConfig 的默认值 256");
      } else {
        r_.fail(child(prefix_, "head_dim"),
                fmt::format("missing (give head_dim, or hidden_size and num_attention_heads{})",
                            hidden ? "; num_attention_heads is missing" : heads ? "; hidden_size is missing" : ""));
      }
    }
    if (head_dim_ < 2 || head_dim_ > kMaxDim) {
      r_.fail(child(prefix_, "head_dim"), fmt::format("must be between 2 and {}, got {}", kMaxDim, head_dim_));
    }
    m_.rope.head_dim = static_cast<int>(head_dim_);
  }

  /// d = int(head_dim · factor); the factor may come from several spellings (scaling-methods.md §9).
  void read_partial_rotary() {
    const json& c = *cfg_;
    struct Candidate {
      double factor;
      std::string path;
      long rotary_dim;  // > 0 when given as rotary_dim
    };
    std::vector<Candidate> found;
    if (scaling_.dict) {
      if (const auto f = r_.positive(*scaling_.dict, scaling_.path, "partial_rotary_factor")) {
        found.push_back({*f, child(scaling_.path, "partial_rotary_factor"), 0});
      }
    }
    if (const auto f = r_.positive(c, prefix_, "partial_rotary_factor")) {
      found.push_back({*f, child(prefix_, "partial_rotary_factor"), 0});
    }
    if (const auto f = r_.positive(c, prefix_, "rotary_pct")) found.push_back({*f, child(prefix_, "rotary_pct"), 0});
    if (const auto rd = r_.count(c, prefix_, "rotary_dim")) {
      if (*rd > head_dim_) {
        r_.fail(child(prefix_, "rotary_dim"), fmt::format("must not exceed head_dim {}, got {}", head_dim_, *rd));
      }
      found.push_back({exact_factor(*rd), child(prefix_, "rotary_dim"), *rd});
    }
    double factor = 1.0;
    if (!found.empty()) {
      const Candidate& use = found.front();
      factor = use.factor;
      if (factor > 1) r_.fail(use.path, fmt::format("must be at most 1, got {}", num(factor)));
      origin("partial_rotary_factor",
             use.rotary_dim > 0 ? fmt::format("{} = {} / {}", num(factor), use.rotary_dim, head_dim_) : num(factor),
             use.path);
      for (std::size_t i = 1; i < found.size(); ++i) {
        if (rotary_dim(found[i].factor) != rotary_dim(factor)) {
          const std::string value = found[i].rotary_dim > 0 ? std::to_string(found[i].rotary_dim) : num(found[i].factor);
          note(fmt::format("{} ({}) is ignored: {} comes first", found[i].path, value, use.path),
               fmt::format("{}({})被忽略:{} 优先", found[i].path, value, use.path));
        }
      }
    } else if (m_.model_type == "gpt_neox") {
      factor = 0.25;
      origin("partial_rotary_factor", "0.25", "HF GPTNeoXConfig default rotary_pct", "HF GPTNeoXConfig 的 rotary_pct 默认值");
      note("rotary_pct not given: HF's GPT-NeoX default 0.25 assumed", "未给出 rotary_pct:采用 HF GPT-NeoX 的默认值 0.25");
    } else {
      origin("partial_rotary_factor", "1", "HF default: every channel rotates", "HF 默认值:所有通道都旋转");
    }
    const int d = rotary_dim(factor);
    if (d < 2 || d % 2 != 0) {
      const std::string path = found.empty() ? child(prefix_, "head_dim") : found.front().path;
      r_.fail(path, fmt::format("rotary dim d = int(head_dim {} × partial_rotary_factor {}) = {} must be even and at least 2",
                                head_dim_, num(factor), d));
    }
    m_.rope.partial_rotary_factor = factor;
    d_ = d;
    if (d != head_dim_) {
      note(fmt::format("partial rotary: d = {} of head_dim {} channels rotate (pairs within the first d); the other {} "
                       "pass through unchanged",
                       d, head_dim_, head_dim_ - d),
           fmt::format("部分旋转:head_dim {} 个通道中只有 d = {} 个旋转(配对都在前 d 个通道内);其余 {} 个原样通过",
                       head_dim_, d, head_dim_ - d));
    }
  }

  int rotary_dim(double factor) const { return static_cast<int>(static_cast<double>(head_dim_) * factor); }

  /// rotary_dim / head_dim, nudged up by ulps if needed so that int(head_dim · factor) gives back rotary_dim.
  double exact_factor(long rd) const {
    double f = static_cast<double>(rd) / static_cast<double>(head_dim_);
    for (int i = 0; i < 4 && rotary_dim(f) < rd; ++i) f = std::nextafter(f, 2.0);
    return f;
  }

  void read_base() {
    const json& c = *cfg_;
    const auto top = r_.number(c, prefix_, "rope_theta");
    std::optional<double> in_dict;
    if (scaling_.dict) in_dict = r_.number(*scaling_.dict, scaling_.path, "rope_theta");
    const auto neox = r_.number(c, prefix_, "rotary_emb_base");
    double base = kDefaultBase;
    std::string from;
    if (in_dict) {
      base = *in_dict;
      from = child(scaling_.path, "rope_theta");
      if (top && *top != *in_dict) {
        note(fmt::format("rope_theta {} at the top level is ignored: {} = {} wins (HF v5)", num(*top), from, num(*in_dict)),
             fmt::format("顶层的 rope_theta {} 被忽略:{} = {} 优先(HF v5)", num(*top), from, num(*in_dict)));
      }
    } else if (top) {
      base = *top;
      from = child(prefix_, "rope_theta");
    } else if (neox) {
      base = *neox;
      from = child(prefix_, "rotary_emb_base");
    } else {
      if (m_.model_type == "gemma3_text" || m_.model_type == "gemma3") {
        base = 1e6;
      } else if (m_.model_type == "gpt_oss") {
        base = 150000;
      }
      from = "HF default";
      note(fmt::format("rope_theta not given: HF default {} assumed{}", num(base),
                       base == kDefaultBase ? "" : fmt::format(" for model_type {}", m_.model_type)),
           fmt::format("未给出 rope_theta:采用 HF {}默认值 {}",
                       base == kDefaultBase ? "" : fmt::format("对 model_type {} 的", m_.model_type), num(base)));
    }
    if (!(base > 1)) {
      r_.fail(from == "HF default" ? "rope_theta" : from, fmt::format("must be greater than 1, got {}", num(base)));
    }
    m_.rope.base = base;
    origin("rope_theta", num(base), from, from == "HF default" ? "HF 默认值" : from);
    if (const auto local = r_.number(c, prefix_, "rope_local_base_freq")) {
      note(fmt::format("rope_local_base_freq {}: the local (sliding-window) layers use base {} without scaling; "
                       "the values here are the global (full-attention) layers'",
                       num(*local), num(*local)),
           fmt::format("rope_local_base_freq {}:局部(滑动窗口)层使用 base {} 且不缩放;这里的数值属于全局(全注意力)层",
                       num(*local), num(*local)));
    }
  }

  void read_layout() {
    const std::string type = m_.model_type.empty() ? "(none)" : m_.model_type;
    if (const auto interleave = r_.boolean(*cfg_, prefix_, "rope_interleave")) {
      m_.rope.layout = *interleave ? Layout::Interleaved : Layout::Half;
      origin("layout", *interleave ? "interleaved" : "half", child(prefix_, "rope_interleave"));
      note(fmt::format("layout: {} from rope_interleave {}", *interleave ? "interleaved" : "half",
                       *interleave ? "true" : "false"),
           fmt::format("排列:由 rope_interleave {} 得到 {}", *interleave ? "true" : "false",
                       *interleave ? "interleaved" : "half"));
    } else if (interleaved_model_type(m_.model_type)) {
      m_.rope.layout = Layout::Interleaved;
      origin("layout", "interleaved", "model_type " + type);
      note(fmt::format("layout: interleaved pairs (2i, 2i+1) for model_type {}", type),
           fmt::format("排列:model_type {} 使用相邻配对 (2i, 2i+1)(interleaved)", type));
    } else {
      m_.rope.layout = Layout::Half;
      origin("layout", "half", "model_type " + type);
      note(fmt::format("layout: HF rotate_half (half) for model_type {}", type),
           fmt::format("排列:model_type {} 使用 HF 的 rotate_half(half,前后半配对)", type));
    }
  }

  void read_positions() {
    const json& c = *cfg_;
    const char* key = Reader::find(c, "max_position_embeddings") || !Reader::find(c, "n_positions")
                          ? "max_position_embeddings"
                          : "n_positions";
    if (const auto m = r_.count(c, prefix_, key)) {
      m_.rope.max_position_embeddings = *m;
      origin("max_position_embeddings", std::to_string(*m), child(prefix_, key));
    } else if (m_.model_type == "gemma3_text") {
      m_.rope.max_position_embeddings = 131072;
      origin("max_position_embeddings", "131072", "HF Gemma3TextConfig default", "HF Gemma3TextConfig 默认值");
      note("max_position_embeddings not given: HF's Gemma3TextConfig default 131072 assumed",
           "未给出 max_position_embeddings:采用 HF Gemma3TextConfig 的默认值 131072");
    }
    // L0: inside the scaling dict, else top level (Phi-3); read_scaling prefers the dict's.
    if (const auto l0 = r_.count(c, prefix_, "original_max_position_embeddings")) {
      top_l0_ = *l0;
    }
  }

  void read_scaling() {
    RopeConfig& rope = m_.rope;
    if (!scaling_.dict) {
      origin("rope_type", "default", "no rope_scaling", "没有 rope_scaling");
      return;
    }
    const json& s = *scaling_.dict;
    const std::string& p = scaling_.path;
    const auto rope_type = r_.string(s, p, "rope_type");
    const auto legacy = r_.string(s, p, "type");
    std::string type_path = child(p, rope_type ? "rope_type" : "type");
    if (rope_type && legacy && *rope_type != *legacy) {
      note(fmt::format("{}.type '{}' is ignored: rope_type '{}' wins (HF)", p, *legacy, *rope_type),
           fmt::format("{}.type '{}' 被忽略:rope_type '{}' 优先(HF)", p, *legacy, *rope_type));
    }
    const auto text = rope_type ? rope_type : legacy;
    if (!text) {
      if (has_any_scaling_key(s)) r_.fail(p, "missing rope_type (or the legacy type)");
      origin("rope_type", "default", p + " has no rope_type", p + " 中没有 rope_type");
      return;
    }
    const auto type = scaling_type_named(*text);
    if (!type) {
      r_.fail(type_path, fmt::format("unknown type '{}' (known: default, linear, ntk, dynamic, yarn, llama3, longrope, "
                                     "proportional; legacy su, none, mrope)",
                                     *text));
    }
    rope.type = *type;
    origin("rope_type", std::string(type_name(*type)), type_path);
    if (*text == "su") {
      note(fmt::format("{}: 'su' is the legacy name of longrope", type_path), fmt::format("{}:'su' 是 longrope 的旧名", type_path));
    }
    if (*text == "ntk") {
      note("rope_type ntk (static NTK-aware) is not a mainline HF type (scaling-methods.md §3)",
           "rope_type ntk(静态 NTK-aware)不是 HF 主线中的类型(scaling-methods.md §3)");
    }
    if (*text == "mrope") {
      note("rope_type mrope: multimodal rotary sections are not modelled; treated as default",
           "rope_type mrope:未建模多模态旋转分段;按 default 处理");
    }
    if (!rope_type) {
      note(fmt::format("{}: legacy key 'type' read as rope_type", type_path),
           fmt::format("{}:旧键 'type' 按 rope_type 读取", type_path));
    }
    if (rope.type == ScalingType::Default) return;

    const auto set = [&](std::optional<double>& field, std::string_view key, std::optional<double> value) {
      if (!value) return;
      field = value;
      origin(key, num(*value), child(p, key));
    };
    set(rope.factor, "factor", r_.positive(s, p, "factor"));
    set(rope.beta_fast, "beta_fast", r_.non_negative(s, p, "beta_fast"));
    set(rope.beta_slow, "beta_slow", r_.non_negative(s, p, "beta_slow"));
    set(rope.mscale, "mscale", r_.non_negative(s, p, "mscale"));
    set(rope.mscale_all_dim, "mscale_all_dim", r_.non_negative(s, p, "mscale_all_dim"));
    set(rope.attention_factor, "attention_factor", r_.positive(s, p, "attention_factor"));
    set(rope.low_freq_factor, "low_freq_factor", r_.positive(s, p, "low_freq_factor"));
    set(rope.high_freq_factor, "high_freq_factor", r_.positive(s, p, "high_freq_factor"));
    if (const auto t = r_.boolean(s, p, "truncate")) {
      rope.truncate = t;
      origin("truncate", *t ? "true" : "false", child(p, "truncate"));
    }
    if (const auto l0 = r_.count(s, p, "original_max_position_embeddings")) {
      rope.original_max_position_embeddings = *l0;
      origin("original_max_position_embeddings", std::to_string(*l0), child(p, "original_max_position_embeddings"));
    } else if (top_l0_) {
      rope.original_max_position_embeddings = *top_l0_;
      origin("original_max_position_embeddings", std::to_string(*top_l0_),
             child(prefix_, "original_max_position_embeddings"));
      note(fmt::format("original_max_position_embeddings {} read from the top level (Phi-3 style), as HF v5's "
                       "standardize_rope_params does",
                       *top_l0_),
           fmt::format("original_max_position_embeddings {} 从顶层读取(Phi-3 的写法),与 HF v5 的 standardize_rope_params 相同",
                       *top_l0_));
    }
    const auto list = [&](std::vector<double>& field, std::string_view key) {
      auto values = r_.factors(s, p, key);
      if (!values) return;
      const std::size_t want = static_cast<std::size_t>(d_ / 2);
      if (values->size() != want) {
        r_.fail(child(p, key), fmt::format("expected {} numbers, got {}", want, values->size()));
      }
      field = std::move(*values);
      m_.origin.push_back({fmt::format("{}: {} numbers, {} … {} ({})", key, field.size(), num(field.front()), num(field.back()),
                                       child(p, key)),
                           fmt::format("{}: {} 个数,{} … {} ({})", key, field.size(), num(field.front()), num(field.back()),
                                       child(p, key))});
    };
    list(rope.short_factor, "short_factor");
    list(rope.long_factor, "long_factor");
    require_parameters();
    explain_defaults();
  }

  /// Parameters HF requires per type (scaling-methods.md §4).
  void require_parameters() {
    const RopeConfig& rope = m_.rope;
    const std::string& p = scaling_.path;
    const auto need = [&](bool present, std::string_view key) {
      if (!present) r_.fail(child(p, key), fmt::format("missing (required for rope_type {})", type_name(rope.type)));
    };
    switch (rope.type) {
      case ScalingType::Linear:
      case ScalingType::Ntk:
      case ScalingType::Dynamic:
        need(rope.factor.has_value(), "factor");
        break;
      case ScalingType::Llama3:
        need(rope.factor.has_value(), "factor");
        need(rope.low_freq_factor.has_value(), "low_freq_factor");
        need(rope.high_freq_factor.has_value(), "high_freq_factor");
        need(rope.original_max_position_embeddings.has_value(), "original_max_position_embeddings");
        if (*rope.high_freq_factor <= *rope.low_freq_factor) {
          r_.fail(child(p, "high_freq_factor"), fmt::format("must be greater than low_freq_factor {}, got {}",
                                                            num(*rope.low_freq_factor), num(*rope.high_freq_factor)));
        }
        break;
      case ScalingType::LongRope:
        need(!rope.short_factor.empty(), "short_factor");
        need(!rope.long_factor.empty(), "long_factor");
        break;
      case ScalingType::Default:
      case ScalingType::Yarn:
      case ScalingType::Proportional:
        break;
    }
  }

  /// Notes for the HF defaults and conventions the scaling code will apply (scaling-methods.md §4, §6).
  void explain_defaults() {
    const RopeConfig& rope = m_.rope;
    const bool uses_l0 = rope.type == ScalingType::Yarn || rope.type == ScalingType::LongRope;
    if (uses_l0 && !rope.original_max_position_embeddings) {
      if (rope.max_position_embeddings) {
        note(fmt::format("original_max_position_embeddings not given: L0 = max_position_embeddings {} (HF)",
                         *rope.max_position_embeddings),
             fmt::format("未给出 original_max_position_embeddings:L0 = max_position_embeddings {}(HF)",
                         *rope.max_position_embeddings));
      } else {
        note("original_max_position_embeddings and max_position_embeddings not given: L0 must come from the command line",
             "original_max_position_embeddings 和 max_position_embeddings 都未给出:L0 必须由命令行给出");
      }
    }
    if (uses_l0 && !rope.factor) {
      const long l0 = rope.original_max_position_embeddings.value_or(rope.max_position_embeddings.value_or(0));
      if (rope.max_position_embeddings && l0 > 0) {
        const std::string f = num(static_cast<double>(*rope.max_position_embeddings) / static_cast<double>(l0));
        note(fmt::format("factor not given: f = max_position_embeddings / original = {} / {} = {} (current HF)",
                         *rope.max_position_embeddings, l0, f),
             fmt::format("未给出 factor:f = max_position_embeddings / original = {} / {} = {}(当前 HF)",
                         *rope.max_position_embeddings, l0, f));
      } else {
        note("factor not given: f = max_position_embeddings / original (current HF)",
             "未给出 factor:f = max_position_embeddings / original(当前 HF)");
      }
    }
    if (rope.type == ScalingType::Yarn) {
      if (!rope.beta_fast) note("beta_fast not given: HF default 32", "未给出 beta_fast:HF 默认值 32");
      if (!rope.beta_slow) note("beta_slow not given: HF default 1", "未给出 beta_slow:HF 默认值 1");
      if (!rope.truncate) {
        note("truncate not given: HF default true (round the ramp to whole pairs)",
             "未给出 truncate:HF 默认值 true(过渡段取整到整对)");
      }
    }
  }

  const json& doc_;
  Reader r_;
  const std::string& name_;
  ModelConfig m_;
  const json* cfg_ = nullptr;  // the object holding the model keys (the top level, or text_config)
  std::string prefix_;         // its JSON path ("" or "text_config")
  ScalingDict scaling_;
  long head_dim_ = 0;
  int d_ = 0;
  std::optional<long> top_l0_;
};

std::string_view without_bom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

[[noreturn]] void fail_read(const std::string& path, int err) {
  throw IoError(fmt::format("cannot read '{}': {}", path, std::strerror(err)));
}

[[noreturn]] void too_large(const std::string& name) {
  throw InvalidArgument(fmt::format("{}: larger than the {}-byte limit for a config file", name, kMaxConfigBytes));
}

}  // namespace

ModelConfig parse_model_config(std::string_view json_text, const std::string& name) {
  if (json_text.size() > kMaxConfigBytes) too_large(name);
  const json doc = parse_json(without_bom(json_text), name);
  return ConfigParser(doc, name).parse();
}

ModelConfig read_model_config(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw IoError("cannot read '': the config path is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail_read(path, EISDIR);
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail_read(path, errno);
  // Read at most one byte past the limit, so /dev/zero or a huge file cannot exhaust memory.
  std::string text;
  char buffer[65536];
  while (text.size() <= kMaxConfigBytes) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    if (n == 0) {
      if (std::ferror(file.get())) fail_read(path, errno ? errno : EIO);
      break;
    }
    text.append(buffer, n);
  }
  if (text.size() > kMaxConfigBytes) too_large(path);
  return parse_model_config(text, path);
}

ModelConfig load_preset(std::string_view name) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < detail::embedded_preset_count(); ++i) {
    if (name == detail::embedded_preset_name(i)) {
      return parse_model_config(detail::embedded_preset_json(i), detail::embedded_preset_name(i));
    }
    names.emplace_back(detail::embedded_preset_name(i));
  }
  std::sort(names.begin(), names.end());
  throw InvalidArgument(fmt::format("unknown model preset '{}' (known: {})", name, join(names)));
}

std::vector<PresetInfo> list_presets() {
  std::vector<PresetInfo> out;
  for (std::size_t i = 0; i < detail::embedded_preset_count(); ++i) {
    const std::string name = detail::embedded_preset_name(i);
    const json doc = parse_json(detail::embedded_preset_json(i), name);
    std::string description, description_zh;
    if (doc.is_object()) {
      const Reader r(name);
      if (const json* meta = r.object(doc, "", "_rope_preset")) {
        description = r.string(*meta, "_rope_preset", "description").value_or("");
        description_zh = r.string(*meta, "_rope_preset", "description_zh").value_or(description);
      }
    }
    out.push_back({name, description, description_zh});
  }
  std::sort(out.begin(), out.end(), [](const PresetInfo& a, const PresetInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace rope
