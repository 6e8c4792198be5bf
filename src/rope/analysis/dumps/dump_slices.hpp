/// @file
/// A tensor too large for one bounded read (kMaxTensorElements) cut into slices that each rotate with the same
/// positions as the whole, so that RoPE's float64 reference (rope.reference) of the slices, put back in place, is
/// the reference of the whole: along the heads axis (every head turns by the same positions), and, where one head
/// is still too large, along the batch axis when the batch rows share their positions. The expectation depends on
/// the positions only (their largest one decides dynamic scaling and LongRoPE's list), and no slice changes them.
#pragma once

#include <vector>

#include "rope/analysis/dumps/dump.hpp"

namespace rope {

/// Elements [start, stop) of axis `axis` of the tensor's shape, every other axis whole.
struct DumpSlice {
  int axis = 0;
  long start = 0;
  long stop = 0;
};

/// The slice rope.reference reads at a time where a cut makes it so: each element is held about 30 bytes' worth
/// while it is read (the slice's copy and .npy bytes, float64 before and after arranged, the expected values), so
/// 2^22 elements hold about 120 MiB beside the result (2^24 held 480 MiB).
inline constexpr long kPreferredSliceElements = 1L << 22;

/// The slices of a tensor of `shape` read with `axes`, each at most `preferred_elements` elements where a cut makes
/// them so, else at most `max_elements`, in order; one slice (axis 0, the whole) when the tensor has at most
/// `max_elements`. `position_rows`: the rows of the positions (1: shared by every batch row).
/// @throws InvalidArgument when one head of one batch row is larger than `max_elements`, or one head of a batch
///         whose rows have their own positions is (naming the shape, the limit and how to split it).
std::vector<DumpSlice> dump_slices(const std::vector<long>& shape, DumpAxes axes, long position_rows, long max_elements,
                                   long preferred_elements = 0);

}  // namespace rope
