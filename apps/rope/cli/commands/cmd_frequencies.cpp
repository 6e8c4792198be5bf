// rope frequencies (alias freqs): the table θ_i = base^(−2i/d), λ_i = 2π/θ_i, docs/math.md (M1), (M2).
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <map>
#include <numeric>
#include <optional>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/models/rope_float32.hpp"

namespace rope::cli {

/// --dim and --max-position when not typed.
inline constexpr int kDefaultFrequenciesDim = 128;
inline constexpr int kDefaultMaxPosition = 128;

struct FrequenciesOptions {
  std::optional<int> dim;
  std::optional<double> base;
  std::optional<double> position;
  std::string csv;
  bool json = false;
  std::optional<int> max_position;  ///< last position of the cos(m·θ_i) heatmap
  FigureOptions figure;
  ScalingOptions scaling;
};

/// The heatmap has (max_position + 1) × d/2 cells; more than this is slow to draw and unreadable.
inline constexpr double kMaxHeatmapCells = 4'194'304;

namespace {

/// −2i/d as a reduced fraction, "-1/64": the form explainers write, so a slip is easy to spot.
std::string exponent_fraction(int d, int i) {
  if (i == 0) return "0";
  const int g = std::gcd(2 * i, d);
  if (d / g == 1) return fmt::format("-{}", 2 * i / g);
  return fmt::format("-{}/{}", 2 * i / g, d / g);
}

}  // namespace

/// Before anything is written: the heatmap's size is bounded.
void check_heatmap(const FrequenciesOptions& opt, Eigen::Index half) {
  if (!opt.figure.wanted()) return;  // the heatmap's size limits the figure, not the table (d up to kMaxDim)
  const int max_position = opt.max_position.value_or(kDefaultMaxPosition);
  if (max_position < 1 || (max_position + 1.0) * static_cast<double>(half) > kMaxHeatmapCells) {
    throw InvalidArgument(fmt::format("--max-position must be >= 1 with (max-position + 1)·d/2 <= {:.0f} (got {})",
                                      kMaxHeatmapCells, max_position));
  }
}

/// The figure: cos(m·θ_i), rows are pairs, columns positions 0 … max-position (M1).
/// `scaled`: the frequencies are a context extension's (the title says so), not plain RoPE's.
void draw_cos_heatmap(const Eigen::VectorXd& theta, double base, const FrequenciesOptions& opt, bool scaled) {
  if (!opt.figure.wanted()) return;
  const auto half = theta.size();
  const int max_position = opt.max_position.value_or(kDefaultMaxPosition);
  Eigen::MatrixXd z(half, max_position + 1);
  for (Eigen::Index i = 0; i < half; ++i) {
    for (int m = 0; m <= max_position; ++m) z(i, m) = std::cos(m * theta[i]);
  }
  const FigureOptions& f = opt.figure;
  plot::Figure fig;
  fig.title = f.tr("cos(m·θᵢ): every pair turns at its own speed (d = {0}, base = {1}{2})",
                   2 * half, format_number(base), scaled ? f.tr(", scaled") : "");
  fig.xlabel = f.tr("position m");
  fig.ylabel = f.tr("pair i (0 = fastest)");
  plot::Heatmap h;
  h.z = z;
  h.colorbar_label = "cos(m·θᵢ)";
  fig.heatmap = h;
  draw(fig, f);
}

/// With --scaling, --config or --model: original and scaled side by side (scaling.hpp).
int run_scaled_frequencies(const FrequenciesOptions& opt, const ModelRope& rr, std::ostream& out) {
  if (opt.position && rr.spec.axes) {
    throw InvalidArgument(error_msg("--position prints the angles at one position: a model with position axes needs rope apply --position t,h,w"));
  }
  // --position m: the angles m·θ_i of the scaled frequencies, and the query scaling s(m) (S21) of a model that has one;
  // dynamic and longrope at the frequencies HF uses there (seq_len = m + 1 unless --seq-len), as rope matrix.
  const double m = opt.position.value_or(0.0);
  const RopeSpec spec = opt.position ? spec_at_position(rr.spec, m) : rr.spec;
  const RopeParameters& p = spec.params;
  const std::optional<QueryScaling>& qs = rr.model.query_scaling;
  const Eigen::VectorXd& scaled = p.inv_freq;
  const Eigen::VectorXd& original = spec.original;
  const Eigen::Index half = scaled.size();
  check_heatmap(opt, half);
  // --float32: HF's float32 inv_freq (F1), shown beside rope's float64 one.
  Eigen::VectorXd f32;
  if (opt.scaling.rope.float32) f32 = inv_freq_float32(spec).cast<double>();
  const Eigen::VectorXd lambda = wavelengths(original);
  // A zero frequency (proportional's unrotated pairs) has no wavelength: written as inf.
  Eigen::VectorXd lambda_scaled(half), ratio(half);
  for (Eigen::Index i = 0; i < half; ++i) {
    lambda_scaled[i] = scaled[i] > 0 ? kTwoPi / scaled[i] : HUGE_VAL;
    ratio[i] = scaled[i] / original[i];
  }
  const Text t = opt.figure.tr();
  const auto band_of = [&](Eigen::Index i, const Text& lang) {
    return band_name(p.bands.empty() ? Band::None : p.bands[static_cast<std::size_t>(i)], lang);
  };
  const RopeConfig& c = rr.spec.config;
  // With multimodal sections (docs/multi-axis.md): the position axis each pair turns with.
  const AxisMap* axes = spec.axes ? &*spec.axes : nullptr;
  const auto axis_of = [&](Eigen::Index i) {
    return std::string(axes ? axis_letter(axes->pair_axis[static_cast<std::size_t>(i)]) : "");
  };
  if (!opt.csv.empty()) {
    std::string csv = std::string("pair,theta,wavelength,original_theta,original_wavelength,ratio,band") + (axes ? ",axis" : "") +
                      (f32.size() ? ",theta_float32\n" : "\n");
    for (Eigen::Index i = 0; i < half; ++i) {
      csv += fmt::format("{},{},{},{},{},{},{}{}", i, format_number(scaled[i]),
                         std::isfinite(lambda_scaled[i]) ? format_number(lambda_scaled[i]) : "inf", format_number(original[i]),
                         format_number(lambda[i]), format_number(ratio[i]), band_of(i, Text()), axes ? "," + axis_of(i) : "");
      csv += f32.size() ? "," + format_number(f32[i]) + "\n" : "\n";
    }
    write_output(opt.csv, csv, out);
  }
  draw_cos_heatmap(scaled, c.base, opt, c.type != ScalingType::Default);
  if (opt.json) {
    nlohmann::json j;
    j["inv_freq"] = std::vector<double>(scaled.data(), scaled.data() + half);
    if (f32.size()) j["inv_freq_float32"] = std::vector<double>(f32.data(), f32.data() + half);
    j["attention_factor"] = p.attention_factor;
    j["rope_type"] = std::string(to_string(c.type));
    j["model"] = rr.spec.name;
    j["head_dim"] = c.head_dim;
    j["rotary_dim"] = spec.rotary_dim;
    j["base"] = c.base;
    j["factor"] = p.factor;
    j["factor_rule"] = p.factor_rule.en;
    j["attention_rule"] = p.attention_rule.en;
    j["logit_multiplier"] = p.attention_factor * p.attention_factor;
    j["original_inv_freq"] = std::vector<double>(original.data(), original.data() + half);
    if (p.original_max_position > 0) j["original_max_position_embeddings"] = p.original_max_position;
    if (p.effective_base) j["effective_base"] = *p.effective_base;
    if (p.yarn_range) j["yarn_range"] = {p.yarn_range->first, p.yarn_range->second};
    if (opt.position) {
      j["position"] = m;
      const Eigen::VectorXd angle = m * scaled;
      j["angle"] = std::vector<double>(angle.data(), angle.data() + half);
      if (qs) j["query_scale"] = qs->at(m);
    }
    if (qs) j["query_scaling"] = {{"beta", qs->beta}, {"L0", qs->original}, {"from", qs->from.en}};
    if (axes) axes_json(j, *axes);
    if (!p.bands.empty()) {
      std::vector<std::string> bands;
      for (Eigen::Index i = 0; i < half; ++i) bands.push_back(band_of(i, Text()));
      j["band"] = bands;
    }
    j["warnings"] = english(p.warnings);
    j["notes"] = english(p.notes);
    out << json_text(j) << '\n';
  }
  if (opt.csv == "-" || opt.json) return kOk;

  if (axes && axes->vision()) {
    // A vision tower: its own ladders (V2)-(V5), no scaling; θ_i original and scaled are the same.
    out << t.tr("2-D vision RoPE frequencies of {0} ({1}): d = {2}, base = {3}, no scaling (docs/multi-axis.md §6)\n\n",
                model_name(rr.spec, t), axes->vision_kind, spec.rotary_dim, format_number(c.base));
  } else {
    out << t.tr("RoPE frequencies from {0}{1}: {2} scaling, d = {3} (head_dim {4}), base = {5} (docs/scaling.md)\n",
                model_name(rr.spec, t),
                layer_text(spec, t), to_string(c.type), spec.rotary_dim, c.head_dim, format_number(c.base));
    if (c.type != ScalingType::Default) {
      out << t.tr("factor f = {0} ({1}){2}\n", format_number(p.factor), p.factor_rule.in(t.lang()),
                  p.original_max_position > 0
                          ? t.tr(", original context L0 = {0}", p.original_max_position)
                          : "");
    }
    if (p.effective_base) out << t.tr("effective base base' = {0}\n", format_number(*p.effective_base));
    if (p.yarn_range) {
      out << t.tr("yarn correction range [{0}, {1}]\n", format_number(p.yarn_range->first),
                  format_number(p.yarn_range->second));
    }
    out << t.tr("attention factor {0} ({1}): logits × {2}\n\n",
                format_number(p.attention_factor), p.attention_rule.in(t.lang()),
                format_number(p.attention_factor * p.attention_factor));
  }
  if (axes) {
    print_axis_summary(out, *axes, scaled, t);
    out << '\n';
  }
  if (f32.size()) {
    out << float32_text(t) << '\n';
    out << t.tr("attention factor in float32: {0}\n\n", format_number(static_cast<float>(p.attention_factor)));
  }
  if (qs) {
    out << t.tr("query scaling (S21): every layer multiplies the query by s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE{2}\n\n",
                format_number(qs->beta), format_number(qs->original),
                opt.position ? t.tr("; at p = {0}: s = {1}", format_number(m), format_number(qs->at(m))) : "");
  }
  // --position: the angle column m·θ_i, after the others.
  std::string f32_head = f32.size() ? fmt::format("  {:>24}", t.tr("θ_i float32")) : "";
  if (opt.position) f32_head += fmt::format("  {:>24}", fmt::format("{}·θ_i", format_number(m)));
  const auto f32_cell = [&](Eigen::Index i) {
    return (f32.size() ? fmt::format("  {:>24}", format_number(f32[i])) : "") +
           (opt.position ? fmt::format("  {:>24}", format_number(m * scaled[i])) : "");
  };
  if (c.type == ScalingType::Default) {
    // Nothing scales (a model without scaling, a vision tower): θ_i scaled = θ_i original at every pair, so
    // one θ and one λ column, as rope wavelengths does; the CSV and JSON keep every column.
    out << fmt::format("{:>5}  {:>24}  {:>24}{}{}\n", "i", "θ_i", "λ_i", axes ? t.tr("  axis") : "", f32_head);
    for (Eigen::Index i = 0; i < half; ++i) {
      out << fmt::format("{:>5}  {:>24}  {:>24}{}{}\n", i, format_number(scaled[i]), format_number(lambda_scaled[i]),
                         axes ? fmt::format("  {:>4}", axis_of(i)) : "", f32_cell(i));
    }
  } else {
    out << fmt::format("{:>5}  {:>24}  {:>24}  {:>22}  {:>22}  {:>22}  {}{}{}\n", "i", t.tr("θ_i original"),
                       t.tr("θ_i scaled"), t.tr("scaled/original"), t.tr("λ_i original"),
                       t.tr("λ_i scaled"), t.tr("band"), axes ? t.tr("  axis") : "", f32_head);
    for (Eigen::Index i = 0; i < half; ++i) {
      out << fmt::format("{:>5}  {:>24}  {:>24}  {:>22}  {:>22}  {:>22}  {}{}{}\n", i, format_number(original[i]),
                         format_number(scaled[i]), format_number(ratio[i]), format_number(lambda[i]),
                         std::isfinite(lambda_scaled[i]) ? format_number(lambda_scaled[i]) : "inf", band_of(i, t),
                         axes ? fmt::format("  {:>4}", axis_of(i)) : "", f32_cell(i));
    }
  }
  if (!p.bands.empty()) out << t.tr("\nbands: {0}\n", band_counts(p, t));
  for (const auto& n : p.notes) out << t.tr("note: ") << n.in(t.lang()) << '\n';
  for (const auto& w : p.warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
  return kOk;
}

int run_frequencies(const FrequenciesOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  if (opt.max_position && !opt.figure.wanted()) {
    throw InvalidArgument("--max-position sets the figure's heatmap: add --png, --svg, --pdf or --output");
  }

  const ModelRope rope = resolve(opt.scaling, {opt.dim, kDefaultFrequenciesDim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved});
  if (!rope.plain) return run_scaled_frequencies(opt, rope, out);
  const int dim = rope.spec.rotary_dim;
  const double base = rope.spec.config.base;
  const double position = opt.position.value_or(0.0);
  const Eigen::VectorXd theta = rope.spec.params.inv_freq;
  const Eigen::VectorXd lambda = wavelengths(theta);
  const int half = dim / 2;
  Eigen::VectorXd pair(half), exponent(half);
  for (int i = 0; i < half; ++i) {
    pair[i] = i;
    exponent[i] = frequency_exponent(dim, i);
  }
  const Eigen::VectorXd angle = position * theta;
  check_heatmap(opt, half);
  draw_cos_heatmap(theta, base, opt, false);

  if (!opt.csv.empty()) {
    Table table{{"pair", "exponent", "theta", "wavelength"}, {pair, exponent, theta, lambda}};
    if (opt.position) {
      table.header.push_back("angle");
      table.columns.push_back(angle);
    }
    write_output(opt.csv, to_csv(table), out);
  }
  if (opt.json) {
    nlohmann::json j;
    j["dim"] = dim;
    j["base"] = base;
    j["inv_freq"] = std::vector<double>(theta.data(), theta.data() + half);
    j["attention_factor"] = 1.0;
    j["wavelength"] = std::vector<double>(lambda.data(), lambda.data() + half);
    j["exponent"] = std::vector<double>(exponent.data(), exponent.data() + half);
    if (opt.position) {
      j["position"] = position;
      j["angle"] = std::vector<double>(angle.data(), angle.data() + half);
    }
    out << json_text(j) << '\n';
  }
  if (opt.csv == "-" || opt.json) return kOk;

  const Text t = opt.figure.tr();
  out << t.tr("RoPE frequencies for d = {0}, base = {1}: θ_i = base^(−2i/d), λ_i = 2π/θ_i\n", dim, format_number(base));
  out << t.tr("pairs i = 0 … {0} (channels 2i, 2i+1 interleaved, or i, i+{1} half-split)\n\n", half - 1, half);
  std::string header = fmt::format("{:>5}  {:>10}  {:>24}  {:>24}", "i", "-2i/d", "θ_i", "λ_i");
  if (opt.position) header += fmt::format("  {:>24}", fmt::format("{}·θ_i", format_number(position)));
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}  {:>10}  {:>24}  {:>24}", i, exponent_fraction(dim, i),
                                   format_number(theta[i]), format_number(lambda[i]));
    if (opt.position) line += fmt::format("  {:>24}", format_number(angle[i]));
    out << line << '\n';
  }
  return kOk;
}

