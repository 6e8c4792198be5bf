// rope decay: RoFormer's long-range decay bound f(m), docs/math.md (M11).
#include <fmt/format.h>
#include <memory>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "options.hpp"
#include "output.hpp"
#include "rope/csv.hpp"
#include "rope/decay.hpp"
#include "rope/error.hpp"
#include "rope/frequencies.hpp"

namespace rope::cli {

/// Bounds on one run: 10^7 points × 16 bases × d = 128 is about 10^10 cos/sin pairs at most.
inline constexpr long kMaxPoints = 10'000'000;
inline constexpr double kMaxDistance = 1e9;
inline constexpr std::size_t kMaxBases = 16;

struct DecayOptions {
  std::vector<double> bases{kDefaultBase};
  int dim = 128;
  double max_distance = 256;
  long points = 1000;
  std::string csv;
};

int run_decay(const DecayOptions& opt, std::ostream& out) {
  if (opt.bases.size() > kMaxBases) {
    throw InvalidArgument(fmt::format("at most {} --base values (got {})", kMaxBases, opt.bases.size()));
  }
  if (opt.points < 1 || opt.points > kMaxPoints) {
    throw InvalidArgument(fmt::format("--points must be between 1 and {} (got {})", kMaxPoints, opt.points));
  }
  if (opt.max_distance < 0 || opt.max_distance > kMaxDistance) {
    throw InvalidArgument(fmt::format("--max-distance must be between 0 and {:g} (got {})", kMaxDistance,
                                      format_number(opt.max_distance)));
  }
  check_dimension(opt.dim);
  for (double base : opt.bases) check_base(base);

  Table table{{"distance"}, {linspace(opt.max_distance, opt.points)}};
  for (double base : opt.bases) {
    table.header.push_back("base=" + format_number(base));
    table.columns.push_back(decay_bound(frequencies(opt.dim, base), table.columns.front()));
  }
  if (!opt.csv.empty()) write_output(opt.csv, to_csv(table), out);
  if (opt.csv == "-") return kOk;

  out << fmt::format("RoFormer long-range decay bound, d = {} (docs/math.md (M11)):\n", opt.dim);
  out << "  f(m) = (1/(d/2)) Σ_j |Σ_{i≤j} e^(i·m·θ_i)|, f(0) = (d/2 + 1)/2\n";
  out << "  an upper bound on the relative size of the score, not an attention score: for random\n"
         "  zero-mean q and k the expected score is 0 at every distance\n\n";
  // A summary at round distances 0, 1, 2, 5, 10, … and the largest, evaluated directly; the grid is in the CSV.
  std::vector<double> shown{0.0};
  for (double decade = 1; decade <= opt.max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < opt.max_distance) shown.push_back(step * decade);
    }
  }
  if (opt.max_distance > 0) shown.push_back(opt.max_distance);
  const Eigen::VectorXd distances = Eigen::Map<const Eigen::VectorXd>(shown.data(), static_cast<Eigen::Index>(shown.size()));
  std::string header = fmt::format("{:>12}", "distance m");
  std::vector<Eigen::VectorXd> values;
  for (std::size_t b = 0; b < opt.bases.size(); ++b) {
    header += fmt::format("  {:>14}", table.header[b + 1]);
    values.push_back(decay_bound(frequencies(opt.dim, opt.bases[b]), distances));
  }
  out << header << '\n';
  for (Eigen::Index r = 0; r < distances.size(); ++r) {
    std::string line = fmt::format("{:>12}", format_number(distances[r]));
    for (const auto& v : values) line += fmt::format("  {:>14.6f}", v[r]);
    out << line << '\n';
  }
  if (opt.csv.empty()) {
    out << fmt::format("(the {} evenly spaced points from 0 to {}: --csv FILE)\n", opt.points,
                       format_number(opt.max_distance));
  }
  return kOk;
}

Command add_decay_command(CLI::App& app) {
  auto opt = std::make_shared<DecayOptions>();
  CLI::App* sub = app.add_subcommand("decay", "RoFormer's long-range decay bound against relative distance");
  add_reals_option(*sub, "-b,--base", opt->bases, "RoPE base, > 1; repeat for several curves");
  add_dim_option(*sub, opt->dim);
  add_real_option(*sub, "--max-distance", opt->max_distance, fmt::format("largest distance m (0 … {:g})", kMaxDistance));
  add_long_option(*sub, "--points", opt->points,
                  fmt::format("evenly spaced distances from 0 to max-distance inclusive (1 … {})", kMaxPoints));
  sub->add_option("--csv", opt->csv, "write distance,base=B,… to FILE ('-' for stdout)")->type_name("FILE");
  sub->footer("Example:\n  rope decay --base 10000 --dim 128 --csv decay.csv\n  rope decay --base 10000 --base 500000 --max-distance 4096");
  return {sub, [opt](std::ostream& out) { return run_decay(*opt, out); }};
}

}  // namespace rope::cli
