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

/// Tick labels: plain up to 10^4 ("5", "20", "10000"), then mantissa and exponent without padding
/// ("1e5", "2e6"), so a log axis reads 1000, 10000, 1e5, 1e6 rather than 100000, 1e+06.
std::string tick_label(double x);

/// The labels of one axis's ticks, in one notation: when a tick needs an exponent (10^5 or more), every
/// tick from 10^4 up has one too, so an axis reads 1000, 1e4, 1e5 rather than 1000, 10000, 1e5; below,
/// when one is under 10^-4, every tick up to 10^-3 has one: 0.01, 1e-3, 1e-4, 1e-5.
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

}  // namespace rope::plot
