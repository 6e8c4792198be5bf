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

/// The report in the format asked for (text or JSON).
void emit(std::ostream& out, const TensorListing& listing, const Printing& how);

}  // namespace rope
