// fmt's compiled functions (what libfmt.so holds: format-inl.h's definitions) for the statically linked rope
// executable (apps/CMakeLists.txt, ROPE_STATIC_EXECUTABLE): Debian's libfmt-dev ships the shared library and
// its headers, but no static library. The two locale helpers below are templates that format-inl.h defines but
// nothing in it instantiates; the formatting of numbers with a locale-dependent separator refers to them.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
