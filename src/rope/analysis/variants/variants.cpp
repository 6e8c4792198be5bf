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

Registered::Registered(const VariantRow& row) { rows().push_back(row); }

}  // namespace variants

const std::vector<VariantRow>& variant_table() { return variants::rows(); }

}  // namespace rope

#include "rope/analysis/variants/variant_list.hpp"
