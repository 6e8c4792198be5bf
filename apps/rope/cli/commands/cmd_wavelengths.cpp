// rope wavelengths: λ_i = 2π/θ_i against pair i, against context lengths, docs/math.md (M2), (M16).
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/figures/wavelength_figure.hpp"

namespace rope::cli {

inline constexpr std::size_t kMaxCurves = 16;

struct WavelengthsOptions {
  int dim = 128;
  std::vector<double> bases{kDefaultBase};
  std::vector<double> contexts;
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;
  bool dim_given = false;
  bool base_given = false;
};

using Curve = WavelengthCurve;

plot::Figure wavelength_figure(const FigureOptions& f, int dim, const std::string& model, const std::vector<double>& contexts,
                               const std::vector<Curve>& curves) {
  const int half = dim / 2;
  Eigen::VectorXd pairs(half);
  for (int i = 0; i < half; ++i) pairs[i] = i;
  plot::Figure fig;
  fig.title = fmt::format(f.text("RoPE wavelengths λ_i = 2π/θ_i, d = {}{}", "RoPE 各维度的波长 λ_i = 2π/θ_i, d = {}{}"), dim,
                          model.empty() ? "" : ", " + model);
  fig.xlabel = f.text("pair index i", "维度对编号 i");
  fig.ylabel = f.text("wavelength λ_i (positions per full turn)", "波长 λ_i(转一整圈所需的位置数)");
  fig.log_y = true;
  fig.key = plot::Figure::Key::Below;  // inside, it would cover the context labels at the top left
  double lo = curves.front().lambda[0];
  double hi = lo;
  for (std::size_t b = 0; b < curves.size(); ++b) {
    for (Eigen::Index i = 0; i < curves[b].lambda.size(); ++i) {
      if (std::isfinite(curves[b].lambda[i])) hi = std::max(hi, curves[b].lambda[i]);
    }
    fig.series.push_back({curves[b].name, pairs, curves[b].lambda, static_cast<int>(b)});
  }
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    const double L = contexts[c];
    hi = std::max(hi, L);
    fig.lines.push_back({plot::ReferenceLine::Axis::Y, L,
                         fmt::format(f.text("context {}", "上下文长度 {}"), format_number(L)), -1});
    // Pairs that never complete a turn within L, marked on every curve; the first one annotated.
    for (std::size_t b = 0; b < curves.size(); ++b) {
      const Eigen::VectorXd& lambda = curves[b].lambda;
      const Eigen::Index first = first_pair_beyond(lambda, L);
      if (first == half) continue;
      const Eigen::Index n = half - first;
      plot::Series marked{"", pairs.tail(n), lambda.tail(n), static_cast<int>(b)};
      marked.points = true;
      if (b == 0 && c == 0) marked.label = fmt::format(f.text("λ_i > context {}: no full turn", "λ_i > {}:转不满一圈"), format_number(L));
      fig.series.push_back(marked);
      if (b == 0 && c == 0) {  // one annotation: more would cover the curves
        plot::Label label;
        label.text = fmt::format(f.text("critical dimension {} (pair {})", "临界维度 {}(第 {} 对)"), 2 * first, first);
        // Bottom right, under every curve: the curves rise to the right, so that corner is empty.
        label.x = static_cast<double>(half - 1);
        label.y = lambda[first] / 15;
        label.anchor = plot::Label::Anchor::Right;
        label.arrow_x = static_cast<double>(first);
        label.arrow_y = lambda[first];
        fig.labels.push_back(label);
      }
    }
  }
  // Which end is which: small i turns fast, large i slowly (one seed has these reversed).
  plot::Label high;
  high.x = 0.0;
  high.y = lo / 2.2;
  high.text = f.text("high frequency, short wavelength", "高频:波长短");
  fig.labels.push_back(high);
  plot::Label low;
  low.x = static_cast<double>(half - 1);
  low.y = hi * 2.5;
  low.text = f.text("low frequency, long wavelength", "低频:波长长");
  low.anchor = plot::Label::Anchor::Right;
  fig.labels.push_back(low);
  fig.xrange = std::pair{-0.5, half - 0.5};
  fig.yrange = std::pair{lo / 4, hi * 8};
  return fig;
}

