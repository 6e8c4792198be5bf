// rope inspect --lint (models/engine_lint.hpp): a config.json's RoPE keys as transformers 5 reads them against the
// readings of engines written for transformers 4.x. transformers 5's precedence (RotaryEmbeddingConfigMixin
// .convert_rope_params_to_dict, as hf_config_scaling.cpp and hf_config.cpp read_base follow it): rope_parameters =
// rope_scaling or rope_parameters; rope_theta = the block's, else the top-level key, else the class's default_theta;
// a flat block's rope_type, else its legacy type, else "default". What 4.x-style readers do instead (unslothai/unsloth
// PR #6223 on transformers 5.11.0: config.rope_scaling is {"rope_type": "default", …} for an unscaled model and
// ROPE_INIT_FUNCTIONS has no "default"; ROCm/aiter PR #4742: sglang's DeepseekV2AttentionMLA takes a truthy
// rope_scaling as YaRN, aiter's get_rope then needs original_max_position_embeddings).
#include "rope/models/engine_lint.hpp"

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/text_file.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/io/gguf.hpp"
#include "rope/io/json_reader.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/model_folder.hpp"
#include "rope/models/presets.hpp"

namespace rope {

namespace {

using detail::json;

/// A flat block's rope_type as standardize_rope_params sets it: rope_type, else type, else "default".
std::string block_type(const json& b) {
  for (const char* key : {"rope_type", "type"}) {
    const auto it = b.find(key);
    if (it != b.end() && it->is_string()) return it->get<std::string>();
  }
  return "default";
}

/// Keyed by layer type (Gemma 3/4, …) or by label (DeepSeek-V4): objects only, no RoPE key of its own.
bool keyed(const json& b) {
  if (b.contains("rope_type") || b.contains("type") || b.contains("rope_theta") || b.empty()) return false;
  for (const json& v : b) {
    if (!v.is_object()) return false;
  }
  return true;
}

std::string number_of(const json& v) { return v.is_number() ? detail::num(v.get<double>()) : v.dump(); }

}  // namespace

EngineLint engine_lint(std::string_view json_text, const std::string& name) {
  const json doc = detail::parse_json(json_text, name, kMaxConfigBytes);
  if (!doc.is_object()) {
    throw InvalidArgument(error_msg("{0}: expected a JSON object at the top level, got {1}", name, doc.type_name()));
  }
  EngineLint out{name, {}};
  const detail::Reader r(name);
  const bool text = doc.contains("text_config") && doc["text_config"].is_object();
  const json& c = text ? doc["text_config"] : doc;
  const std::string prefix = text ? "text_config" : "";
  const json* rs = r.object(c, prefix, "rope_scaling");
  const json* rp = r.object(c, prefix, "rope_parameters");
  if (rs && rs->empty()) rs = nullptr;  // `rope_scaling or rope_parameters`: {} is falsy
  if (rp && rp->empty()) rp = nullptr;
  const std::string rs_path = detail::child(prefix, "rope_scaling"), rp_path = detail::child(prefix, "rope_parameters");
  const auto add = [&](Message m) { out.findings.push_back(std::move(m)); };
  const json* block = rs ? rs : rp;  // what transformers 5 reads
  const std::string path = rs ? rs_path : rp_path;
  if (!block) return out;  // nothing but top-level keys: every reader computes the same default RoPE
  if (keyed(*block)) {
    std::vector<std::string> names;
    for (auto it = block->begin(); it != block->end(); ++it) names.push_back(it.key());
    add(
        msg("{0} is keyed by layer type ({1}): transformers 5 gives each layer type its own RoPE; an engine that "
            "reads one flat rope_scaling finds no rope_type there and rotates every layer with plain RoPE at the "
            "top-level rope_theta",
            path, detail::join_names(names)));
    return out;
  }
  const std::string type = block_type(*block);
  // 1. An unscaled block that is truthy: rope_scaling {rope_type: default} in the file, or rope_parameters, which
  //    transformers 5 also hands back as config.rope_scaling.
  if (type == "default") {
    add(rs ? msg("{0} has rope_type default: transformers 5 rotates with plain RoPE, but an engine that takes a "
                 "truthy rope_scaling as scaled goes to its scaling branch (sglang's DeepseekV2AttentionMLA: YaRN, "
                 "ROCm/aiter PR #4742), which needs factor and original_max_position_embeddings, and one that looks "
                 "rope_type up in ROPE_INIT_FUNCTIONS fails: transformers 5 has no \"default\" there (unslothai/unsloth "
                 "PR #6223)",
                 path)
           : msg("{0} has rope_type default: on transformers 5 config.rope_scaling returns this block (never None, "
                 "unslothai/unsloth PR #6223), so an engine that takes a truthy rope_scaling as scaled goes to its "
                 "scaling branch (ROCm/aiter PR #4742), and one that looks rope_type up in ROPE_INIT_FUNCTIONS "
                 "fails: there is no \"default\" there",
                 path));
  } else if (!rs) {
    // 2. The scaling only in rope_parameters: 4.x, and engines that read only rope_scaling, never see it.
    const auto f = block->find("factor");
    add(
        msg("the scaling ({0}{1}) is in {2} only: transformers 4.x, which does not read rope_parameters, and engines "
            "that read only rope_scaling rotate with plain RoPE instead (no scaling, attention factor 1)",
            type, f != block->end() ? fmt::format(", factor {}", number_of(*f)) : std::string(), path));
  }
  // 3. rope_theta in the block: transformers 5 takes it before the top-level key.
  const auto theta = block->find("rope_theta");
  const auto top = c.find("rope_theta");
  const bool has_top = top != c.end() && !top->is_null();
  if (theta != block->end() && !theta->is_null()) {
    if (!has_top) {
      const ModelFamily* family = find_model_family(r.string(c, prefix, "model_type").value_or(""));
      const double fallback = family && family->default_theta_v4 ? *family->default_theta_v4
                              : family && family->default_theta  ? *family->default_theta
                                                                 : 10000.0;
      add(
          msg("rope_theta {0} is only in {1}: transformers 4.x and engines that read only the top-level rope_theta "
              "use their default ({2} for this model type in transformers 4.x) instead",
              number_of(*theta), path, detail::num(fallback)));
    } else if (number_of(*theta) != number_of(*top)) {
      add(
          msg("{0}.rope_theta {1} and the top-level rope_theta {2} differ: transformers 5 takes {1}, transformers 4.x "
              "and engines that read the top-level key take {2}",
              path, number_of(*theta), number_of(*top)));
    }
  }
  // 4. partial_rotary_factor in the block only.
  const auto partial = block->find("partial_rotary_factor");
  const auto top_partial = c.find("partial_rotary_factor");
  if (partial != block->end() && partial->is_number() && (top_partial == c.end() || top_partial->is_null()) &&
      partial->get<double>() != 1.0) {
    add(
        msg("partial_rotary_factor {0} is only in {1}: engines that read the top-level partial_rotary_factor rotate "
            "every channel of the head",
            number_of(*partial), path));
  }
  // 5. Both blocks, different: transformers 5 takes rope_scaling.
  if (rs && rp && *rs != *rp && !keyed(*rp)) {
    add(
        msg("{0} and {1} differ: transformers 5 takes {0} (rope_parameters = rope_scaling or rope_parameters); an "
            "engine that reads rope_parameters first computes {2} instead",
            rs_path, rp_path, block_type(*rp)));
  }
  return out;
}

EngineLint engine_lint_file(const std::string& given) {
  const std::string path = model_config_file(given);
  if (is_gguf_file(path)) {
    throw InvalidArgument(
        error_msg("{0}: a GGUF file: its RoPE keys are llama.cpp's, which {1} does not compare (it reads a "
                  "config.json)",
                  path, option_name("lint")));
  }
  const BoundedRead file = read_file_bounded(path, kMaxConfigBytes);
  if (file.error != 0) throw IoError(error_msg("cannot read '{0}': {1}", path, file.reason()));
  return engine_lint(file.text, path);
}

EngineLint engine_lint_preset(std::string_view name) { return engine_lint(preset_text(name), std::string(name)); }

}  // namespace rope
