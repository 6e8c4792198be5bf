// rope wavelengths: λ_i = 2π/θ_i against pair i, against context lengths, docs/math.md (M2), (M16).
#include <algorithm>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/printing.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/figures/wavelength_figure.hpp"

namespace rope::cli {

inline constexpr std::size_t kMaxCurves = 16;

/// --dim when not typed.
inline constexpr int kDefaultWavelengthsDim = 128;

struct WavelengthsOptions {
  std::optional<int> dim;
  std::optional<std::vector<double>> bases;  ///< --base, repeated; nullopt: kDefaultBase
  std::vector<double> contexts;
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;

  std::vector<double> base_values() const { return bases.value_or(std::vector<double>{kDefaultBase}); }
};

using Curve = WavelengthCurve;

int run_wavelengths(const WavelengthsOptions& opt, std::ostream& out) {
  const std::vector<double> bases = opt.base_values();
  if (bases.size() > kMaxCurves || opt.contexts.size() > kMaxCurves) {
    throw InvalidArgument(error_msg("at most {0} {1} and {2} {3} values", kMaxCurves, option_name("base"), kMaxCurves,
                                    option_name("context")));
  }
  for (double L : opt.contexts) {
    if (!(L >= 1))
      throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", option_name("context"), 1, format_number(L)));
  }
  check_figure_options(opt.figure);
  std::vector<Curve> curves;
  std::vector<double> contexts = opt.contexts;
  int dim = opt.dim.value_or(kDefaultWavelengthsDim);
  std::vector<Message> warnings;
  std::string model;
  bool scaled_pair = false;        // curves are a model's original and scaled wavelengths
  std::optional<RopeSpec> vision;  // a vision tower: each axis its own ladder, (V2)-(V6) of docs/multi-axis.md
  const Text t = opt.figure.tr();
  if (opt.scaling.any()) {
    // One model: its original and its scaled wavelengths (docs/scaling.md).
    if (bases.size() > 1)
      throw InvalidArgument(error_msg("give one {0} with {1}, {2} or {3}", option_name("base"), option_name("scaling"),
                                      option_name("config"), option_name("model")));
    const ModelRope rope =
        resolve(opt.scaling, {opt.dim, kDefaultWavelengthsDim, opt.bases ? std::optional(bases.front()) : std::nullopt,
                              kDefaultBase, std::nullopt, Layout::Interleaved});
    const ModelRope& rr = rope;
    dim = rr.spec.rotary_dim;
    if (rr.spec.axes && rr.spec.axes->vision()) vision = rr.spec;
    if (!opt.scaling.source.preset.empty() || !opt.scaling.source.file.empty())
      model = rr.spec.name + layer_text(rr.spec, t);
    const RopeParameters& p = rr.spec.params;
    Eigen::VectorXd scaled(p.inv_freq.size());
    for (Eigen::Index i = 0; i < scaled.size(); ++i) scaled[i] = p.inv_freq[i] > 0 ? kTwoPi / p.inv_freq[i] : HUGE_VAL;
    const Eigen::VectorXd original = wavelengths(rr.spec.original);
    if (original == scaled) {
      // No scaling changes them (rope_type default): one column, not two equal ones.
      const std::string base = format_number(rr.spec.config.base);
      curves.push_back({"base = " + base, "base=" + base, original});
    } else {
      curves.push_back({t.tr("original, base = {0}", format_number(rr.spec.config.base)), "original", original});
      curves.push_back({fmt::format("{} f = {}", to_string(rr.spec.config.type), format_number(p.factor)),
                        std::string(to_string(rr.spec.config.type)), scaled});
      scaled_pair = true;
    }
    if (contexts.empty()) {
      // The model's own lengths: where it was trained and where it is extended to.
      if (p.original_max_position > 0) contexts.push_back(static_cast<double>(p.original_max_position));
      if (rr.spec.config.max_position_embeddings &&
          static_cast<double>(*rr.spec.config.max_position_embeddings) != (contexts.empty() ? 0.0 : contexts.front())) {
        contexts.push_back(static_cast<double>(*rr.spec.config.max_position_embeddings));
      }
    }
    warnings = p.warnings;
  } else {
    check_dimension(dim);
    for (double base : bases) {
      check_base(base);
      curves.push_back(
          {"base = " + format_number(base), "base=" + format_number(base), wavelengths(frequencies(dim, base))});
    }
  }
  const int half = dim / 2;
  Eigen::VectorXd pairs(half);
  for (int i = 0; i < half; ++i) pairs[i] = i;
  Table table{{"pair"}, {pairs}};
  for (const Curve& c : curves) {
    table.header.push_back(c.column);
    table.columns.push_back(c.lambda);
  }
  if (!opt.csv.empty()) write_output(opt.csv, to_csv(table), out);
  draw(wavelength_figure(opt.figure, dim, model, contexts, curves), opt.figure);
  if (opt.figure.animated()) {
    // The last curve (a model's scaled one) sweeps to the largest context, else to its longest wavelength.
    const Curve& c = curves.back();
    const Eigen::VectorXd theta = (kTwoPi / c.lambda.array()).matrix();  // λ = ∞ gives θ = 0
    double m_max = contexts.empty() ? 1.0 : *std::max_element(contexts.begin(), contexts.end());
    for (Eigen::Index i = 0; contexts.empty() && i < c.lambda.size(); ++i) {
      if (std::isfinite(c.lambda[i])) m_max = std::max(m_max, c.lambda[i]);
    }
    draw_animation(wavelength_frames(opt.figure, theta, c.name, std::max(m_max, 2.0)), opt.figure);
  }
  if (opt.csv == "-") return kOk;

  if (vision) {
    // Not base^(2i/d): each axis has its own ladder, so the table's λ_i start again at the other axis's first pair.
    out << t.tr("wavelengths λ_i = 2π/θ_i of a 2-D vision RoPE ({0}), d = {1} (docs/multi-axis.md §6):\n",
                vision->axes->vision_kind, dim);
    print_axis_summary(out, *vision->axes, vision->params.inv_freq, t);
    out << '\n';
  } else {
    out << t.tr("RoPE wavelengths λ_i = 2π/θ_i = 2π·base^(2i/d), d = {0} (docs/math.md (M2)):\n", dim);
    out << t.tr("  pair 0 turns once every 2π ≈ 6.28 positions (high frequency); the last pair turns slowest\n\n");
  }
  std::string header = fmt::format("{:>5}", "i");
  for (const Curve& c : curves) {  // right-aligned by terminal columns: a Chinese header is wider than its bytes
    const std::string name = c.column == "original" ? t.tr("λ_i original") : "λ_i " + c.column;
    header += "  " + std::string(22 - std::min<std::size_t>(22, columns(name)), ' ') + name;
  }
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}", i);
    for (const Curve& c : curves) {
      line +=
          fmt::format("  {:>22}", std::isfinite(c.lambda[i]) ? format_number(c.lambda[i]) : t.tr("inf (not rotated)"));
    }
    out << line << '\n';
  }
  for (double L : contexts) {
    out << '\n';
    // The curves' CSV column names, but "original" in the language of the output.
    const auto shown = [&t](const std::string& column) { return column == "original" ? t.tr("original") : column; };
    for (const Curve& c : curves) {
      const Eigen::Index first = first_pair_beyond(c.lambda, L);
      if (first == half) {
        out << t.tr("context {0}, {1}: every pair completes a full turn within it\n", format_number(L),
                    shown(c.column));
      } else {
        // Named by its frequencies when a model has two sets, as `rope inspect` names them.
        const std::string set = !scaled_pair            ? ""
                                : &c == &curves.front() ? t.tr(" of the original frequencies")
                                                        : t.tr(" of the scaled frequencies");
        if (first == half - 1) {  // one pair: "completes", not "complete"
          out << t.tr(
              "context {0}, {1}: pair {2} (1 of {3}) never completes a turn within it;\n  critical dimension {4}{5} "
              "(M16)\n",
              format_number(L), shown(c.column), first, half, 2 * first, set);
        } else {
          out << t.tr(
              "context {0}, {1}: {2} ({3} of {4}) never complete a turn within it;\n  critical dimension {5}{6} (M16)\n",
              format_number(L), shown(c.column), t.tr("pairs {0} … {1}", first, half - 1), half - first, half,
              2 * first, set);
        }
      }
    }
  }
  for (const auto& w : warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
  return kOk;
}

Command add_wavelengths_command(CLI::App& app) {
  auto opt = std::make_shared<WavelengthsOptions>();
  CLI::App* sub = app.add_subcommand("wavelengths", "Wavelength of every pair, against context lengths");
  add_dim_option(*sub, opt->dim, kDefaultWavelengthsDim);
  add_reals_option(*sub, "-b,--base", opt->bases, {kDefaultBase}, "RoPE base, > 1; repeat for several curves");
  add_reals_option(*sub, "--context", opt->contexts, "a context length to compare with; repeatable");
  sub->add_option("--csv", opt->csv, "write pair then one wavelength column per base to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure, "animate to a GIF: m sweeps up to --context; pairs that turned light up");
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;  // (V6): the pairs' λ per axis: no channel placed
  sub->footer(
      "Example:\n  rope wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png wavelengths.png\n"
      "  rope wavelengths --model llama-3.1-8b --png llama31.png");
  return {sub, [opt](std::ostream& out) { return run_wavelengths(*opt, out); }};
}

}  // namespace rope::cli
