#include "rope/analysis/calculators/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/calculators/decay_sweep.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/random_lanes.hpp"
#include "rope/core/tensor_apply.hpp"

namespace rope {

namespace {

template <typename F>
double best_seconds(int repeat, F&& work) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

void check(const BenchSettings& s) {
  if (s.seq < 1 || s.seq > 4096)
    throw InvalidQuantity("sequence length", fmt::format("must be between 1 and 4096 (got {})", s.seq));
  if (s.heads < 1 || s.heads > 64)
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "heads", 1, 64, s.heads));
  if (s.decay_points < 2 || s.decay_points > 1'000'000) {
    throw InvalidQuantity("decay points", fmt::format("must be between 2 and 1000000 (got {})", s.decay_points));
  }
  if (s.repeat < 1 || s.repeat > 100)
    throw InvalidQuantity("repeats", fmt::format("must be between 1 and 100 (got {})", s.repeat));
}

}  // namespace

BenchReport run_bench(const BenchSettings& s) {
  const double cost =
      static_cast<double>(s.repeat) * (static_cast<double>(s.seq) + static_cast<double>(s.decay_points) / 128.0);
  if (cost > 0 && cost > kMaxBenchWork) {
    throw InvalidArgument(error_msg(
        "{0} × ({1} + {2}/128) = {3} is more than {4} (kMaxBenchWork, about {5} s): lower {6}, {7} or {8}",
        option_name("repeat"), option_name("seq"), option_name("points"), fmt::format("{:g}", cost),
        fmt::format("{:g}", kMaxBenchWork), 30, option_name("repeat"), option_name("seq"), option_name("points")));
  }
  check(s);
  BenchReport report;
  report.settings = s;
  for (int d : kLadderDims) {
    const TensorShape shape{s.seq, s.heads, d};
    std::vector<double> draws(shape.size());
    RandomLanes(static_cast<std::uint64_t>(d)).fill_normal(draws.data(), draws.size());
    const std::vector<float> x(draws.begin(), draws.end());
    const auto table = cos_sin_table<float>(frequencies(d, 1e4), s.seq);
    std::vector<float> reference(shape.size()), y(shape.size());
    apply_ladder(LadderForm::Elementwise, x.data(), reference.data(), shape, table);
    LadderTiming row;
    row.d = d;
    for (int f = 0; f < 4; ++f) {
      const auto form = static_cast<LadderForm>(f);
      row.seconds[f] = best_seconds(s.repeat, [&] { apply_ladder(form, x.data(), y.data(), shape, table); });
      for (std::size_t i = 0; i < y.size(); ++i) {
        row.max_abs_diff = std::max(row.max_abs_diff, static_cast<double>(std::abs(y[i] - reference[i])));
      }
    }
    report.ladder.push_back(row);
  }
  const Eigen::VectorXd theta = frequencies(128, 5e5);
  const Eigen::VectorXd x = linspace(1e6, s.decay_points);
  Eigen::VectorXd direct, fast;
  report.decay_direct_seconds = best_seconds(s.repeat, [&] { direct = decay_bound(theta, x); });
  report.decay_fast_seconds = best_seconds(s.repeat, [&] { fast = decay_bound_linspace(theta, 1e6, s.decay_points); });
  report.decay_max_rel_diff = ((fast - direct).array().abs() / direct.array()).maxCoeff();
  return report;
}

}  // namespace rope
