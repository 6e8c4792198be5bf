/// @file
/// `rope decay` as one call (the report pattern of check_run.hpp): how RoPE scores behave with relative
/// distance, docs/math.md (M11), (M14), (M15): RoFormer's bound, the all-ones score, or the mean ± 1σ of random
/// pairs, for one curve per base or a model's original and scaled frequencies, on the full grid of distances
/// (the CSV and the figure), at round distances (the text's table) and, for a GIF, with the base swept.
/// The request's validation names each setting by option_name (the command line prints "--max-distance").
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/constants.hpp"
#include "rope/core/message.hpp"
#include "rope/core/random.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// Bounds on one run: 10^7 points × 16 bases × d = 128 is about 10^10 cos/sin pairs at most.
inline constexpr long kMaxPoints = 10'000'000;
inline constexpr double kMaxDistance = 1e9;
inline constexpr std::size_t kMaxBases = 16;
/// Bound on points × CSV columns (the distance, one per base, two per base for --kind random): each
/// value is held about three times (curve, table, figure), so 2·10^7 values stay under ~0.5 GB.
inline constexpr double kMaxCells = 2e7;

enum class DecayKind { Bound, Ones, Random };

/// "bound", "ones" or "random".
inline const char* to_string(DecayKind kind) {
  return kind == DecayKind::Bound ? "bound" : kind == DecayKind::Ones ? "ones" : "random";
}

/// Distances drawn with a log axis when the number of points is not given.
inline constexpr long kDefaultLogPoints = 1000;

/// The dimension and the number of random pairs when not given.
inline constexpr int kDefaultDecayDim = 128;
inline constexpr long kDefaultSamples = 1000;

struct DecayRequest {
  DecayKind kind = DecayKind::Bound;
  std::vector<double> bases{kDefaultBase};  ///< one curve per base (plain RoPE)
  std::optional<int> dim;                   ///< nullopt: kDefaultDecayDim
  std::optional<ModelRope> model;           ///< a model's RoPE (scaling given): its original and scaled curves
  double max_distance = 256;
  std::optional<long> points;         ///< nullopt: every integer distance (point_count())
  std::optional<long> samples;        ///< random pairs (kind Random only)
  std::optional<std::uint64_t> seed;  ///< their seed (kind Random only)
  bool normalize = false;
  bool log_x = false;
  bool log_y = false;
  std::optional<double> rerope_window;    ///< ReRoPE's W: the model sees g(t) instead of t (S16), (S17)
  std::optional<double> leaky_k;          ///< Leaky ReRoPE's slope divisor K
  int frames = 0;                         ///< > 0: a GIF's frames, the base swept (DecayRun::frames)
  bool csv = false;                       ///< the full grid goes to a CSV file (the text then does not point at one)
  std::optional<double> xpos_scale_base;  ///< xPos's scale base s: `decay --xpos` (decay_xpos_run.hpp)

  long sample_count() const { return samples.value_or(kDefaultSamples); }
  std::uint64_t seed_value() const { return seed.value_or(kDefaultSeed); }
  /// The number of distances: points as given; else, on a linear axis, every integer distance
  /// 0, 1, …, max_distance (the bound (M11) is defined on integers: a fractional distance is no position
  /// difference), and kDefaultLogPoints log-spaced ones on a log axis.
  long point_count() const {
    if (points) return *points;
    if (log_x) return kDefaultLogPoints;
    return static_cast<long>(max_distance) + 1;
  }
  /// Whether the distances are the integers 0 … max_distance.
  bool integer_distances() const {
    return !log_x && max_distance == std::floor(max_distance) && point_count() == static_cast<long>(max_distance) + 1;
  }
};

/// The frequencies of one curve: one per base, or a model's original and scaled frequencies.
struct DecaySet {
  Message label;       ///< legend, "base = 10000"
  std::string column;  ///< CSV header and the text's table, "base=10000"
  Eigen::VectorXd theta;
  double weight = 1.0;  ///< a model's a²: its attention factor in cos and sin scales every score (S15)
};

/// One value per distance for each set (the mean for Random) and, for Random, the standard deviation.
struct DecayCurves {
  std::vector<Eigen::VectorXd> value;
  std::vector<Eigen::VectorXd> stddev;
};

/// One frame of the GIF: the base of the frame and its curve on the run's grid.
struct DecayFrame {
  double base = 0;
  std::vector<DecaySet> sets;  ///< one
  DecayCurves curves;
};

struct DecayRun {
  DecayRequest request;           ///< as run
  int dim = 0;                    ///< d, the rotating channels
  std::vector<DecaySet> sets;     ///< at most kMaxBases, or the model's two
  std::vector<Message> warnings;  ///< the model's scaling warnings
  Eigen::VectorXd distances;      ///< the full grid (point_count() points)
  DecayCurves curves;             ///< on it
  Eigen::VectorXd shown;  ///< the round distances of the text's table: 0 (1 on a log grid), 1, 2, 5, 10, …, max
  DecayCurves summary;    ///< at them, evaluated directly with the same draws
  std::vector<DecayFrame> frames;  ///< request.frames of them, or none
};

/// @throws InvalidArgument for a setting out of its range or two settings that do not go together (the
/// rules run_decay checks first; `rope decay --xpos` checks them before its own).
void check_decay_request(const DecayRequest& request);

/// @throws InvalidArgument as check_decay_request, for more than one base with a model, for more values than
/// kMaxCells or more work than kMaxDecayWork (decay.hpp), before any curve is computed.
DecayRun run_decay(const DecayRequest& request);

}  // namespace rope
