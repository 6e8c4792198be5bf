// The report of rope inspect (docs/scaling.md), moved here from the command line so that the Python module's
// Spec.describe() prints the same text.
#include "rope/analysis/inspect_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/rope_text.hpp"

namespace rope {

namespace {

Eigen::VectorXd safe_wavelengths(const Eigen::VectorXd& theta) {
  Eigen::VectorXd l(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) l[i] = theta[i] > 0 ? kTwoPi / theta[i] : HUGE_VAL;
  return l;
}

}  // namespace

std::vector<Message> config_warnings(const ModelRope& rr) {
  std::vector<Message> w = rr.model.warnings;
  w.insert(w.end(), rr.spec.params.warnings.begin(), rr.spec.params.warnings.end());
  const RopeConfig& c = rr.spec.config;
  const double longest = wavelengths(rr.spec.original).maxCoeff();
  const bool theta_defaulted = std::any_of(rr.spec.origin.begin(), rr.spec.origin.end(), [](const Message& line) {
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

namespace {

/// One block per layer type: its layers and its RoPE (or none, with Llama 4's query temperature (S20)).
void print_layer_types(std::ostream& out, const ModelRope& rr, Lang lang) {
  const ModelExtras& m = rr.model;
  out << msg("\nlayer types (other commands: --layer-type NAME or a layer index; this report: {0}):\n", rr.spec.layer_type).in(lang);
  for (std::size_t i = 0; i < rr.layers.size(); ++i) {
    const LayerRope& l = rr.layers[i];
    out << msg("  {0}: {1} layers: {2}\n", l.type, l.layers.size(), describe_layers(l.layers)).in(lang);
    if (!l.spec) {
      out << msg("    no RoPE: these layers rotate nothing\n").in(lang);
      if (m.nope_temperature) {
        const NopeTemperature& n = *m.nope_temperature;
        out << msg("    the query is scaled by t(p) = log1p(floor((p + 1) / {0})) · {1} + 1 (S20): 1 up to p = {2}, {3} at p = {4}\n",
                   format_number(n.floor_scale), format_number(n.attn_scale), format_number(n.floor_scale - 2),
                   format_number(n.at(n.floor_scale - 1)), format_number(n.floor_scale - 1))
                   .in(lang);
      }
      continue;
    }
    const RopeSpec& s = *l.spec;
    if (s.head_dim != rr.spec.head_dim) {  // Gemma 4: the full layers' heads are global_head_dim wide
      out << msg("    head_dim {0}, rotary dim {1}\n", s.head_dim, s.rotary_dim).in(lang);
    }
    if (s.layout != rr.spec.layout || (s.rotary_offset == 0) != (rr.spec.rotary_offset == 0)) {  // llama.cpp's indexers: [rope | nope]
      const int first = s.rotary_offset, last = s.rotary_offset + s.rotary_dim - 1;
      out << (s.layout == Layout::Half
                  ? msg("    half layout ({0}), rotating channels {1}–{2} of {3}\n", s.layout_reason.in(lang), first, last, s.head_dim)
                  : msg("    interleaved layout ({0}), rotating channels {1}–{2} of {3}\n", s.layout_reason.in(lang), first, last,
                        s.head_dim))
                 .in(lang);
    }
    out << msg("    base {0}, {1} scaling f = {2}, attention factor {3} ({4})\n",
               format_number(s.config.base), to_string(s.config.type), format_number(s.params.factor),
               format_number(s.params.attention_factor), l.from.in(lang))
               .in(lang);
  }
}

}  // namespace

InspectNumbers inspect_numbers(const ModelRope& rr) {
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  InspectNumbers n;
  n.lambda = wavelengths(rr.spec.original);
  n.lambda_scaled = safe_wavelengths(p.inv_freq);
  const auto half = p.inv_freq.size();

  const auto add_fact = [&](const Message& what, double L) {
    // dynamic and longrope: the frequencies HF uses for a sequence of length L (seq_len = L).
    const RopeSpec at = spec_at_position(spec, L - 1);
    const Eigen::VectorXd scaled = safe_wavelengths(at.params.inv_freq);
    Eigen::Index turning = 0;
    for (Eigen::Index i = 0; i < half; ++i) turning += scaled[i] <= L ? 1 : 0;
    Message which;
    if (c.type == ScalingType::LongRope) {
      which = Message::same(at.config.seq_len && *at.config.seq_len > p.original_max_position ? "long_factor"
                                                                                            : "short_factor");
    } else if (c.type == ScalingType::Dynamic) {
      // --seq-len, when given, is the one used (spec_at_position keeps it)
      which = msg("base' at seq_len {0}", format_number(at.config.seq_len ? static_cast<double>(*at.config.seq_len) : L));
    }
    n.facts.push_back({what, L, turning, half, which});
  };

  if (p.original_max_position > 0) add_fact(msg("original context L0"), static_cast<double>(p.original_max_position));
  if (c.max_position_embeddings) {
    add_fact(Message::same("max_position_embeddings"), static_cast<double>(*c.max_position_embeddings));
  }
  n.warnings = config_warnings(rr);
  n.train = p.original_max_position > 0 ? static_cast<double>(p.original_max_position)
            : c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings)
                                        : 0.0;
  // (M16) on both sets of frequencies, at the same length, each named by its set (as `rope wavelengths` does).
  n.critical = n.train > 0 ? first_pair_beyond(n.lambda, n.train) : -1;
  const bool scaled_differ = n.lambda_scaled != n.lambda;
  n.critical_scaled = n.train > 0 && scaled_differ ? first_pair_beyond(n.lambda_scaled, n.train) : -1;
  return n;
}

void print_inspect(std::ostream& out, const ModelRope& rr, Lang lang, int digits) {
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  const InspectNumbers n = inspect_numbers(rr);
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
  // Proportional RoPE (S14) pairs the whole head and turns int(factor·head_dim // 2) of its pairs (the others have
  // θ = 0, the "bands" row below); every other scaling rotates int(head_dim × partial_rotary_factor) channels.
  row(msg("rotary dim d").in(lang),
      c.type == ScalingType::Proportional
          ? msg("{0}, the whole head: {1} pairs, of which partial_rotary_factor {2} turns {3}", rr.spec.rotary_dim, half,
                format_number(c.partial_rotary_factor), static_cast<int>(c.partial_rotary_factor * c.head_dim) / 2).in(lang)
          : msg("{0} = int({1} × partial_rotary_factor {2}), {3} pairs", rr.spec.rotary_dim,
                c.head_dim, format_number(c.partial_rotary_factor), half).in(lang));
  if (spec.partial()) {
    row(msg("rotating channels").in(lang),
        msg("{0} … {1} of the head's {2}; the other {3} pass through unchanged",
            spec.rotary_offset, spec.rotary_offset + spec.rotary_dim - 1, spec.head_dim, spec.head_dim - spec.rotary_dim)
            .in(lang));
  }
  row(msg("layout").in(lang),
      (spec.axis_blocks && spec.layout == Layout::Interleaved
           ? msg("interleaved inside each axis's block of d/2 channels: pair i = b·d/4 + k on (b·d/2 + 2k, b·d/2 + 2k + 1), "
                 "docs/multi-axis.md (V6)").in(lang)
       : spec.axis_blocks ? msg("half (rotate_half) inside each axis's block of d/2 channels: pair i = b·d/4 + k on "
                                "(b·d/2 + k, b·d/2 + k + d/4), docs/multi-axis.md (V6)").in(lang)
       : spec.layout == Layout::Interleaved ? msg("interleaved: pairs (2i, 2i+1)").in(lang)
                                         : msg("half (rotate_half): pairs (i, i + d/2)").in(lang)) +
          msg(" ({0})", spec.layout_reason.in(lang)).in(lang));
  row(msg("base (rope_theta)").in(lang), format_number(c.base));
  if (c.max_position_embeddings) row("max_position_embeddings", std::to_string(*c.max_position_embeddings));
  row(msg("scaling").in(lang), std::string(to_string(c.type)));
  if (c.type != ScalingType::Default) {
    row(msg("factor f").in(lang), msg("{0} ({1})", format_number(p.factor), p.factor_rule.in(lang)).in(lang));
    if (p.original_max_position > 0) row(msg("original context L0").in(lang), std::to_string(p.original_max_position));
    if (p.effective_base) row(msg("effective base").in(lang), computed(*p.effective_base));
    if (c.type == ScalingType::Yarn && p.original_max_position > 0) {
      row(msg("yarn target length").in(lang),
          msg("f·L0 = {0} positions (the context the method extends to, (S5))",
              format_number(p.factor * static_cast<double>(p.original_max_position))).in(lang));
    }
    if (p.yarn_range) {
      row(msg("yarn correction range").in(lang),
          fmt::format("[{}, {}]", computed(p.yarn_range->first), computed(p.yarn_range->second)));
    }
    if (!p.bands.empty()) row(msg("bands").in(lang), band_counts(p, lang));
  }
  row(msg("attention factor").in(lang),
      msg("{0} ({1}), in cos and sin as HF: logits × {2}",
          computed(p.attention_factor), p.attention_rule.in(lang), computed(p.attention_factor * p.attention_factor)).in(lang));
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {  // HF's self.scaling, llama.cpp's kq_scale
    row(msg("softmax scale").in(lang),
        msg("{0}, on q·k before the softmax", attention_scale_text(*a)).in(lang));
    if (a->softcap) {
      row("", msg("then capped at {0}·tanh(s / {0}) ({1})", format_number(*a->softcap), a->softcap_from).in(lang));
    }
  }
  if (const std::optional<QueryScaling>& q = rr.model.query_scaling) {  // (S21)
    const double last = c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings - 1) : 0.0;
    row(msg("query scaling").in(lang),
        msg("q × s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE, every layer (S21): 1 below p = {1}, {2} at p = {3} ({4}); "
            "rope frequencies --position P and rope apply --query show it at P",
            format_number(q->beta), format_number(q->original), computed(q->at(std::max(last, q->original))),
            format_number(std::max(last, q->original)), q->from.in(lang)).in(lang));
  }
  row(msg("wavelengths").in(lang),
      msg("{0} … {1} positions (original {2} … {3})", computed(lambda_scaled.minCoeff()),
          computed(lambda_scaled.maxCoeff()), computed(lambda.minCoeff()), computed(lambda.maxCoeff())).in(lang));
  if (spec.axes) {  // docs/multi-axis.md: which pairs follow which position axis
    out << '\n';
    print_axis_summary(out, *spec.axes, p.inv_freq, lang);
    out << '\n';
  }
  for (const auto& f : n.facts) {
    out << msg("  within {0} {1}: {2} of {3} pairs complete a full turn (scaled frequencies{4})\n",
               f.what.in(lang), format_number(f.length), f.turning,
               f.pairs, f.which.empty() ? "" : msg(": {0}, as HF uses at that length", f.which.in(lang)).in(lang)).in(lang);
  }
  const auto critical_text = [&](Eigen::Index first, bool original) {
    const std::string set = original ? msg("(original frequencies)").in(lang) : msg("(scaled frequencies)").in(lang);
    if (first >= static_cast<Eigen::Index>(half)) {
      return msg("none {0}: every pair turns within {1}", set, format_number(train)).in(lang);
    }
    return msg("{0} {1}: pairs {2} … {3} never turn within {4} (M16)",
               2 * first, set, first, half - 1, format_number(train)).in(lang);
  };
  if (n.critical >= 0) row(msg("critical dimension").in(lang), critical_text(n.critical, true));
  if (n.critical_scaled >= 0) row("", critical_text(n.critical_scaled, false));
  if (c.type == ScalingType::Linear || c.type == ScalingType::Yarn) {
    row("llama.cpp",
        fmt::format("--rope-scale {} (= --rope-freq-scale {}){}", format_number(p.factor), format_number(1.0 / p.factor),
                    c.type == ScalingType::Yarn ? fmt::format(" --rope-scaling yarn --yarn-orig-ctx {}", p.original_max_position)
                                                : ""));
  } else if (c.type == ScalingType::Ntk && p.effective_base) {
    row("llama.cpp", fmt::format("--rope-freq-base {}", format_number(*p.effective_base)));
  }
  if (!rr.layers.empty()) print_layer_types(out, rr, lang);
  out << msg("\nwhere each value came from:\n").in(lang);
  for (const auto& line : rr.spec.origin) out << "  " << line.in(lang) << '\n';
  if (const std::optional<AttentionScale>& a = rr.model.attention_scale) {
    // origin_line's form "what: value (from)"; the rule is the row's above.
    out << "  " << Message("{0}: {1} ({2})", {msg("softmax scale"), fmt::format("{:.6g}", a->value), a->from}).in(lang) << '\n';
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
  print_inspect(out, rr, lang, digits);
  return out.str();
}

}  // namespace rope
