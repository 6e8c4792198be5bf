/// @file
/// The options `rope check` and `rope identify` share: the two dumps (--before, --after), their positions,
/// axes, the safetensors tensor name and --bf16-bits; and loading them (rope/io/tensor_file.hpp,
/// rope/analysis/dump.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/dump.hpp"
#include "rope/analysis/dump_positions.hpp"
#include "rope/analysis/dump_stream.hpp"
#include "rope/cli/lang.hpp"
#include "rope/models/axes.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace rope::cli {

struct DumpOptions {
  std::string before;     ///< --before FILE
  std::string after;      ///< --after FILE
  std::string positions;  ///< --positions A:B[:STEP] | LIST | @FILE | FILE (.npy, safetensors, text); empty: 0:seq
  std::string sequence_starts;  ///< --sequence-starts LIST | @FILE | FILE: packed sequences (cu_seqlens)
  std::string axis_positions;  ///< --axis-positions FILE (rope check): one t,h,w row per sequence index
  std::string axes;       ///< --axes; empty: from the shape
  std::string tensor;     ///< --tensor NAME (safetensors)
  bool bf16_bits = false; ///< --bf16-bits
};

/// Adds the shared options; `axis_positions` adds --axis-positions too (rope check, for M-RoPE); without
/// `after` the command names its outputs itself (rope diff's --after-a and --after-b).
void add_dump_options(CLI::App& app, DumpOptions& options, bool axis_positions = false, bool after = true);

/// Largest --axis-positions file: 4,194,304 rows (kMaxDumpPositions) of about 16 characters.
inline constexpr std::size_t kMaxAxisPositionsBytes = std::size_t{64} << 20;

struct LoadedDumps {
  DumpVectors before, after;
  std::vector<double> positions;   ///< one number per sequence index (the first component of axis_positions)
  std::vector<AxisPosition> axis_positions;  ///< --axis-positions: every component; empty without it
  std::string positions_text;  ///< as typed, or "0:seq"
  bool positions_assumed = false;  ///< --positions not given
  DumpAxes axes = DumpAxes::SeqD;
  std::vector<long> shape;
  std::string stored;          ///< the after dump's type as its file spells it
  /// Batch rows with positions of their own ([batch, seq] positions) or packed sequences: the parts of the
  /// sequence axis reported one by one (the rows are laid end to end along it, rows_along_sequence).
  std::vector<DumpSegment> segments;
  bool segments_are_rows = false;  ///< the segments are batch rows (else packed sequences)
  std::string starts_text;         ///< --sequence-starts as typed, or "" (restarts found in the positions)
  /// open_dumps: both files read in pieces (.npy or safetensors); `before` and `after` then hold the geometry
  /// alone (values empty).
  std::shared_ptr<StreamSource> stream;
};

/// Reads both files and arranges them. @throws InvalidArgument (shapes differ, positions do not match the
/// sequence axis, a malformed file), IoError (unreadable file).
LoadedDumps load_dumps(const DumpOptions& options);

/// The same, with both files left on disk and read in pieces when both are .npy or safetensors (no size
/// limit but the disk's); a CSV file is read whole as load_dumps does.
LoadedDumps open_dumps(const DumpOptions& options);

/// The positions as typed, or "0:seq (assumed)" in the language of t.
std::string positions_text(const LoadedDumps& dumps, const Text& t);

/// "head 3", or "batch 1, head 3" when the dump has a batch axis longer than 1.
std::string group_name(const DumpVectors& dump, long group, const Text& t);

/// "head 3" or "batch 1, head 3" of the vector at sequence index s, group g, batch rows laid along the
/// sequence axis counted too.
std::string vector_name(const LoadedDumps& dumps, long s, long group, const Text& t);

}  // namespace rope::cli
