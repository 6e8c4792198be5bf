/// @file
/// The parts of the lesson of docs/classroom.md (classroom.zh.md): for each part what to say, and the
/// commands the lesson runs in order, exactly as the doc writes them (tests/docs/check_lesson_page.py
/// compares them with the doc). A command with `--png FILE` draws the figure the doc shows there; the
/// page draws it as inline SVG instead, under the doc's caption.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rope/cli/lang.hpp"

namespace rope::cli {

/// Which precomputed frames a part adds (a slider steps through them).
enum class LessonFrames { None, Explain, Wavelengths, Grid };

struct LessonStep {
  std::vector<std::string> args;  ///< after "rope", in English form; the Chinese page adds --lang zh
  std::string caption;            ///< the doc's caption of the figure (--png FILE); empty: no figure
  std::size_t lines = 0;          ///< the page shows the output's first `lines` lines (a table of 4–8 rows); 0: all
};

struct LessonPart {
  int number = 0;  ///< the doc's part number; 0: the students' questions
  std::string title;
  std::string say;
  std::vector<LessonStep> steps;
  LessonFrames frames = LessonFrames::None;
};

/// The parts in the language of `t`.
std::vector<LessonPart> lesson_parts(const Text& t);

/// The command as the doc of the language writes it: "rope ARGS", with "--lang zh" before --png (or at
/// the end) in Chinese.
std::string lesson_command(const LessonStep& step, Lang lang);

}  // namespace rope::cli
