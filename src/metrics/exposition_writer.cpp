// SPDX-License-Identifier: MIT
#include "metrics/exposition_writer.h"

#include "util/untrusted_text.h"

namespace uringscope::exposition {

// Label values escape backslash, double quote and line feed in both formats.
std::string escape_label_value(std::string_view value) {
  // A label value is a name someone chose (util/untrusted_text.h): shown in its visible
  // form, the one the text report shows, so it holds no control byte once a scraper has
  // decoded it, and no invalid UTF-8 (Prometheus refuses a whole scrape over one byte).
  const std::string visible = visible_text(value);
  std::string out;
  out.reserve(visible.size());
  for (char c : visible) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out += c;  // visible text has no line feed left
    }
  }
  return out;
}

// HELP text: 0.0.4 knows only \\ and \n there; OpenMetrics also \".
std::string escape_help(std::string_view text, ExpositionFormat format) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '"':
        out += format == ExpositionFormat::OpenMetrics ? "\\\"" : "\"";
        break;
      default: out += c;
    }
  }
  return out;
}

// ns * 10^-9 in Go's %g shortest form (what OpenMetrics calls canonical), computed from
// the integer's digits so no binary rounding can make two scrapes differ: exponent form
// when the decimal exponent is below -4 or at least 6 (at least two exponent digits),
// fixed otherwise, with ".0" added when there is neither a point nor an exponent.
std::string seconds_from_ns(uint64_t ns) {
  if (ns == 0) return "0.0";
  std::string digits = std::to_string(ns);
  const int exp = static_cast<int>(digits.size()) - 1 - 9;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += exp < 0 ? "e-" : "e+";
    const int mag = exp < 0 ? -exp : exp;
    if (mag < 10) out += '0';
    out += std::to_string(mag);
  } else if (exp < 0) {
    out = "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
  } else {
    const auto int_digits = static_cast<std::size_t>(exp + 1);
    if (digits.size() <= int_digits) {
      out = digits + std::string(int_digits - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_digits) + "." + digits.substr(int_digits);
    }
  }
  return out;
}

void Writer::begin(const Family& f) {
  family_ = f;
  std::string meta_name(f.name);
  std::string_view type;
  switch (f.type) {
    case Type::Counter:
      type = "counter";
      if (!openmetrics()) meta_name += "_total";
      break;
    case Type::Gauge: type = "gauge"; break;
    case Type::Histogram: type = "histogram"; break;
    case Type::Info:
      type = openmetrics() ? "info" : "gauge";
      if (!openmetrics()) meta_name += "_info";
      break;
  }
  out_ += "# TYPE " + meta_name + " " + std::string(type) + "\n";
  if (openmetrics() && !f.unit.empty()) out_ += "# UNIT " + meta_name + " " + std::string(f.unit) + "\n";
  out_ += "# HELP " + meta_name + " " + escape_help(f.help, format_) + "\n";
}

void Writer::value(const Labels& labels, const std::string& number) {
  std::string_view suffix;
  if (family_.type == Type::Counter) suffix = "_total";
  if (family_.type == Type::Info) suffix = "_info";
  sample(suffix, labels, number);
}

void Writer::histogram(const Labels& labels, const Histogram& h) {
  uint64_t cumulative = 0;
  Labels with_le = labels;
  with_le.emplace_back("le", "");
  static_assert(kLastExposedBucket + 1 < kHistBuckets, "the top bucket is open: +Inf only");
  for (std::size_t i = 0; i < kHistBuckets; ++i) {
    cumulative += h.buckets[i];
    if (i < kFirstExposedBucket || i > kLastExposedBucket) continue;
    with_le.back().second = latency_bucket_le(i);
    sample("_bucket", with_le, std::to_string(cumulative));
  }
  with_le.back().second = "+Inf";
  sample("_bucket", with_le, std::to_string(cumulative));
  sample("_count", labels, std::to_string(cumulative));
  sample("_sum", labels, seconds_from_ns(h.sum_ns));
}

void Writer::sample(std::string_view suffix, const Labels& labels,
                    const std::string& number) {
  out_ += family_.name;
  out_ += suffix;
  if (!labels.empty()) {
    out_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i) out_ += ',';
      out_ += labels[i].first;
      out_ += "=\"";
      out_ += escape_label_value(labels[i].second);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += number;
  out_ += '\n';
}

}  // namespace uringscope::exposition
