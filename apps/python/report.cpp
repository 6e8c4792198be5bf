#include "report.hpp"

#include <pybind11/stl.h>

namespace rope::python {

namespace py = pybind11;

py::object to_python(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null:
      return py::none();
    case Value::Kind::Bool:
      return py::bool_(v.boolean());
    case Value::Kind::Int:
      return py::int_(v.integer());
    case Value::Kind::UInt:
      return py::int_(v.uinteger());
    case Value::Kind::Double:
      return py::float_(v.number());
    case Value::Kind::String:
      return py::str(v.text());
    case Value::Kind::Array: {
      py::list out;
      for (const Value& x : v.items()) out.append(to_python(x));
      return std::move(out);
    }
    case Value::Kind::Object: {
      py::dict out;
      for (const auto& [key, x] : v.fields()) out[py::str(key)] = to_python(x);
      return std::move(out);
    }
  }
  return py::none();
}

}  // namespace rope::python
