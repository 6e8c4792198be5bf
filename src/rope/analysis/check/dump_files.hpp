/// @file
/// A pair of dumped tensors as `rope check`, `diff` and `identify` name them (the files before and after RoPE,
/// their positions, axes, the safetensors tensor name, bfloat16 bits), and reading them: whole (load_dumps) or
/// left on disk and read in blocks (open_dumps, analysis/check/fast/dump_stream.hpp), arranged by
/// analysis/dumps/dump_pair.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/dumps/dump.hpp"
#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/analysis/check/fast/dump_stream.hpp"
#include "rope/models/axes.hpp"

namespace rope {

class TensorDirectory;

struct DumpFiles {
  std::string before;     ///< --before FILE
  std::string after;      ///< --after FILE
  std::string positions;  ///< --positions A:B[:STEP] | LIST | @FILE | FILE (.npy, safetensors, text); empty: 0:seq
  std::string sequence_starts;       ///< --sequence-starts LIST | @FILE | FILE: packed sequences (cu_seqlens)
  std::string axis_positions;        ///< --axis-positions FILE (rope check): one t,h,w row per sequence index
  std::string axes;                  ///< --axes; empty: from the shape
  std::optional<double> rope_delta;  ///< --rope-delta D (rope check): M-RoPE decode tokens at index + D
  std::string tensor;                ///< --tensor NAME (safetensors, torch.save): both files' tensor
  std::string before_tensor;         ///< --before-tensor NAME: the before file's (over tensor)
  std::string after_tensor;          ///< --after-tensor NAME: the after file's (over tensor)
  std::string positions_tensor;      ///< --positions-tensor NAME: the positions file's
  /// The setting a message names for `positions`: "positions" as typed; a run that makes them names its own
  /// ("sequence_starts": a rank's positions of the packed batch, "positions_tensor": its file's).
  std::string positions_setting = "positions";
  /// The settings a message names for `before` and `after` ("k_before" and "k_after" for k's dumps beside q's).
  std::string before_setting = "before", after_setting = "after";
  bool bf16_bits = false;  ///< --bf16-bits
  /// --head-dim N (rope check), or the config's head_dim: a flat [tokens, heads·N] dump read as [tokens, heads, N],
  /// as vLLM and SGLang view their rotary inputs (query.view(num_tokens, -1, head_size)); 0: the shape's own d.
  int head_dim = 0;
  /// A dump of heads apart, [batch, seq, heads, d] or [seq, heads, d], read as one vector of heads·d per token
  /// ([batch, seq, 1, heads·d]): a model whose one rotation spans every head before they are split (LTX-Video).
  bool merge_heads = false;
  /// The same for a dump of heads first, [batch, heads, seq, d]: read whole (not in blocks), each token's heads
  /// joined in order into one vector [batch, seq, heads·d].
  bool merge_heads_first = false;
  /// A cos/sin table of a row per token [batch, seq, w] (cos_sin_table.hpp) and no positions given: the dump's
  /// `token_batch` batch rows of `token_seq` tokens laid along the sequence axis, as [batch, seq] positions lay them,
  /// each token at its own index b·seq + i (its row of the table); 0: not such a table.
  long token_batch = 0, token_seq = 0;
  /// rope spectrum: `before` is the one dump (its setting "dump"), read as both of a pair; `after` unused.
  bool one_dump = false;
  /// The files opened once by a run that reads several of their tensors (run_check_layers); empty: each is opened
  /// by its path.
  std::shared_ptr<const TensorDirectory> before_directory, after_directory;
};

/// Largest --axis-positions file: 4,194,304 rows (kMaxDumpPositions) of about 16 characters.
inline constexpr std::size_t kMaxAxisPositionsBytes = std::size_t{64} << 20;

struct LoadedDumps {
  DumpVectors before, after;
  std::vector<double> positions;             ///< one number per sequence index (the first component of axis_positions)
  std::vector<AxisPosition> axis_positions;  ///< --axis-positions: every component; empty without it
  /// The axes a text file of --axis-positions names in its header, in the order of the components ("t,h,w",
  /// "p,w,h,t", models/axes.hpp parse_axis_position_rows); empty for a file without a header or a tensor.
  std::string axis_names;
  std::string positions_text;      ///< as typed, or "0:seq"
  bool positions_assumed = false;  ///< --positions not given
  DumpAxes axes = DumpAxes::SeqD;
  bool axes_assumed = false;  ///< 4 axes read as Hugging Face's [batch, heads, seq, d] without --axes (dump_pair.hpp)
  std::vector<long> shape;
  std::string stored;  ///< the after dump's type as its file spells it
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
LoadedDumps load_dumps(const DumpFiles& files);

/// The same, with both files left on disk and read in pieces when both are .npy or safetensors (no size
/// limit but the disk's); a CSV file is read whole as load_dumps does.
LoadedDumps open_dumps(const DumpFiles& files);

/// The geometry and positions of dumps a report keeps, their values dropped (the values are the input of a check
/// or an identification, not its report).
void drop_values(LoadedDumps& dumps);

/// Dumps a front end arranged (dump_pair.hpp), their values kept: what open_dumps gives for files read whole.
LoadedDumps arranged_dumps(DumpPair pair);

/// Dumps a front end arranged (dump_pair.hpp), as a report keeps them: geometry and positions, no values.
LoadedDumps arranged_geometry(DumpPair pair);

}  // namespace rope
