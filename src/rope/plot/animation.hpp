/// @file
/// An animation: figures drawn one after the other into one GIF (gnuplot's `set terminal gif animate`,
/// libgd): one script, one `plot` per frame. The frames are computed by the caller; this only draws.
#pragma once

#include <string>
#include <vector>

#include "rope/plot/figure.hpp"

namespace rope::plot {

/// Limits of an animation, so that its size and the time to draw it stay bounded: at the largest
/// (kMaxFrames frames of kMaxAnimationPixels²) a GIF of rope is a few MB and takes gnuplot seconds
/// (docs/cli.md, "Animations").
inline constexpr int kMinFrames = 2;
inline constexpr int kMaxFrames = 120;
inline constexpr int kMinDelayMs = 20;
inline constexpr int kMaxDelayMs = 5000;
inline constexpr int kMaxAnimationPixels = 1600;

struct Animation {
  std::vector<Figure> frames;
  /// Time each frame is shown, in milliseconds: a multiple of 10 (GIF stores hundredths of a second).
  int delay_ms = 100;
};

/// Checks the frame count, the delay and the size against the limits above, then every frame as
/// validate() does. @throws InvalidArgument naming the rule and the value.
void validate(const Animation& animation, const Output& output, const Style& style);

/// The script: the animated GIF terminal (endless loop), `set output`, then for each frame `reset`,
/// its data, its settings and its `plot`, and `unset output`. Pure: the same inputs give the same text.
/// @throws InvalidArgument as validate().
std::string animation_script(const Animation& animation, const Output& output, const Style& style);

}  // namespace rope::plot
