/// @file
/// A report's fields as one tree of values (null, true/false, integers, numbers, texts, lists, fields by name):
/// each report builds it once (report/*.hpp `…_value`), the JSON printer writes it (report/json.hpp) and the
/// Python module hands it over as dicts and lists (apps/python), so the command line's `--json` and Python's
/// report hold the same keys and numbers, and a NaN or an infinity stays one in Python (JSON writes null).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rope {

class Value {
 public:
  enum class Kind { Null, Bool, Int, UInt, Double, String, Array, Object };
  using Field = std::pair<std::string, Value>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind_(Kind::Bool), b_(b) {}
  Value(double d) : kind_(Kind::Double), d_(d) {}
  Value(float d) : kind_(Kind::Double), d_(d) {}
  Value(std::string s) : kind_(Kind::String), s_(std::move(s)) {}
  Value(const char* s) : kind_(Kind::String), s_(s) {}
  Value(std::string_view s) : kind_(Kind::String), s_(s) {}
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T i) : kind_(Kind::Int), i_(i) {}
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T u) : kind_(Kind::UInt), u_(u) {}
  /// A list of the values.
  template <class T>
  Value(const std::vector<T>& items) : kind_(Kind::Array) {
    items_.reserve(items.size());
    for (const T& x : items) items_.emplace_back(x);
  }
  /// The value, or null.
  template <class T>
  Value(const std::optional<T>& v) {
    if (v) *this = Value(*v);
  }

  static Value array() { return Value(Kind::Array); }
  static Value object() { return Value(Kind::Object); }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool boolean() const { return b_; }
  long long integer() const { return i_; }
  unsigned long long uinteger() const { return u_; }
  double number() const { return d_; }
  const std::string& text() const { return s_; }
  const std::vector<Value>& items() const { return items_; }
  const std::vector<Field>& fields() const { return fields_; }

  /// The field `key` of an object (a null value becomes an empty object), added null when missing.
  Value& operator[](std::string_view key);
  /// The field `key`, or nullptr.
  const Value* find(std::string_view key) const;
  /// Appends to a list (a null value becomes an empty list).
  void push_back(Value v);

 private:
  explicit Value(Kind kind) : kind_(kind) {}
  Kind kind_ = Kind::Null;
  bool b_ = false;
  long long i_ = 0;
  unsigned long long u_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> items_;
  std::vector<Field> fields_;  ///< in the order they were set (the JSON printer sorts them by name)
};

}  // namespace rope
