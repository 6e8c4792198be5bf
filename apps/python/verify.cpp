// rope._rope.verify: `rope verify` on the caller's own q and k (analysis/verify/verify_run.hpp), every identity of the
// suite on them, with a Spec's RoPE; its report printed by the same printers as the command line's.
#include <array>
#include <memory>
#include <optional>
#include <sstream>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "report.hpp"
#include "rope/analysis/verify/verify_run.hpp"
#include "rope/core/error.hpp"
#include "rope/report/text.hpp"
#include "rope/report/verify_report.hpp"

namespace rope::python {

namespace {

/// One vector per column from an array of float64 whose last axis is d (rope/__init__.py converts it).
Eigen::MatrixXd vector_columns(const py::object& array) {
  const auto a = py::cast<py::array_t<double, py::array::c_style | py::array::forcecast>>(array);
  if (a.size() > kMaxVerifyVectorValues) {  // before the copy (the library checks the same again)
    throw InvalidArgument(error_msg("verify: q and k must hold at most {0} numbers each (got {1} and {2})",
                                    kMaxVerifyVectorValues, a.size(), a.size()));
  }
  const long d = a.ndim() == 0 ? 0 : static_cast<long>(a.shape(a.ndim() - 1));
  const long count = d == 0 ? 0 : static_cast<long>(a.size()) / d;
  Eigen::MatrixXd m(d, count);
  for (long v = 0; v < count; ++v) {
    for (long j = 0; j < d; ++j) m(j, v) = a.data()[v * d + j];
  }
  return m;
}

/// A finished verify run: its printers, as the command line's --json, --csv and text.
struct VerifyResult {
  std::shared_ptr<const VerifyRun> run;
};

}  // namespace

void bind_verify(py::module_& m) {
  py::class_<VerifyResult>(m, "VerifyResult")
      .def("value", [](const VerifyResult& r) { return to_python(verify_value(*r.run)); })
      .def("json",
           [](const VerifyResult& r) {
             std::ostringstream out;
             emit(out, *r.run, {Format::Json, Lang::En, std::nullopt});
             return out.str();
           })
      .def("csv", [](const VerifyResult& r) { return verify_csv(*r.run); })
      .def(
          "text",
          [](const VerifyResult& r, const std::string& lang, const std::optional<int>& digits, bool wide) {
            if (digits && (*digits < 0 || *digits > 17)) {
              throw InvalidArgument(
                  error_msg("{0} must be between {1} and {2} (got {3})", option_name("digits"), 0, 17, *digits));
            }
            std::ostringstream out;
            emit(out, *r.run, {Format::Text, parse_lang(lang), digits, wide});
            return out.str();
          },
          py::arg("lang") = "en", py::arg("digits") = py::none(), py::arg("wide") = false);
  // q, k: float64 arrays, the last axis d, one vector per index of the others; spec None: plain RoPE of d (Spec()'s
  // defaults); positions None or (m, n, c); trials None: the command line's default for the pairs given.
  m.def(
      "verify",
      [](const py::object& q, const py::object& k, const py::object& spec, const std::optional<std::vector<double>>& at,
         const std::optional<long>& trials, double max_position, const std::optional<std::uint64_t>& seed,
         const std::string& dtype, const std::string& strategy, bool dense, bool xpos, double xpos_scale_base) {
        auto vectors = std::make_shared<VerifyVectors>();
        vectors->q = vector_columns(q);
        vectors->k = vector_columns(k);
        if (at) {
          if (at->size() != 3) {
            throw InvalidArgument(
                error_msg("{0} must be three numbers M,N,C: the query's position m, the key's n and "
                          "the shift c (got {1})",
                          option_name("positions"), at->size()));
          }
          vectors->at = std::array<double, 3>{(*at)[0], (*at)[1], (*at)[2]};
        }
        VerifyRequest request;
        request.settings.vectors = vectors;
        request.settings.max_position = max_position;
        request.settings.trials = trials.value_or(default_vector_trials(vectors->pairs()));
        if (seed) request.settings.seed = *seed;
        request.settings.dense = dense;
        request.settings.layout = Layout::Half;  // Spec()'s plain RoPE: Hugging Face's rotate_half
        if (!spec.is_none()) {
          const Spec s = py::cast<Spec>(spec);
          request.source = s.source;
          request.rope = s.overrides;
          request.longrope = s.longrope;
          request.dim = s.overrides.head_dim;
          request.base = s.overrides.base;
          request.layout = s.overrides.layout;
        }
        if (!dtype.empty()) request.dtype = parse_dtype(dtype);
        if (!strategy.empty()) request.strategy = parse_strategy(strategy);
        request.xpos = xpos;
        request.xpos_scale_base = xpos_scale_base;
        VerifyResult result;
        {
          const py::gil_scoped_release release;
          result.run = std::make_shared<const VerifyRun>(run_verify(request));
        }
        return result;
      },
      py::arg("q"), py::arg("k"), py::arg("spec"), py::arg("positions") = py::none(), py::arg("trials") = py::none(),
      py::arg("max_position") = 4096.0, py::arg("seed") = py::none(), py::arg("dtype") = "", py::arg("strategy") = "",
      py::arg("dense") = false, py::arg("xpos") = false, py::arg("xpos_scale_base") = kDefaultXposScaleBase);
}

}  // namespace rope::python
