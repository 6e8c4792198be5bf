// A large tensor cut into slices that rotate with the whole's positions (dump_slices.hpp).
#include "rope/analysis/dumps/dump_slices.hpp"

#include <algorithm>
#include <optional>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_file.hpp"

namespace rope {

namespace {

/// Axis `axis` of `shape` cut into runs of at most `per` of its entries.
std::vector<DumpSlice> slices_along(int axis, long length, long per) {
  std::vector<DumpSlice> out;
  for (long start = 0; start < length; start += per) out.push_back({axis, start, std::min(length, start + per)});
  return out;
}

/// The slices of at most `limit` elements along the heads, else the batch rows sharing the positions; none when
/// neither cut is that small.
std::optional<std::vector<DumpSlice>> slices_within(const std::vector<long>& shape, DumpAxes axes, long position_rows,
                                                    long total, long limit) {
  int heads_axis = -1, batch_axis = -1;
  switch (axes) {
    case DumpAxes::SeqD:
      break;
    case DumpAxes::SeqHeadsD:
      heads_axis = 1;
      break;
    case DumpAxes::BatchHeadsSeqD:
      batch_axis = 0, heads_axis = 1;
      break;
    case DumpAxes::BatchSeqHeadsD:
      batch_axis = 0, heads_axis = 2;
      break;
  }
  if (heads_axis < 0) return std::nullopt;
  const long heads = shape[static_cast<std::size_t>(heads_axis)];
  const long per_head = total / std::max(1L, heads);
  if (per_head <= limit) return slices_along(heads_axis, heads, limit / per_head);
  // One head is too large: the batch rows, when they share the positions (a row's own would change them).
  if (batch_axis >= 0 && position_rows <= 1) {
    const long per_row = total / std::max(1L, shape[0]);  // every head of one batch row
    if (per_row <= limit) return slices_along(batch_axis, shape[0], limit / per_row);
  }
  return std::nullopt;
}

}  // namespace

std::vector<DumpSlice> dump_slices(const std::vector<long>& shape, DumpAxes axes, long position_rows, long max_elements,
                                   long preferred_elements) {
  long total = 1;
  for (const long n : shape) total *= n;
  if (total <= max_elements || shape.empty()) return {{0, 0, shape.empty() ? 0 : shape.front()}};
  if (preferred_elements > 0 && preferred_elements < max_elements) {
    if (auto s = slices_within(shape, axes, position_rows, total, preferred_elements)) return *s;
  }
  if (auto s = slices_within(shape, axes, position_rows, total, max_elements)) return *s;
  throw InvalidArgument(
      error_msg("{0}: shape {1} (axes {2}) has {3} elements, more than the {4} one slice of it may hold, and no "
                "cut along its heads (or its batch rows, when they share the positions) is that small: call it on "
                "slices of the sequence axis, each with its own {5}",
                "x", shape_string(shape), to_string(axes), total, max_elements, option_name("positions")));
}

}  // namespace rope
