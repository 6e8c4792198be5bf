/// @file
/// The number policy of rope's tables and reports: a number is shown with the significant digits that
/// separate the values it is compared with, the same count for all of them, at least a few (4 by default)
/// and as many as it takes to show two different values different (up to 17, the round trip of a double).
/// A failure "expected -1.222, got -1.222" is thus "expected -1.22213, got -1.22198". CSV and JSON keep
/// the full precision (io/csv.hpp format_number), and `--digits N` asks for N everywhere it is offered.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "rope/io/csv.hpp"

namespace rope {

/// The significant digits of a table's computed numbers that nobody compares with each other (θ_i, λ_i,
/// angles, a rotated vector: `frequencies`, `apply`, `inspect`) when `--digits` is not given: 6, the
/// digits of the matrix and decay tables beside them. `--digits 0` prints every digit; CSV and JSON keep them.
inline constexpr int kTableDigits = 6;

/// A computed number a person reads outside the compared tables (a wavelength, an attention factor, a score):
/// an integer (a position, a context, a count) as an integer, every other value with `digits` significant digits
/// (kTableDigits unless `--digits N` asked for N; 0: every digit, the shortest that reads back). "7.25571",
/// "1.13863", "1048576". CSV and JSON keep every digit.
std::string readable(double x, int digits = kTableDigits);

/// The width of a table column of numbers with `digits` significant digits (0: every digit, up to 24
/// characters): room for a sign, the point and an exponent.
inline int column_width(int digits) { return digits == 0 || digits > 16 ? 24 : std::max(12, digits + 8); }

/// The fewest significant digits, from `min_digits` up to 17, with which every two different values of
/// `values` print differently in %g form (equal values, infinities and NaN need no more than `min_digits`).
int separating_digits(const std::vector<double>& values, int min_digits = 4);

/// Each of `values` in %g form with separating_digits(values, min_digits) digits.
std::vector<std::string> separated(const std::vector<double>& values, int min_digits = 4);

/// `x` with `digits` significant digits (%g form); 0: the shortest form that reads back as `x` (io/csv.hpp).

/// `x` in scientific form with `digits` significant digits ("1.23e-14" for 3); 0: the fewest that read
/// back as `x`. The form of tables whose values span orders of magnitude (errors, tolerances).
std::string sci_with_digits(double x, int digits);

/// The digits of a table or report whose values are compared in groups (an error and its tolerance, the
/// curves at one position, an expected and a got value): `requested` when `--digits N` was given (0: every
/// digit), else the most that any one group needs to show its different values different (at least
/// `min_digits`), so that one count holds for the whole table and its columns keep their width.
int digits_for(const std::vector<std::vector<double>>& groups, const std::optional<int>& requested, int min_digits);

/// `values` compared in one sentence (an error and its tolerance), in %g form with
/// digits_for({values}, requested, min_digits) digits.
std::vector<std::string> compared(const std::vector<double>& values, const std::optional<int>& requested,
                                  int min_digits = 3);

/// The same in scientific form (sci_with_digits).
std::vector<std::string> compared_sci(const std::vector<double>& values, const std::optional<int>& requested,
                                      int min_digits = 3);

}  // namespace rope
