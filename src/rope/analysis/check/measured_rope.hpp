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

/// Most elements of each dump the measurement reads (as rope identify holds at most, identify_run.hpp): a larger dump
/// is measured on evenly spaced sequence indices and its first groups.
inline constexpr long kMeasuredElements = 1L << 21;

/// The RoPE of the dump's sequence indices [start, start + positions.size()) measured by identify's engine at the
/// positions given (their first component); nullopt where it cannot measure (positions with several components, no
/// position other than 0, a head larger than identify takes). Defined in analysis/identify/identify_check.cpp.
std::optional<CheckDiagnosis::Measured> measure_dump(const DumpSource& source, long start,
                                                     const std::vector<AxisPosition>& positions);

}  // namespace rope
