// SPDX-License-Identifier: MIT
// libFuzzer target for the metrics endpoint's request parser: the one parser in
// uringscope that reads bytes from the network. Any input must give either a request
// that obeys what the server relies on, or an error response with a 4xx/5xx status, and
// the response head must be well formed; a crash, a sanitizer report or a broken
// invariant stops the fuzzer with the input that caused it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "metrics/http.h"

namespace {

using uringscope::http::Request;
using uringscope::http::Response;

void require(bool holds) {
  if (!holds) std::abort();
}

bool has_byte_below_space(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
  }
  return false;
}

void check_response(const Response& response) {
  require(response.status >= 400 && response.status <= 505);
  const std::string head = uringscope::http::response_head(response);
  require(head.rfind("HTTP/1.1 ", 0) == 0);
  require(head.size() >= 4 && head.compare(head.size() - 4, 4, "\r\n\r\n") == 0);
  // The head ends where the client will look for it, and nowhere before.
  require(head.find("\r\n\r\n") == head.size() - 4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  const auto parsed = uringscope::http::parse_request(head);
  if (const auto* request = std::get_if<Request>(&parsed)) {
    require(!request->method.empty() && !has_byte_below_space(request->method));
    require(!request->path.empty() && request->path.front() == '/');
    require(!has_byte_below_space(request->path));
    require(request->path.find('?') == std::string::npos);
    for (char c : request->accept) require(c != '\r' && c != '\n' && c != '\0');
  } else {
    check_response(std::get<Response>(parsed));
  }
  return 0;
}
