/// @file
/// A report's value (report/value.hpp) as Python data: the fields of `rope check --json` as a dict, the same keys
/// and numbers (a NaN stays a NaN); `rope identify --json`'s likewise.
#pragma once

#include <pybind11/pybind11.h>

#include "rope/report/value.hpp"

namespace rope::python {

/// The value as dicts, lists, numbers, texts, True/False and None.
pybind11::object to_python(const Value& value);

}  // namespace rope::python
