// The printers of rope inspect's report (inspect_report.hpp): the text (in the library so that the Python
// module's Spec.describe() prints the same), the value JSON and Python share, and the preset list.
#include "rope/report/digits.hpp"
#include "rope/report/inspect_report.hpp"
#include "rope/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "rope/io/csv.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/axes_value.hpp"
#include "rope/report/json.hpp"
#include "rope/report/rope_text.hpp"

namespace rope {

namespace {

/// One block per layer type: its layers and its RoPE (or none, with Llama 4's query temperature (S20)).
void print_layer_types(std::ostream& out, const ModelRope& rr, Lang lang) {
  const ModelExtras& m = rr.model;
  out << msg("\nlayer types (other commands: {0} NAME or a layer index; this report: {1}):\n",
             option_name("layer_type"), rr.spec.layer_type)
             .in(lang);
  for (std::size_t i = 0; i < rr.layers.size(); ++i) {
    const LayerRope& l = rr.layers[i];
    out << msg("  {0}: {1} layers: {2}\n", l.type, l.layers.size(), describe_layers(l.layers)).in(lang);
    if (!l.spec) {
      out << msg("    no RoPE: these layers rotate nothing\n").in(lang);
      if (m.nope_temperature) {
        const NopeTemperature& n = *m.nope_temperature;
        out << msg("    the query is scaled by t(p) = log1p(floor((p + 1) / {0})) · {1} + 1 (S20): 1 up to p = {2}, {3} at p = {4}\n",
                   format_number(n.floor_scale), format_number(n.attn_scale), format_number(n.floor_scale - 2),
                   readable(n.at(n.floor_scale - 1)), format_number(n.floor_scale - 1))
                   .in(lang);
      }
      continue;
    }
    const RopeSpec& s = *l.spec;
    if (s.head_dim != rr.spec.head_dim) {  // Gemma 4: the full layers' heads are global_head_dim wide
      out << msg("    head_dim {0}, rotary dim {1}\n", s.head_dim, s.rotary_dim).in(lang);
    }
    if (s.layout != rr.spec.layout ||
        (s.rotary_offset == 0) != (rr.spec.rotary_offset == 0)) {  // llama.cpp's indexers: [rope | nope]
      const int first = s.rotary_offset, last = s.rotary_offset + s.rotary_dim - 1;
      out << (s.layout == Layout::Half ? msg("    half layout ({0}), rotating channels {1}–{2} of {3}\n",
                                             s.layout_reason.in(lang), first, last, s.head_dim)
                                       : msg("    interleaved layout ({0}), rotating channels {1}–{2} of {3}\n",
                                             s.layout_reason.in(lang), first, last, s.head_dim))
                 .in(lang);
    }
    out << msg("    base {0}, {1} scaling f = {2}, attention factor {3} ({4})\n", format_number(s.config.base),
               to_string(s.config.type), format_number(s.params.factor), readable(s.params.attention_factor),
               l.from.in(lang))
               .in(lang);
  }
}

}  // namespace

void print_inspect(std::ostream& out, const InspectReport& report, Lang lang, int digits) {
  const ModelRope& rr = report.rope;
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  const InspectNumbers& n = report.numbers;
  const Eigen::VectorXd& lambda = n.lambda;
  const Eigen::VectorXd& lambda_scaled = n.lambda_scaled;
  const auto half = p.inv_freq.size();
  const double train = n.train;
  // A computed number: as many significant digits as the wavelengths below (io/csv.hpp with_digits).
  const auto computed = [&](double x) { return with_digits(x, digits); };
  // Two columns: a label padded to 25 columns (fmt counts a Chinese character as two), then the value.
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<25}{}\n", label, value);
  };
  out << msg("RoPE of {0}{1}\n\n", model_name(rr.spec, lang),
             rr.spec.model_type.empty() ? "" : msg(" (model_type {0})", rr.spec.model_type).in(lang))
             .in(lang);
  row("head_dim", std::to_string(c.head_dim));
  // A diffusion transformer's latent grid (models/grid_rope.hpp): no context to extend, no attention factor, no
  // partial_rotary_factor; its rows say the grid's words, the language model's are left out below.
  const bool grid = spec.axes && spec.axes->grid() && c.type == ScalingType::Default && p.attention_factor == 1.0;
  // Proportional RoPE (S14) pairs the whole head and turns int(factor·head_dim // 2) of its pairs (the others have
  // θ = 0, the "bands" row below); every other scaling rotates int(head_dim × partial_rotary_factor) channels.
  row(msg("rotary dim d").in(lang),
      grid ? msg("{0}, the whole head: {1} pairs, each turned by one axis of the latent grid", rr.spec.rotary_dim, half)
                 .in(lang)
      : c.type == ScalingType::Proportional
          ? msg("{0}, the whole head: {1} pairs, of which partial_rotary_factor {2} turns {3}", rr.spec.rotary_dim,
                half, format_number(c.partial_rotary_factor),
                static_cast<int>(c.partial_rotary_factor * c.head_dim) / 2)
                .in(lang)
          : msg("{0} = int({1} × partial_rotary_factor {2}), {3} pairs", rr.spec.rotary_dim, c.head_dim,
                format_number(c.partial_rotary_factor), half)
                .in(lang));
  if (spec.partial()) {
    row(msg("rotating channels").in(lang),
        msg("{0} … {1} of the head's {2}; the other {3} pass through unchanged", spec.rotary_offset,
            spec.rotary_offset + spec.rotary_dim - 1, spec.head_dim, spec.head_dim - spec.rotary_dim)
            .in(lang));
  }
  row(msg("layout").in(lang),
      (spec.head_slices > 1
           ? msg("half (rotate_half) inside each of {0} heads of {1} channels, head h the pairs h·{2} … h·{2} + {3} of "
                 "the table on (h·{1} + k, h·{1} + k + {2}), docs/multi-axis.md (W10)",
                 spec.head_slices, spec.rotary_dim / spec.head_slices, spec.rotary_dim / (2 * spec.head_slices),
                 spec.rotary_dim / (2 * spec.head_slices) - 1)
                 .in(lang)
       : spec.axis_blocks && c.layout == Layout::Interleaved
           ? msg("interleaved inside each axis's block of d/2 channels: pair i = b·d/4 + k on (b·d/2 + 2k, b·d/2 + 2k + 1), "
                 "docs/multi-axis.md (V6)")
                 .in(lang)
       : spec.axis_blocks ? msg("half (rotate_half) inside each axis's block of d/2 channels: pair i = b·d/4 + k on "
                                "(b·d/2 + k, b·d/2 + k + d/4), docs/multi-axis.md (V6)")
                                .in(lang)
       : c.layout == Layout::Interleaved ? msg("interleaved: pairs (2i, 2i+1)").in(lang)
                                         : msg("half (rotate_half): pairs (i, i + d/2)").in(lang)) +
          msg(" ({0})", spec.layout_reason.in(lang)).in(lang));
  row(msg("base (rope_theta)").in(lang), format_number(c.base));
  if (c.max_position_embeddings) row("max_position_embeddings", std::to_string(*c.max_position_embeddings));
  if (!grid) row(msg("scaling").in(lang), std::string(to_string(c.type)));
  if (c.type != ScalingType::Default) {
    row(msg("factor f").in(lang), msg("{0} ({1})", format_number(p.factor), p.factor_rule.in(lang)).in(lang));
    if (p.original_max_position > 0) row(msg("original context L0").in(lang), std::to_string(p.original_max_position));
    if (p.effective_base) row(msg("effective base").in(lang), computed(*p.effective_base));
    if (c.type == ScalingType::Yarn && p.original_max_position > 0) {
      row(msg("yarn target length").in(lang),
          msg("f·L0 = {0} positions (the context the method extends to, (S5))",
              format_number(p.factor * static_cast<double>(p.original_max_position)))
              .in(lang));
    }
    if (p.yarn_range) {
      row(msg("yarn correction range").in(lang),
          fmt::format("[{}, {}]", computed(p.yarn_range->first), computed(p.yarn_range->second)));
    }
    if (!p.bands.empty()) row(msg("bands").in(lang), band_counts(p, lang));
  }
  if (!grid) {
    row(msg("attention factor").in(lang),
        msg("{0} ({1}), in cos and sin as HF: logits × {2}", computed(p.attention_factor), p.attention_rule.in(lang),
            computed(p.attention_factor * p.attention_factor))
            .in(lang));
  }
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {  // HF's self.scaling, llama.cpp's kq_scale
    row(msg("softmax scale").in(lang), msg("{0}, on q·k before the softmax", attention_scale_text(*a)).in(lang));
    if (a->softcap) {
      row("", msg("then capped at {0}·tanh(s / {0}) ({1})", format_number(*a->softcap), a->softcap_from).in(lang));
    }
  }
  if (const std::optional<QueryScaling>& q = rr.model.query_scaling) {  // (S21)
    const double last = c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings - 1) : 0.0;
    row(msg("query scaling").in(lang),
        msg("q × s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE, every layer (S21): 1 below p = {1}, {2} at p = {3} ({4}); "
            "{5} P and {6} show it at P",
            format_number(q->beta), format_number(q->original), computed(q->at(std::max(last, q->original))),
            format_number(std::max(last, q->original)), q->from.in(lang), option_name("frequencies.position"),
            option_name("apply.query"))
            .in(lang));
  }
  row(msg("wavelengths").in(lang),
      grid ? msg("{0} … {1} positions of the latent grid, per axis below", computed(lambda_scaled.minCoeff()),
                 computed(lambda_scaled.maxCoeff()))
                 .in(lang)
           : msg("{0} … {1} positions (original {2} … {3})", computed(lambda_scaled.minCoeff()),
                 computed(lambda_scaled.maxCoeff()), computed(lambda.minCoeff()), computed(lambda.maxCoeff()))
                 .in(lang));
  if (spec.axes) {  // docs/multi-axis.md: which pairs follow which position axis
    out << '\n';
    print_axis_summary(out, *spec.axes, p.inv_freq, lang);
    out << '\n';
  }
  // LongRoPE with its length given (--seq-len, or an engine's context: vLLM's max_model_len, llama.cpp's n_ctx): one
  // list at every length, not HF's per-length choice.
  const bool list_fixed = c.type == ScalingType::LongRope && c.seq_len;
  for (const auto& f : n.facts) {
    const std::string which =
        f.which.empty() ? ""
        : list_fixed ? msg(": {0}, the list seq_len {1} fixes at every length", f.which.in(lang), *c.seq_len).in(lang)
                     : msg(": {0}, as HF uses at that length", f.which.in(lang)).in(lang);
    out << msg("  within {0} {1}: {2} of {3} pairs complete a full turn (scaled frequencies{4})\n", f.what.in(lang),
               format_number(f.length), f.turning, f.pairs, which)
               .in(lang);
  }
  const auto critical_text = [&](Eigen::Index first, bool original) {
    const std::string set = original ? msg("(original frequencies)").in(lang) : msg("(scaled frequencies)").in(lang);
    if (first >= static_cast<Eigen::Index>(half)) {
      return msg("none {0}: every pair turns within {1}", set, format_number(train)).in(lang);
    }
    return msg("{0} {1}: pairs {2} … {3} never turn within {4} (M16)", 2 * first, set, first, half - 1,
               format_number(train))
        .in(lang);
  };
  if (n.critical >= 0) row(msg("critical dimension").in(lang), critical_text(n.critical, true));
  if (n.critical_scaled >= 0) row("", critical_text(n.critical_scaled, false));
  if (c.type == ScalingType::Linear || c.type == ScalingType::Yarn) {
    row("llama.cpp", fmt::format("--rope-scale {} (= --rope-freq-scale {}){}", format_number(p.factor),
                                 format_number(1.0 / p.factor),
                                 c.type == ScalingType::Yarn
                                     ? fmt::format(" --rope-scaling yarn --yarn-orig-ctx {}", p.original_max_position)
                                     : ""));
  } else if (c.type == ScalingType::Ntk && p.effective_base) {
    row("llama.cpp", fmt::format("--rope-freq-base {}", format_number(*p.effective_base)));
  }
  if (!rr.layers.empty()) print_layer_types(out, rr, lang);
  out << msg("\nwhere each value came from:\n").in(lang);
  for (const auto& line : rr.spec.origin) out << "  " << line.in(lang) << '\n';
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {
    // origin_line's form "what: value (from)"; the rule is the row's above.
    out << "  " << Message("{0}: {1} ({2})", {msg("softmax scale"), fmt::format("{:.6g}", a->value), a->from}).in(lang)
        << '\n';
  }
  if (!rr.spec.notes.empty() || !p.notes.empty()) {
    out << msg("\nnotes:\n").in(lang);
    for (const auto& line : rr.spec.notes) out << "  " << line.in(lang) << '\n';
    for (const auto& line : p.notes) out << "  " << line.in(lang) << '\n';
  }
  if (!n.warnings.empty()) {
    out << msg("\nwarnings:\n").in(lang);
    for (const auto& line : n.warnings) out << "  " << line.in(lang) << '\n';
  }
}

