/// @file
/// `rope lesson` as one call (the report pattern of check_run.hpp): the page's file name checked, the page
/// (made by the front end, which runs the lesson's commands) written atomically, and what was written.
#pragma once

#include <functional>
#include <string>

#include "rope/core/message.hpp"

namespace rope {

struct LessonRequest {
  std::string html;  ///< the page's file: a name, then .html or .htm
  Lang lang = Lang::En;
};

struct LessonRun {
  std::string html;  ///< the file written
  Lang lang = Lang::En;
};

/// Checks the file name, then writes `page(lang)` to it, staged (a missing or unwritable directory fails before
/// the page is made, which takes seconds). @throws InvalidArgument for a missing or badly named file, IoError.
LessonRun run_lesson(const LessonRequest& request, const std::function<std::string(Lang)>& page);

}  // namespace rope
