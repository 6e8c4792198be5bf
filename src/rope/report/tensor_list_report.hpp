/// @file
/// The printers of a dump file's tensors (io/tensor_list.hpp, `rope inspect --tensors FILE`): a table for people
/// (name, dtype, shape, strides, a view's storage offset) and the value of its fields (`--json`: file, format and
/// `tensors`, each with name, dtype, shape, strides and offset).
#pragma once

#include <ostream>

#include "rope/io/tensor_list.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

Value tensor_list_value(const TensorListing& listing);

void print_tensor_list(std::ostream& out, const TensorListing& listing, const Text& t);

/// Its report (report/emit.hpp): the value, the text.
template <>
struct Report<TensorListing> {
  static Value value(const TensorListing& run) { return tensor_list_value(run); }
  static void text(std::ostream& out, const TensorListing& run, const Printing& how) {
    print_tensor_list(out, run, Text(how.lang));
  }
};

}  // namespace rope
