/// @file
/// Internal to the library, not part of its installed interface (it includes nlohmann/json, which the library
/// links privately): reading JSON text a user gives (a config.json, a preset, a report of ranks) without trusting
/// it, and typed access to its values with the JSON path of every problem in the message.
///   - a size limit, checked before parsing; a UTF-8 byte order mark first is skipped;
///   - nesting deeper than kMaxJsonDepth is refused before it is built; a duplicate key is refused by name
///     (nlohmann would keep the last one silently);
///   - every error reads "<name>: <path>: <what>", e.g. "config.json: rope_scaling.factor: must be positive, got 0".
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/error.hpp"

namespace rope::detail {

using json = nlohmann::json;

/// Deeper nesting is refused before it is built (real configs nest 3 levels).
constexpr int kMaxJsonDepth = 64;

/// Positions and dimensions read from a config must fit comfortably in a long and a double.
constexpr double kMaxInteger = 9007199254740992.0;  // 2^53

/// A number as messages print it ("4", "0.25").
std::string num(double v);

/// "a, b, c".
std::string join(const std::vector<std::string>& items);
/// Names read from a file (a config's keys, its layer types) for one line of a message: at most
/// kMaxListedNames of them, each cut to kMaxListedNameBytes bytes at a UTF-8 boundary ("…"), then ", … (+N)", so
/// that a refusal listing a block's keys stays one short line however many and however long the keys are.
inline constexpr std::size_t kMaxListedNames = 16;
inline constexpr std::size_t kMaxListedNameBytes = 48;
std::string join_names(const std::vector<std::string>& items, std::size_t max_bytes = kMaxListedNameBytes);
/// `name` cut to `max_bytes` bytes at a UTF-8 boundary, "…" after a cut.
std::string shown_name(const std::string& name, std::size_t max_bytes = kMaxListedNameBytes);

/// The JSON path of `key` inside `prefix` ("rope_scaling.factor"; just "factor" at the top level).
std::string child(const std::string& prefix, std::string_view key);

/// `text` without a leading UTF-8 byte order mark.
std::string_view without_bom(std::string_view text);

/// The JSON document in `text`, read strictly; `name` (a file path or preset name) starts every message.
/// @throws InvalidArgument "<name>: larger than the <max_bytes>-byte limit for a config file",
///         "<name>: not valid JSON: at line 2, column 3: …", "<name>: JSON nested more than 64 levels deep",
///         "<name>: rope_scaling: duplicate key 'factor'".
json parse_json(std::string_view text, const std::string& name, std::size_t max_bytes);

// ---- Typed access with JSON paths -------------------------------------------------------------------

/// Reads values out of the parsed config, failing with "<name>: <path>: <what>". A key that is absent
/// or null is "not given".
class Reader {
 public:
  explicit Reader(const std::string& name) : name_(name) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InvalidArgument(fmt::format("{}: {}: {}", name_, path, what));
  }

  static const json* find(const json& obj, std::string_view key) {
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  const json* object(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (v && !v->is_object()) fail(child(prefix, key), fmt::format("expected an object, got {}", v->type_name()));
    return v;
  }

  std::optional<std::string> string(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(child(prefix, key), fmt::format("expected a string, got {}", v->type_name()));
    return v->get<std::string>();
  }

  std::optional<double> number(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    return number_value(*v, child(prefix, key));
  }

  double number_value(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, fmt::format("expected a number, got {}", v.type_name()));
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(path, "expected a finite number");
    return x;
  }

  /// A number > 0.
  std::optional<double> positive(const json& obj, const std::string& prefix, std::string_view key) const {
    const auto x = number(obj, prefix, key);
    if (x && !(*x > 0)) fail(child(prefix, key), fmt::format("must be positive, got {}", num(*x)));
    return x;
  }

  /// A number >= 0.
  std::optional<double> non_negative(const json& obj, const std::string& prefix, std::string_view key) const {
    const auto x = number(obj, prefix, key);
    if (x && *x < 0) fail(child(prefix, key), fmt::format("must not be negative, got {}", num(*x)));
    return x;
  }

  /// A whole number > 0 (4096 and 4096.0 are both accepted; JSON does not tell them apart for HF).
  std::optional<long> count(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    const std::string path = child(prefix, key);
    if (!v->is_number()) fail(path, fmt::format("expected an integer, got {}", v->type_name()));
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxInteger)) {
      fail(path, fmt::format("is out of range, got {}", v->dump()));
    }
    if (v->is_number_integer() && !v->is_number_unsigned()) {
      const auto i = v->get<std::int64_t>();
      if (i <= 0) fail(path, fmt::format("must be positive, got {}", i));
      if (i > static_cast<std::int64_t>(kMaxInteger)) fail(path, fmt::format("is out of range, got {}", i));
      return static_cast<long>(i);
    }
    const double x = v->get<double>();
    if (x != std::floor(x)) fail(path, fmt::format("expected an integer, got {}", num(x)));
    if (!(x > 0)) fail(path, fmt::format("must be positive, got {}", num(x)));
    if (x > kMaxInteger) fail(path, fmt::format("is out of range, got {}", num(x)));
    return static_cast<long>(x);
  }

  std::optional<bool> boolean(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(child(prefix, key), fmt::format("expected true or false, got {}", v->type_name()));
    return v->get<bool>();
  }

  /// A list of positive numbers.
  std::optional<std::vector<double>> factors(const json& obj, const std::string& prefix, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    const std::string path = child(prefix, key);
    if (!v->is_array()) fail(path, fmt::format("expected a list of numbers, got {}", v->type_name()));
    std::vector<double> out;
    out.reserve(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string item = fmt::format("{}[{}]", path, i);
      const double x = number_value((*v)[i], item);
      if (!(x > 0)) fail(item, fmt::format("must be positive, got {}", num(x)));
      out.push_back(x);
    }
    return out;
  }

 private:
  const std::string& name_;
};

}  // namespace rope::detail
