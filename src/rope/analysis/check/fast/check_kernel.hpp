/// @file
/// The one implementation of the tolerance model (C1) of check.hpp: every element of a dump against the
/// reference of one or several variants, in blocks of sequence indices that a source fills (the dumps in
/// memory, or read from their files in pieces: analysis/check/fast/dump_stream.hpp), over the cores with OpenMP. A
/// block's cos, sin and angle terms are computed once per position and variant and serve every group.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/fast/check_screen.hpp"

namespace rope {

/// Bytes a read fills at once, left uninitialized when allocated: zero-filling them first would touch every
/// page twice (on a virtual machine a first touch of a page is a trap, the larger cost of a short check).
class ByteBuffer {
 public:
  /// At least n bytes, their content unspecified; the previous content is kept only if no allocation is needed.
  unsigned char* at_least(std::size_t n) {
    if (n > size_) data_.reset(new unsigned char[n]), size_ = n;
    return data_.get();
  }
  const unsigned char* data() const { return data_.get(); }

 private:
  std::unique_ptr<unsigned char[]> data_;
  std::size_t size_ = 0;
};

/// A thread's buffers for one block, reused from block to block: the vectors [s][group][d] of both dumps
/// decoded to double, or the bytes of both as stored.
struct BlockBuffers {
  std::vector<double> before, after;
  ByteBuffer raw, raw_after;
  ByteBuffer row;  ///< one batch row's run as read, before its vectors go to their groups
};

/// A block's vectors [s − s0][group][d] of both dumps, stored as `type` (the kernel reads float32 and bfloat16
/// as they are, without a widened copy).
struct BlockView {
  const void* before = nullptr;
  const void* after = nullptr;
  BlockElement type = BlockElement::F64;
};

/// Fills the vectors of the range's sequence indices [s0, s1) for the calling thread into `buffers` or memory
/// that holds them, and points `view` at them.
using BlockFetch = std::function<void(long s0, long s1, BlockBuffers& buffers, BlockView& view)>;

/// Called on one thread with the fraction of the pass done.
using ProgressFn = std::function<void(double)>;

/// The shape of what is compared: `seq` sequence indices of `groups` vectors of d channels each.
struct BlockShape {
  long seq = 0;
  long groups = 1;
  int d = 0;
  DType dtype = DType::F64;
  long heads = 0;  ///< heads per batch row of a group (FoPE's key-value head of each); 0: every group one row's head
};

/// Compares the range with every variant in one pass over its blocks of `block_positions` sequence indices
/// (`positions`: one per index of the range), or over those of `pass.only`. The result does not depend on the number
/// of threads.
/// @throws InvalidArgument as compare_dump, or what `fetch` throws.
std::vector<DumpComparison> compare_blocks(const BlockShape& shape, const std::vector<AxisPosition>& positions,
                                           const std::vector<Variant>& variants, const BlockFetch& fetch,
                                           long block_positions, const ProgressFn* progress = nullptr,
                                           const ComparePass& pass = {});

/// Sequence indices per block so that one block holds about `elements` elements (at least 1).
long block_positions_for(long groups, int d, long elements);

}  // namespace rope