int run_wavelengths(const WavelengthsOptions& opt, std::ostream& out) {
  if (opt.bases.size() > kMaxCurves || opt.contexts.size() > kMaxCurves) {
    throw InvalidArgument(fmt::format("at most {} --base and {} --context values", kMaxCurves, kMaxCurves));
  }
  for (double L : opt.contexts) {
    if (!(L >= 1)) throw InvalidArgument(fmt::format("--context must be >= 1 (got {})", format_number(L)));
  }
  check_figure_options(opt.figure);
  std::vector<Curve> curves;
  std::vector<double> contexts = opt.contexts;
  int dim = opt.dim;
  std::vector<Message> warnings;
  std::string model;
  const Text t = opt.figure.tr();
  if (opt.scaling.any()) {
    // One model: its original and its scaled wavelengths (docs/scaling.md).
    if (opt.bases.size() > 1) throw InvalidArgument("give one --base with --scaling, --config or --model");
    const ResolvedRope rr = resolve_rope(opt.scaling, opt.dim, opt.dim_given, opt.bases.front(), opt.base_given);
    dim = rr.d;
    if (!opt.scaling.model.empty() || !opt.scaling.config.empty()) model = rr.model.name;
    const RopeParameters& p = rr.params;
    Eigen::VectorXd scaled(p.inv_freq.size());
    for (Eigen::Index i = 0; i < scaled.size(); ++i) scaled[i] = p.inv_freq[i] > 0 ? kTwoPi / p.inv_freq[i] : HUGE_VAL;
    curves.push_back({t.format("original, base = {}", "原始,base = {}", format_number(rr.model.rope.base)), "original",
                      wavelengths(rr.original)});
    curves.push_back({fmt::format("{} f = {}", to_string(rr.model.rope.type), format_number(p.factor)),
                      std::string(to_string(rr.model.rope.type)), scaled});
    if (contexts.empty()) {
      // The model's own lengths: where it was trained and where it is extended to.
      if (p.original_max_position > 0) contexts.push_back(static_cast<double>(p.original_max_position));
      if (rr.model.rope.max_position_embeddings &&
          static_cast<double>(*rr.model.rope.max_position_embeddings) != (contexts.empty() ? 0.0 : contexts.front())) {
        contexts.push_back(static_cast<double>(*rr.model.rope.max_position_embeddings));
      }
    }
    warnings = p.warnings;
  } else {
    check_dimension(opt.dim);
    for (double base : opt.bases) {
      check_base(base);
      curves.push_back({"base = " + format_number(base), "base=" + format_number(base), wavelengths(frequencies(opt.dim, base))});
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
  if (opt.csv == "-") return kOk;

  out << t.format("RoPE wavelengths λ_i = 2π/θ_i = 2π·base^(2i/d), d = {} (docs/math.md (M2)):\n",
                  "RoPE 波长 λ_i = 2π/θ_i = 2π·base^(2i/d),d = {}(docs/math.md (M2)):\n", dim);
  out << t("  pair 0 turns once every 2π ≈ 6.28 positions (high frequency); the last pair turns slowest\n\n",
           "  第 0 对每隔 2π ≈ 6.28 个位置转一圈(高频);最后一对转得最慢\n\n");
  std::string header = fmt::format("{:>5}", "i");
  for (const Curve& c : curves) header += fmt::format("  {:>22}", "λ_i " + c.column);
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}", i);
    for (const Curve& c : curves) {
      line += fmt::format("  {:>22}", std::isfinite(c.lambda[i]) ? format_number(c.lambda[i]) : t("inf (not rotated)", "inf(不旋转)"));
    }
    out << line << '\n';
  }
  for (double L : contexts) {
    out << '\n';
    for (const Curve& c : curves) {
      const Eigen::Index first = first_pair_beyond(c.lambda, L);
      if (first == half) {
        out << t.format("context {}, {}: every pair completes a full turn within it\n",
                        "上下文长度 {},{}:每一对都能在其中转满一圈\n", format_number(L), c.column);
      } else {
        const std::string which = first == half - 1 ? t.format("pair {}", "第 {} 对", first)
                                                    : t.format("pairs {} … {}", "第 {} … {} 对", first, half - 1);
        out << t.format("context {}, {}: {} ({} of {}) never complete a turn within it; critical dimension {} (M16)\n",
                        "上下文长度 {},{}:{}({} 对,共 {} 对)在其中转不满一圈;临界维度 {} (M16)\n", format_number(L),
                        c.column, which, half - first, half, 2 * first);
      }
    }
  }
  for (const auto& w : warnings) out << t("warning: ", "警告:") << w.in(t.zh()) << '\n';
  return kOk;
}

Command add_wavelengths_command(CLI::App& app) {
  auto opt = std::make_shared<WavelengthsOptions>();
  CLI::App* sub = app.add_subcommand("wavelengths", "Wavelength of every pair, against context lengths");
  CLI::Option* dim = add_dim_option(*sub, opt->dim);
  CLI::Option* base = add_reals_option(*sub, "-b,--base", opt->bases, "RoPE base, > 1; repeat for several curves");
  add_reals_option(*sub, "--context", opt->contexts, "a context length to compare with; repeatable");
  sub->add_option("--csv", opt->csv, "write pair then one wavelength column per base to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png wavelengths.png\n"
              "  rope wavelengths --model llama-3.1-8b --png llama31.png");
  return {sub, [opt, dim, base](std::ostream& out) {
            opt->dim_given = dim->count() > 0;
            opt->base_given = base->count() > 0;
            return run_wavelengths(*opt, out);
          }};
}

}  // namespace rope::cli
