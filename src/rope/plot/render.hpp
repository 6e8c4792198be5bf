/// @file
/// Rendering a figure: gnuplot_script() (rope/plot/script.hpp) written to a private temporary file and
/// run by gnuplot as a separate process (rope/io/child_process.hpp; never through a pipe: from a pipe
/// gnuplot keeps going after an error).
/// Atomicity: gnuplot writes each output under a temporary name in the output's own directory
/// (rope/io/atomic_file.hpp's StagedOutputs); the files are renamed into place only when gnuplot
/// succeeded, so a failure never leaves a partial figure.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/plot/animation.hpp"
#include "rope/plot/figure.hpp"

namespace rope::plot {

struct RenderOptions {
  Style style;
  /// If not empty, the script (naming the final output paths) is also saved here, so a student can
  /// edit it and run `gnuplot FILE`.
  std::string keep_script;
  /// gnuplot is killed after this long.
  double timeout_seconds = 120.0;
};

/// Draws `figure` into every output with one gnuplot run.
/// @throws IoError if gnuplot is missing ("gnuplot not found (install gnuplot-nox)"), fails (its own
///         message), times out, or an output cannot be written; no partial output is left behind.
///         If the text needs a CJK font and none is installed, IoError naming fonts-wqy-microhei.
/// @throws InvalidArgument as gnuplot_script().
void render(const Figure& figure, const std::vector<Output>& outputs, const RenderOptions& options);

/// Draws every frame of `animation` into one animated GIF at `path`, with one gnuplot run, staged and
/// checked (the trailer byte 0x3B) as render() does.
/// @throws as render(); InvalidArgument as animation_script().
void render_animation(const Animation& animation, const std::string& path, const RenderOptions& options);

/// The most a figure drawn for a terminal may take: a sixel image of the largest size allowed by
/// rope/plot/terminal.hpp is about 1 MB.
inline constexpr std::size_t kMaxTerminalBytes = 16u << 20;

/// Draws `figure` for a terminal (Format::Sixel, Text or TextColor), or as SVG text for a page
/// (Format::Svg), and returns the bytes:
/// gnuplot writes them to a memory file, never to rope's stdout.
/// @throws as render(); IoError if the output is incomplete or over kMaxTerminalBytes.
std::string render_to_text(const Figure& figure, Format format, const RenderOptions& options);

/// The gnuplot program run: $ROPE_GNUPLOT if set, else "gnuplot" found on PATH.
std::string gnuplot_program();

/// Whether fontconfig lists a font covering Chinese (`fc-list :lang=zh`).
bool cjk_font_available();

/// Whether fontconfig lists any font at all (`fc-list : family`); nullopt if fc-list cannot be run (then
/// rope cannot tell, and draws).
std::optional<bool> any_font_available();

/// Whether `text` holds a character that needs a CJK font (U+2E80 and above, outside the symbols
/// that ordinary fonts carry).
bool needs_cjk_font(std::string_view text);

}  // namespace rope::plot
