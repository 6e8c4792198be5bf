// The printer of rope lesson (lesson_report.hpp): the lesson's sections as text.
#include "rope/report/lesson_report.hpp"

#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

namespace rope {

Value lesson_value(const LessonRun& run) {
  Value v = Value::object();
  v["html"] = run.html;
  v["lang"] = run.lang == Lang::Zh ? "zh" : "en";
  return v;
}

void print_lesson(std::ostream& out, const LessonRun& run, const Text& t) {
  out << t.tr("wrote the lesson page {0}: open it in a browser, it needs no network\n", run.html);
}

}  // namespace rope
