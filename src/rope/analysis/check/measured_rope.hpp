/// @file
/// A failing dump measured before it is named: the RoPE it holds, read by identify's engine (identify.hpp), and the
/// parameters where it differs from the expectation, each with its expected and found value (docs/check.md, "The
/// measurement"). Declared here for the check's diagnosis and defined by identify (identify_check.cpp), which may read
/// a check's dump: the measurement is one, the engine of `rope identify`, never a second one.
#pragma once

#include <optional>
#include <vector>

#include "rope/analysis/check/check.hpp"

namespace rope {

/// Most elements of each dump the measurement reads (a quarter of what rope identify holds, identify_run.hpp, so that
/// a failing check stays within twice a passing one's time): a larger dump is measured on evenly spaced sequence
/// indices and its first 4 groups.
inline constexpr long kMeasuredElements = 1L << 19;

/// The RoPE of the dump's sequence indices [start, start + positions.size()) measured by identify's engine at the
/// positions given (their first component); nullopt where it cannot measure (positions with several components, no
/// position other than 0, a head larger than identify takes). Defined in analysis/identify/identify_check.cpp.
std::optional<CheckDiagnosis::Measured> measure_dump(const DumpSource& source, long start,
                                                     const std::vector<AxisPosition>& positions);

/// The one turn δ of every vector of the dump's sequence indices [start, start + seq) (a K cache moved as one shift):
/// per pair j of `expected`, the phase c_j of Σ conj(z_before)·z_after over every vector, and the integer δ within
/// ±2¹⁶ that fits every c_j = θ_j·δ (identify's best_integer_shift, each pair weighted by |Σ|); nullopt where no pair
/// turns. Defined in analysis/identify/identify_check.cpp.
std::optional<double> measure_one_turn(const DumpSource& source, long start, long seq, const RopeExpectation& expected);

}  // namespace rope
