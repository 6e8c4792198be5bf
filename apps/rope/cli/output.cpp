#include "rope/cli/output.hpp"

#include "rope/io/atomic_file.hpp"

namespace rope::cli {

void write_output(const std::string& target, std::string_view content, std::ostream& out) {
  if (target == "-") {
    out << content;
  } else {
    write_file_atomically(target, content);
  }
}

}  // namespace rope::cli
