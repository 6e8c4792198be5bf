/// @file
/// The floating-point types the numeric core runs in (docs/precision.md (P1), (P2)): float64, float32,
/// float16 (IEEE binary16, Eigen::half) and bfloat16 (Eigen::bfloat16), their names, machine epsilon,
/// the integers they hold exactly, and rounding a double to them.
///
/// Rounding is round-to-nearest-even. A double goes to float16 and bfloat16 through float32 (double →
/// float32 → type), as a framework casts a float32 tensor; for integers below 2^24 and for every value
/// that is already a float32 this is the single correct rounding.
#pragma once

#include <Eigen/Core>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rope {

enum class DType { F64, F32, F16, BF16 };

/// All four, widest first.
inline constexpr DType kAllDTypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16};

/// "f64", "f32", "f16" or "bf16".
std::string_view to_string(DType type);

/// Parses "f64", "f32", "f16", "bf16" (also "float64", "double", "float32", "float", "float16", "half",
/// "bfloat16"). @throws InvalidArgument naming the value otherwise.
DType parse_dtype(std::string_view text);

/// Bits of precision p (the implicit leading bit included): 53, 24, 11, 8.
int precision_bits(DType type);

/// Machine epsilon ε = 2^(1−p), the gap between 1 and the next number: 2.2e-16, 1.19e-7, 9.77e-4,
/// 7.81e-3 (P1). Not std::numeric_limits<Eigen::half>::epsilon(), which is 2^-13 in Eigen 3.4.0.
double epsilon(DType type);

/// The largest N such that every integer 0 … N is exactly representable: 2^p (P2). 256 for bfloat16
/// (257 rounds to 256), 2048 for float16, 2^24 for float32, 2^53 for float64.
double max_exact_integer(DType type);

/// The largest finite value: 65504 for float16, about 3.39e38 for bfloat16.
double max_finite(DType type);

/// x rounded to the type and back to double (float16 overflows to ±inf above 65519.99…).
double round_to(DType type, double x);

/// Scalar type of each DType, for templates.
template <DType T>
struct ScalarOf;
template <>
struct ScalarOf<DType::F64> {
  using type = double;
};
template <>
struct ScalarOf<DType::F32> {
  using type = float;
};
template <>
struct ScalarOf<DType::F16> {
  using type = Eigen::half;
};
template <>
struct ScalarOf<DType::BF16> {
  using type = Eigen::bfloat16;
};

/// The type in which T's sums and dot products accumulate (P6), (P10): float32 for the 16-bit types,
/// T itself otherwise, as GPU kernels do.
template <typename T>
struct Accumulator {
  using type = T;
};
template <>
struct Accumulator<Eigen::half> {
  using type = float;
};
template <>
struct Accumulator<Eigen::bfloat16> {
  using type = float;
};

/// A value of any of the four types as a double (exactly: each converts to float32 without rounding).
template <typename T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(static_cast<float>(x));  // Eigen::half, Eigen::bfloat16
  }
}

/// ⟨a, b⟩ accumulated in Accumulator<T> and rounded to T, as a double (docs/precision.md (P6)).
template <typename T>
double dot_in(const Eigen::Matrix<T, Eigen::Dynamic, 1>& a, const Eigen::Matrix<T, Eigen::Dynamic, 1>& b) {
  using A = typename Accumulator<T>::type;
  return to_double(static_cast<T>(a.template cast<A>().dot(b.template cast<A>())));
}

/// Integer positions 0 … P that the type cannot keep apart (P2): they round to a value that another
/// position also rounds to.
struct PositionMerges {
  DType type = DType::F64;
  double max_position = 0;  ///< P
  long distinct = 0;        ///< distinct finite values of round_to(type, m), m = 0 … P
  long inexact = 0;         ///< positions with round_to(type, m) != m
  long merged = 0;          ///< P + 1 − distinct − overflow: positions lost by merging
  long overflow = 0;        ///< positions that round to infinity (float16 above 65519)
  /// The first groups of two or more positions with one value: {value, first, last}.
  struct Group {
    double value;
    double first;
    double last;
  };
  std::vector<Group> first_groups;
};

/// Counts the merges of 0 … max_position by scanning every integer; keeps the first `groups` groups.
/// @throws InvalidArgument unless max_position is an integer in [0, 2^24].
PositionMerges position_merges(DType type, double max_position, int groups = 3);

}  // namespace rope
