// rope inspect: a report of a model's RoPE from its config.json or a preset (docs/scaling.md).
#include <algorithm>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "rope/cli/output.hpp"
#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope::cli {

/// Significant digits of the report's computed numbers (wavelengths, the yarn range, the attention factor).
inline constexpr int kInspectDigits = 6;

struct InspectOptions {
  std::string file;  ///< positional config.json
  bool list = false;
  bool json = false;
  std::optional<int> digits;  ///< significant digits of the computed numbers (digits.hpp); 0: full precision
  Lang lang = Lang::En;
  ScalingOptions scaling;
};

namespace {

/// What a context length means for a set of frequencies: how many pairs turn at least once in it.
struct ContextFact {
  std::string what;      ///< "original context L0" / "max_position_embeddings"
  double length;
  Eigen::Index turning;  ///< pairs with λ <= length
  Eigen::Index pairs;
  std::string which;     ///< longrope/dynamic: which frequencies HF uses at that length
};

Eigen::VectorXd safe_wavelengths(const Eigen::VectorXd& theta) {
  Eigen::VectorXd l(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) l[i] = theta[i] > 0 ? kTwoPi / theta[i] : HUGE_VAL;
  return l;
}

/// Warnings a config can reveal, beyond the scaling's own: a long context with HF's default base, and an
/// "original" length larger than the trained one (docs/scaling.md).
std::vector<Message> config_warnings(const ModelRope& rr) {
  std::vector<Message> w = rr.model.warnings;
  w.insert(w.end(), rr.spec.params.warnings.begin(), rr.spec.params.warnings.end());
  const RopeConfig& c = rr.model.rope;
  const double longest = wavelengths(rr.spec.original).maxCoeff();
  const bool theta_defaulted = std::any_of(rr.model.origin.begin(), rr.model.origin.end(), [](const Message& line) {
    return line.en.rfind("rope_theta:", 0) == 0 && line.en.find("default") != std::string::npos;
  });
  if (c.type == ScalingType::Default && c.max_position_embeddings && *c.max_position_embeddings > 8192 &&
      c.base <= 10000 && theta_defaulted) {
    w.push_back(msg("rope_theta is not in the config, so HF's default {0} applies, yet max_position_embeddings is {1} with "
                    "no scaling: the longest wavelength is {2:.0f} positions. Long-context models set a larger base (Llama 3: "
                    "500000) or a scaling method; check that the config is complete",
                    format_number(c.base), *c.max_position_embeddings, longest));
  }
  if (c.type == ScalingType::Default && c.max_position_embeddings && *c.max_position_embeddings > 8192 &&
      c.base <= 10000 && !theta_defaulted) {
    w.push_back(msg("rope_theta {0} is small for max_position_embeddings {1} with no scaling: the longest wavelength "
                    "is {2:.0f} positions (long-context models use a larger base, Llama 3: 500000, or a scaling method)",
                    format_number(c.base), *c.max_position_embeddings, longest));
  }
  if (c.max_position_embeddings && rr.spec.params.original_max_position > 0 &&
      rr.spec.params.original_max_position > *c.max_position_embeddings) {
    w.push_back(msg("original_max_position_embeddings {0} is larger than max_position_embeddings {1}",
                    rr.spec.params.original_max_position, *c.max_position_embeddings));
  }
  return w;
}


/// One block per layer type: its layers and its RoPE (or none, with Llama 4's query temperature (S20)).
void print_layer_types(std::ostream& out, const ModelRope& rr, const Text& t) {
  const ModelConfig& m = rr.model;
  out << t.tr("\nlayer types (other commands: --layer-type NAME or a layer index; this report: {0}):\n", m.layer_type);
  for (std::size_t i = 0; i < rr.layers.size(); ++i) {
    const LayerRope& l = rr.layers[i];
    out << t.tr("  {0}: {1} layers: {2}\n", l.type, l.layers.size(), describe_layers(l.layers));
    if (!l.spec) {
      out << t.tr("    no RoPE: these layers rotate nothing\n");
      if (m.nope_temperature) {
        const NopeTemperature& n = *m.nope_temperature;
        out << t.tr("    the query is scaled by t(p) = log1p(floor((p + 1) / {0})) · {1} + 1 (S20): 1 up to p = {2}, {3} at p = {4}\n",
                    format_number(n.floor_scale), format_number(n.attn_scale), format_number(n.floor_scale - 2),
                    format_number(n.at(n.floor_scale - 1)), format_number(n.floor_scale - 1));
      }
      continue;
    }
    const RopeSpec& s = *l.spec;
    if (s.head_dim != rr.spec.head_dim) {  // Gemma 4: the full layers' heads are global_head_dim wide
      out << t.tr("    head_dim {0}, rotary dim {1}\n", s.head_dim, s.rotary_dim);
    }
    out << t.tr("    base {0}, {1} scaling f = {2}, attention factor {3} ({4})\n",
                format_number(s.config.base), to_string(s.config.type), format_number(s.params.factor),
                format_number(s.params.attention_factor), m.layer_types[i].from.in(t.zh()));
  }
}

}  // namespace

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
  const RopeConfig& c = rr.model.rope;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  const Eigen::VectorXd lambda = wavelengths(rr.spec.original);
  const Eigen::VectorXd lambda_scaled = safe_wavelengths(p.inv_freq);
  const auto half = p.inv_freq.size();

  std::vector<ContextFact> facts;
  const auto add_fact = [&](const std::string& what, double L) {
    // dynamic and longrope: the frequencies HF uses for a sequence of length L (seq_len = L).
    const RopeSpec at = spec_at_position(spec, L - 1);
    const Eigen::VectorXd scaled = safe_wavelengths(at.params.inv_freq);
    Eigen::Index turning = 0;
    for (Eigen::Index i = 0; i < half; ++i) turning += scaled[i] <= L ? 1 : 0;
    std::string which;
    if (c.type == ScalingType::LongRope) {
      which = at.config.seq_len && *at.config.seq_len > p.original_max_position ? "long_factor"
                                                                                : "short_factor";
    } else if (c.type == ScalingType::Dynamic) {
      which = t.tr("base' at seq_len {0}", format_number(L));
    }
    facts.push_back({what, L, turning, half, which});
  };

  if (p.original_max_position > 0) add_fact(t.tr("original context L0"), static_cast<double>(p.original_max_position));
  if (c.max_position_embeddings) add_fact("max_position_embeddings", static_cast<double>(*c.max_position_embeddings));
  const std::vector<Message> warnings = config_warnings(rr);
  const double train = p.original_max_position > 0 ? static_cast<double>(p.original_max_position)
                       : c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings)
                                                   : 0.0;
  // (M16) on both sets of frequencies, at the same length, each named by its set (as `rope wavelengths` does).
  const Eigen::Index critical = train > 0 ? first_pair_beyond(lambda, train) : -1;
  const bool scaled_differ = lambda_scaled != lambda;
  const Eigen::Index critical_scaled = train > 0 && scaled_differ ? first_pair_beyond(lambda_scaled, train) : -1;

  if (opt.json) {
    nlohmann::json j;
    j["model"] = rr.model.name;
    j["model_type"] = rr.model.model_type;
    j["head_dim"] = c.head_dim;
    j["rotary_dim"] = rr.spec.rotary_dim;
    j["partial_rotary_factor"] = c.partial_rotary_factor;
    j["base"] = c.base;
    j["layout"] = std::string(to_string(c.layout));
    j["layout_known"] = spec.layout_known();
    j["layout_reason"] = spec.layout_reason.en;
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
    if (p.effective_base) j["effective_base"] = *p.effective_base;
    if (p.yarn_range) j["yarn_range"] = {p.yarn_range->first, p.yarn_range->second};
    if (!p.bands.empty()) j["bands"] = band_counts(p);
    if (critical >= 0) j["critical_dimension"] = 2 * critical;
    if (critical_scaled >= 0) j["critical_dimension_scaled"] = 2 * critical_scaled;
    j["inv_freq"] = std::vector<double>(p.inv_freq.data(), p.inv_freq.data() + half);
    if (spec.axes) axes_json(j, *spec.axes);
    j["original_inv_freq"] = std::vector<double>(rr.spec.original.data(), rr.spec.original.data() + half);
    j["origin"] = english(rr.model.origin);
    j["notes"] = english(rr.model.notes);
    for (const auto& n : p.notes) j["notes"].push_back(n.en);
    j["warnings"] = english(warnings);
    out << json_text(j) << '\n';
    return kOk;
  }

  const bool z = t.zh();
  // A computed number: as many significant digits as the wavelengths below (digits.hpp), or --digits N.
  const auto computed = [&](double x) { return with_digits(x, opt.digits.value_or(kInspectDigits)); };
  // Two columns: a label padded to 25 columns (fmt counts a Chinese character as two), then the value.
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<25}{}\n", label, value);
  };
  out << t.tr("RoPE of {0}{1}\n\n", model_name(rr.model, t),
              rr.model.model_type.empty() ? "" : t.tr(" (model_type {0})", rr.model.model_type));
  row("head_dim", std::to_string(c.head_dim));
  row(t.tr("rotary dim d"),
      t.tr("{0} = int({1} × partial_rotary_factor {2}), {3} pairs", rr.spec.rotary_dim,
           c.head_dim, format_number(c.partial_rotary_factor), half));
  if (spec.partial()) {
    row(t.tr("rotating channels"),
        t.tr("{0} … {1} of the head's {2}; the other {3} pass through unchanged",
             spec.rotary_offset, spec.rotary_offset + spec.rotary_dim - 1, spec.head_dim, spec.head_dim - spec.rotary_dim));
  }
  row(t.tr("layout"),
      (c.layout == Layout::Interleaved ? t.tr("interleaved: pairs (2i, 2i+1)")
                                       : t.tr("half (rotate_half): pairs (i, i + d/2)")) +
          t.tr(" ({0})", spec.layout_reason.in(z)));
  row(t.tr("base (rope_theta)"), format_number(c.base));
  if (c.max_position_embeddings) row("max_position_embeddings", std::to_string(*c.max_position_embeddings));
  row(t.tr("scaling"), std::string(to_string(c.type)));
  if (c.type != ScalingType::Default) {
    row(t.tr("factor f"), t.tr("{0} ({1})", format_number(p.factor), p.factor_rule.in(z)));
    if (p.original_max_position > 0) row(t.tr("original context L0"), std::to_string(p.original_max_position));
    if (p.effective_base) row(t.tr("effective base"), computed(*p.effective_base));
    if (c.type == ScalingType::Yarn && p.original_max_position > 0) {
      row(t.tr("yarn target length"),
          t.tr("f·L0 = {0} positions (the context the method extends to, (S5))",
               format_number(p.factor * static_cast<double>(p.original_max_position))));
    }
    if (p.yarn_range) {
      row(t.tr("yarn correction range"),
          fmt::format("[{}, {}]", computed(p.yarn_range->first), computed(p.yarn_range->second)));
    }
    if (!p.bands.empty()) row(t.tr("bands"), band_counts(p, t));
  }
  row(t.tr("attention factor"),
      t.tr("{0} ({1}), in cos and sin as HF: logits × {2}",
           computed(p.attention_factor), p.attention_rule.in(z), computed(p.attention_factor * p.attention_factor)));
  if (const std::optional<QueryScaling>& q = rr.model.query_scaling) {  // (S21)
    const double last = c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings - 1) : 0.0;
    row(t.tr("query scaling"),
        t.tr("q × s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE, every layer (S21): 1 below p = {1}, {2} at p = {3} ({4}); "
             "rope frequencies --position P and rope apply --query show it at P",
             format_number(q->beta), format_number(q->original), computed(q->at(std::max(last, q->original))),
             format_number(std::max(last, q->original)), q->from.in(z)));
  }
  row(t.tr("wavelengths"),
      t.tr("{0} … {1} positions (original {2} … {3})", computed(lambda_scaled.minCoeff()),
           computed(lambda_scaled.maxCoeff()), computed(lambda.minCoeff()), computed(lambda.maxCoeff())));
  if (spec.axes) {  // docs/multi-axis.md: which pairs follow which position axis
    out << '\n';
    print_axis_summary(out, *spec.axes, p.inv_freq, t);
    out << '\n';
  }
  for (const auto& f : facts) {
    out << t.tr("  within {0} {1}: {2} of {3} pairs complete a full turn (scaled frequencies{4})\n",
                f.what, format_number(f.length), f.turning,
                f.pairs, f.which.empty() ? "" : t.tr(": {0}, as HF uses at that length", f.which));
  }
  const auto critical_text = [&](Eigen::Index first, bool original) {
    const std::string set = original ? t.tr("(original frequencies)") : t.tr("(scaled frequencies)");
    if (first >= static_cast<Eigen::Index>(half)) {
      return t.tr("none {0}: every pair turns within {1}", set, format_number(train));
    }
    return t.tr("{0} {1}: pairs {2} … {3} never turn within {4} (M16)",
                2 * first, set, first, half - 1, format_number(train));
  };
  if (critical >= 0) row(t.tr("critical dimension"), critical_text(critical, true));
  if (critical_scaled >= 0) row("", critical_text(critical_scaled, false));
  if (c.type == ScalingType::Linear || c.type == ScalingType::Yarn) {
    row("llama.cpp",
        fmt::format("--rope-scale {} (= --rope-freq-scale {}){}", format_number(p.factor), format_number(1.0 / p.factor),
                    c.type == ScalingType::Yarn ? fmt::format(" --rope-scaling yarn --yarn-orig-ctx {}", p.original_max_position)
                                                : ""));
  } else if (c.type == ScalingType::Ntk && p.effective_base) {
    row("llama.cpp", fmt::format("--rope-freq-base {}", format_number(*p.effective_base)));
  }
  if (!rr.layers.empty()) print_layer_types(out, rr, t);
  out << t.tr("\nwhere each value came from:\n");
  for (const auto& line : rr.model.origin) out << "  " << line.in(z) << '\n';
  if (!rr.model.notes.empty() || !p.notes.empty()) {
    out << t.tr("\nnotes:\n");
    for (const auto& line : rr.model.notes) out << "  " << line.in(z) << '\n';
    for (const auto& line : p.notes) out << "  " << line.in(z) << '\n';
  }
  if (!warnings.empty()) {
    out << t.tr("\nwarnings:\n");
    for (const auto& line : warnings) out << "  " << line.in(z) << '\n';
  }
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
  // inspect reports a model's RoPE: a vision tower is --model/--config with --tower vision; --vision KIND
  // builds a tower from --dim and --base, which inspect does not take.
  sub->remove_option(sub->get_option("--vision"));
  sub->footer("Example:\n  rope inspect --list\n  rope inspect --model llama-3.1-8b\n  rope inspect data/models/qwen2.5-7b.json --json\n  rope inspect data/gguf/llama-3.1-8b.gguf");
  return {sub, [opt](std::ostream& out) { return run_inspect(*opt, out); }};
}

}  // namespace rope::cli
