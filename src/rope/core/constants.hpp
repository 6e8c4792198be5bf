/// @file
/// The constants every part of rope shares: one π and one κ, the safety factor of the tolerance
/// (docs/math.md (M13)). Nothing else defines either; tests/core/test_constants.cpp holds their values.
#pragma once

namespace rope {

/// π in the type T (double, long double), as C++20's std::numbers::pi_v: 36 significant digits, more
/// than the 113 bits of a quadruple-precision long double need. For double the long double value is
/// rounded again; π's bits after the 53rd are far from a half-way point, so that is still the double
/// nearest to π (tests/core/test_constants.cpp compares both with std::acos(-1) bit for bit).
template <typename T>
inline constexpr T pi_v = static_cast<T>(3.141592653589793238462643383279502884L);

/// π in double: 3.141592653589793, the double nearest to π, equal to std::acos(-1.0).
inline constexpr double kPi = pi_v<double>;

/// 2π in double, one turn: 6.283185307179586. Doubling is exact, so it is also the double nearest to 2π.
inline constexpr double kTwoPi = 2 * kPi;

/// κ in (M13), the tolerance |Δ|/S <= κ·ε·(d + M) of rope/core/tolerance.hpp. The bound counts each
/// rounding once; 8 leaves room for the few roundings per term it does not count (θ itself, the product,
/// cos or sin) without hiding a real bug, whose error is of the order of S. Every printed "8·ε" prints
/// this constant.
inline constexpr double kToleranceSafety = 8.0;

}  // namespace rope
