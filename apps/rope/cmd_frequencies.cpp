// rope frequencies (alias freqs): the table θ_i = base^(−2i/d), λ_i = 2π/θ_i, docs/math.md (M1), (M2).
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "figure_options.hpp"
#include "rope/error.hpp"
#include "options.hpp"
#include "output.hpp"
#include "rope/csv.hpp"
#include "rope/frequencies.hpp"

namespace rope::cli {

struct FrequenciesOptions {
  int dim = 128;
  double base = kDefaultBase;
  double position = 0.0;
  bool has_position = false;
  std::string csv;
  bool json = false;
  int max_position = 128;  ///< last position of the cos(m·θ_i) heatmap
  bool max_position_given = false;
  FigureOptions figure;
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

int run_frequencies(const FrequenciesOptions& opt, std::ostream& out) {
  const Eigen::VectorXd theta = frequencies(opt.dim, opt.base);
  const Eigen::VectorXd lambda = wavelengths(theta);
  const int half = opt.dim / 2;
  Eigen::VectorXd pair(half), exponent(half);
  for (int i = 0; i < half; ++i) {
    pair[i] = i;
    exponent[i] = frequency_exponent(opt.dim, i);
  }
  const Eigen::VectorXd angle = opt.position * theta;
  check_figure_options(opt.figure);
  if (opt.max_position < 1 || (opt.max_position + 1.0) * half > kMaxHeatmapCells) {
    throw InvalidArgument(fmt::format("--max-position must be >= 1 with (max-position + 1)·d/2 <= {:.0f} (got {})",
                                      kMaxHeatmapCells, opt.max_position));
  }
  if (opt.max_position_given && !opt.figure.wanted()) {
    throw InvalidArgument("--max-position sets the figure's heatmap: add --png, --svg, --pdf or --output");
  }
  if (opt.figure.wanted()) {
    // cos(m·θ_i): rows are pairs, columns positions 0 … max-position (M1).
    Eigen::MatrixXd z(half, opt.max_position + 1);
    for (int i = 0; i < half; ++i) {
      for (int m = 0; m <= opt.max_position; ++m) z(i, m) = std::cos(m * theta[i]);
    }
    const FigureOptions& f = opt.figure;
    plot::Figure fig;
    fig.title = fmt::format(f.text("cos(m·θ_i): every pair turns at its own speed (d = {}, base = {})",
                                   "cos(m·θ_i):每一对以自己的速度旋转(d = {},base = {})"),
                            opt.dim, format_number(opt.base));
    fig.xlabel = f.text("position m", "位置 m");
    fig.ylabel = f.text("pair i (0 = fastest)", "维度对 i(0 转得最快)");
    plot::Heatmap h;
    h.z = z;
    h.colorbar_label = "cos(m·θ_i)";
    fig.heatmap = h;
    draw(fig, f);
  }

  if (!opt.csv.empty()) {
    Table table{{"pair", "exponent", "theta", "wavelength"}, {pair, exponent, theta, lambda}};
    if (opt.has_position) {
      table.header.push_back("angle");
      table.columns.push_back(angle);
    }
    write_output(opt.csv, to_csv(table), out);
  }
  if (opt.json) {
    nlohmann::json j;
    j["dim"] = opt.dim;
    j["base"] = opt.base;
    j["inv_freq"] = std::vector<double>(theta.data(), theta.data() + half);
    j["attention_factor"] = 1.0;
    j["wavelength"] = std::vector<double>(lambda.data(), lambda.data() + half);
    j["exponent"] = std::vector<double>(exponent.data(), exponent.data() + half);
    if (opt.has_position) {
      j["position"] = opt.position;
      j["angle"] = std::vector<double>(angle.data(), angle.data() + half);
    }
    out << j.dump(2) << '\n';
  }
  if (opt.csv == "-" || opt.json) return kOk;

  out << fmt::format("RoPE frequencies for d = {}, base = {}: θ_i = base^(−2i/d), λ_i = 2π/θ_i\n",
                     opt.dim, format_number(opt.base));
  out << fmt::format("pairs i = 0 … {} (channels 2i, 2i+1 interleaved, or i, i+{} half-split)\n\n",
                     half - 1, half);
  std::string header = fmt::format("{:>5}  {:>10}  {:>24}  {:>24}", "i", "-2i/d", "θ_i", "λ_i");
  if (opt.has_position) header += fmt::format("  {:>24}", fmt::format("{}·θ_i", format_number(opt.position)));
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}  {:>10}  {:>24}  {:>24}", i, exponent_fraction(opt.dim, i),
                                   format_number(theta[i]), format_number(lambda[i]));
    if (opt.has_position) line += fmt::format("  {:>24}", format_number(angle[i]));
    out << line << '\n';
  }
  return kOk;
}

Command add_frequencies_command(CLI::App& app) {
  auto opt = std::make_shared<FrequenciesOptions>();
  CLI::App* sub = app.add_subcommand(
      "frequencies", "Table of the rotation frequencies θ_i = base^(−2i/d) and wavelengths λ_i = 2π/θ_i");
  sub->alias("freqs");
  add_dim_option(*sub, opt->dim);
  add_base_option(*sub, opt->base);
  CLI::Option* position =
      add_real_option(*sub, "-m,--position", opt->position, "also print the angles m·θ_i at this position");
  sub->add_option("--csv", opt->csv, "write pair,exponent,theta,wavelength[,angle] to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json, "print JSON: inv_freq (the θ_i), attention_factor, wavelength, …");
  CLI::Option* max_position =
      add_int_option(*sub, "--max-position", opt->max_position, "last position of the figure's cos(m·θ_i) heatmap")
          ->group("Figure");
  add_figure_options(*sub, opt->figure);
  sub->footer("Example:\n  rope frequencies --dim 8 --base 10000\n  rope freqs --dim 128 --csv freqs.csv\n  rope freqs --dim 64 --png cos.png");
  return {sub, [opt, position, max_position](std::ostream& out) {
            opt->has_position = position->count() > 0;
            opt->max_position_given = max_position->count() > 0;
            return run_frequencies(*opt, out);
          }};
}

}  // namespace rope::cli
