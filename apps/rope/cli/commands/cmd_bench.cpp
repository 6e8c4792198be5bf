// rope bench: a short version of bench/ for a class on their own laptop: the teaching ladder (dense
// d×d matrix, 2×2 blocks, element-wise cos/sin, complex numbers) and the decay job by the recurrence
// and with a cos/sin per term (rope/analysis/calculators/bench.hpp). Times vary from run to run; the ratios are the
// lesson.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/report/bench_report.hpp"

namespace rope::cli {

struct BenchOptions {
  BenchSettings settings;
  Lang lang = Lang::En;
};

/// The options of the quantities rope::run_bench checks.
const OptionNames kBenchOptions{{"sequence length", "--seq"}, {"decay points", "--points"}, {"repeats", "--repeat"}};

int run_bench_command(const BenchOptions& opt, std::ostream& out) {
  const BenchReport r = [&] {
    try {
      return rope::run_bench(opt.settings);
    } catch (const InvalidQuantity& e) {
      rethrow_naming_option(e, kBenchOptions);
    }
  }();
  emit_report(out, r, {false, opt.lang});
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
