/// @file
/// The results of rope._rope.check and identify as Python dicts: the keys of `rope check --json` and `rope
/// identify --json` (so that a test compares the two front ends key by key), plus the failing positions and
/// pairs as lists.
#pragma once

#include <pybind11/pybind11.h>

#include "rope/analysis/check.hpp"
#include "rope/analysis/dump_pair.hpp"
#include "rope/analysis/identify.hpp"

namespace rope::python {

/// Checks the pair against `expected` as `rope check` does (check_dump, each batch row or packed sequence on its
/// own, the rows' diagnosis) and returns the report.
pybind11::dict report_dict(const DumpPair& pair, const RopeExpectation& expected);

pybind11::dict identification_dict(const Identification& id);

}  // namespace rope::python
