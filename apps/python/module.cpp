// The extension rope._rope: the library's errors as Python exceptions, its settings named by the Python
// arguments, and the bindings of spec.cpp and check.cpp.
#include <pybind11/pybind11.h>
#include <string>
#include <string_view>

#include "bindings.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/version.hpp"

namespace rope::python {

namespace {

/// The library names a setting ("layer_type", "dim"); the module names the argument that gives it.
std::string python_argument(std::string_view setting) {
  struct Name {
    std::string_view setting;
    const char* shown;
  };
  static constexpr Name kNames[] = {
      {"model", "Spec(\"PRESET\")"},
      {"config", "Spec(\"config.json\")"},
      {"dim", "head_dim"},
      {"bf16_bits", "dtype=\"bf16\""},
      {"original_max_position_embeddings", "original_max_position_embeddings"},
      {"inspect.list", "rope.presets()"},
      {"positions_csv", "rope.mrope_positions()"},
      {"scaling_methods", "scaling="},
      {"check.coefficients", "rope.check(coefficients=)"},
      {"diff.coefficients", "rope.diff(coefficients=)"},
      {"max-position", "max_position"},
      {"condition_image", "condition_images"},
      {"siglip_grid", "siglip_grids"},
  };
  // "name=": a value to give ("llama3 needs low_freq_factor: give low_freq_factor="), the keyword itself.
  if (!setting.empty() && setting.back() == '=') return std::string(setting);
  for (const Name& n : kNames) {
    if (n.setting == setting) return n.shown;
  }
  // "command.name": an option of a rope command the module has no function for ("apply.query"): that command, to
  // run in a shell, "rope apply --query".
  if (const auto dot = setting.find('.'); dot != std::string_view::npos) {
    std::string shown = "rope " + std::string(setting.substr(0, dot)) + " --";
    for (const char c : setting.substr(dot + 1)) shown += c == '_' ? '-' : c;
    return shown;
  }
  return std::string(setting);
}

/// What the module's texts call a Spec's settings where no model was given (report/rope_text.hpp).
rope::Message settings_given() { return rope::msg("the settings given"); }

}  // namespace

}  // namespace rope::python

PYBIND11_MODULE(_rope, m) {
  namespace py = pybind11;
  m.doc() = "rope's library: a model's RoPE, the float64 reference, and the check of a dump (docs/python.md)";
  rope::set_option_namer(&rope::python::python_argument);
  rope::set_no_model_name(&rope::python::settings_given);  // a Spec of plain settings, not "the command line"
  rope::python::install_catalog();
  m.attr("__version__") = rope::kVersion;
  // InvalidArgument: bad input, ValueError with the library's sentence; IoError: a file that cannot be read.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const rope::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const rope::IoError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });
  rope::python::bind_spec(m);
  rope::python::bind_check(m);
  rope::python::bind_positions(m);
  rope::python::bind_weights(m);
  rope::python::bind_verify(m);
}
