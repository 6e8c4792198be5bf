#include "rope/cli/help_zh.hpp"

#include <sstream>
#include <string>

#include "rope/cli/catalog.hpp"

namespace rope::cli {

namespace {

/// The paragraph `prose` (lines joined by '\n') in Chinese, or as it is (noted in `missing`).
void add_prose(std::string& out, const std::string& prose, std::vector<std::string>* missing) {
  if (prose.empty()) return;
  const char* text = help_zh(prose);
  if (text == nullptr && missing != nullptr) missing->push_back(prose);
  out += text != nullptr ? std::string(text) : prose;
  out += '\n';
}

}  // namespace

const char* help_zh(std::string_view english) {
  const std::string* zh = catalog_zh(english);
  return zh != nullptr ? zh->c_str() : nullptr;
}

std::string footer_zh(const std::string& footer, std::vector<std::string>* missing) {
  // Line by line: an example heading ("Example:") and the command lines under it are kept (the heading
  // translated); every other run of lines up to a blank line or a heading is one paragraph of prose.
  std::string out, prose;
  bool in_examples = false;
  std::istringstream lines(footer);
  std::string line;
  while (std::getline(lines, line)) {
    if (line == "Example:" || line == "Examples:") {
      add_prose(out, prose, missing);
      prose.clear();
      const char* heading = help_zh("Example");
      out +=
          heading != nullptr ? std::string(heading) + "：\n" : std::string("Example:\n");  // full-width after Chinese
      in_examples = true;
    } else if (line.empty()) {
      add_prose(out, prose, missing);
      prose.clear();
      out += '\n';
      in_examples = false;
    } else if (in_examples && line.rfind("  ", 0) == 0) {
      out += line + '\n';
    } else {
      in_examples = false;
      prose += prose.empty() ? line : '\n' + line;
    }
  }
  add_prose(out, prose, missing);
  if (!out.empty() && out.back() == '\n' && (footer.empty() || footer.back() != '\n')) out.pop_back();
  return out;
}

}  // namespace rope::cli
