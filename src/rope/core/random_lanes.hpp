/// @file
/// Random draws in bulk for the fast paths (identity_check.hpp, the benchmarks): kLanes independent
/// xoshiro256** streams (random.hpp) stepped together, so that the compiler turns the steps into SIMD
/// instructions, and a Box–Muller transform written with branch-free polynomials for log, sin and cos
/// that vectorizes too (std::log, std::cos per element do not). Lane j is exactly the scalar generator
/// Random::from_state(lane_state(j)), and fill_normal gives what that generator's normal() gives to
/// within a few ulp (tests/core/test_random_lanes.cpp checks both).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rope {

class RandomLanes {
 public:
  static constexpr int kLanes = 8;

  /// Lane states come from the SplitMix64 sequence of `seed`, 4 words per lane (as Random seeds its
  /// one state), so different lanes start at unrelated points of the 2^256 − 1 cycle.
  explicit RandomLanes(std::uint64_t seed);

  /// The current state of lane j (0 <= j < kLanes), for Random::from_state.
  std::array<std::uint64_t, 4> lane_state(int j) const;

  /// 2·kLanes·blocks standard normals. Block b, lane j gives out[2·(b·kLanes + j)] and the next
  /// value: r·cos(2πu₂) and r·sin(2πu₂) with r = √(−2 ln u₁), u₁ = 1 − uniform, u₂ = uniform, both
  /// from lane j (the order of Random::normal).
  void fill_normal_blocks(double* out, std::size_t blocks);

  /// n standard normals, any n: whole blocks, then what is left of one more block.
  void fill_normal(double* out, std::size_t n);

  /// One uniform in [0, 1) from each lane: out[j] from lane j (53 bits, as Random::uniform).
  void fill_uniform_step(double* out);

  /// One uniform integer in [0, n) from each lane (Lemire's multiply-shift, as Random::below).
  void below_step(std::uint64_t n, std::uint64_t* out);

 private:
  alignas(64) std::uint64_t s_[4][kLanes];
};

namespace detail {
/// ln x for a positive, normal x, branch-free (exponent by bit operations, atanh series of degree 21 on
/// [√½, √2)); relative error below 1e-15 (tests compare with std::log).
double log_branchless(double x);
/// sin(2πt) and cos(2πt) for t in [0, 1), branch-free (quadrant from round(4t), Taylor series of degree
/// 15 / 16 on [−π/4, π/4]); absolute error below 1e-15.
void sincos_turns(double t, double& s, double& c);
}  // namespace detail

}  // namespace rope
