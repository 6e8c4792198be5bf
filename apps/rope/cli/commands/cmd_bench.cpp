// rope bench: a short version of bench/ for a class on their own laptop: the teaching ladder (dense
// d×d matrix, 2×2 blocks, element-wise cos/sin, complex numbers) and the decay job by the recurrence
// and with a cos/sin per term (rope/analysis/bench.hpp). Times vary from run to run; the ratios are the lesson.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/options.hpp"
#include "rope/analysis/bench.hpp"
#include "rope/core/error.hpp"
#include "rope/core/tensor_apply.hpp"

namespace rope::cli {

struct BenchOptions {
  BenchSettings settings;
  Lang lang = Lang::En;
};

namespace {

std::string duration(const Text& t, double seconds) {
  if (seconds >= 1) return t.tr("{0:.2f} s", seconds);
  if (seconds >= 1e-3) return t.tr("{0:.2f} ms", seconds * 1e3);
  return t.tr("{0:.1f} µs", seconds * 1e6);
}

}  // namespace

/// The options of the quantities rope::run_bench checks.
const OptionNames kBenchOptions{{"sequence length", "--seq"}, {"decay points", "--points"}, {"repeats", "--repeat"}};

/// Bound on the measured cost of a bench run, repeat × (seq + points/128): one unit is about 0.22 ms of
/// CPU (seq 4096 takes 0.9 s a repeat, 10^6 decay points 1.8 s), so 1.2·10^5 is about 30 s. Each option
/// alone at its maximum stays under it except together: --repeat 100 with --seq 4096 was 500 s.
inline constexpr double kMaxBenchWork = 1.2e5;

int run_bench_command(const BenchOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  const BenchSettings& asked = opt.settings;
  const double cost = static_cast<double>(asked.repeat) *
                      (static_cast<double>(asked.seq) + static_cast<double>(asked.decay_points) / 128.0);
  if (cost > 0 && cost > kMaxBenchWork) {
    throw InvalidArgument(error_msg(
        "{0} × ({1} + {2}/128) = {3} is more than {4} (kMaxBenchWork, about {5} s): lower {6}, {7} or {8}",
        option_name("repeat"), option_name("seq"), option_name("points"), fmt::format("{:g}", cost),
        fmt::format("{:g}", kMaxBenchWork), 30, option_name("repeat"), option_name("seq"), option_name("points")));
  }
  const BenchReport r = [&] {
    try {
      return rope::run_bench(opt.settings);
    } catch (const InvalidQuantity& e) {
      rethrow_naming_option(e, kBenchOptions);
    }
  }();
  const BenchSettings& s = r.settings;
  const double vectors = static_cast<double>(s.seq * s.heads);
  out << t.tr(
      "RoPE four ways on a [{0}, {1}, d] float32 tensor, one thread (docs/performance.md):\n"
      "time per head vector, best of {2} runs, and how many times slower than the element-wise form\n\n",
      s.seq, s.heads, s.repeat);
  const char* forms[4] = {t.tr("dense d×d matrix"), t.tr("2×2 blocks"), t.tr("element-wise"), t.tr("complex")};
  out << fmt::format("{:>5}", "d");
  for (const char* f : forms) out << fmt::format("  {:>21}", f);
  out << '\n';
  double worst_diff = 0;
  for (const LadderTiming& row : r.ladder) {
    out << fmt::format("{:>5}", row.d);
    for (int f = 0; f < 4; ++f) {
      const double ns = row.seconds[f] / vectors * 1e9;
      out << fmt::format("  {:>21}", fmt::format("{:.1f} ns ({:.3g}×)", ns, row.seconds[f] / row.seconds[2]));
    }
    out << '\n';
    worst_diff = std::max(worst_diff, row.max_abs_diff);
  }
  out << t.tr(
      "  the dense matrix costs O(d²) per vector, the other three O(d): the element-wise form (M9) is\n"
      "  what models compute. All four give the same vectors (largest difference {0:.1e}, float rounding).\n\n",
      worst_diff);
  out << t.tr("Decay bound (M11) at {0} evenly spaced distances m ≤ 10^6, d = 128, base 500000:\n", s.decay_points);
  out << t.tr("  a cos/sin per term   {0:>12}\n", duration(t, r.decay_direct_seconds));
  out << t.tr("  recurrence           {0:>12}  ({1:.3g}× faster)\n", duration(t, r.decay_fast_seconds),
              r.decay_direct_seconds / r.decay_fast_seconds);
  out << t.tr(
      "  the recurrence rotates e^(i·m·θ) from an anchor computed directly every few hundred points;\n"
      "  largest relative difference from the direct values: {0:.1e}\n",
      r.decay_max_rel_diff);
  return kOk;
}

Command add_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "Time RoPE four ways and the decay recurrence on this machine");
  add_long_option(*sub, "--seq", opt->settings.seq, "positions of the [seq, 32, d] tensor (1 … 4096)");
  add_long_option(*sub, "--points", opt->settings.decay_points, "distances of the decay job (2 … 1000000)");
  add_int_option(*sub, "--repeat", opt->settings.repeat, "runs per measurement, the best is shown (1 … 100)");
  add_lang_option(*sub, opt->lang);
  sub->footer("Example:\n  rope bench\n  rope bench --lang zh --repeat 5");
  return {sub, [opt](std::ostream& out) { return run_bench_command(*opt, out); }};
}

}  // namespace rope::cli
