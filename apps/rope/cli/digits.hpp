/// @file
/// The number policy of rope's tables and reports: a number is shown with the significant digits that
/// separate the values it is compared with, the same count for all of them, at least a few (4 by default)
/// and as many as it takes to show two different values different (up to 17, the round trip of a double).
/// A failure "expected -1.222, got -1.222" is thus "expected -1.22213, got -1.22198". CSV and JSON keep
/// the full precision (io/csv.hpp format_number), and `--digits N` asks for N everywhere it is offered.
#pragma once

#include <string>
#include <vector>

namespace rope::cli {

/// The fewest significant digits, from `min_digits` up to 17, with which every two different values of
/// `values` print differently in %g form (equal values, infinities and NaN need no more than `min_digits`).
int separating_digits(const std::vector<double>& values, int min_digits = 4);

/// Each of `values` in %g form with separating_digits(values, min_digits) digits.
std::vector<std::string> separated(const std::vector<double>& values, int min_digits = 4);

/// `x` with `digits` significant digits (%g form); 0: the shortest form that reads back as `x`.
std::string with_digits(double x, int digits);

}  // namespace rope::cli
