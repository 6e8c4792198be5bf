/// @file
/// Two dumps of one tensor, before and after RoPE, with their positions, arranged as `rope check` and
/// `rope identify` compare them (docs/check.md): the same shape, the axes of that shape, positions per
/// sequence index (given, from packed sequences' starts, or 0 … seq − 1), a batch with a row of positions per
/// entry laid end to end along the sequence axis, and the parts of the sequence axis reported one by one.
/// Every front end (the command line's --before/--after/--positions, the Python module's arguments) reads
/// its inputs its own way and arranges them here; messages name its settings through option_name
/// (core/message.hpp): "positions", "sequence_starts", "axis_positions", "axes".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/dumps/dump.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/models/axes.hpp"

namespace rope {

/// The positions and layout a front end was given; what is empty was not given.
struct DumpPairInput {
  std::vector<double> positions;                ///< one number per index (the first component), or empty
  std::vector<AxisPosition> axis_positions;     ///< every component, when the positions have several
  long rows = 1;                                ///< rows of positions: one per batch entry when > 1
  long row_length = 0;                          ///< positions per row (rows > 1)
  std::optional<std::vector<double>> starts;    ///< packed sequences: the index where each starts (cu_seqlens)
  std::optional<DumpAxes> axes;                 ///< the axes of the shape; nullopt: inferred
  std::string positions_setting = "positions";  ///< the setting that gave the positions ("axis_positions")
  /// M-RoPE decoding (models/mrope_positions.hpp (Q5)): the positions are the tokens' sequence indices, each
  /// rotated at index + rope_deltas on every axis; needs `positions`, not `axis_positions`.
  std::optional<double> rope_delta;
  /// The dumps as the message about their shapes names them ("--after 'q.npy'"); empty: the names below.
  std::string before_label, after_label;
  /// The tensors hold their shapes and types alone (a streamed check reads the values in blocks,
  /// analysis/check/fast/dump_stream.hpp): the dumps are arranged as geometry, without values.
  bool geometry_only = false;
};

/// The two dumps arranged: what check_dump and identify_rope take.
struct DumpPair {
  DumpVectors before, after;
  std::vector<double> positions;             ///< one number per sequence index (the first component)
  std::vector<AxisPosition> axis_positions;  ///< every component; empty for one-number positions
  bool positions_assumed = false;            ///< none given: 0 … seq − 1
  DumpAxes axes = DumpAxes::SeqD;
  /// 4 axes read as [batch, heads, seq, d] without --axes, the positions fitting both readings or not given
  /// (infer_dump_axes): the reports say so.
  bool axes_assumed = false;
  std::vector<long> shape;
  /// Batch rows with positions of their own, or packed sequences: the parts of the sequence axis reported
  /// one by one (rows laid end to end along it, rows_along_sequence).
  std::vector<DumpSegment> segments;
  bool segments_are_rows = false;
  /// The rope_deltas the positions include (DumpPairInput::rope_delta; 0: none): check's variant "decode tokens
  /// without rope_deltas" turns each token at its index alone.
  double rope_delta = 0;

  /// The positions as check_dump takes them: axis_positions, or each number as a position of one component.
  std::vector<AxisPosition> check_positions() const;
};

/// Arranges `before` and `after` (tensors read by io/tensor_file or handed over by a front end) with `input`.
/// `before_name` and `after_name` start the messages about each one's shape ("q.npy", "after"). Positions of 3 or 4
/// rows where the dump's batch axis has not that many are M-RoPE's components ([3, seq]: t, h, w per index).
/// @throws InvalidArgument: shapes that differ, a shape the axes do not fit, positions that do not match the
///         sequence or batch axis or lie beyond ±2^24, bad sequence starts.
DumpPair arrange_dump_pair(const TensorData& before, const TensorData& after, const DumpPairInput& input,
                           const std::string& before_name, const std::string& after_name);

}  // namespace rope
