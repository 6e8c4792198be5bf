/// @file
/// The one JSON printer: a report's value (value.hpp) as indented JSON text (`--json`), its fields sorted by
/// name; a NaN or an infinity is written as null (JSON has neither), and a text that is not UTF-8 (a file name
/// with a byte such as 0xff) with each such byte as the text \xNN, never an exception.
#pragma once

#include <string>

#include "rope/report/value.hpp"

namespace rope {

std::string json_text(const Value& value);

}  // namespace rope
