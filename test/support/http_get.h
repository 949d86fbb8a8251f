// SPDX-License-Identifier: MIT
// One scrape of a --metrics endpoint on loopback, as the simplest scraper does it, for
// the tests of fresh scrapes (unit: against a ScrapeDemand; kernel: against uringscope).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace uringscope::http_test {

// GET /metrics over HTTP/1.0 to 127.0.0.1:port: the whole answer, status line to the
// end of the body; what came within `limit` ("" when nothing did).
std::string get_metrics(uint16_t port, std::chrono::milliseconds limit);

// The body of a 200 answer; "" for any other answer.
std::string ok_body(const std::string& answer);

}  // namespace uringscope::http_test
