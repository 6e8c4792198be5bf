#include "rope/analysis/teaching/lesson_run.hpp"

#include <filesystem>

#include "rope/core/error.hpp"
#include "rope/io/atomic_file.hpp"

namespace rope {

LessonRun run_lesson(const LessonRequest& request, const std::function<std::string(Lang)>& page) {
  if (request.html.empty()) {
    throw InvalidArgument(error_msg("the lesson is a page: give {0} FILE, e.g. 'rope lesson {1} lesson.html'",
                                    option_name("html"), option_name("html")));
  }
  const std::string ext = std::filesystem::path(request.html).extension().string();
  const std::string name = std::filesystem::path(request.html).filename().string();
  if (name == ".html" || name == ".htm")
    throw InvalidArgument(error_msg("'{0}' needs a name before its extension {1}", request.html, name));
  if (ext != ".html" && ext != ".htm") {
    throw InvalidArgument(
        error_msg("the {0} file must end in .html or .htm (got '{1}')", option_name("html"), request.html));
  }
  // Staged before the page is made (seconds of work): a missing or unwritable directory fails at once.
  write_staged(request.html, [&](OutputFile& file) { file.write(page(request.lang)); });
  return {request.html, request.lang};
}

}  // namespace rope
