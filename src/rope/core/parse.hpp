/// @file
/// Strict parsing of the numbers and lists users type. Decimal only: no hex ("0x10"), no octal
/// ("010" is ten), no trailing junk ("128abc"), no NaN or infinity, no empty items. Every error
/// names what was being read, the text, and the rule.
#pragma once

#include <string>
#include <string_view>
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

}  // namespace rope
