/// @file
/// The printers of `rope lesson` (analysis/teaching/lesson_run.hpp): the line saying which page was written, and its
/// value.
#pragma once

#include <ostream>

#include "rope/analysis/teaching/lesson_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// html (the file written) and lang ("en" or "zh").
Value lesson_value(const LessonRun& run);

/// "wrote the lesson page FILE: open it in a browser, it needs no network".
void print_lesson(std::ostream& out, const LessonRun& run, const Text& t);

/// The report of `rope lesson`: report/emit.hpp.
template <>
struct Report<LessonRun> {
  static Value value(const LessonRun& run) { return lesson_value(run); }
  static void text(std::ostream& out, const LessonRun& run, const Printing& how) {
    print_lesson(out, run, Text(how.lang));
  }
};

}  // namespace rope
