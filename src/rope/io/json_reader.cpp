#include "rope/io/json_reader.hpp"

#include <cstring>
#include <set>

namespace rope::detail {

std::string num(double v) { return fmt::format("{}", v); }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string shown_name(const std::string& name, std::size_t max_bytes) {
  if (name.size() <= max_bytes) return name;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return name.substr(0, cut) + "…";
}

std::string join_names(const std::vector<std::string>& items, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kMaxListedNames; ++i) {
    out += (out.empty() ? "" : ", ") + shown_name(items[i], max_bytes);
  }
  if (items.size() > kMaxListedNames)
    out += fmt::format(", … (+{})", items.size() - kMaxListedNames);  // the same in both languages
  return out;
}

std::string child(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key);
}

namespace {

// ---- JSON text → DOM, refusing duplicate keys and deep nesting ------------------------------------

/// One open object or array while parsing, for duplicate keys and error paths.
struct Frame {
  bool object = true;
  std::set<std::string> keys;  // object: keys seen so far
  std::string key;             // object: the key whose value is being read
  std::size_t count = 0;       // array: elements begun so far
};

std::string path_of(const std::vector<Frame>& stack) {
  std::string path;
  for (const Frame& f : stack) {
    if (f.object) {
      if (!f.key.empty()) path = child(path, f.key);
    } else if (f.count > 0) {
      path += fmt::format("[{}]", f.count - 1);
    }
  }
  return path;
}

json parse_dom(std::string_view text, const std::string& name) {
  std::vector<Frame> stack;
  const auto begin_element = [&stack] {
    if (!stack.empty() && !stack.back().object) ++stack.back().count;
  };
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        begin_element();
        if (depth >= kMaxJsonDepth) {
          throw InvalidArgument(error_msg("{0}: JSON nested more than {1} levels deep", name, kMaxJsonDepth));
        }
        stack.push_back(Frame{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        std::string key = parsed.get<std::string>();
        if (!f.keys.insert(key).second) {
          f.key.clear();
          const std::string where = path_of(stack);
          throw InvalidArgument(where.empty() ? error_msg("{0}: duplicate key '{1}'", name, key)
                                              : error_msg("{0}: {1}: duplicate key '{2}'", name, where, key));
        }
        f.key = std::move(key);
        break;
      }
      case json::parse_event_t::value:
        begin_element();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 2, column 3: syntax error ..." → from "at line".
    const std::string what = e.what();
    const auto at = what.find("parse error");
    std::string reason = at == std::string::npos ? what : what.substr(at + std::strlen("parse error"));
    if (!reason.empty() && reason.front() == ':') reason.erase(0, 1);
    while (!reason.empty() && reason.front() == ' ') reason.erase(0, 1);
    throw InvalidArgument(error_msg("{0}: not valid JSON: {1}", name, reason));
  } catch (const json::exception& e) {
    throw InvalidArgument(error_msg("{0}: not valid JSON: {1}", name, e.what()));
  }
}

}  // namespace

std::string_view without_bom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

json parse_json(std::string_view text, const std::string& name, std::size_t max_bytes) {
  if (text.size() > max_bytes) {
    throw InvalidArgument(error_msg("{0}: larger than the {1}-byte limit for a config file", name, max_bytes));
  }
  return parse_dom(without_bom(text), name);
}

}  // namespace rope::detail
