// rope lesson: the lesson of docs/classroom.md as one self-contained HTML page (rope/cli/lesson_page.hpp).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "rope/analysis/teaching/lesson_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/lesson_page.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/lesson_report.hpp"

namespace rope::cli {

struct LessonOptions {
  std::string html;
  Lang lang = Lang::En;
};

int run_lesson(const LessonOptions& opt, std::ostream& out) {
  const LessonRun run = rope::run_lesson({opt.html, opt.lang}, lesson_page);
  emit_report(out, run, {false, opt.lang});
  return kOk;
}

Command add_lesson_command(CLI::App& app) {
  auto opt = std::make_shared<LessonOptions>();
  CLI::App* sub = app.add_subcommand("lesson", "The lesson of docs/classroom.md as one self-contained HTML page");
  sub->add_option("--html", opt->html, "write the page to FILE (.html): commands, their output, figures, frames")
      ->type_name("FILE");
  add_lang_option(*sub, opt->lang);
  sub->footer("Example:\n  rope lesson --html lesson.html\n  rope lesson --html lesson.zh.html --lang zh");
  return {sub, [opt](std::ostream& out) { return run_lesson(*opt, out); }};
}

}  // namespace rope::cli
