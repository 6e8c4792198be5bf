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
  if (seconds >= 1) return t.format("{:.2f} s", "{:.2f} 秒", seconds);
  if (seconds >= 1e-3) return t.format("{:.2f} ms", "{:.2f} 毫秒", seconds * 1e3);
  return t.format("{:.1f} µs", "{:.1f} 微秒", seconds * 1e6);
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
    throw InvalidArgument(fmt::format("--repeat × (--seq + --points/128) = {:g} is more than {:g} (kMaxBenchWork, "
                                      "about 30 s): lower --repeat, --seq or --points",
                                      cost, kMaxBenchWork));
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
  out << t.format(
      "RoPE four ways on a [{}, {}, d] float32 tensor, one thread (docs/performance.md):\n"
      "time per head vector, best of {} runs, and how many times slower than the element-wise form\n\n",
      "用四种方法对 [{}, {}, d] 的 float32 张量做 RoPE,单线程(docs/performance.md):\n"
      "每个头向量的耗时({} 次中最快),以及比逐元素形式慢多少倍\n\n",
      s.seq, s.heads, s.repeat);
  const char* forms[4] = {t("dense d×d matrix", "稠密 d×d 矩阵"), t("2×2 blocks", "2×2 分块"),
                          t("element-wise", "逐元素"), t("complex", "复数")};
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
  out << t.format(
      "  the dense matrix costs O(d²) per vector, the other three O(d): the element-wise form (M9) is\n"
      "  what models compute. All four give the same vectors (largest difference {:.1e}, float rounding).\n\n",
      "  稠密矩阵每个向量要 O(d²),其余三种只要 O(d):模型实际计算的是逐元素形式 (M9)。\n"
      "  四种方法得到相同的向量(最大差 {:.1e},float 舍入误差)。\n\n",
      worst_diff);
  out << t.format("Decay bound (M11) at {} evenly spaced distances m ≤ 10^6, d = 128, base 500000:\n",
                  "远程衰减上界 (M11):{} 个等距距离 m ≤ 10^6,d = 128,base 500000:\n", s.decay_points);
  out << t.format("  a cos/sin per term   {:>12}\n", "  每项一次 cos/sin     {:>12}\n",
                  duration(t, r.decay_direct_seconds));
  out << t.format("  recurrence           {:>12}  ({:.3g}× faster)\n", "  递推                 {:>12}  (快 {:.3g} 倍)\n",
                  duration(t, r.decay_fast_seconds), r.decay_direct_seconds / r.decay_fast_seconds);
  out << t.format(
      "  the recurrence rotates e^(i·m·θ) from an anchor computed directly every few hundred points;\n"
      "  largest relative difference from the direct values: {:.1e}\n",
      "  递推法从每隔几百个点直接计算一次的锚点出发旋转 e^(i·m·θ);\n"
      "  与直接计算的最大相对差:{:.1e}\n",
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
