// SPDX-License-Identifier: MIT
// The little HTTP/1.x the endpoint speaks: a strict parser for a request head, and the
// head of a response. Pure, so the rules are testable without a socket.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>

namespace uringscope::http {

struct Response {
  int status = 200;
  std::string_view reason = "OK";
  std::string extra_headers;                       // each ending in \r\n
  std::string_view type = "text/plain; charset=utf-8";
  std::shared_ptr<const std::string> body;
  bool head_only = false;                          // HEAD: headers (with the length) only
};

// A plain-text response: `text` and a newline.
Response error_response(int status, std::string_view reason, std::string_view text);

// What a parsed request head asks for.
struct Request {
  std::string method;
  std::string path;   // without the query
  std::string accept;
};

// Strict parse of a complete request head (request line and header lines, each ending in
// CRLF or a bare LF, up to the empty line). Returns an error response for anything that
// is not a well-formed HTTP/1.x request.
std::variant<Request, Response> parse_request(std::string_view head);

// Status line and headers; every response closes the connection.
std::string response_head(const Response& r);

}  // namespace uringscope::http
