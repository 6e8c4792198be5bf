// rope inspect --lint's report (lint_report.hpp).
#include "rope/report/lint_report.hpp"

#include "rope/report/json.hpp"

namespace rope {

Value lint_value(const EngineLint& lint) {
  Value j = Value::object();
  j["model"] = lint.name;
  Value findings = Value::array();
  for (const Message& m : lint.findings) findings.push_back(m.en);
  j["findings"] = std::move(findings);
  return j;
}

void print_lint(std::ostream& out, const EngineLint& lint, Lang lang) {
  out << msg("{0}: its RoPE keys against engines that read them otherwise than transformers 5\n", lint.name).in(lang);
  if (lint.findings.empty()) {
    out << msg("  nothing found: engines that read rope_scaling, rope_parameters or the top-level keys compute what "
               "transformers 5 computes\n")
               .in(lang);
  }
  for (const Message& m : lint.findings) out << "  - " << m.in(lang) << '\n';
}

}  // namespace rope
