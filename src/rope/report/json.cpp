#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

#include <nlohmann/json.hpp>

#include "rope/core/utf8.hpp"

namespace rope {

namespace {

nlohmann::json to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null:
      return nullptr;
    case Value::Kind::Bool:
      return v.boolean();
    case Value::Kind::Int:
      return v.integer();
    case Value::Kind::UInt:
      return v.uinteger();
    case Value::Kind::Double:
      return v.number();
    case Value::Kind::String:
      return valid_utf8(v.text());
    case Value::Kind::Array: {
      nlohmann::json a = nlohmann::json::array();
      for (const Value& x : v.items()) a.push_back(to_json(x));
      return a;
    }
    case Value::Kind::Object: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [key, x] : v.fields()) o[valid_utf8(key)] = to_json(x);
      return o;
    }
  }
  return nullptr;
}

}  // namespace

std::string json_text(const Value& value) { return to_json(value).dump(2); }

}  // namespace rope
