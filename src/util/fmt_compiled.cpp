// SPDX-License-Identifier: MIT
// fmt's compiled part, built once for the whole program. fmt used header-only compiled
// it again in every file that formats, about half of such a file's build time (11.1 s ->
// 5.9 s for report_text.cpp at -O2 -g). Debian's libfmt-dev ships no libfmt.a for the
// static binary, so the project builds these few functions itself: format-inl.h
// defines the non-template ones, and the templates fmt's headers call into are
// instantiated below, for char only (nothing here formats wide strings).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
