/// @file
/// Ticks of logarithmic axes: where they go (log_ticks), the range an autoscaled log axis shows
/// (nice_log_range) and how a tick value is written (tick_label).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rope::plot {

/// Tick positions for a logarithmic axis over [lo, hi]: 1-2-5 steps (… 5, 10, 20, 50 …) when the range
/// spans at most about two decades, powers of ten otherwise. @pre 0 < lo < hi.
std::vector<double> log_ticks(double lo, double hi);

/// The range shown on an autoscaled log axis: the data range [lo, hi] widened to 1-2-5 values, or to
/// whole decades when that is still wider than about 2.5 decades, so the ends carry ticks.
/// @pre 0 < lo <= hi, both finite.
std::pair<double, double> nice_log_range(double lo, double hi);

/// A tick label: plain from 10^-4 up to 10^4 ("5", "20", "10000", "0.001"), else a power of ten in ASCII, which
/// every figure font has ("10^5", "2×10^6", "10^-5"), never 100000 or 1e+06.
std::string tick_label(double x);

/// The labels of one axis's ticks, in one notation: plain while every tick is (tick_label), else every tick a
/// power of ten, so a log axis reads 10^0, 10^1, …, 10^6 (or 10^4, 2×10^4, 5×10^4, 10^5), never 1000 beside 1e5.
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

}  // namespace rope::plot
