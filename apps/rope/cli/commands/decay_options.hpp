/// @file
/// The options of `rope decay` (cmd_decay.cpp) and their limits: which curves, which distances.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/cli/figure_options.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/random.hpp"
#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/core/types.hpp"

namespace rope::cli {

/// The limits, DecayKind and the defaults: analysis/teaching/decay_run.hpp.

struct DecayOptions {
  std::optional<std::vector<double>> bases;  ///< --base, repeated; nullopt: kDefaultBase
  std::optional<int> dim;
  double max_distance = 256;
  std::optional<long> points;  ///< --points; nullopt: every integer distance (point_count())
  DecayKind kind = DecayKind::Bound;
  std::optional<long> samples;        ///< --samples, for --kind random only
  std::optional<std::uint64_t> seed;  ///< --seed, for --kind random only
  bool normalize = false;
  bool log_x = false;
  bool log_y = false;
  std::string csv;
  bool json = false;  ///< --json: the report's value (report/decay_report.hpp decay_value)
  FigureOptions figure;
  ScalingOptions scaling;
  std::optional<double> rerope_window;  ///< --rerope W: the model sees g(t) instead of t (S16), (S17)
  std::optional<double> leaky_k;        ///< --leaky-k K: Leaky ReRoPE's slope divisor
  bool xpos = false;                    ///< --xpos: xPos's scale factor next to the bound (decay_xpos_run.hpp)
  double xpos_scale_base = 512;         ///< --xpos-scale-base s (kDefaultXposScaleBase)

  std::vector<double> base_values() const { return bases.value_or(std::vector<double>{kDefaultBase}); }
  /// The number of distances, as the library's request counts them (DecayRequest::point_count).
  long point_count() const {
    DecayRequest r;
    r.points = points;
    r.log_x = log_x;
    r.max_distance = max_distance;
    return r.point_count();
  }
};

}  // namespace rope::cli
