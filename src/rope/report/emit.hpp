/// @file
/// How a front end asks for a report: its format (text for people, JSON, CSV) and, for text, the language and
/// the significant digits of the numbers compared (report/digits.hpp). Each report's header declares
/// `emit(out, report, printing)`; the command line, the Python module and the live page only choose these.
#pragma once

#include <optional>

#include "rope/core/message.hpp"

namespace rope {

enum class Format { Text, Json, Csv };

struct Printing {
  Format format = Format::Text;
  Lang lang = Lang::En;
  std::optional<int> digits;  ///< --digits N; nullopt: the report's default
};

}  // namespace rope
