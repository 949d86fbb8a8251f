// SPDX-License-Identifier: MIT
// The exposition text format itself, for OpenMetrics 1.0 and Prometheus 0.0.4: metadata
// lines, samples, label escaping, histograms, and seconds written from integer
// nanoseconds. What the families are is openmetrics.cpp's business.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/exposition.h"
#include "uringscope/histogram.h"

namespace uringscope::exposition {

enum class Type { Counter, Gauge, Histogram, Info };

struct Family {
  std::string_view name;  // OpenMetrics family name: no _total, no _info
  Type type;
  std::string_view unit;  // "" or the suffix the name ends in ("seconds")
  std::string_view help;
};

using Labels = std::vector<std::pair<std::string_view, std::string>>;

// ns * 10^-9 in Go's %g shortest form, what OpenMetrics calls canonical.
std::string seconds_from_ns(uint64_t ns);

// A label value in its visible form (util/untrusted_text.h), then with backslash and
// double quote escaped as both formats want.
std::string escape_label_value(std::string_view value);
// HELP text: 0.0.4 knows only \\ and \n there; OpenMetrics also \".
std::string escape_help(std::string_view text, ExpositionFormat format);

// Writes one exposition: begin() a family, then its samples.
class Writer {
 public:
  Writer(ExpositionFormat format, std::string& out) : format_(format), out_(out) {}

  bool openmetrics() const { return format_ == ExpositionFormat::OpenMetrics; }

  // Metadata first, in the order the spec recommends (TYPE, UNIT, HELP). 0.0.4 has no
  // UNIT line and no info type, and names a counter's metadata by its sample name.
  void begin(const Family& f);

  // The family's one sample per series: _total for counters, _info for info.
  void value(const Labels& labels, const std::string& number);
  void value(const Labels& labels, uint64_t n) { value(labels, std::to_string(n)); }

  // Buckets kFirstExposedBucket .. kLastExposedBucket, closed above at 2^(i+1) ns, the
  // first one cumulative from 0; what lies above the last lives only in +Inf. The le set is
  // therefore the same 29 values plus +Inf for every series and every scrape, whatever
  // the data.
  void histogram(const Labels& labels, const Histogram& h);

 private:
  void sample(std::string_view suffix, const Labels& labels, const std::string& number);

  ExpositionFormat format_;
  std::string& out_;
  Family family_{};
};

}  // namespace uringscope::exposition
