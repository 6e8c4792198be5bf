/// @file
/// A failing dump measured before it is named: the RoPE it holds, read by identify's engine (identify.hpp), and the
/// parameters where it differs from the expectation, each with its expected and found value (docs/check.md, "The
/// measurement"). Declared here for the check's diagnosis and defined by identify (identify_check.cpp), which may read
/// a check's dump: the measurement is one, the engine of `rope identify`, never a second one.
#pragma once

#include <algorithm>
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

/// The failing elements of a dump classified one by one, over the whole dump (check_diagnosis.cpp): each rotated
/// element y_c of pair (x_a, x_b) at position m that is not RoPE's a·(R(mθ)x)_c within the bound below, and is instead
/// its input x_c (never written), a·x_c·cos(mθ) (the sin term dropped) or 0; where they lie (channels, sequence
/// indices, groups). Bound: 8·ε_T + 4·ε_f32·(1 + |mθ|) of a·‖x‖ (the dump's rounding and a float32 angle's), which
/// keeps the classes apart wherever they differ by more than that.
struct ElementClasses {
  long failing = 0, unrotated = 0, cos_only = 0, zero = 0;  ///< a failing element may be of several kinds
  bool block = false;  ///< every element of the channels and groups below keeps its input at every sequence index
  int first_channel = -1, last_channel = -1;  ///< of the unrotated elements
  long first_index = -1, last_index = -1;     ///< of the unrotated elements
  std::vector<char> channels, indices, groups;
  long count(const std::vector<char>& v) const { return static_cast<long>(std::count(v.begin(), v.end(), 1)); }
};

/// Most elements the element classification reads (each dump): a larger dump is classified at its failing sequence
/// indices alone, where they hold at most this many; more are left to the measurement of its RoPE.
inline constexpr long kClassifiedElements = 1L << 24;

/// The failing elements classified (ElementClasses), over every sequence index of a dump of at most `max_elements`,
/// else over the indices that `whole` (the range's comparison with the expectation) found failing (a passing index has
/// no failing element), where they hold at most `max_elements`; nullopt otherwise (check_diagnosis.cpp).
std::optional<ElementClasses> classify_elements(const RopeExpectation& expected, const DumpSource& source, long start,
                                                const std::vector<AxisPosition>& positions, const DumpComparison& whole,
                                                long max_elements = kClassifiedElements);

/// The one turn δ of every vector of the dump's sequence indices [start, start + seq) (a K cache moved as one shift):
/// per pair j of `expected`, the phase c_j of Σ conj(z_before)·z_after over every vector, and the integer δ within
/// ±2¹⁶ that fits every c_j = θ_j·δ (identify's best_integer_shift, each pair weighted by |Σ|); nullopt where no pair
/// turns. Defined in analysis/identify/identify_check.cpp.
std::optional<double> measure_one_turn(const DumpSource& source, long start, long seq, const RopeExpectation& expected);

/// The base of a failing dump's ladder read where it departs (check_diagnosis.cpp): θ_i of the first departing pair
/// measured where the dump's angles are largest (from θ_i ≈ φ/m at the departure, each step the largest position whose
/// predicted angle is known within half a radian, the turn unwrapped there), its base θ_i^(−r/(2i)) snapped to a round
/// value (the family table's rope_theta values, else the fewest significant digits within 3 errors). nullopt for
/// multi-axis positions, a scaled expectation or a rotary offset, where the departure is no rotation of a pair i ≥ 1
/// at a positive position, or the base is the expected one, not above 1 or beyond 10¹².
std::optional<double> base_at_departure(const CheckReport& report, const DumpSource& source, long start,
                                        const std::vector<AxisPosition>& positions);

/// A latent grid's base read where the dump departs (docs/multi-axis.md (G2), check_diagnosis.cpp): each axis's
/// θ_{a,i} = b^(−2i/w_a), so another base b' raises every θ_j to the power ln b'/ln b, read at the first departing pair
/// (the angle it turned by over its axis's position); b' as read, nullopt where the pair turned no angle to read or
/// the map's frequencies are its own per pair.
std::optional<double> grid_base_at_departure(const CheckReport& report, const std::vector<AxisPosition>& positions);

/// Compares `v` over the whole dump (check_diagnosis.cpp); when it passes, the diagnosis names its row with its `found`
/// and the measured difference `diff`, and the share it explains. Returns whether it passed.
bool confirm_difference(CheckReport& report, const DumpSource& source, long start,
                        const std::vector<AxisPosition>& positions, Variant v,
                        std::vector<CheckDiagnosis::Difference> diff);

}  // namespace rope
