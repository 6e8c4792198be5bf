#include "rope/models/mrope_positions.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"

namespace rope {

namespace {

/// The text as typed, cut at 40 characters, control characters as \xNN: one line in a message.
std::string shown_text(std::string_view text) {
  std::string s;
  for (char c : text.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    s += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return s + (text.size() > 40 ? "…" : "");
}

}  // namespace

std::string_view to_string(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::Text:
      return "text";
    case SegmentKind::Image:
      return "image";
    case SegmentKind::Video:
      return "video";
    case SegmentKind::Decode:
      return "decode";
  }
  return "text";
}

Message segment_name(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::Text:
      return {msg("text")};
    case SegmentKind::Image:
      return {msg("image")};
    case SegmentKind::Video:
      return {msg("video")};
    case SegmentKind::Decode:
      return {msg("decode")};
  }
  return {msg("text")};
}

std::array<long, 3> parse_grid(std::string_view text, std::string_view what) {
  std::array<long, 3> grid{};
  std::size_t start = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t x = text.find('x', start);
    if ((k < 2) != (x != std::string_view::npos)) {
      throw InvalidArgument(
          error_msg("{0} must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got '{1}')", what, shown_text(text)));
    }
    const std::string_view part = text.substr(start, k < 2 ? x - start : std::string_view::npos);
    if (part.empty()) {  // "1x4x", "x4x6": a side is missing, which says more than "not an integer ('')"
      throw InvalidArgument(
          error_msg("{0} must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got '{1}')", what, shown_text(text)));
    }
    const long v = parse_integer(part, what);
    if (v < 1 || v > kMaxGridSide) {
      throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})",
                                      fmt::format("{}: every side of the grid", what), 1, kMaxGridSide, v));
    }
    grid[k] = v;
    start = x + 1;
  }
  return grid;
}

void check_grid_merges(const Segment& s, long merge) {
  for (std::size_t k = 1; k < 3; ++k) {
    if (s.grid[k] % merge != 0) {
      throw InvalidArgument(
          k == 1 ? error_msg("{0} grid {1}x{2}x{3}: height {4} is not divisible by the spatial merge size {5}",
                             to_string(s.kind), s.grid[0], s.grid[1], s.grid[2], s.grid[k], merge)
                 : error_msg("{0} grid {1}x{2}x{3}: width {4} is not divisible by the spatial merge size {5}",
                             to_string(s.kind), s.grid[0], s.grid[1], s.grid[2], s.grid[k], merge));
    }
  }
}

