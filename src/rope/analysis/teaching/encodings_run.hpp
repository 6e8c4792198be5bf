/// @file
/// `rope encodings` as one call (the report pattern of check_run.hpp): the comparison table of position
/// encodings that explainers print (explicit relative position, long-range decay, parameters, extrapolation)
/// for absolute sinusoidal, learned absolute, T5 bias, ALiBi and RoPE, each claim next to the number computed
/// for it: the shift test of every encoding, T5's buckets, the scores against the distance, the first pair of
/// RoPE that does not complete a turn within the trained length.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/teaching/attention.hpp"
#include "rope/core/random.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// The learned table of the shift test has tokens + shift rows of d numbers: at most 14096 × 1024.
inline constexpr long kMaxEncodingsShift = 10'000;
/// Largest trained length L.
inline constexpr long kMaxEncodingsContext = 10'000'000;
/// Bound on tokens² × d: the shift test computes every score of five encodings twice (a matrix product
/// of N × d by d × N each), and the work grows as N²·d. At the limit (4096 tokens at d = 256, 2048 at
/// d = 1024) about 20 s of CPU (measured in docs/errors.md's Limits).
inline constexpr double kMaxEncodingsWork = 4294967296.0;  // 2^32
/// Random pairs behind the "mean ± sd" of RoPE's score at each distance (M15).
inline constexpr long kEncodingsDecaySamples = 1000;

/// The five encodings in the order of the report's columns.
inline constexpr Encoding kEncodingsColumns[] = {Encoding::Sinusoidal, Encoding::LearnedAbsolute, Encoding::T5Bias,
                                                 Encoding::Alibi, Encoding::Rope};

struct EncodingsRequest {
  int tokens = 16;     ///< N of the shift test (1 … kMaxAttentionTokens)
  int dim = 64;        ///< d, even (2 … kMaxAttentionDim)
  int heads = 8;       ///< ALiBi's slopes, T5's parameters, d_model = heads·d (1 … kMaxAlibiHeads)
  long context = 512;  ///< the trained length L (1 … kMaxEncodingsContext)
  long shift = 100;    ///< C of the shift test (0 … kMaxEncodingsShift, tokens + C <= L)
  std::uint64_t seed = kDefaultSeed;
  double base = kDefaultBase;
};

struct EncodingsRun {
  EncodingsRequest request;
  std::vector<double> slopes;       ///< ALiBi's slopes of the heads
  Eigen::VectorXd theta;            ///< RoPE's frequencies
  T5Buckets t5;                     ///< T5's bucket parameters
  std::vector<ShiftReport> shifts;  ///< the shift test of each encoding of kEncodingsColumns
  std::vector<long> t5_starts;      ///< the smallest |j − i| of each T5 bucket of one direction
  std::vector<int> t5_before;       ///< the bucket of j − i = −start (j <= i)
  std::vector<int> t5_after;        ///< the bucket of j − i = +start (j > i); -1 for start 0
  Eigen::VectorXd distances;        ///< 0, 10, 100, 1000: the decay table's
  RandomScores random;              ///< RoPE's score of random pairs there (M15)
  Eigen::VectorXd bound;            ///< RoFormer's bound f(m) there (M11)
  Eigen::VectorXd ones;             ///< the all-ones score there (M14)
  Eigen::VectorXd sinusoidal;       ///< p_0·p_m there (M12)
  Eigen::Index first_beyond = 0;    ///< the first pair whose wavelength exceeds L (M16)
  bool rope_passed = false;         ///< RoPE's shift test within rounding
  bool exact_passed = false;        ///< T5's and ALiBi's shift test exactly 0

  bool passed() const { return rope_passed && exact_passed; }
};

/// @throws InvalidArgument for a setting outside its range (named through option_name), more work than
/// kMaxEncodingsWork, tokens + shift beyond the learned table.
EncodingsRun run_encodings(const EncodingsRequest& request);

}  // namespace rope
