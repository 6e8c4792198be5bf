// The Chinese of the library's messages for Spec.describe(lang="zh"): the one catalog po/zh_CN.po, embedded
// by the build as the command line embeds it (scripts/embed_po.cmake) and read once by the library's reader
// (io/po_file.hpp). Installed as the translator of rope::Message when the module is imported.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "bindings.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/po_file.hpp"

namespace rope::cli {
extern const char kZhCnPo[];
extern const std::size_t kZhCnPo_size;
}  // namespace rope::cli

namespace rope::python {

namespace {

/// context + '\x04' + id, as gettext keys them, to the Chinese.
const std::unordered_map<std::string, std::string>& catalog() {
  static const auto* built = [] {
    auto* out = new std::unordered_map<std::string, std::string>();
    std::vector<PoEntry> entries;
    try {
      entries = parse_po(std::string_view(cli::kZhCnPo, cli::kZhCnPo_size), "po/zh_CN.po");
    } catch (const Error& e) {  // the catalog is tested at build time (catalog.msgfmt): a failure here is a bug
      throw std::logic_error(std::string("the embedded catalog does not parse: ") + e.what());
    }
    for (const PoEntry& e : entries) {
      if (e.id.empty() || e.str.empty() || e.obsolete || e.has_flag("fuzzy")) continue;
      out->emplace(e.context + '\x04' + e.id, e.str);
    }
    return out;
  }();
  return *built;
}

const std::string* translate(std::string_view id, std::string_view context) {
  const auto& map = catalog();
  std::string key(context);
  key += '\x04';
  key += id;
  const auto it = map.find(key);
  return it != map.end() ? &it->second : nullptr;
}

}  // namespace

void install_catalog() { Message::set_translator(&translate); }

}  // namespace rope::python
