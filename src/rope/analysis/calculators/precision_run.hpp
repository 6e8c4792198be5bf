/// @file
/// `rope precision` as one call (the report pattern of check_run.hpp): the error curves of each type and
/// strategy against a long double reference on log-spaced positions, the same errors at the table's positions,
/// the first position where the angle error passes a threshold and the positions each type merges,
/// docs/precision.md (P1)–(P9); the request's limits checked before any work.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/calculators/precision.hpp"
#include "rope/core/dtype.hpp"

namespace rope {

inline constexpr long kMaxPrecisionPoints = 10000;
/// Bound on points × samples × d, from its measured cost: about 5.5·10^5 units a second on one core
/// (d = 512, 100 and 400 samples, 48 points: 4.2 s and 18.3 s), so 3·10^7 is about a minute. (It was
/// 2·10^9: d = 4096, 10 000 samples, 48 points took 65 minutes.)
inline constexpr double kMaxPrecisionWork = 3e7;

/// The error a figure shows.
enum class PrecisionMetric { Angle, Vector, Identity };

/// "angle", "vector" or "identity". @throws InvalidArgument naming the setting `metric`.
PrecisionMetric parse_precision_metric(std::string_view text);

/// The curve's errors of one metric.
const Eigen::VectorXd& metric_values(const CurveErrors& curve, PrecisionMetric metric);

struct PrecisionRequest {
  PrecisionSettings settings;
  double max_position = 1048576;  ///< P: an integer 1 … kMaxPrecisionPosition
  std::vector<DType> dtypes{DType::F64, DType::F32, DType::F16, DType::BF16};
  std::vector<Strategy> strategies{Strategy::CastInputs, Strategy::AngleF32, Strategy::CastResult};
  long points = 100;                                   ///< log-spaced positions 1 … P (2 … kMaxPrecisionPoints)
  std::vector<double> at{7, 1000, 32768, 1048576};     ///< the table's positions (those ≤ P, and P)
  double threshold = 1e-2;                             ///< angle error in rad whose first crossing is found
  PrecisionMetric metric = PrecisionMetric::Identity;  ///< the figure's
  bool csv = false;                                    ///< a front end writes the CSV: the text does not point to it
  bool figure = false;  ///< a front end draws the figure: the text names the curves it leaves out
};

struct PrecisionRun {
  PrecisionRequest request;
  std::vector<DType> types;                      ///< as asked, each once
  std::vector<CurveSpec> specs;                  ///< each type with each strategy (float64 once)
  Eigen::VectorXd grid;                          ///< the log-spaced positions
  std::vector<CurveErrors> curves;               ///< on the grid
  std::vector<double> at;                        ///< the table's positions
  std::vector<CurveErrors> summary;              ///< at the table's positions
  std::vector<std::optional<double>> crossings;  ///< per spec: the first position past the threshold (P9)
  std::vector<PositionMerges> merges;            ///< per type (P2)
};

/// @throws InvalidArgument for a setting outside its rule or work above kMaxPrecisionWork.
PrecisionRun run_precision(const PrecisionRequest& request);

}  // namespace rope
