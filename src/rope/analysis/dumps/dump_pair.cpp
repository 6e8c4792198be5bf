#include "rope/analysis/dumps/dump_pair.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope {

std::vector<AxisPosition> DumpPair::check_positions() const { return positions_as_axes(positions, axis_positions); }

DumpPair arrange_dump_pair(const TensorData& before, const TensorData& after, const DumpPairInput& in,
                           const std::string& before_name, const std::string& after_name) {
  if (before.shape != after.shape) {
    throw InvalidArgument(error_msg("{0} has shape {1}, {2} has {3}: they must be equal",
                                    in.after_label.empty() ? after_name : in.after_label, shape_string(after.shape),
                                    in.before_label.empty() ? before_name : in.before_label,
                                    shape_string(before.shape)));
  }
  if (in.rope_delta) {  // (Q5): every decode token at its sequence index + rope_deltas, on t, h and w alike
    if (!in.axis_positions.empty()) {
      throw InvalidArgument(
          error_msg("{0} shifts the sequence indices of {1}: the rows of {2} already hold every "
                    "axis's position",
                    option_name("rope_delta"), option_name("positions"), option_name(in.positions_setting)));
    }
    if (in.positions.empty()) {
      throw InvalidArgument(error_msg("{0} needs the decode tokens' sequence indices: give {1} (e.g. 24:28)",
                                      option_name("rope_delta"), option_name("positions")));
    }
    if (!(std::abs(*in.rope_delta) <= kMaxDumpPosition) || *in.rope_delta != std::floor(*in.rope_delta)) {
      throw InvalidArgument(error_msg("{0} must be a whole number within [-2^24, 2^24] (got {1})",
                                      option_name("rope_delta"), *in.rope_delta));
    }
    DumpPairInput shifted = in;
    shifted.rope_delta.reset();
    for (double& p : shifted.positions) p += *in.rope_delta;
    DumpPair pair = arrange_dump_pair(before, after, shifted, before_name, after_name);
    pair.rope_delta = *in.rope_delta;
    return pair;
  }
  DumpPair l;
  l.shape = after.shape;
  l.positions = in.positions;
  l.axis_positions = in.axis_positions;
  const long rows = in.rows;
  const std::string positions_name = option_name(in.positions_setting);
  if (in.axes) {
    l.axes = *in.axes;
  } else if (!l.positions.empty()) {
    l.axes = infer_dump_axes(after.shape, static_cast<long>(l.positions.size()) / rows, after_name, &l.axes_assumed);
  } else {  // 4 axes without positions: Hugging Face's [batch, heads, seq, d], said so
    l.axes = infer_dump_axes(after.shape, 0, after_name, &l.axes_assumed);
  }
  {  // The sequence indices, each a position to hold (docs/check.md: at most 2^22), before anything is arranged or
     // the positions 0, 1, … are made for a dump given without them: a (2^23, 2) dump took 531 MB.
    const DumpVectors shape = dump_geometry(after.shape, l.axes, after_name);
    const long indices = shape.seq * (rows > 1 && shape.batch == rows ? rows : 1);
    if (indices > kMaxDumpPositions) {
      throw InvalidArgument(error_msg("{0}: shape {1} (axes {2}) has {3} sequence indices, more than {4}",
                                      in.after_label.empty() ? after_name : in.after_label, shape_string(after.shape),
                                      to_string(l.axes), indices, kMaxDumpPositions));
    }
  }
  if (in.geometry_only) {
    l.before = dump_geometry(before.shape, l.axes, before_name);
    l.after = dump_geometry(after.shape, l.axes, after_name);
    l.before.dtype = before.dtype, l.after.dtype = after.dtype;
  } else {
    l.before = arrange_dump(before, l.axes, before_name);
    l.after = arrange_dump(after, l.axes, after_name);
  }
  if (rows > 1) {  // a row of positions per batch entry: the rows laid end to end along the sequence axis
    if (l.after.batch != rows && (rows == 3 || rows == 4) && in.axis_positions.empty() && in.row_length > 0) {
      // [3 or 4, seq]: M-RoPE's t, h, w(, e) per sequence index (HF's position_ids without the batch axis), as
      // [3, 1, seq] and --axis-positions give them.
      DumpPairInput axes_in = in;
      axes_in.rows = 1, axes_in.row_length = 0;
      axes_in.positions.assign(in.positions.begin(), in.positions.begin() + in.row_length);
      for (long s = 0; s < in.row_length; ++s) {
        AxisPosition p;
        p.count = static_cast<int>(rows);
        for (long k = 0; k < rows; ++k)
          p.value[static_cast<std::size_t>(k)] = in.positions[static_cast<std::size_t>(k * in.row_length + s)];
        axes_in.axis_positions.push_back(p);
      }
      return arrange_dump_pair(before, after, axes_in, before_name, after_name);
    }
    if (l.after.batch != rows) {
      throw InvalidArgument(error_msg("{0} has {1} rows, the dump's batch axis has {2} (shape {3}, axes {4})",
                                      positions_name, rows, l.after.batch, shape_string(after.shape),
                                      to_string(l.axes)));
    }
    if (in.row_length != l.after.seq) {
      throw InvalidArgument(
          error_msg("{0} gives {1} positions per row, the dump's sequence axis has {2} (shape {3}, axes {4})",
                    positions_name, in.row_length, l.after.seq, shape_string(after.shape), to_string(l.axes)));
    }
    l.segments = row_segments(rows, l.after.seq);
    l.segments_are_rows = true;
    l.before = rows_along_sequence(l.before);
    l.after = rows_along_sequence(l.after);
  }
  if (in.starts) {
    const std::string starts_name = option_name("sequence_starts");
    if (rows > 1)
      throw InvalidArgument(error_msg("give {0} or positions with a row per batch entry, not both", starts_name));
    l.segments = segments_from_starts(*in.starts, l.after.seq, starts_name);
    if (l.positions.empty()) l.positions = positions_within_segments(l.segments);
  }
  if (l.positions.empty()) {
    for (long s = 0; s < l.after.seq; ++s) l.positions.push_back(static_cast<double>(s));
    l.positions_assumed = true;
  }
  if (static_cast<long>(l.positions.size()) != l.after.seq) {
    throw InvalidArgument(error_msg(
        "{0}: the number of positions, {1}, is not the length of the dump's sequence axis, {2} (shape {3}, axes {4})",
        option_name(in.positions_setting), l.positions.size(), l.after.seq, shape_string(after.shape),
        to_string(l.axes)));
  }
  for (const double p : l.positions) {
    if (!(std::abs(p) <= kMaxDumpPosition)) {
      throw InvalidArgument(error_msg("{0}: {1} is outside [-2^24, 2^24]", positions_name, p));
    }
  }
  if (l.segments.empty() && l.axis_positions.empty()) {  // positions that start again: one sequence each
    const std::vector<long> restarts = position_restarts(l.positions);
    if (!restarts.empty() && restarts.size() < 1024) {
      std::vector<double> starts{0};
      for (const long r : restarts) starts.push_back(static_cast<double>(r));
      l.segments = segments_from_starts(starts, l.after.seq, positions_name);
    }
  }
  return l;
}

}  // namespace rope
