#include "rope/cli/catalog.hpp"

#include <cstddef>
#include <stdexcept>
#include <unordered_map>

#include "rope/cli/setting_names.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope::cli {

extern const char kZhCnPo[];
extern const std::size_t kZhCnPo_size;

namespace {

struct Index {
  std::vector<PoEntry> entries;
  std::unordered_map<std::string, const PoEntry*> by_key;  // context + '\x04' + id, as gettext keys them
};

std::string key(std::string_view context, std::string_view english) {
  std::string k(context);
  k += '\x04';
  k += english;
  return k;
}

const Index& index() {
  static const Index* built = [] {
    auto* out = new Index();
    try {
      out->entries = parse_po(catalog_text(), "po/zh_CN.po");
    } catch (const Error& e) {  // the catalog is tested at build time: a failure here is a bug
      throw std::logic_error(std::string("the embedded catalog does not parse: ") + e.what());
    }
    for (const PoEntry& e : out->entries) {
      if (e.id.empty() || e.str.empty() || e.obsolete || e.has_flag("fuzzy")) continue;
      out->by_key.emplace(key(e.context, e.id), &e);
    }
    return out;
  }();
  return *built;
}

/// Library messages (rope::Message) are translated through the catalog, and the library's settings are
/// named by their options (setting_names.hpp): both installed when the command line is linked in, before
/// main.
const std::string* translate_message(std::string_view id, std::string_view context) { return catalog_zh(id, context); }
[[maybe_unused]] const bool kInstalled =
    (Message::set_translator(&translate_message), set_option_namer(&option_for_setting), true);

}  // namespace

std::string_view catalog_text() { return {kZhCnPo, kZhCnPo_size}; }

const std::vector<PoEntry>& catalog_entries() { return index().entries; }

const PoEntry* catalog_entry(std::string_view english, std::string_view context) {
  const auto& map = index().by_key;
  const auto it = map.find(key(context, english));
  return it != map.end() ? it->second : nullptr;
}

const std::string* catalog_zh(std::string_view english, std::string_view context) {
  const PoEntry* entry = catalog_entry(english, context);
  return entry != nullptr ? &entry->str : nullptr;
}

std::vector<int> nested_fields(const PoEntry& entry) {
  std::vector<int> out;
  for (const std::string& comment : entry.extracted) {
    if (comment.rfind("nested:", 0) != 0) continue;
    for (std::size_t i = comment.find('{'); i != std::string::npos; i = comment.find('{', i + 1)) {
      out.push_back(std::stoi(comment.substr(i + 1)));
    }
  }
  return out;
}

}  // namespace rope::cli