Command add_frequencies_command(CLI::App& app) {
  auto opt = std::make_shared<FrequenciesOptions>();
  CLI::App* sub = app.add_subcommand(
      "frequencies", "Table of the rotation frequencies θ_i = base^(−2i/d) and wavelengths λ_i = 2π/θ_i");
  sub->alias("freqs");
  add_dim_option(*sub, opt->dim, kDefaultFrequenciesDim);
  add_base_option(*sub, opt->base);
  add_real_option(*sub, "-m,--position", opt->position, 0.0, "also print the angles m·θ_i at this position (with a model: of its scaled frequencies, and its query scaling there)")
      ->default_str("");  // optional: no angles without it
  sub->add_option("--csv", opt->csv, "write the table to FILE ('-' for stdout): pair,exponent,theta,wavelength[,angle]; with "
                  "--scaling, --config or --model: pair,theta,wavelength,original_theta,original_wavelength,ratio,band"
                  "[,axis][,theta_float32]")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json, "print JSON: inv_freq (the θ_i), attention_factor, wavelength, …");
  add_int_option(*sub, "--max-position", opt->max_position, kDefaultMaxPosition,
                 "last position of the figure's cos(m·θ_i) heatmap")
      ->group("Figure");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;  // (V6): the pairs' θ, λ and axis: no channel placed
  add_float32_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope frequencies --dim 8 --base 10000\n  rope freqs --dim 128 --csv freqs.csv\n  rope freqs --dim 64 --png cos.png\n  rope freqs --model llama-3.1-8b\n  rope freqs --dim 128 --base 500000 --scaling llama3 --factor 8 --original-max-position 8192 --low-freq-factor 1 --high-freq-factor 4");
  return {sub, [opt](std::ostream& out) { return run_frequencies(*opt, out); }};
}

}  // namespace rope::cli
