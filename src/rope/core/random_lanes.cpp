#include "rope/core/random_lanes.hpp"

#include <cmath>
#include <cstring>

#include "rope/core/constants.hpp"
#include "rope/core/simd.hpp"

namespace rope {

namespace {

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

inline double bits_to_double(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
inline std::uint64_t double_to_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split so that e·kLn2Hi is exact
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kSqrt2 = 1.41421356237309504880;

inline double log_inline(double x) {
  const std::uint64_t bits = double_to_bits(x);
  // Exponent field E as a double without an integer conversion: the bits of 2^52 + E, minus 2^52.
  const double biased = bits_to_double(0x4330000000000000ULL | (bits >> 52)) - 4503599627370496.0;
  double m = bits_to_double((bits & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);  // [1, 2)
  const bool big = m > kSqrt2;
  m = big ? 0.5 * m : m;  // [√½, √2)
  const double e = biased - 1023.0 + (big ? 1.0 : 0.0);
  // ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| <= 0.1716: 2s·Σ z^k/(2k+1), z = s², to k = 10.
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  double p = 1.0 / 21;
  p = p * z + 1.0 / 19;
  p = p * z + 1.0 / 17;
  p = p * z + 1.0 / 15;
  p = p * z + 1.0 / 13;
  p = p * z + 1.0 / 11;
  p = p * z + 1.0 / 9;
  p = p * z + 1.0 / 7;
  p = p * z + 1.0 / 5;
  p = p * z + 1.0 / 3;
  const double tail = 2.0 * s * z * p;  // 2s·(z/3 + z²/5 + …)
  return e * kLn2Hi + ((2.0 * s + tail) + e * kLn2Lo);
}

inline void sincos_turns_inline(double t, double& sine, double& cosine) {
  // Quadrant k = round(4t) in 0..4 (rounding by adding and subtracting 1.5·2^52, so that everything
  // stays in doubles and vectorizes); r = t − k/4 in [−1/8, 1/8] (exact); x = 2πr in [−π/4, π/4].
  const double k = (4.0 * t + 0x1.8p52) - 0x1.8p52;
  const double x = kTwoPi * (t - 0.25 * k);
  const double x2 = x * x;
  double sp = -1.0 / 1307674368000.0;  // −1/15!
  sp = sp * x2 + 1.0 / 6227020800.0;   // 1/13!
  sp = sp * x2 - 1.0 / 39916800.0;     // −1/11!
  sp = sp * x2 + 1.0 / 362880.0;       // 1/9!
  sp = sp * x2 - 1.0 / 5040.0;         // −1/7!
  sp = sp * x2 + 1.0 / 120.0;          // 1/5!
  sp = sp * x2 - 1.0 / 6.0;            // −1/3!
  const double s = x + x * x2 * sp;
  double cp = 1.0 / 20922789888000.0;  // 1/16!
  cp = cp * x2 - 1.0 / 87178291200.0;  // −1/14!
  cp = cp * x2 + 1.0 / 479001600.0;    // 1/12!
  cp = cp * x2 - 1.0 / 3628800.0;      // −1/10!
  cp = cp * x2 + 1.0 / 40320.0;        // 1/8!
  cp = cp * x2 - 1.0 / 720.0;          // −1/6!
  cp = cp * x2 + 1.0 / 24.0;           // 1/4!
  cp = cp * x2 - 0.5;                  // −1/2!
  const double c = 1.0 + x2 * cp;
  // Rotate by k quarter turns (k = 4 is k = 0): (c, s) → (−s, c) → (−c, −s) → (s, −c); compares of
  // doubles combined with & and |, no control flow.
  const double cs = std::fabs(k - 2.0) == 1.0 ? s : c;  // k = 1, 3
  const double ss = std::fabs(k - 2.0) == 1.0 ? c : s;
  cosine = std::fabs(k - 1.5) == 0.5 ? -cs : cs;  // k = 1, 2
  sine = std::fabs(k - 2.5) == 0.5 ? -ss : ss;    // k = 2, 3
}

constexpr int L = RandomLanes::kLanes;
constexpr std::size_t kChunk = 32;  // blocks per inner round: 2·32·8 uniforms on the stack

/// The kLanes lanes as one GCC vector (8 × 64 bits): the xoshiro256** step below is then SIMD code at
/// every x86-64 level of ROPE_CLONES (4 × 128-bit at baseline, 2 × 256 with AVX2, 1 × 512 with
/// AVX-512; written as a loop over lanes, GCC kept the state in scalar registers). Integer operations
/// and an exact conversion to double: the same bits at every level, and lane j is still the scalar
/// Random::from_state(lane_state(j)) (tests/core/test_random_lanes.cpp).
typedef std::uint64_t LaneWords __attribute__((vector_size(8 * L)));
typedef double LaneDoubles __attribute__((vector_size(8 * L)));

/// Steps every lane `steps` times; out[t·L + j] is lane j's t-th uniform.
ROPE_CLONES void uniform_steps(std::uint64_t (&state)[4][L], double* out, std::size_t steps) {
  LaneWords s0, s1, s2, s3;  // local copies: no aliasing with `out`, kept in registers
  std::memcpy(&s0, state[0], sizeof s0);
  std::memcpy(&s1, state[1], sizeof s1);
  std::memcpy(&s2, state[2], sizeof s2);
  std::memcpy(&s3, state[3], sizeof s3);
  const LaneWords exponent = LaneWords{} + 0x4330000000000000ULL;  // 2^52 + n read as a double
  const LaneDoubles two52 = LaneDoubles{} + 4503599627370496.0;
  for (std::size_t t = 0; t < steps; ++t) {
    const LaneWords a = s1 * 5;
    const LaneWords result = ((a << 7) | (a >> 57)) * 9;  // rotl(s1·5, 7)·9
    const LaneWords x = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= x;
    s3 = (s3 << 45) | (s3 >> 19);
    // (result >> 11)·2^-53, as Random::uniform, with the integer-to-double conversion done by bit
    // operations (2^52 + n read as a double, minus 2^52; a cast between vector types of one size keeps
    // the bits), which vectorizes without AVX-512: the 53 bits are split into their top 32 and low 21
    // bits, each converted exactly, and (hi·2^21 + lo)·2^-53 is exact too.
    const LaneDoubles hi = (LaneDoubles)(exponent | (result >> 32)) - two52;
    const LaneDoubles lo = (LaneDoubles)(exponent | ((result >> 11) & 0x1FFFFFULL)) - two52;
    const LaneDoubles u = (hi * 2097152.0 + lo) * 0x1.0p-53;
    std::memcpy(out + t * L, &u, sizeof u);
  }
  std::memcpy(state[0], &s0, sizeof s0);
  std::memcpy(state[1], &s1, sizeof s1);
  std::memcpy(state[2], &s2, sizeof s2);
  std::memcpy(state[3], &s3, sizeof s3);
}

/// u holds 2·n uniforms as uniform_steps writes them for n blocks (steps u₁, u₂ of each block);
/// writes 2·L·n normals in the order of fill_normal_blocks. n <= kChunk.
ROPE_CLONES void box_muller(const double* u, double* out, std::size_t n) {
  // Two sweeps, the radii first: each is one long loop of independent iterations, which keeps the
  // divider and the polynomial pipelines busier than one block's chain of log, sqrt, sin and cos.
  alignas(64) double radius[kChunk * L];
  for (std::size_t b = 0; b < n; ++b) {
    const double* u1 = u + 2 * b * L;
    for (int j = 0; j < L; ++j) radius[b * L + j] = __builtin_sqrt(-2.0 * log_inline(1.0 - u1[j]));  // 1 − u in (0, 1]
  }
  for (std::size_t b = 0; b < n; ++b) {
    const double* u2 = u + 2 * b * L + L;
    double* o = out + 2 * b * L;
    for (int j = 0; j < L; ++j) {
      const double r = radius[b * L + j];
      double sn, cs;
      sincos_turns_inline(u2[j], sn, cs);
      o[2 * j] = r * cs;
      o[2 * j + 1] = r * sn;
    }
  }
}

}  // namespace

namespace detail {
double log_branchless(double x) { return log_inline(x); }
void sincos_turns(double t, double& s, double& c) { sincos_turns_inline(t, s, c); }
}  // namespace detail

RandomLanes::RandomLanes(std::uint64_t seed) {
  for (int j = 0; j < L; ++j) {
    for (int w = 0; w < 4; ++w) {
      seed += 0x9E3779B97F4A7C15ULL;  // SplitMix64, as Random's constructor
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      s_[w][j] = z ^ (z >> 31);
    }
  }
}

std::array<std::uint64_t, 4> RandomLanes::lane_state(int j) const { return {s_[0][j], s_[1][j], s_[2][j], s_[3][j]}; }

void RandomLanes::fill_normal_blocks(double* out, std::size_t blocks) {
  alignas(64) double u[2 * kChunk * L];
  while (blocks > 0) {
    const std::size_t n = blocks < kChunk ? blocks : kChunk;
    uniform_steps(s_, u, 2 * n);
    box_muller(u, out, n);
    out += 2 * n * L;
    blocks -= n;
  }
}

void RandomLanes::fill_normal(double* out, std::size_t n) {
  const std::size_t block = 2 * L;
  fill_normal_blocks(out, n / block);
  const std::size_t rest = n % block;
  if (rest != 0) {
    double tmp[2 * L];
    fill_normal_blocks(tmp, 1);
    std::memcpy(out + n - rest, tmp, rest * sizeof(double));
  }
}

void RandomLanes::fill_uniform_step(double* out) { uniform_steps(s_, out, 1); }

void RandomLanes::below_step(std::uint64_t n, std::uint64_t* out) {
  __extension__ using Wide = unsigned __int128;
  for (int j = 0; j < L; ++j) {
    const std::uint64_t result = rotl(s_[1][j] * 5, 7) * 9;
    const std::uint64_t x = s_[1][j] << 17;
    s_[2][j] ^= s_[0][j];
    s_[3][j] ^= s_[1][j];
    s_[1][j] ^= s_[2][j];
    s_[0][j] ^= s_[3][j];
    s_[2][j] ^= x;
    s_[3][j] = rotl(s_[3][j], 45);
    out[j] = static_cast<std::uint64_t>((static_cast<Wide>(result) * n) >> 64);
  }
}

}  // namespace rope
