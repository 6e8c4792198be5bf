/// @file
/// How a check's two dumps reach a comparison: in blocks of consecutive sequence indices, which a source (the dumps in
/// memory, check.hpp MemorySource, or read from their files in pieces, check/fast/dump_stream.hpp) fills on request,
/// each block's vectors as stored (float64, float32 or bfloat16). The exact path (compare_exact.hpp) and the fast one
/// (check/fast/check_kernel.hpp) read the same blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "rope/core/dtype.hpp"

namespace rope {

/// How a block's elements are stored.
enum class BlockElement { F64, F32, BF16 };

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

/// A block's vectors [s − s0][group][d] of both dumps, stored as `type` (read as they are, without a widened copy).
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

/// The address of element `index` of a block stored as `type`.
inline const void* element_at(const void* base, BlockElement type, long index) {
  switch (type) {
    case BlockElement::F64:
      return static_cast<const double*>(base) + index;
    case BlockElement::F32:
      return static_cast<const float*>(base) + index;
    case BlockElement::BF16:
      break;
  }
  return static_cast<const std::uint16_t*>(base) + index;
}

/// The `n` elements at `from` widened to double (exactly: every float32 and bfloat16 is a double).
inline void widen_elements(BlockElement type, const void* from, long n, double* out) {
  switch (type) {  // one loop per type, which the compiler vectorizes
    case BlockElement::F64:
      for (long e = 0; e < n; ++e) out[e] = static_cast<const double*>(from)[e];
      return;
    case BlockElement::F32:
      for (long e = 0; e < n; ++e) out[e] = static_cast<double>(static_cast<const float*>(from)[e]);
      return;
    case BlockElement::BF16:
      for (long e = 0; e < n; ++e) {  // bfloat16: the high half of a float32
        const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<const std::uint16_t*>(from)[e]) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        out[e] = static_cast<double>(f);
      }
      return;
  }
}

}  // namespace rope