std::string inspect_text(const ModelRope& rr, Lang lang, int digits) {
  std::ostringstream out;
  print_inspect(out, inspect_model(rr), lang, digits);
  return out.str();
}

Value inspect_value(const InspectReport& report) {
  const ModelRope& rr = report.rope;
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  const InspectNumbers& n = report.numbers;
  const auto half = p.inv_freq.size();
  Value j = Value::object();
  j["model"] = rr.spec.name;
  j["model_type"] = rr.spec.model_type;
  j["head_dim"] = c.head_dim;
  j["rotary_dim"] = rr.spec.rotary_dim;
  j["partial_rotary_factor"] = c.partial_rotary_factor;
  j["base"] = c.base;
  j["layout"] = std::string(to_string(c.layout));
  j["layout_known"] = spec.layout_known();
  j["layout_reason"] = spec.layout_reason.en;
  if (spec.axis_blocks) j["axis_blocks"] = true;  // (V6): the layout inside each axis's block of d/2 channels
  if (spec.head_slices > 1) j["head_slices"] = spec.head_slices;  // (W10): each head its slice of the table
  j["rotating_channels"] = std::vector<int>{spec.rotary_offset, spec.rotary_offset + spec.rotary_dim};
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
    Value& qv = j["query_scaling"];
    qv["rule"] = "1 + beta*ln(1 + floor(p / L0))";
    qv["beta"] = q->beta;
    qv["L0"] = q->original;
    qv["from"] = q->from.en;
    if (c.max_position_embeddings) qv["at_max_position"] = q->at(static_cast<double>(*c.max_position_embeddings - 1));
  }
  if (const std::optional<SoftmaxScale>& sm = rr.model.softmax_scale) {  // the family table's softmax_scale
    Value& sv = j["softmax_scale"];
    sv["rule"] = "get_mscale(factor, mscale_all_dim)^2";
    sv["factor"] = sm->factor;
    sv["mscale_all_dim"] = sm->mscale_all_dim;
    sv["get_mscale"] = sm->mscale;
    sv["multiplier"] = sm->multiplier;
    sv["from"] = sm->from.en;
  }
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {  // HF's self.scaling, llama.cpp's kq_scale
    Value& av = j["attention_scale"];
    av["value"] = a->value;
    av["rule"] = a->rule.en;
    av["rule_value"] = a->rule_value;
    av["multiplier"] = a->multiplier;
    av["from"] = a->from.en;
    if (a->softcap) {
      av["softcap"]["value"] = *a->softcap;
      av["softcap"]["from"] = a->softcap_from.en;
    }
  }
  if (p.effective_base) j["effective_base"] = *p.effective_base;
  if (p.yarn_range) j["yarn_range"] = std::vector<double>{p.yarn_range->first, p.yarn_range->second};
  if (!p.bands.empty()) j["bands"] = band_counts(p, Lang::En);
  if (n.critical >= 0) j["critical_dimension"] = 2 * n.critical;
  if (n.critical_scaled >= 0) j["critical_dimension_scaled"] = 2 * n.critical_scaled;
  j["inv_freq"] = std::vector<double>(p.inv_freq.data(), p.inv_freq.data() + half);
  if (spec.axes) axes_value(j, *spec.axes);
  j["original_inv_freq"] = std::vector<double>(rr.spec.original.data(), rr.spec.original.data() + half);
  j["origin"] = english(rr.spec.origin);
  std::vector<std::string> notes = english(rr.spec.notes);
  for (const auto& note : p.notes) notes.push_back(note.en);
  j["notes"] = notes;
  j["warnings"] = english(n.warnings);
  return j;
}

Value presets_value(const std::vector<PresetInfo>& presets) {
  Value j = Value::array();
  for (const auto& p : presets) {
    Value item = Value::object();
    item["name"] = p.name;
    item["description"] = p.description;
    j.push_back(std::move(item));
  }
  return j;
}

void print_presets(std::ostream& out, const std::vector<PresetInfo>& presets, const Text& t) {
  out << t.tr("{0} model presets ({1} NAME; data/models/README.md has the sources):\n\n", presets.size(),
              option_name("inspect.model"));
  for (const auto& p : presets)
    out << fmt::format("  {:<20} {}\n", p.name, (t.lang() == Lang::Zh) ? p.description_zh : p.description);
}

}  // namespace rope
