/// @file
/// Strict parsing of the numbers and lists users type. Decimal only: no hex ("0x10"), no octal
/// ("010" is ten), no trailing junk ("128abc"), no NaN or infinity, no empty items. Every error
/// names what was being read, the text, and the rule.
#pragma once

#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace rope {

/// Longest list parse_real_list accepts.
inline constexpr std::size_t kMaxListItems = 65536;

/// A decimal integer, optionally signed ("-3", "4096").
/// @param what  the name used in the message, e.g. "dimension d" (the command line passes its option name).
/// @throws InvalidArgument otherwise, or if it does not fit in a long.
long parse_integer(std::string_view text, std::string_view what);

/// A finite decimal real number ("10000", "1e4", "-0.5").
/// @throws InvalidArgument otherwise (hex, NaN, inf, overflow such as 1e400, junk).
double parse_real(std::string_view text, std::string_view what);

/// A comma-separated list of finite reals ("1,0, 0,1"); spaces around items are ignored.
/// @throws InvalidArgument for an empty list or item, a bad item (naming its 1-based position), or more
/// than kMaxListItems items.
std::vector<double> parse_real_list(std::string_view text, std::string_view what);

namespace detail {

/// What std::from_chars(first, last, value, std::chars_format::general) returns for a double, computed with
/// strtod on the longest prefix of `first` that from_chars would read: the same end, the same error
/// (result_out_of_range when the value overflows or underflows to 0, value then unchanged;
/// invalid_argument when no number starts at `first`) and the same value (both round correctly).
/// parse_real uses it where the C++ library has no floating-point from_chars (libc++ of Debian's
/// emscripten, the live lesson page's build); tests/core/test_parse.cpp compares the two natively.
std::from_chars_result from_chars_strtod(const char* first, const char* last, double& value);

}  // namespace detail

}  // namespace rope
