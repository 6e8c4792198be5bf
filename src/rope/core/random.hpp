/// @file
/// A small, fast, portable random generator: xoshiro256** (Blackman & Vigna 2018,
/// https://prng.di.unimi.it/) seeded through SplitMix64, with uniform integers and standard normals.
/// Unlike std::normal_distribution its output is the same with every standard library, so a seed
/// printed by `rope verify` reproduces the same draws anywhere.
#pragma once

#include <cmath>
#include <cstdint>

#include "rope/core/constants.hpp"

namespace rope {

/// Seed used when the user gives none, so that the default output is reproducible.
inline constexpr std::uint64_t kDefaultSeed = 2104;  // RoFormer is arXiv:2104.09864

class Random {
 public:
  explicit Random(std::uint64_t seed) {
    // SplitMix64 spreads any seed, including 0, over the 256-bit state.
    for (auto& word : state_) {
      seed += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      word = z ^ (z >> 31);
    }
  }

  /// A generator continuing from a given xoshiro256** state (not all zero), e.g. one lane of
  /// RandomLanes (random_lanes.hpp), so that the lanes can be checked against this scalar generator.
  static Random from_state(const std::uint64_t (&state)[4]) {
    Random r(0);
    for (int i = 0; i < 4; ++i) r.state_[i] = state[i];
    return r;
  }

  /// The next 64 random bits (xoshiro256**).
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1), with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; its bias is below n/2^64).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using Wide = unsigned __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
  }

  /// Standard normal N(0, 1) by the Box–Muller transform; the second value of each pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(kTwoPi * u2);
    has_spare_ = true;
    return r * std::cos(kTwoPi * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t state_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace rope
