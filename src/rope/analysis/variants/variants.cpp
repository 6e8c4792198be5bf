// The variant table (check_table.hpp variant_table): the variant files of this folder compiled as one translation
// unit, each adding its row as it is initialised, in the order variant_list.hpp includes them.
#include "rope/analysis/variants/variant_file.hpp"

namespace rope {
namespace variants {
namespace {

std::vector<VariantRow>& rows() {
  static std::vector<VariantRow> table;
  return table;
}

}  // namespace

Registered::Registered(const VariantRow& row) {
  if (rows().empty() && std::string_view(row.name) != "expected") {
    throw std::logic_error("the variant table's first row is the expected RoPE (VariantId's default)");
  }
  rows().push_back(row);
  rows().back().kind = VariantId{static_cast<int>(rows().size() - 1)};
}

}  // namespace variants

const std::vector<VariantRow>& variant_table() { return variants::rows(); }

}  // namespace rope

#include "rope/analysis/variants/variant_list.hpp"
