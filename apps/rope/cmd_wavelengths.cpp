// rope wavelengths: λ_i = 2π/θ_i against pair i, against context lengths, docs/math.md (M2), (M16).
#include <fmt/format.h>
#include <memory>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "figure_options.hpp"
#include "options.hpp"
#include "output.hpp"
#include "rope/csv.hpp"
#include "rope/error.hpp"
#include "rope/frequencies.hpp"

namespace rope::cli {

inline constexpr std::size_t kMaxCurves = 16;

struct WavelengthsOptions {
  int dim = 128;
  std::vector<double> bases{kDefaultBase};
  std::vector<double> contexts;
  std::string csv;
  FigureOptions figure;
};

namespace {

plot::Figure make_figure(const WavelengthsOptions& opt, const Eigen::VectorXd& pairs,
                         const std::vector<Eigen::VectorXd>& lambdas) {
  const FigureOptions& f = opt.figure;
  const int half = opt.dim / 2;
  plot::Figure fig;
  fig.title = fmt::format(f.text("RoPE wavelengths λ_i = 2π/θ_i, d = {}", "RoPE 各维度的波长 λ_i = 2π/θ_i, d = {}"), opt.dim);
  fig.xlabel = f.text("pair index i", "维度对编号 i");
  fig.ylabel = f.text("wavelength λ_i (positions per full turn)", "波长 λ_i(转一整圈所需的位置数)");
  fig.log_y = true;
  fig.key = plot::Figure::Key::TopLeft;
  double lo = lambdas.front()[0];
  double hi = lo;
  for (std::size_t b = 0; b < lambdas.size(); ++b) {
    hi = std::max(hi, lambdas[b].maxCoeff());
    fig.series.push_back({"base = " + format_number(opt.bases[b]), pairs, lambdas[b], static_cast<int>(b)});
  }
  for (std::size_t c = 0; c < opt.contexts.size(); ++c) {
    const double L = opt.contexts[c];
    hi = std::max(hi, L);
    fig.lines.push_back({plot::ReferenceLine::Axis::Y, L,
                         fmt::format(f.text("context {}", "上下文长度 {}"), format_number(L)), -1});
    // Pairs that never complete a turn within L, marked on every curve; the first one annotated.
    for (std::size_t b = 0; b < lambdas.size(); ++b) {
      const Eigen::Index first = first_pair_beyond(lambdas[b], L);
      if (first == half) continue;
      const Eigen::Index n = half - first;
      plot::Series marked{"", pairs.tail(n), lambdas[b].tail(n), static_cast<int>(b)};
      marked.points = true;
      if (b == 0 && c == 0) marked.label = fmt::format(f.text("λ_i > context {}: no full turn", "λ_i > {}:转不满一圈"), format_number(L));
      fig.series.push_back(marked);
      if (b == 0 && c == 0) {  // one annotation: more would cover the curves
        plot::Label label;
        label.text = fmt::format(f.text("critical dimension {} (pair {})", "临界维度 {}(第 {} 对)"), 2 * first, first);
        // Bottom right, under every curve: the curves rise to the right, so that corner is empty.
        label.x = static_cast<double>(half - 1);
        label.y = lambdas[b][first] / 15;
        label.anchor = plot::Label::Anchor::Right;
        label.arrow_x = static_cast<double>(first);
        label.arrow_y = lambdas[b][first];
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

}  // namespace

int run_wavelengths(const WavelengthsOptions& opt, std::ostream& out) {
  check_dimension(opt.dim);
  if (opt.bases.size() > kMaxCurves || opt.contexts.size() > kMaxCurves) {
    throw InvalidArgument(fmt::format("at most {} --base and {} --context values", kMaxCurves, kMaxCurves));
  }
  for (double base : opt.bases) check_base(base);
  for (double L : opt.contexts) {
    if (!(L >= 1)) throw InvalidArgument(fmt::format("--context must be >= 1 (got {})", format_number(L)));
  }
  check_figure_options(opt.figure);
  const int half = opt.dim / 2;
  Eigen::VectorXd pairs(half);
  for (int i = 0; i < half; ++i) pairs[i] = i;
  std::vector<Eigen::VectorXd> lambdas;
  Table table{{"pair"}, {pairs}};
  for (double base : opt.bases) {
    lambdas.push_back(wavelengths(frequencies(opt.dim, base)));
    table.header.push_back("base=" + format_number(base));
    table.columns.push_back(lambdas.back());
  }
  if (!opt.csv.empty()) write_output(opt.csv, to_csv(table), out);
  draw(make_figure(opt, pairs, lambdas), opt.figure);
  if (opt.csv == "-") return kOk;

  out << fmt::format("RoPE wavelengths λ_i = 2π/θ_i = 2π·base^(2i/d), d = {} (docs/math.md (M2)):\n", opt.dim);
  out << "  pair 0 turns once every 2π ≈ 6.28 positions (high frequency); the last pair turns slowest\n\n";
  std::string header = fmt::format("{:>5}", "i");
  for (double base : opt.bases) header += fmt::format("  {:>22}", "λ_i base=" + format_number(base));
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}", i);
    for (const auto& lambda : lambdas) line += fmt::format("  {:>22}", format_number(lambda[i]));
    out << line << '\n';
  }
  for (double L : opt.contexts) {
    out << '\n';
    for (std::size_t b = 0; b < opt.bases.size(); ++b) {
      const Eigen::Index first = first_pair_beyond(lambdas[b], L);
      if (first == half) {
        out << fmt::format("context {}, base {}: every pair completes a full turn within it\n", format_number(L),
                           format_number(opt.bases[b]));
      } else {
        const std::string which = first == half - 1 ? fmt::format("pair {}", first) : fmt::format("pairs {} … {}", first, half - 1);
        out << fmt::format("context {}, base {}: {} ({} of {}) never complete a turn within it; critical dimension {} (M16)\n",
                           format_number(L), format_number(opt.bases[b]), which, half - first, half, 2 * first);
      }
    }
  }
  return kOk;
}

Command add_wavelengths_command(CLI::App& app) {
  auto opt = std::make_shared<WavelengthsOptions>();
  CLI::App* sub = app.add_subcommand("wavelengths", "Wavelength of every pair, against context lengths");
  add_dim_option(*sub, opt->dim);
  add_reals_option(*sub, "-b,--base", opt->bases, "RoPE base, > 1; repeat for several curves");
  add_reals_option(*sub, "--context", opt->contexts, "a context length to compare with; repeatable");
  sub->add_option("--csv", opt->csv, "write pair then one wavelength column per base to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  sub->footer("Example:\n  rope wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png wavelengths.png");
  return {sub, [opt](std::ostream& out) { return run_wavelengths(*opt, out); }};
}

}  // namespace rope::cli
