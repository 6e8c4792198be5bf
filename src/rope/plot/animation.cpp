#include "rope/plot/animation.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>

#include "rope/core/error.hpp"
#include "rope/plot/script_parts.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot {

void validate(const Animation& a, const Output& output, const Style& style) {
  const int n = static_cast<int>(std::min<std::size_t>(a.frames.size(), kMaxFrames + 1));
  if (n < kMinFrames || n > kMaxFrames) {
    throw InvalidArgument(
        error_msg("an animation has {0} to {1} frames (got {2})", kMinFrames, kMaxFrames, a.frames.size()));
  }
  if (a.delay_ms < kMinDelayMs || a.delay_ms > kMaxDelayMs || a.delay_ms % 10 != 0) {
    throw InvalidArgument(
        error_msg("the delay between frames must be a multiple of 10 ms between {0} and {1} (got {2})", kMinDelayMs,
                  kMaxDelayMs, a.delay_ms));
  }
  if (style.width > kMaxAnimationPixels || style.height > kMaxAnimationPixels) {
    throw InvalidArgument(error_msg("an animation is at most {0}×{1} pixels (got {2}×{3})", kMaxAnimationPixels,
                                    kMaxAnimationPixels, style.width, style.height));
  }
  if (output.format != Format::Gif) throw InvalidArgument(error_msg("an animation is drawn into a GIF only"));
  for (const Figure& f : a.frames) validate(f, {output}, style);
}

std::string animation_script(const Animation& a, const Output& output, const Style& style) {
  validate(a, output, style);
  std::string out;
  out += "# Animation written by rope: one plot per frame. Run it with: gnuplot FILE\n";
  out += "# Every text is single-quoted and 'noenhanced', so _ ^ { } @ & are printed as typed.\n";
  // The terminal and the output survive `reset`, which clears each frame's settings.
  const std::string still = script::terminal_line(Format::Gif, style);
  const std::string prefix = "set terminal gif";
  fmt::format_to(std::back_inserter(out), "set encoding utf8\n{} animate delay {} loop 0{}\nset output {}\n", prefix,
                 a.delay_ms / 10, still.substr(prefix.size()), quote(output.path));
  for (std::size_t k = 0; k < a.frames.size(); ++k) {
    fmt::format_to(std::back_inserter(out), "\n# frame {} of {}\n", k + 1, a.frames.size());
    const std::vector<std::string> plots = script::write_data_and_settings(out, a.frames[k], style, true);
    fmt::format_to(std::back_inserter(out), "plot {}\n", fmt::join(plots, ", \\\n     "));
  }
  out += "unset output\n";
  return out;
}

}  // namespace rope::plot
