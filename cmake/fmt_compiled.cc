// fmt's out-of-line functions, compiled into the build tree's own static
// library (microarena_fmt, src/microarena/CMakeLists.txt).
//
// Debian ships fmt as headers and a shared library only (no libfmt.a). The
// Release CLI is linked statically, so that it starts without loading and
// relocating shared libraries (most of its time on small problems); its few
// fmt functions come from here instead. Without FMT_HEADER_ONLY,
// format-inl.h defines each function once, in this file, rather than inline
// in every file that formats.
#include <fmt/format-inl.h>

// The instantiations below are the ones fmt 9.1's format.h declares and
// leaves to its compiled library; another fmt may need others. Say so here
// rather than as undefined references in every host binary.
#if FMT_VERSION / 100 != 901
#error "cmake/fmt_compiled.cc is written for fmt 9.1 (Debian 12's libfmt-dev); check its instantiations against this fmt's format.h"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {
// The templates format.h declares but does not define (its extern templates
// and the ones format-inl.h defines), for the types fmt formats with; the
// rest (buffer<T>::append, vformat_to) format.h defines itself.
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
