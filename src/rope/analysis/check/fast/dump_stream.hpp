/// @file
/// rope check on dumps larger than memory (docs/check.md "Streaming"): the two files read in blocks of
/// sequence indices with pread (io/tensor_stream.hpp), each block decoded into the reading thread's buffers
/// and compared there by the fast path of check_kernel.hpp, so that memory holds the positions, the
/// per-position and per-channel tallies and one block per thread, whatever the size of the files.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/fast/check_kernel.hpp"
#include "rope/io/tensor_stream.hpp"

namespace rope {

/// Elements of one dump in one block (both dumps: twice as many), decoded to double: 512 KiB per dump per thread (both
/// fit a core's L2 cache).
inline constexpr long kStreamBlockElements = 1L << 16;
/// Bytes of one dump in one block when the files are read as stored (float64, float32, bfloat16 with the
/// sequence axis outermost), per thread: 2^16 bfloat16, 2^15 float32 or 2^14 float64 elements. Small enough
/// that the pages a thread's two buffers touch once are few (docs/performance.md), large enough that a read
/// costs little beside its copy.
inline constexpr long kRawBlockBytes = 1L << 17;

/// Two dumps of the same shape read from their files.
class StreamSource final : public DumpSource {
 public:
  /// `axes`: the dumps' axes; `rows`: the batch rows laid end to end along the sequence axis (as
  /// rows_along_sequence, dump_positions.hpp). @throws InvalidArgument if the shapes differ or do not fit `axes`.
  /// `view`: the shape the files' tensors are read as (the same elements in C order: a flat [tokens, heads·d] as
  /// [tokens, heads, d]); empty: their own.
  StreamSource(TensorStream before, TensorStream after, DumpAxes axes, bool rows, std::vector<long> view = {});

  long seq() const override { return geometry_.seq; }
  long groups() const override { return geometry_.groups(); }
  long heads() const override { return geometry_.heads; }
  int d() const override { return geometry_.d; }
  DType dtype() const override { return geometry_.dtype; }
  std::vector<DumpComparison> compare(long start, const std::vector<AxisPosition>& positions,
                                      const std::vector<Variant>& variants,
                                      const ComparePass& pass = {}) const override;
  bool after_looks_like_bf16() const override;
  std::pair<std::vector<double>, std::vector<double>> vector_at(long index, long group) const override;

  /// The geometry as compared (values empty): rows laid along the sequence axis when `rows`.
  const DumpVectors& geometry() const { return geometry_; }
  /// The type whose tolerance applies (rope check --dtype).
  void set_dtype(DType type) { geometry_.dtype = type; }
  std::string before_setting() const override { return before_setting_; }
  /// The setting that gave the before tensor, for the refusals of its values ("k_before": k's check).
  void set_before_setting(std::string setting) { before_setting_ = std::move(setting); }
  /// Called on one thread during each pass with the fraction done (a progress bar).
  void set_progress(ProgressFn progress) { progress_ = std::move(progress); }
  /// Bytes of both files' data, read once per pass.
  std::uint64_t data_bytes() const;
  /// The first `groups` groups of both dumps at the sequence indices `indices` (increasing), in memory
  /// (before, after), read a block at a time.
  std::pair<DumpVectors, DumpVectors> read(const std::vector<long>& indices, long groups) const;

 private:
  void fetch(long start, long s0, long s1, BlockBuffers& buffers) const;

  TensorStream before_, after_;
  DumpVectors geometry_;  ///< as compared
  DumpVectors file_;      ///< as in the files (batch rows not laid along the sequence axis)
  DumpStrides strides_;
  bool rows_ = false;
  std::optional<BlockElement> raw_;  ///< the files' type when blocks are read as stored
  /// Read as stored a batch row at a time, each row's vectors put at their groups (b·heads + h): the batch rows of a
  /// [batch, seq, heads, d] dump compared as groups at the same positions.
  bool gather_ = false;
  ProgressFn progress_;
  std::string before_setting_ = "before";
  mutable std::optional<bool> bf16_;
  /// The sequence index vector_at read last, every group of it: a diagnosis reads an index's groups one after another
  /// (measured_rope.hpp), and a read fetches and decodes every group of the index.
  struct LastIndex {
    std::mutex mutex;
    long index = -1;
    std::pair<DumpVectors, DumpVectors> vectors;
  };
  std::shared_ptr<LastIndex> last_ = std::make_shared<LastIndex>();
};

/// A sample of a streamed dump small enough for rope identify: every sequence index of the first groups when
/// one group fits in `max_elements`, else windows of consecutive indices spread over the sequence axis (pairs of
/// consecutive positions keep every frequency up to π visible, where a stride would alias them). `every_group`:
/// every group at each index kept, the indices fewer (the heads read side by side, one vector of heads·d).
struct DumpSample {
  DumpVectors before, after;
  std::vector<long> indices;  ///< the sequence indices kept, increasing
  long groups = 0;            ///< the groups kept (the first ones)
};
DumpSample sample_dump(const StreamSource& source, long max_elements, bool every_group = false);

}  // namespace rope
