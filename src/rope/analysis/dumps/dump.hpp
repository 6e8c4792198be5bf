/// @file
/// A tensor dumped before or after RoPE, seen as what RoPE acts on: vectors of one head's d channels, each
/// at a position (docs/check.md). Shapes [seq, d], [seq, heads, d], [batch, heads, seq, d] (Hugging Face's
/// q after the transpose, where apply_rotary_pos_emb runs) and [batch, seq, heads, d] (q_proj's output
/// viewed per head, llama.cpp's order), named by an axes string when the shape alone does not tell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rope/core/dtype.hpp"
#include "rope/io/tensor_file.hpp"

namespace rope {

/// Axes of a dump, in the order of its shape: "seq,d", "seq,heads,d", "batch,heads,seq,d",
/// "batch,seq,heads,d" (short forms s, h, b and dim accepted).
enum class DumpAxes { SeqD, SeqHeadsD, BatchHeadsSeqD, BatchSeqHeadsD };
std::string_view to_string(DumpAxes axes);
/// @throws InvalidArgument naming the value unless it is one of the four orders above.
DumpAxes parse_dump_axes(std::string_view text);

/// The dump as vectors: value(s, g, c) is channel c of group g (batch × heads, batch-major) at sequence
/// index s.
struct DumpVectors {
  long seq = 0;
  long batch = 1;
  long heads = 1;
  int d = 0;
  DType dtype = DType::F64;
  /// dtype was stated by the user (rope identify --dtype), not read from the file: identify takes it as it is and
  /// does not look for bf16 numbers saved as float32.
  bool dtype_stated = false;
  std::vector<double> values;  ///< [seq][batch·heads][d]
  long groups() const { return batch * heads; }
  double value(long s, long g, int c) const { return values[static_cast<std::size_t>((s * groups() + g) * d + c)]; }
  const double* vector(long s, long g) const { return values.data() + (s * groups() + g) * d; }
};

/// The axes of `shape` for a dump with `positions` positions (0: none given): rank 2 and 3 have one reading;
/// rank 4 is [batch, heads, seq, d] when only dimension 2 equals `positions`, [batch, seq, heads, d] when only
/// dimension 1 does, and [batch, heads, seq, d] when both do or no positions are given: Hugging Face's q and k
/// where apply_rotary_pos_emb runs (and the shape docs/check.md's spy saves), `*assumed` then set.
/// `name` starts the message.
/// @throws InvalidArgument for another rank, or positions that neither reading of a rank-4 shape fits.
DumpAxes infer_dump_axes(const std::vector<long>& shape, long positions, const std::string& name,
                         bool* assumed = nullptr);

/// Where the vectors of a C-order tensor lie: the strides, in elements, of its batch, heads and seq axes.
struct DumpStrides {
  long batch = 0, heads = 0, seq = 0;
};

/// The dump's geometry for a tensor of `shape` read with `axes` (values empty, dtype unset) and, when
/// `strides` is given, where its vectors lie. @throws InvalidArgument as arrange_dump.
DumpVectors dump_geometry(const std::vector<long>& shape, DumpAxes axes, const std::string& name,
                          DumpStrides* strides = nullptr);

/// Rearranges a tensor read by io/tensor_file into vectors. @throws InvalidArgument if the rank does not
/// match `axes`, or d is odd or larger than kMaxDim.
DumpVectors arrange_dump(const TensorData& tensor, DumpAxes axes, const std::string& name);

/// Largest number of positions.
inline constexpr long kMaxDumpPositions = 1L << 22;

/// Positions typed as a range "A:B" (A, A+1, …, B−1, as Python's range) or "A:B:STEP".
/// @throws InvalidArgument for anything else, an empty range or more than kMaxDumpPositions positions.
std::vector<double> parse_position_range(std::string_view text, std::string_view what);

}  // namespace rope
