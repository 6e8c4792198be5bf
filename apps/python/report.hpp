/// @file
/// A report's value (report/value.hpp) as Python data: the fields of `rope check --json` as a dict, the same keys
/// and numbers (a NaN stays a NaN), and identify's result as a dict.
#pragma once

#include <pybind11/pybind11.h>

#include "rope/report/value.hpp"
#include "rope/analysis/identify.hpp"

namespace rope::python {

/// The value as dicts, lists, numbers, texts, True/False and None.
pybind11::object to_python(const Value& value);

pybind11::dict identification_dict(const Identification& id);

}  // namespace rope::python
