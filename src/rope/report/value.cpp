#include "rope/report/value.hpp"
#include "rope/report/text.hpp"

#include <stdexcept>

namespace rope {

Value& Value::operator[](std::string_view key) {
  if (kind_ == Kind::Null) kind_ = Kind::Object;
  if (kind_ != Kind::Object) throw std::logic_error("a report value that is not an object has no fields");
  for (Field& f : fields_) {
    if (f.first == key) return f.second;
  }
  fields_.emplace_back(std::string(key), Value());
  return fields_.back().second;
}

const Value* Value::find(std::string_view key) const {
  for (const Field& f : fields_) {
    if (f.first == key) return &f.second;
  }
  return nullptr;
}

void Value::push_back(Value v) {
  if (kind_ == Kind::Null) kind_ = Kind::Array;
  if (kind_ != Kind::Array) throw std::logic_error("a report value that is not a list takes no items");
  items_.push_back(std::move(v));
}

}  // namespace rope
