#include "rope/models/gguf/llama_architectures.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>

namespace rope {

namespace detail {
extern const char kFamiliesJson[];  // generated from data/families.json (src/CMakeLists.txt)
}  // namespace detail

namespace {

using T = GgufRopeType;
using Rule = LlamaSlidingRule;

struct ArchitectureRows {
  std::vector<GgufArchitecture> rows;
  std::string commit;
};

[[noreturn]] void bad_row(const std::string& arch, const std::string& what) {
  throw std::logic_error("data/families.json: llama_cpp architecture " + arch + ": " + what);
}

T rope_type_named(const std::string& arch, const std::string& s) {
  for (const T t : {T::None, T::Norm, T::Neox, T::Mrope, T::Imrope, T::Vision}) {
    if (to_string(t) == s) return t;
  }
  bad_row(arch, "unknown rope type " + s);
}

/// `value` as one of `names`, each the name of the enum value at its index.
template <class E, std::size_t N>
E named(const std::string& arch, const std::string& value, const char* const (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (value == names[i]) return static_cast<E>(i);
  }
  bad_row(arch, "unknown value " + value);
}

Rule sliding_rule(const std::string& arch, const nlohmann::json& s, const std::string& source) {
  static const char* const kGates[] = {"always", "sliding_window", "sliding_window_unless_0", "64_layers"};
  static const char* const kBases[] = {"freq_base", "freq_base_swa_else_freq_base", "freq_base_swa_else_10000"};
  static const char* const kRotates[] = {
      "all", "sliding", "sliding_or_leading_dense", "not_every_fourth", "not_first_of_four", "llama4"};
  Rule r;
  r.pattern = s.at("pattern").get<long>();
  r.dense_first = s.value("dense_first", false);
  r.gate = named<Rule::Gate>(arch, s.at("when").get<std::string>(), kGates);
  r.base = named<Rule::SwaBase>(arch, s.at("base").get<std::string>(), kBases);
  r.scaled = s.at("scaled").get<bool>();
  r.rotates = named<Rule::Rotates>(arch, s.at("rotates").get<std::string>(), kRotates);
  r.source = source;
  r.own_dims = s.value("own_dims", false);
  r.swa_head_key = s.value("swa_head_key", r.swa_head_key);
  r.swa_rot_key = s.value("swa_rot_key", true);
  if (r.pattern < 0 || source.empty()) bad_row(arch, "a sliding rule needs a pattern >= 0 and layers_source");
  return r;
}

LlamaIndexerRule indexer_rule(const std::string& arch, const nlohmann::json& x) {
  static const char* const kLayers[] = {"every", "indexer_types", "not_sliding", "compress_ratios"};
  LlamaIndexerRule r;
  const std::string type = x.at("rope_type").get<std::string>();
  r.type = type == "model" ? T::None : rope_type_named(arch, type);
  if (x.at("rotary_channels").get<std::string>() != "first") bad_row(arch, "an indexer's rotary_channels is first");
  r.layers = named<LlamaIndexerRule::Layers>(arch, x.at("layers").get<std::string>(), kLayers);
  r.all_below_context = x.value("all_below_context", 0L);
  r.types_default = x.value("types_default", std::vector<int>{});
  r.source = x.at("source").get<std::string>();
  if (r.source.empty() || (r.layers == LlamaIndexerRule::Layers::IndexerTypes && r.types_default.empty())) {
    bad_row(arch, "an indexer needs its source, and types_default for indexer_types");
  }
  return r;
}

LlamaKqScale kq_scale_rule(const std::string& arch, const nlohmann::json& row) {
  static const char* const kRules[] = {"default",      "attention_scale_key", "gemma_27b",  "one",
                                       "mla_mscale",   "key_length_mla",      "rotary_dim", "value_head",
                                       "inverse_head", "output_scale_key"};
  using R = LlamaKqScale::Rule;
  LlamaKqScale k;
  if (!row.contains("kq_scale")) return k;
  k.rule = named<R>(arch, row.at("kq_scale").get<std::string>(), kRules);
  k.source = row.at("kq_scale_source").get<std::string>();
  k.layers_27b = row.value("kq_scale_layers_27b", 0L);
  k.default_value = row.value("kq_scale_default", 0.0);
  if (row.contains("kq_scale_softcap")) {
    k.softcap = row.at("kq_scale_softcap").get<double>();
    k.softcap_source = row.at("kq_scale_softcap_source").get<std::string>();
  }
  if (k.source.empty() || (k.rule == R::Gemma27B && k.layers_27b <= 0) ||
      (k.rule == R::OutputScaleKey && !(k.default_value > 0)) || (k.softcap && !(*k.softcap > 0))) {
    bad_row(arch,
            "kq_scale needs its source, gemma_27b kq_scale_layers_27b > 0, output_scale_key kq_scale_default > 0, "
            "a softcap above 0");
  }
  return k;
}

ArchitectureRows parse_rows() {
  const nlohmann::json doc = nlohmann::json::parse(detail::kFamiliesJson).at("llama_cpp");
  ArchitectureRows t;
  t.commit = doc.at("commit").get<std::string>();
  std::set<std::string> seen;
  for (const nlohmann::json& row : doc.at("architectures")) {
    GgufArchitecture a;
    a.name = row.at("architecture").get<std::string>();
    if (!seen.insert(a.name).second) bad_row(a.name, "twice");
    a.llm_arch = row.at("llm_arch").get<std::string>();
    a.type = rope_type_named(a.name, row.at("rope_type").get<std::string>());
    a.with_sections = row.contains("rope_type_with_sections")
                          ? rope_type_named(a.name, row.at("rope_type_with_sections").get<std::string>())
                          : a.type;
    a.sections_any = row.value("sections_any", false);
    a.tested = row.value("tested", false);
    a.key_length_mla = row.value("key_length_mla", false);
    const std::string channels = row.value("rotary_channels", std::string("first"));
    if (channels != "first" && channels != "last") bad_row(a.name, "rotary_channels is first or last");
    a.last_channels = channels == "last";
    a.layers_source = row.value("layers_source", std::string());
    if (row.contains("sliding")) a.sliding = sliding_rule(a.name, row.at("sliding"), a.layers_source);
    a.nope_every = row.value("nope_every", 0L);
    a.linear_attention_every = row.value("linear_attention_every", 0L);
    a.rope_off_when_false = row.value("rope_off_when_false", std::string());
    a.rope_pattern_key = row.value("rope_pattern_key", std::string());
    a.layers_code = row.value("layers_code", std::string());
    if (!a.layers_code.empty() && a.layers_code != "deepseek4" && a.layers_code != "dflash" &&
        a.layers_code != "hy_v4") {
      bad_row(a.name, "unknown layers_code " + a.layers_code);
    }
    if (row.contains("indexer")) a.indexer = indexer_rule(a.name, row.at("indexer"));
    if (row.contains("yarn_log_multiplier")) {
      const nlohmann::json& y = row.at("yarn_log_multiplier");
      a.yarn_log = LlamaYarnLogRule{y.at("divided_by").get<float>(), y.at("mscale_is_mscale_all_dim").get<bool>(),
                                    y.at("source").get<std::string>()};
      if (!(a.yarn_log->divided_by > 0)) bad_row(a.name, "yarn_log_multiplier's divided_by must be above 0");
    }
    a.full_rotary_divisor = row.value("full_rotary_divisor", 1);
    a.base_alpha_key = row.value("base_alpha_key", std::string());
    a.converter_permutes_qk = row.value("converter_permutes_qk", false);
    a.kq_scale = kq_scale_rule(a.name, row);
    if (a.nope_every < 0 || a.full_rotary_divisor < 1 || a.linear_attention_every < 0) {
      bad_row(a.name, "nope_every >= 0, linear_attention_every >= 0, full_rotary_divisor >= 1");
    }
    if (a.linear_attention_every > 0 && a.layers_source.empty())
      bad_row(a.name, "linear_attention_every without layers_source");
    if ((a.nope_every > 0 || !a.layers_code.empty()) && a.layers_source.empty() && !row.contains("note")) {
      bad_row(a.name, "a per-layer rule without its source");
    }
    t.rows.push_back(std::move(a));
  }
  return t;
}

const ArchitectureRows& rows() {
  static const ArchitectureRows t = [] {
    try {
      return parse_rows();
    } catch (const nlohmann::json::exception& e) {
      throw std::logic_error(std::string("data/families.json: llama_cpp does not parse: ") + e.what());
    }
  }();
  return t;
}

}  // namespace

std::string_view to_string(GgufRopeType type) {
  switch (type) {
    case T::None:
      return "NONE";
    case T::Norm:
      return "NORM";
    case T::Neox:
      return "NEOX";
    case T::Mrope:
      return "MROPE";
    case T::Imrope:
      return "IMROPE";
    case T::Vision:
      return "VISION";
  }
  return "NONE";
}

const std::vector<GgufArchitecture>& gguf_architectures() { return rows().rows; }

const std::string& gguf_architectures_commit() { return rows().commit; }

const GgufArchitecture* find_gguf_architecture(std::string_view name) {
  for (const GgufArchitecture& a : gguf_architectures()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace rope
