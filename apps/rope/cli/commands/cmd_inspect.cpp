// rope inspect: a report of a model's RoPE from its config.json or a preset (docs/scaling.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "rope/cli/output.hpp"
#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/core/error.hpp"
#include "rope/analysis/inspect_report.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope::cli {

struct InspectOptions {
  std::string file;  ///< positional config.json
  bool list = false;
  bool json = false;
  std::optional<int> digits;  ///< significant digits of the computed numbers (digits.hpp); 0: full precision
  Lang lang = Lang::En;
  ScalingOptions scaling;
};

int run_inspect(const InspectOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  if (opt.list) {
    const auto presets = list_presets();
    if (opt.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& p : presets) j.push_back({{"name", p.name}, {"description", p.description}});
      out << json_text(j) << '\n';
      return kOk;
    }
    out << t.tr("{0} model presets (rope inspect --model NAME; data/models/README.md has the sources):\n\n",
                presets.size());
    for (const auto& p : presets) out << fmt::format("  {:<20} {}\n", p.name, t.zh() ? p.description_zh : p.description);
    return kOk;
  }
  ScalingOptions s = opt.scaling;
  if (!opt.file.empty()) {
    if (s.source.any()) throw InvalidArgument("give one of FILE, --config FILE or --model NAME");
    s.source.file = opt.file;
  }
  if (!s.source.any()) {
    throw InvalidArgument(error_msg("rope inspect needs a config.json FILE, --model NAME, or --list"));
  }
  const ModelRope rr = resolve(s, DimBase{});
  if (!opt.json) {  // the report of the library (analysis/inspect_report.hpp), as Spec.describe() returns it
    print_inspect(out, rr, t.lang(), opt.digits.value_or(kInspectDigits));
    return kOk;
  }
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  const InspectNumbers n = inspect_numbers(rr);
  const auto half = p.inv_freq.size();
  const Eigen::Index critical = n.critical;
  const Eigen::Index critical_scaled = n.critical_scaled;
  const std::vector<Message>& warnings = n.warnings;
  nlohmann::json j;
  j["model"] = rr.spec.name;
  j["model_type"] = rr.spec.model_type;
  j["head_dim"] = c.head_dim;
  j["rotary_dim"] = rr.spec.rotary_dim;
  j["partial_rotary_factor"] = c.partial_rotary_factor;
  j["base"] = c.base;
  j["layout"] = std::string(to_string(spec.layout));
  j["layout_known"] = spec.layout_known();
  j["layout_reason"] = spec.layout_reason.en;
  if (spec.axis_blocks) j["axis_blocks"] = true;  // (V6): the layout inside each axis's block of d/2 channels
  j["rotating_channels"] = {spec.rotary_offset, spec.rotary_offset + spec.rotary_dim};
  j["head_channels"] = spec.head_dim;
  if (c.max_position_embeddings) j["max_position_embeddings"] = *c.max_position_embeddings;
  j["rope_type"] = std::string(to_string(c.type));
  j["factor"] = p.factor;
  j["factor_rule"] = p.factor_rule.en;
  if (p.original_max_position > 0) j["original_max_position_embeddings"] = p.original_max_position;
  j["attention_factor"] = p.attention_factor;
  j["attention_rule"] = p.attention_rule.en;
  j["logit_multiplier"] = p.attention_factor * p.attention_factor;
  if (const std::optional<QueryScaling>& q = rr.model.query_scaling) {  // (S21)
    j["query_scaling"] = {{"rule", "1 + beta*ln(1 + floor(p / L0))"}, {"beta", q->beta}, {"L0", q->original},
                          {"from", q->from.en}};
    if (c.max_position_embeddings) j["query_scaling"]["at_max_position"] = q->at(static_cast<double>(*c.max_position_embeddings - 1));
  }
  if (const std::optional<SoftmaxScale>& sm = rr.model.softmax_scale) {  // the family table's softmax_scale
    j["softmax_scale"] = {{"rule", "get_mscale(factor, mscale_all_dim)^2"}, {"factor", sm->factor},
                          {"mscale_all_dim", sm->mscale_all_dim}, {"get_mscale", sm->mscale},
                          {"multiplier", sm->multiplier}, {"from", sm->from.en}};
  }
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {  // HF's self.scaling, llama.cpp's kq_scale
    j["attention_scale"] = {{"value", a->value}, {"rule", a->rule.en}, {"rule_value", a->rule_value},
                            {"multiplier", a->multiplier}, {"from", a->from.en}};
    if (a->softcap) j["attention_scale"]["softcap"] = {{"value", *a->softcap}, {"from", a->softcap_from.en}};
  }
  if (p.effective_base) j["effective_base"] = *p.effective_base;
  if (p.yarn_range) j["yarn_range"] = {p.yarn_range->first, p.yarn_range->second};
  if (!p.bands.empty()) j["bands"] = band_counts(p);
  if (critical >= 0) j["critical_dimension"] = 2 * critical;
  if (critical_scaled >= 0) j["critical_dimension_scaled"] = 2 * critical_scaled;
  j["inv_freq"] = std::vector<double>(p.inv_freq.data(), p.inv_freq.data() + half);
  if (spec.axes) axes_json(j, *spec.axes);
  j["original_inv_freq"] = std::vector<double>(rr.spec.original.data(), rr.spec.original.data() + half);
  j["origin"] = english(rr.spec.origin);
  j["notes"] = english(rr.spec.notes);
  for (const auto& note : p.notes) j["notes"].push_back(note.en);
  j["warnings"] = english(warnings);
  out << json_text(j) << '\n';
  return kOk;
}

Command add_inspect_command(CLI::App& app) {
  auto opt = std::make_shared<InspectOptions>();
  CLI::App* sub = app.add_subcommand("inspect", "A model's RoPE, from its config.json, a GGUF file or a preset: frequencies, scaling, layers");
  sub->add_option("file", opt->file, "a Hugging Face config.json or a GGUF file")->type_name("FILE");
  sub->add_flag("--list", opt->list, "list the model presets");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_digits_option(*sub, opt->digits, std::to_string(kInspectDigits),
                    "significant digits of the computed numbers (0: every digit; JSON always has every digit)");
  add_lang_option(*sub, opt->lang);
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;  // (V6): the report names the layout inside each axis's block
  // inspect reports a model's RoPE: a vision tower is --model/--config with --tower vision; --vision KIND
  // builds a tower from --dim and --base, which inspect does not take.
  sub->remove_option(sub->get_option("--vision"));
  sub->footer("Example:\n  rope inspect --list\n  rope inspect --model llama-3.1-8b\n  rope inspect data/models/qwen2.5-7b.json --json\n  rope inspect data/gguf/llama-3.1-8b.gguf");
  return {sub, [opt](std::ostream& out) { return run_inspect(*opt, out); }};
}

}  // namespace rope::cli
