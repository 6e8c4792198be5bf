/// @file
/// The short benchmark of `rope bench`: the teaching ladder of tensor_apply.hpp (dense matrix, 2×2
/// blocks, element-wise, complex) for d = 64, 128, 256, and the decay job of bench/ (by the recurrence
/// and with a cos/sin per term), timed with a steady clock, best of `repeat` runs, each result
/// checked against the straightforward one. bench/ (Google Benchmark) has the full set.
#pragma once

#include <vector>

namespace rope {

struct BenchSettings {
  long seq = 128;  ///< positions of the ladder's [seq, 32, d] float32 tensor
  long heads = 32;
  long decay_points = 100000;  ///< the decay job: evenly spaced m <= 10^6, d = 128, base 5e5
  int repeat = 3;              ///< runs per measurement; the best is kept
};

inline constexpr int kLadderDims[] = {64, 128, 256};

/// Bound on the measured cost of a bench run, repeat × (seq + points/128): one unit is about 0.22 ms of
/// CPU (seq 4096 takes 0.9 s a repeat, 10^6 decay points 1.8 s), so 1.2·10^5 is about 30 s. Each setting
/// alone at its maximum stays under it; together they would not (repeat 100 with seq 4096: about 500 s).
inline constexpr double kMaxBenchWork = 1.2e5;

struct LadderTiming {
  int d = 0;
  double seconds[4] = {};   ///< per LadderForm (Dense, Block2x2, Elementwise, Complex), whole tensor
  double max_abs_diff = 0;  ///< largest |y_form − y_elementwise| over the forms
};

struct BenchReport {
  BenchSettings settings;
  std::vector<LadderTiming> ladder;
  double decay_direct_seconds = 0;
  double decay_fast_seconds = 0;
  double decay_max_rel_diff = 0;  ///< max |fast − direct| / direct over the points
};

/// @throws InvalidArgument unless 1 <= seq <= 4096, 1 <= heads <= 64, 2 <= decay_points <= 10^6 and
/// 1 <= repeat <= 100, and first for repeat × (seq + decay_points/128) above kMaxBenchWork.
BenchReport run_bench(const BenchSettings& settings);

}  // namespace rope
