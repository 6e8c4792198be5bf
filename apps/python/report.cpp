#include "report.hpp"

#include <pybind11/stl.h>

namespace rope::python {

namespace py = pybind11;

py::object to_python(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return py::none();
    case Value::Kind::Bool: return py::bool_(v.boolean());
    case Value::Kind::Int: return py::int_(v.integer());
    case Value::Kind::UInt: return py::int_(v.uinteger());
    case Value::Kind::Double: return py::float_(v.number());
    case Value::Kind::String: return py::str(v.text());
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

py::dict identification_dict(const Identification& id) {
  py::dict j;
  j["d"] = id.d;
  j["rotary_dim"] = id.rotary_dim;
  j["layout"] = std::string(to_string(id.layout));
  j["pairs"] = id.pairs;
  j["attention_factor"] = id.attention_factor;
  j["norm_residual"] = id.norm_residual;
  j["theta"] = std::vector<double>(id.theta.data(), id.theta.data() + id.theta.size());
  j["angle_residual"] = std::vector<double>(id.angle_residual.data(), id.angle_residual.data() + id.angle_residual.size());
  py::list fits;
  for (const FamilyFit& f : id.fits) {
    py::dict fit;
    fit["family"] = std::string(to_string(f.family));
    fit["base"] = f.base;
    fit["factor"] = f.factor;
    fit["ramp_low"] = f.ramp_low;
    fit["ramp_high"] = f.ramp_high;
    fit["residual"] = f.residual;
    fits.append(fit);
  }
  j["family"] = fits.empty() ? py::object(py::none()) : py::object(fits[0]);
  j["fits"] = fits;
  py::list notes;
  for (const Message& n : id.notes) notes.append(n.en);
  j["notes"] = notes;
  j["position_offset"] = id.position_offset;
  j["jumps"] = id.jumps;
  j["undetermined"] = id.undetermined;
  j["reversed"] = id.reversed;
  j["heads_paired_otherwise"] = id.heads_paired_otherwise;
  j["pairing_assumed"] = id.pairing_assumed;
  if (id.axes) {
    py::dict mrope;
    mrope["pair_axis"] = id.axes->pair_axis;
    mrope["sections"] = id.axes->sections.empty() ? py::object(py::none()) : py::cast(id.axes->sections);
    mrope["order"] = id.axes->order ? py::object(py::str(to_string(*id.axes->order))) : py::object(py::none());
    j["mrope"] = mrope;
  }
  return j;
}

}  // namespace rope::python
