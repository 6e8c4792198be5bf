// The printers of rope bench (bench_report.hpp).
#include "rope/report/bench_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>

#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string bench_duration(const Text& t, double seconds) {
  if (seconds >= 1) return t.tr("{0:.2f} s", seconds);
  if (seconds >= 1e-3) return t.tr("{0:.2f} ms", seconds * 1e3);
  return t.tr("{0:.1f} µs", seconds * 1e6);
}

}  // namespace

Value bench_value(const BenchReport& r) {
  const BenchSettings& s = r.settings;
  Value v = Value::object();
  v["seq"] = s.seq;
  v["heads"] = s.heads;
  v["repeat"] = s.repeat;
  v["decay_points"] = s.decay_points;
  Value ladder = Value::array();
  for (const LadderTiming& row : r.ladder) {
    Value one = Value::object();
    one["d"] = row.d;
    Value seconds = Value::object();
    seconds["dense"] = row.seconds[0];
    seconds["blocks"] = row.seconds[1];
    seconds["elementwise"] = row.seconds[2];
    seconds["complex"] = row.seconds[3];
    one["seconds"] = seconds;
    one["max_abs_diff"] = row.max_abs_diff;
    ladder.push_back(one);
  }
  v["ladder"] = ladder;
  Value decay = Value::object();
  decay["direct_seconds"] = r.decay_direct_seconds;
  decay["recurrence_seconds"] = r.decay_fast_seconds;
  decay["max_rel_diff"] = r.decay_max_rel_diff;
  v["decay"] = decay;
  return v;
}

void print_bench(std::ostream& out, const BenchReport& r, const Text& t) {
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
  out << t.tr("  a cos/sin per term   {0:>12}\n", bench_duration(t, r.decay_direct_seconds));
  out << t.tr("  recurrence           {0:>12}  ({1:.3g}× faster)\n", bench_duration(t, r.decay_fast_seconds),
              r.decay_direct_seconds / r.decay_fast_seconds);
  out << t.tr(
      "  the recurrence rotates e^(i·m·θ) from an anchor computed directly every few hundred points;\n"
      "  largest relative difference from the direct values: {0:.1e}\n",
      r.decay_max_rel_diff);
}

}  // namespace rope
