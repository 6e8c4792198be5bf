/// @file
/// Positions of a dump as tensors (docs/check.md): PyTorch's `position_ids` saved with np.save or as
/// safetensors (int64 as PyTorch makes them, or floats), or a text file; shapes [seq], [batch, seq] (a row
/// per batch entry: decode with per-row offsets), and [3, batch, seq] or [4, batch, seq] (M-RoPE's t, h, w
/// and a fourth axis, Hugging Face's layout). Packed sequences (several sequences along one sequence axis,
/// each restarting its positions) are described by their starts (cu_seqlens). The dump's batch rows laid
/// end to end along the sequence axis make a batch with per-row positions one long sequence whose
/// segments are the rows, so that a check reports each row.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/analysis/dumps/dump.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/models/axes.hpp"

namespace rope {

/// Positions read from a tensor or a text file.
struct DumpPositions {
  long rows = 1;                     ///< batch rows (1: the same positions for every batch entry)
  long seq = 0;                      ///< positions per row
  int components = 1;                ///< 1, or 3 or 4 (M-RoPE: t, h, w(, e))
  std::vector<AxisPosition> values;  ///< [rows][seq]
  std::vector<long> shape;           ///< the tensor's shape as read
};

/// Largest position a dump's positions may hold, in magnitude (2^24: float32 still holds every integer).
inline constexpr double kMaxDumpPosition = 16777216.0;

/// The positions of `tensor`: [seq], [batch, seq], or [3 or 4, batch, seq] (M-RoPE, HF's position_ids).
/// `name` starts every message. @throws InvalidArgument for another shape, an empty one, a value that is not
/// finite or beyond kMaxDumpPosition.
DumpPositions positions_from_tensor(const TensorData& tensor, const std::string& name);

/// The positions of a text file: numbers separated by commas, spaces, tabs or line ends (lines starting with
/// '#' skipped); when there are several lines and each holds the same number (> 1) of numbers, each line is a
/// batch row ([batch, seq]), else the numbers are one row ([seq]). @throws InvalidArgument as above, or for a
/// word that is not a number (naming its line).
DumpPositions positions_from_text(std::string_view text, const std::string& name);

/// Reads a file of positions: .npy, safetensors or torch.save (io/torch_file.hpp) by their first bytes (integers or
/// floats; `tensor` names one of a safetensors or torch.save file, empty: the file holds one), else text.
/// @throws IoError (unreadable), InvalidArgument as the two above.
DumpPositions read_positions_file(const std::string& path, const std::string& what, const std::string& tensor = "");

/// One row of a shift map (rope check --shift-map, check_mode.hpp (H2)): a key whose position changed from
/// `old_position` to `new_position`.
struct ShiftMapRow {
  double old_position = 0;
  double new_position = 0;
};

/// Reads a shift map as read_positions_file reads positions (.npy, safetensors, torch.save or text): [n, 2], a row
/// (old, new) per key; a text file may start with the CSV header `old,new`. @throws IoError (unreadable),
/// InvalidArgument as read_positions_file, for another shape, or a row whose new − old is beyond kMaxDumpPosition.
std::vector<ShiftMapRow> read_shift_map_file(const std::string& path, const std::string& what);

/// The positions of an axis-positions file (rope check and identify --axis-positions) when it is a tensor file
/// (.npy, safetensors or torch.save, by its first bytes, read as read_positions_file reads them): [C, seq] or
/// [C, batch, seq] with C = 2, 3 or 4 components per position (HF's position_ids [3, batch, seq], a vision tower's
/// (row, column)); nullopt for a text file, which parse_axis_position_rows (models/axes.hpp) reads.
/// @throws InvalidArgument for another shape, IoError and InvalidArgument as read_positions_file.
std::optional<DumpPositions> read_axis_positions_tensor(const std::string& path, const std::string& what);

/// A part of the sequence axis: a batch row laid along it, or one of packed sequences.
struct DumpSegment {
  long start = 0;
  long length = 0;
};

/// The packed sequences of a sequence axis of `seq` indices from their starts: cu_seqlens as FlashAttention's
/// varlen functions take it (0, ends…, seq) or the starts alone (0, …). @throws InvalidArgument naming `what`
/// unless the starts are integers, begin at 0 and increase strictly below seq.
std::vector<DumpSegment> segments_from_starts(const std::vector<double>& starts, long seq, const std::string& what);

/// Each index's position within its sequence: index − the start of its segment.
std::vector<double> positions_within_segments(const std::vector<DumpSegment>& segments);

/// `rows` equal segments of `length` indices each (a batch laid along the sequence axis).
std::vector<DumpSegment> row_segments(long rows, long length);

/// The dump with its batch rows laid end to end along the sequence axis: the vectors of batch row b at index
/// s go to index b·seq + s, groups become the heads. A dump with batch 1 comes back as it is.
/// A dump without values (the geometry of a streamed dump) comes back as the geometry laid out so.
DumpVectors rows_along_sequence(const DumpVectors& dump);

/// The indices [start, start + length) of the sequence axis.
DumpVectors slice_sequence(const DumpVectors& dump, long start, long length);

/// The indices where one-number positions restart: s > 0 with p[s] <= p[s−1] (chunked prefill and packed
/// sequences start again from 0).
std::vector<long> position_restarts(const std::vector<double>& positions);

}  // namespace rope
