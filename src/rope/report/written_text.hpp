/// @file
/// The line that names a file a run wrote for a person to open (a figure, a GIF, a kept gnuplot script):
/// "wrote FILE", one line per file, after the report's text, in either language. `rope lesson` says the same of
/// its page ("wrote the lesson page FILE: …", lesson_report.hpp). A figure drawn to standard output ('-' or
/// --term) is not named: the drawing is the output.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace rope {

class Text;

/// "wrote FILE\n" for each of `files`, in `t`'s language; nothing for none.
void print_written(std::ostream& out, const std::vector<std::string>& files, const Text& t);

}  // namespace rope
