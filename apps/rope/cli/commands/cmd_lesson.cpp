// rope lesson: the lesson of docs/classroom.md as one self-contained HTML page (rope/cli/lesson_page.hpp).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <string>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/lesson_page.hpp"
#include "rope/core/error.hpp"
#include "rope/io/atomic_file.hpp"

namespace rope::cli {

struct LessonOptions {
  std::string html;
  Lang lang = Lang::En;
};

int run_lesson(const LessonOptions& opt, std::ostream& out) {
  if (opt.html.empty()) throw InvalidArgument(error_msg("rope lesson needs --html FILE: the page to write"));
  const std::string ext = std::filesystem::path(opt.html).extension().string();
  const std::string name = std::filesystem::path(opt.html).filename().string();
  if (name == ".html" || name == ".htm")
    throw InvalidArgument(error_msg("'{0}' needs a name before its extension {1}", opt.html, name));
  if (ext != ".html" && ext != ".htm") {
    throw InvalidArgument(error_msg("the --html file must end in .html or .htm (got '{0}')", opt.html));
  }
  // Staged before the page is made (seconds of work): a missing or unwritable directory fails at once.
  write_staged(opt.html, [&](OutputFile& file) { file.write(lesson_page(opt.lang)); });
  const Text t(opt.lang);
  out << t.tr("wrote the lesson page {0}: open it in a browser, it needs no network\n", opt.html);
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
