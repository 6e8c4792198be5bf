#include "rope/models/xdrope_positions.hpp"

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/message.hpp"

namespace rope {

long xdrope_image_tokens(const std::array<long, 3>& grid, long merge) {
  return (grid[1] / merge) * (grid[2] / merge + 1) + 4;
}

std::vector<XdropePosition> xdrope_index(const std::vector<Segment>& segments, long merge) {
  if (segments.empty()) {
    throw InvalidArgument(
        error_msg("the sequence is empty: give {0} N or {1} TxHxW", option_name("text"), option_name("image")));
  }
  if (merge < 1 || merge > kMaxMergeSize) {
    throw InvalidQuantity("the spatial merge size",
                          fmt::format("must be between 1 and {} (got {})", kMaxMergeSize, merge));
  }
  // The size first, so that nothing large is allocated for an input that is refused.
  double total = 0;
  for (const Segment& s : segments) {
    if (s.kind == SegmentKind::Decode) throw InvalidArgument(error_msg("a decode token is not a prefill segment"));
    if (s.kind == SegmentKind::Video) {
      throw InvalidArgument(
          error_msg("{0}: HunyuanVL has images alone: vLLM's get_xdrope_input_positions "
                    "(hunyuan_vision.py) builds no video position ids",
                    option_name("video")));
    }
    if (s.kind == SegmentKind::Text) {
      if (s.tokens < 1) throw InvalidArgument(error_msg("a text segment needs at least 1 token (got {0})", s.tokens));
      total += static_cast<double>(s.tokens);
    } else {
      if (s.grid[0] != 1) {
        throw InvalidArgument(
            error_msg("image grid {0}x{1}x{2}: a HunyuanVL image is one frame, T = 1 (vLLM's "
                      "get_xdrope_input_positions reads H and W alone)",
                      s.grid[0], s.grid[1], s.grid[2]));
      }
      check_grid_merges(s, merge);
      total += static_cast<double>(s.grid[1] / merge) * static_cast<double>(s.grid[2] / merge + 1) + 4;
    }
    if (total > static_cast<double>(kMaxSequenceTokens)) {
      throw InvalidArgument(error_msg("the sequence has {0} tokens up to its segment {1}, more than the limit of {2}",
                                      fmt::format("{:.0f}", total), &s - segments.data() + 1, kMaxSequenceTokens));
    }
  }
  std::vector<XdropePosition> out;
  out.reserve(static_cast<std::size_t>(total));
  long image = 0;
  const auto plain = [&out](int segment, SegmentKind kind) {
    const long k = static_cast<long>(out.size());
    out.push_back({segment, kind, {k, k, k, k}});
  };
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    const int seg = static_cast<int>(i);
    if (s.kind == SegmentKind::Text) {
      for (long k = 0; k < s.tokens; ++k) plain(seg, s.kind);
      continue;
    }
    plain(seg, s.kind);  // the start token
    plain(seg, s.kind);  // the first image token: the rows begin at the start token + 2
    const long rows = s.grid[1] / merge, cols = s.grid[2] / merge;
    for (long r = 0; r < rows; ++r) {
      for (long c = 0; c <= cols; ++c) out.push_back({seg, s.kind, {static_cast<long>(out.size()), c, r, image}});
    }
    plain(seg, s.kind);  // the last image token
    plain(seg, s.kind);  // the end token
    ++image;
  }
  return out;
}

std::vector<XdropePosition> xdrope_decode(std::size_t prefill, int segment, long steps) {
  if (steps < 0 || steps > kMaxDecodeSteps) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("decode"), 0, kMaxDecodeSteps, steps));
  }
  std::vector<XdropePosition> out;
  out.reserve(static_cast<std::size_t>(steps));
  for (long k = 0; k < steps; ++k) {
    const long id = static_cast<long>(prefill) + k;
    out.push_back({segment, SegmentKind::Decode, {id, id, id, id}});
  }
  return out;
}

}  // namespace rope
