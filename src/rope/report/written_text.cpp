#include "rope/report/written_text.hpp"

#include "rope/report/text.hpp"

namespace rope {

void print_written(std::ostream& out, const std::vector<std::string>& files, const Text& t) {
  for (const std::string& file : files) out << t.tr("wrote {0}\n", file);
}

}  // namespace rope
