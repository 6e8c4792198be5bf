/// @file
/// The Python module's extension `rope._rope` (docs/python.md): a front end over the library, like the
/// command line. The pure-Python package (rope/__init__.py, rope/testing.py) turns arrays and tensors into
/// what these functions take and wraps their results.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <string>

#include "rope/models/longrope_rule.hpp"
#include "rope/models/resolve.hpp"

namespace rope::python {

namespace py = pybind11;

/// A model's RoPE as the module resolved it: its source and overrides (for describe()) and the result.
struct Spec {
  ModelSource source;
  RopeOverrides overrides;
  ModelRope rope;
  bool gguf = false;      ///< the file is a GGUF (llama.cpp computes its angles)
  LongRopeRule longrope;  ///< engine=, max_model_len=, n_ctx=: whose rule picks LongRoPE's list (longrope_rule.hpp)
};

void bind_spec(py::module_& m);
void bind_check(py::module_& m);
/// rope._rope.mrope_positions (positions.cpp).
void bind_positions(py::module_& m);
void bind_weights(py::module_& m);
/// rope._rope.verify and its VerifyResult (verify.cpp).
void bind_verify(py::module_& m);
/// Installs the Chinese of po/zh_CN.po as the translator of the library's messages (catalog.cpp).
void install_catalog();

}  // namespace rope::python
