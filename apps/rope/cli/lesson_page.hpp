/// @file
/// The lesson of docs/classroom.md (classroom.zh.md for zh) as one self-contained HTML page: for each
/// part its command, the output rope prints for it (run in-process through cli::run, never copied),
/// its figure as inline SVG, and for two parts a set of frames (rope/analysis/teaching/motion.hpp) that a slider
/// steps through. The page loads nothing: no network, no external script, font or style; its few lines
/// of JavaScript only show one precomputed frame and hide the others.
#pragma once

#include <string>
#include <string_view>

#include "rope/cli/lang.hpp"

namespace rope::cli {

/// Frames per slider on the page: enough to see the motion, few enough for a page of about 2 MB.
inline constexpr int kLessonFrames = 12;

/// `text` with & < > " ' replaced by their character references, for HTML text and attribute values.
std::string html_escape(std::string_view text);

/// `text` for a <pre>: escaped, and every character that is not ASCII in a box of its terminal width,
/// <span class="w2">中</span> (2 columns) or <span class="w1">θ</span>, so that columns line up in any
/// font (a combining mark stays unboxed, with the character before it).
std::string pre_html(std::string_view text);

/// The whole page.
/// @throws IoError if a command of the lesson or gnuplot fails (naming the command).
std::string lesson_page(Lang lang);

}  // namespace rope::cli
