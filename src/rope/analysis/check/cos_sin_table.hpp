/// @file
/// A cos/sin table a kernel is handed instead of computing θ (`rope check --cos FILE --sin FILE`, `--cos-sin-cache
/// FILE`): ONNX's RotaryEmbedding cos_cache and sin_cache, flash-attn's apply_rotary_emb(x, cos, sin), Hugging Face's
/// (cos, sin), vLLM's cos_sin_cache. The check then compares the dump with the rotation by the table's own values,
/// (x1, x2) → (c·x1 − s·x2, s·x1 + c·x2), whatever they are (random caches included), at the row each sequence index
/// reads: its position id, or, for a table of a row per token, its own index.
///
/// Forms of a table of width w (its last axis):
///   - [max_pos, w] gathered by position ids, or [batch, seq, w] (or [seq, w] read per token) a row per token;
///   - w = r/2, one entry per pair; or w = r with repeated halves (Hugging Face's cat(freqs, freqs)) or, with the
///     interleaved layout, repeated pairs (GPT-J's repeat_interleave): a table whose halves (interleaved: whose
///     pairs) are bit-identical on every row is the repeated form, otherwise its width is r/2;
///     --partial-rotary-factor decides where both fit (r = int(d·factor)); the rotated width is the table's.
///   - vLLM's cos_sin_cache [max_pos, r]: cos in its first r/2 columns, sin in the others.
///
/// Tolerance (T1), per element of rotated pair i with the table's (c_i, s_i) at the index's row, x the pair before
/// RoPE, T the dump's type and U the table's:
///
///     |y − y_ref| <= κ · |c_i + i·s_i| · ‖x‖ · (2·ε_T + 2·ε_U)                         (T1)
///
/// 2·ε_T as in (C1): the table's values rounded to T where the kernel computes in T, the two products and the sum
/// rounded, the result stored; 2·ε_U: the table's values as the kernel reads them may be computed in U (a float32
/// cos of a bfloat16 table widened, or the table re-rounded on its way); |c_i + i·s_i| scales every term (a table
/// need not be a unit rotation: ONNX's test caches are random). No angle enters: the table is the reference.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/dtype.hpp"
#include "rope/io/tensor_file.hpp"

namespace rope {

struct RopeExpectation;

/// The files of a table as `rope check` names them.
struct CosSinTableFiles {
  std::string cos, sin;                ///< --cos FILE, --sin FILE (may name one file of both tensors)
  std::string cache;                   ///< --cos-sin-cache FILE: vLLM's [max_pos, r], cos then sin
  std::string cos_tensor, sin_tensor;  ///< --cos-tensor, --sin-tensor NAME: the tensor of a file of several
  std::string cache_tensor;            ///< --cos-sin-cache-tensor NAME
  bool given() const { return !cos.empty() || !sin.empty() || !cache.empty(); }
};

struct GivenTable {
  enum class Form { Half, RepeatedHalves, RepeatedPairs };
  long rows = 0;  ///< positions (gathered by position id), or tokens (per_token)
  int half = 0;   ///< pairs per row: r/2
  /// rows × half, row after row: the cos and sin of pair i at row r at r·half + i.
  std::vector<double> cos, sin;
  DType type = DType::F32;  ///< the coarser of the tensors' types: ε_U of (T1)
  Form form = Form::Half;
  bool per_token = false;   ///< a row per token of the dump ([batch, seq, w]): its own index, no position ids
  bool cache = false;       ///< vLLM's cos_sin_cache, cos then sin in one tensor
  std::vector<long> shape;  ///< as read: cos's, or the cache's
  std::string name;         ///< the file (and tensor) as given: "--cos cos.npy", for the report
  /// Whether the position is a row of the table (an integer in [0, rows)).
  bool has_row(double position) const;
};

/// "r/2", "repeated halves", "repeated pairs".
const char* to_string(GivenTable::Form form);

/// The table of two tensors of the same shape ([rows, w], [batch, seq, w]) for a dump of head size `head_dim` whose
/// pairs are interleaved or not, by the rule of the forms above. `name` starts every message.
/// @throws InvalidArgument: shapes that differ or of another rank, a width that fits neither r/2 nor r of
/// --partial-rotary-factor, a rotated width beyond head_dim, a value that is not finite.
GivenTable given_table(const TensorData& cos, const TensorData& sin, bool interleaved,
                       std::optional<double> partial_rotary_factor, int head_dim, const std::string& name);

/// vLLM's cos_sin_cache [max_pos, r]: cos the first r/2 columns, sin the others. @throws InvalidArgument as
/// cos_sin_table, and for an odd width or another rank.
GivenTable given_cache_table(const TensorData& cache, bool interleaved, std::optional<double> partial_rotary_factor,
                             int head_dim, const std::string& name);

/// Reads the files (every tensor format check reads: .npy, safetensors, torch.save, CSV).
/// @throws InvalidArgument (--cos without --sin, both kinds given, a table as cos_sin_table refuses), IoError.
GivenTable read_given_table(const CosSinTableFiles& files, bool interleaved,
                            std::optional<double> partial_rotary_factor, int head_dim);

/// The shape of the table's cos (or cache) tensor as its file holds it, read before the dumps (a table of a row per
/// token arranges them). @throws as read_given_table.
std::vector<long> given_table_shape(const CosSinTableFiles& files);

/// The expectation of a kernel handed `table`: its rotated width, attention factor 1 (the table carries any
/// magnitude), the error model (T1).
void expect_table(RopeExpectation& e, std::shared_ptr<const GivenTable> table);

/// The rows of the position table (compare_exact.hpp position_table) for a given table at `position`: cos, sin and
/// the term of (T1) of every pair, each times `scale`; sin negated where `flipped`, 0 where `sin_missing`, cos and
/// sin exchanged where `swapped`. A position that is no row of the table gives NaN (every element fails).
void table_position(const GivenTable& t, double position, double eps_dump, double scale, bool flipped, bool sin_missing,
                    bool swapped, double* cs, double* sn, double* term);

/// The angle pair `pair` of the table turns by at `position`'s row, in (−π, π] (negated for a gradient, (G1)); NaN
/// where the position is no row.
double table_angle(const GivenTable& t, double position, int pair, bool grad);

/// The rows of the expectation's table (at most `at_most`, in increasing order) under which the vector x (before)
/// turns into y (after) within (T1) on every rotated pair, for a dump of type `dtype`: where a kernel may have read
/// the table.
std::vector<long> table_rows_turning(const RopeExpectation& e, const std::vector<double>& x,
                                     const std::vector<double>& y, DType dtype, std::size_t at_most);

/// Whether the variant row `name` (check_table.hpp) means something beside a given table: those that do not change
/// θ, the angles or the magnitude (layout, positions, sin's sign, heads and channels, the table's own mistakes).
bool applies_beside_table(std::string_view name);

}  // namespace rope
