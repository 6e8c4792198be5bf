// rope.weights (docs/python.md): `rope weights` in-process, its report the command's own value (weights_value) and
// its text in a language.
#include <sstream>

#include "bindings.hpp"
#include "report.hpp"
#include "rope/analysis/weights/weights_run.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"
#include "rope/report/weights_report.hpp"

namespace rope::python {

void bind_weights(py::module_& m) {
  m.def(
      "weights",
      [](const std::string& reference, const std::string& candidate, const std::string& config,
         const std::string& lang) {
        WeightsRequest request{reference, candidate, config, {}, 0, false};
        WeightsRun run;
        {
          const py::gil_scoped_release release;
          run = run_weights(request);
        }
        std::ostringstream text;
        emit(text, run, {Format::Text, parse_lang(lang), {}});
        py::dict out;
        out["data"] = to_python(weights_value(run));
        out["json"] = json_text(weights_value(run));  // rope weights --json's text, the one JSON printer
        out["text"] = text.str();
        return out;
      },
      py::arg("reference"), py::arg("candidate"), py::arg("config") = "", py::arg("lang") = "en");
}

}  // namespace rope::python
