// rope._rope.Spec: a model's RoPE from a preset, a config file (config.json or GGUF) or parameters alone, with
// every parameter on top, resolved by the library's one resolution (models/resolve.hpp).
#include <pybind11/numpy.h>
#include <limits>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "report.hpp"
#include "rope/report/text.hpp"
#include "rope/report/inspect_report.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/core/error.hpp"
#include "rope/io/gguf.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope::python {

namespace {

py::array_t<double> to_array(const Eigen::VectorXd& v) {
  py::array_t<double> a(v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) a.mutable_at(i) = v[i];
  return a;
}

/// The keyword parameters of rope.Spec (rope/__init__.py passes those given) as the library's overrides.
RopeOverrides overrides_of(const py::dict& params) {
  RopeOverrides o;
  o.default_layout = Layout::Half;  // plain RoPE: Hugging Face's rotate_half, said as assumed
  for (const auto& [key, value] : params) {
    const std::string k = py::cast<std::string>(key);
    const auto real = [&]() { return py::cast<double>(value); };
    // A Python integer of any size: checked against the range of the field before it is narrowed (2**32 + 64 was
    // read as 64), the value named as typed.
    const auto whole = [&](long lo, long hi) {
      const py::object h = py::reinterpret_borrow<py::object>(value);
      if (PyLong_Check(h.ptr()) || py::hasattr(h, "__index__")) {
        const py::int_ i(h);
        if (i < py::int_(lo) || i > py::int_(hi)) {
          throw InvalidArgument(error_msg("{0} must be an integer between {1} and {2} (got {3})", option_name(k), lo,
                                          hi, py::cast<std::string>(py::repr(i))));
        }
      }
      return py::cast<long>(value);
    };
    constexpr long kIntMin = std::numeric_limits<int>::min(), kIntMax = std::numeric_limits<int>::max();
    constexpr long kLongMin = std::numeric_limits<long>::min(), kLongMax = std::numeric_limits<long>::max();
    if (k == "head_dim")
      o.head_dim = static_cast<int>(whole(kIntMin, kIntMax));
    else if (k == "base")
      o.base = real();
    else if (k == "layout")
      o.layout = parse_layout(py::cast<std::string>(value));
    else if (k == "scaling")
      o.scaling = py::cast<std::string>(value);
    else if (k == "factor")
      o.factor = real();
    else if (k == "beta_fast")
      o.beta_fast = real();
    else if (k == "beta_slow")
      o.beta_slow = real();
    else if (k == "mscale")
      o.mscale = real();
    else if (k == "mscale_all_dim")
      o.mscale_all_dim = real();
    else if (k == "attention_factor")
      o.attention_factor = real();
    else if (k == "low_freq_factor")
      o.low_freq_factor = real();
    else if (k == "high_freq_factor")
      o.high_freq_factor = real();
    else if (k == "partial_rotary_factor")
      o.partial_rotary_factor = real();
    else if (k == "original_max_position_embeddings")
      o.original_max_position_embeddings = whole(kLongMin, kLongMax);
    else if (k == "max_position_embeddings")
      o.max_position_embeddings = whole(kLongMin, kLongMax);
    else if (k == "seq_len")
      o.seq_len = whole(kLongMin, kLongMax);
    else if (k == "truncate")
      o.truncate = py::cast<bool>(value);
    else if (k == "short_factor")
      o.short_factor = py::cast<std::vector<double>>(value);
    else if (k == "long_factor")
      o.long_factor = py::cast<std::vector<double>>(value);
    else if (k == "layer_type")
      o.layer_type = py::cast<std::string>(py::str(value));
    else if (k == "vision")
      o.vision = py::cast<std::string>(value);
    else if (k == "yarn_variant")  // --yarn-variant: hf, telechat3, grok-yarn-log or grok-theta-scale
      o.yarn_variant = py::cast<std::string>(value);
    else if (k == "xdrope_map")  // --xdrope-map: hf or tencent
      o.xdrope_map = py::cast<std::string>(value);
    else if (k == "float32")
      o.float32 = py::cast<bool>(value);
    else if (k == "tower") {
      const std::string t = py::cast<std::string>(value);
      if (t != "text" && t != "vision")
        throw InvalidArgument(error_msg("{0} must be text or vision (got '{1}')", "tower", t));
      o.tower = t == "text" ? Tower::Text : Tower::Vision;
    } else {
      throw py::type_error("Spec() got an unexpected keyword argument '" + k + "'");
    }
  }
  return o;
}

Spec make(const std::string& preset, const std::string& file, const py::dict& params, const std::string& name) {
  Spec s;
  s.source = {preset, file};
  // engine=, max_model_len=, n_ctx= (the command line's --engine, --max-model-len, --n-ctx): the rule of LongRoPE's
  // list, applied to the resolved model (models/longrope_rule.hpp) and to the expectation of a check.
  py::dict rest;
  std::string engine;
  std::optional<long> max_model_len, n_ctx;
  for (const auto& [key, value] : params) {
    const std::string k = py::cast<std::string>(key);
    if (k == "engine") {
      engine = py::cast<std::string>(value);
    } else if (k == "max_model_len" || k == "n_ctx") {
      (k == "n_ctx" ? n_ctx : max_model_len) = py::cast<long>(value);
    } else {
      rest[key] = value;
    }
  }
  s.overrides = overrides_of(rest);
  // FoPE (models/fope.hpp): a Spec describes it and rope.check computes it with coefficients= (refused without).
  s.overrides.fope = FopeUse::Computed;
  s.longrope = longrope_rule(engine, max_model_len, n_ctx);
  s.gguf = !file.empty() && is_gguf_file(file);
  s.rope = with_longrope_rule(resolve_model_rope(s.source, s.overrides), s.longrope);
  if (!name.empty()) s.rope.spec.name = name;  // a config given as a dict
  return s;
}

py::object optional_long(const std::optional<long>& v) { return v ? py::cast(*v) : py::none(); }

}  // namespace

