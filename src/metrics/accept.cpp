// SPDX-License-Identifier: MIT
// Which exposition format a scraper gets, from its Accept header (RFC 9110 12.5.1).
#include "metrics/accept.h"

#include <cstdlib>
#include <string>

#include "util/strings.h"

namespace uringscope {
namespace {

// How well one media range matches one of our formats: higher is more specific
// (RFC 9110 12.5.1: the most specific matching range sets the q-value), 0 no match.
int specificity(std::string_view type, std::string_view version, ExpositionFormat f) {
  const bool om = f == ExpositionFormat::OpenMetrics;
  const std::string_view ours = om ? "application/openmetrics-text" : "text/plain";
  if (iequals(type, ours)) {
    if (version.empty()) return 3;
    // OpenMetrics 0.0.1 is what Prometheus before 2.43 asks for first; it is the same
    // text as 1.0.0.
    const bool ok = om ? (version == "1.0.0" || version == "0.0.1") : version == "0.0.4";
    return ok ? 4 : 0;
  }
  const std::string_view major = ours.substr(0, ours.find('/'));
  if (iequals(type, std::string(major) + "/*")) return 2;
  if (type == "*/*") return 1;
  return 0;
}

}  // namespace

ExpositionFormat negotiate_format(std::string_view accept) {
  struct Best {
    int specificity = 0;
    double q = 0;
  };
  Best best[2];  // indexed by ExpositionFormat
  while (!accept.empty()) {
    const std::size_t comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);

    std::string_view type = trim(range.substr(0, range.find(';')), kHttpWhitespace);
    std::string_view version;
    double q = 1.0;
    for (std::size_t semi = range.find(';'); semi != std::string_view::npos;) {
      const std::size_t next = range.find(';', semi + 1);
      std::string_view param = trim(range.substr(semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1), kHttpWhitespace);
      semi = next;
      const std::size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view name = trim(param.substr(0, eq), kHttpWhitespace);
      std::string_view value = trim(param.substr(eq + 1), kHttpWhitespace);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      if (iequals(name, "q")) {
        // A malformed q makes the range unacceptable rather than preferred.
        char* end = nullptr;
        const std::string text(value);
        q = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(q >= 0 && q <= 1)) q = 0;
      } else if (iequals(name, "version")) {
        version = value;
      }
    }
    for (ExpositionFormat f : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
      const int s = specificity(type, version, f);
      Best& b = best[static_cast<int>(f)];
      if (s > b.specificity || (s == b.specificity && s > 0 && q > b.q)) b = {s, q};
    }
  }
  const Best& om = best[static_cast<int>(ExpositionFormat::OpenMetrics)];
  const Best& text = best[static_cast<int>(ExpositionFormat::Prometheus004)];
  // OpenMetrics only when the client named it (a wildcard alone does not make a client
  // an OpenMetrics parser) and likes it at least as much as the text format.
  if (om.specificity >= 3 && om.q > 0 && om.q >= text.q) return ExpositionFormat::OpenMetrics;
  return ExpositionFormat::Prometheus004;
}

}  // namespace uringscope