std::vector<TokenPosition> rope_index(const std::vector<Segment>& segments, const PositionRules& rules) {
  if (segments.empty())
    throw InvalidArgument(error_msg("the sequence is empty: give {0} N, {1} TxHxW or {2} TxHxW", option_name("text"),
                                    option_name("image"), option_name("video")));
  const long m = rules.spatial_merge_size;
  if (m < 1 || m > kMaxMergeSize) {
    throw InvalidQuantity("the spatial merge size", fmt::format("must be between 1 and {} (got {})", kMaxMergeSize, m));
  }
  // Bounded so that a time index τ = t · second_per_grid · tokens_per_second (t < 65536) stays a whole
  // number far inside a long.
  // Positive, as a config's vision_config.tokens_per_second must be (hf_config_sequence.cpp).
  if (rules.tokens_per_second && !(*rules.tokens_per_second > 0 && *rules.tokens_per_second <= kMaxTimeScale)) {
    throw InvalidQuantity("tokens per second", fmt::format("must be > 0 and at most {:g} (got {})", kMaxTimeScale,
                                                           format_number(*rules.tokens_per_second)));
  }
  if (!(rules.second_per_grid >= 0 && rules.second_per_grid <= kMaxTimeScale)) {
    throw InvalidQuantity("seconds per grid", fmt::format("must be between 0 and {:g} (got {})", kMaxTimeScale,
                                                          format_number(rules.second_per_grid)));
  }
  if (rules.frame_text && !(*rules.frame_text >= 0 && *rules.frame_text <= kMaxSequenceTokens)) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("frame_text"), 0,
                                    kMaxSequenceTokens, *rules.frame_text));
  }
  if (rules.frame_text && rules.tokens_per_second) {
    throw InvalidArgument(
        error_msg("{0} splits a video into frames after timestamps (Qwen3-VL); {1} scales the "
                  "time of one video block (Qwen2.5-VL): give one of them",
                  option_name("frame_text"), option_name("tokens_per_second")));
  }
  if (rules.bailing && rules.tokens_per_second) {
    throw InvalidArgument(
        error_msg("{0}: Bailing's position ids have no time scaling (every frame is 2 ids after the "
                  "last; sglang bailing_mrope.py)",
                  option_name("tokens_per_second")));
  }
  // The size first, so that nothing large is allocated for an input that is refused.
  double total = 0;
  for (const Segment& s : segments) {
    if (s.kind == SegmentKind::Decode) throw InvalidArgument(error_msg("a decode token is not a prefill segment"));
    if (s.kind == SegmentKind::Text) {
      if (s.tokens < 1) throw InvalidArgument(error_msg("a text segment needs at least 1 token (got {0})", s.tokens));
      total += static_cast<double>(s.tokens);
    } else {
      check_grid_merges(s, m);
      total += static_cast<double>(s.grid[0]) * static_cast<double>(s.grid[1] / m) * static_cast<double>(s.grid[2] / m);
      if (s.kind == SegmentKind::Video && rules.frame_text)
        total += static_cast<double>(s.grid[0]) * static_cast<double>(*rules.frame_text);
      if (s.kind == SegmentKind::Video && rules.pangu) total += 2 * static_cast<double>(s.grid[0] - 1);
    }
    if (total > static_cast<double>(kMaxSequenceTokens)) {
      throw InvalidArgument(error_msg("the sequence has {0} tokens up to its segment {1}, more than the limit of {2}",
                                      fmt::format("{:.0f}", total), &s - segments.data() + 1, kMaxSequenceTokens));
    }
  }
  // (Q3'): each frame of a video its own 1 × H × W block after its timestamp's text, both of the video's segment.
  std::vector<std::pair<Segment, int>> blocks;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    if (s.kind == SegmentKind::Video && rules.pangu) {  // (P1): a frame's end and the next one's start between frames
      for (long t = 0; t < s.grid[0]; ++t) {
        if (t > 0) blocks.emplace_back(Segment{SegmentKind::Text, 2, {}}, static_cast<int>(i));
        blocks.emplace_back(Segment{SegmentKind::Video, 0, {1, s.grid[1], s.grid[2]}}, static_cast<int>(i));
      }
      continue;
    }
    if (s.kind != SegmentKind::Video || !rules.frame_text) {
      blocks.emplace_back(s, static_cast<int>(i));
      continue;
    }
    for (long t = 0; t < s.grid[0]; ++t) {
      if (*rules.frame_text > 0)
        blocks.emplace_back(Segment{SegmentKind::Text, *rules.frame_text, {}}, static_cast<int>(i));
      blocks.emplace_back(Segment{SegmentKind::Video, 0, {1, s.grid[1], s.grid[2]}}, static_cast<int>(i));
    }
  }
  std::vector<TokenPosition> out;
  out.reserve(static_cast<std::size_t>(total));
  long start = 0;  // (Q4): the next block's start
  for (const auto& [s, i] : blocks) {
    long largest = start - 1;
    if (s.kind == SegmentKind::Text) {  // (Q1)
      for (long k = 0; k < s.tokens; ++k) out.push_back({i, s.kind, {start + k, start + k, start + k}});
      largest = start + s.tokens - 1;
    } else if (rules.bailing) {  // (B1): time 2t from the start, height and width centred on the grid, plus the time
      const long frames = s.grid[0], rows = s.grid[1] / m, cols = s.grid[2] / m;
      const long h0 = (rows - 1) / 2, w0 = (cols - 1) / 2;
      for (long t = 0; t < frames; ++t) {
        const long tau = start + 2 * t;
        for (long h = 0; h < rows; ++h) {
          for (long w = 0; w < cols; ++w) out.push_back({i, s.kind, {tau, tau + h - h0, tau + w - w0}});
        }
      }
      largest = start + 2 * (frames - 1);  // the next start counts the time ids only
    } else {                               // (Q2), (Q3)
      const long frames = s.grid[0], rows = s.grid[1] / m, cols = s.grid[2] / m;
      // (Q3) as HF's tensors compute it: arange(t) (int64) times second_per_grid_t (a float32 tensor from the
      // processor, or a Python float, which torch also multiplies in float32), times tokens_per_second, each
      // product rounded to float32, then .long(). In float64 ⌊3 · 0.7 · 10⌋ would be 20; HF gets 21.
      // openPangu-VL (P1): an image's frame t at ⌊t · 1 · tokens_per_second⌋ (its video frames are blocks of one).
      const float step = rules.pangu                    ? 1.0f
                         : s.kind == SegmentKind::Image ? 0.0f
                                                        : static_cast<float>(rules.second_per_grid);
      for (long t = 0; t < frames; ++t) {
        const long tau = rules.tokens_per_second ? static_cast<long>(static_cast<float>(static_cast<float>(t) * step) *
                                                                     static_cast<float>(*rules.tokens_per_second))
                                                 : t;
        for (long h = 0; h < rows; ++h) {
          for (long w = 0; w < cols; ++w) {
            out.push_back({i, s.kind, {start + tau, start + h, start + w}});
            largest = std::max({largest, start + tau, start + h, start + w});
          }
        }
      }
    }
    start = largest + 1;
  }
  return out;
}

long rope_delta(const std::vector<TokenPosition>& prefill, const PositionRules& rules) {
  if (prefill.empty()) throw InvalidArgument(error_msg("the prefill is empty: rope_deltas needs its position ids"));
  long largest = prefill.front().thw[0];
  for (const TokenPosition& p : prefill) {
    largest = rules.bailing ? std::max(largest, p.thw[0]) : std::max({largest, p.thw[0], p.thw[1], p.thw[2]});
  }
  return largest + 1 - static_cast<long>(prefill.size());
}

std::vector<TokenPosition> decode_positions(const std::vector<TokenPosition>& prefill, long steps,
                                            const PositionRules& rules) {
  const long delta = rope_delta(prefill, rules);
  if (steps < 0 || steps > kMaxDecodeSteps) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("decode"), 0, kMaxDecodeSteps, steps));
  }
  std::vector<TokenPosition> out;
  out.reserve(static_cast<std::size_t>(steps));
  const long length = static_cast<long>(prefill.size());
  for (long k = 0; k < steps; ++k) {  // (Q5): arange(1) + cache_position[0] + rope_deltas, cache_position[0] = L + k
    const long id = length + k + delta;
    out.push_back({prefill.back().segment + 1, SegmentKind::Decode, {id, id, id}});
  }
  return out;
}

}  // namespace rope