void bind_spec(py::module_& m) {
  m.def("presets", []() {
    std::vector<std::string> names;
    for (const PresetInfo& p : list_presets()) names.push_back(p.name);
    return names;
  });
  py::class_<Spec>(m, "Spec")
      .def(py::init(&make), py::arg("preset"), py::arg("file"), py::arg("params"), py::arg("name") = "")
      .def_property_readonly("name", [](const Spec& s) { return model_name(s.rope.spec, Lang::En); })
      .def_property_readonly("model_type", [](const Spec& s) { return s.rope.spec.model_type; })
      .def_property_readonly("plain", [](const Spec& s) { return s.rope.plain; })
      .def_property_readonly("head_dim", [](const Spec& s) { return s.rope.spec.head_dim; })
      .def_property_readonly("rotary_dim", [](const Spec& s) { return s.rope.spec.rotary_dim; })
      .def_property_readonly("rotary_offset", [](const Spec& s) { return s.rope.spec.rotary_offset; })
      .def_property_readonly("layout", [](const Spec& s) { return std::string(to_string(s.rope.spec.layout)); })
      .def_property_readonly("layout_reason", [](const Spec& s) { return s.rope.spec.layout_reason.en; })
      .def_property_readonly("base", [](const Spec& s) { return s.rope.spec.config.base; })
      .def_property_readonly("scaling", [](const Spec& s) { return std::string(to_string(s.rope.spec.config.type)); })
      .def_property_readonly("scaling_parameters", [](const Spec& s) { return scaling_parameters(s.rope.spec.config); })
      .def_property_readonly("attention_factor", [](const Spec& s) { return s.rope.spec.params.attention_factor; })
      .def_property_readonly("inv_freq", [](const Spec& s) { return to_array(s.rope.spec.params.inv_freq); })
      .def_property_readonly("original_inv_freq", [](const Spec& s) { return to_array(s.rope.spec.original); })
      .def_property_readonly("max_position_embeddings",
                             [](const Spec& s) { return optional_long(s.rope.spec.config.max_position_embeddings); })
      .def_property_readonly("original_max_position_embeddings",
                             [](const Spec& s) {
                               const long l0 = s.rope.spec.params.original_max_position;
                               return l0 > 0 ? py::cast(l0) : py::none();
                             })
      .def_property_readonly("multi_axis", [](const Spec& s) { return s.rope.spec.axes.has_value(); })
      .def_property_readonly("layer_type", [](const Spec& s) { return s.rope.spec.layer_type; })
      .def_property_readonly("layer_types",
                             [](const Spec& s) {
                               py::list out;
                               for (const LayerRope& l : s.rope.layers)
                                 out.append(py::make_tuple(l.type, l.layers, l.spec.has_value()));
                               return out;
                             })
      .def_property_readonly("factor", [](const Spec& s) { return s.rope.spec.params.factor; })
      .def_property_readonly("factor_rule", [](const Spec& s) { return s.rope.spec.params.factor_rule.en; })
      .def_property_readonly("attention_rule", [](const Spec& s) { return s.rope.spec.params.attention_rule.en; })
      .def_property_readonly("origin", [](const Spec& s) { return english(s.rope.spec.origin); })
      // The fields of `rope inspect --json`, built once by the library (report/inspect_report.hpp).
      .def_property_readonly("data", [](const Spec& s) { return to_python(inspect_value(inspect_model(s.rope))); })
      .def_property_readonly(
          "notes", [](const Spec& s) { return to_python(*inspect_value(inspect_model(s.rope)).find("notes")); })
      .def(
          "describe",
          [](const Spec& s, const std::string& lang, int digits) {
            return inspect_text(s.rope, parse_lang(lang), digits);
          },
          py::arg("lang") = "en", py::arg("digits") = kInspectDigits)
      .def_property_readonly(
          "warnings", [](const Spec& s) { return to_python(*inspect_value(inspect_model(s.rope)).find("warnings")); });
}

}  // namespace rope::python
