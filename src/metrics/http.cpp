// SPDX-License-Identifier: MIT
#include "metrics/http.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "util/strings.h"

namespace uringscope::http {
namespace {

bool is_tchar(char c) {
  // RFC 9110 token characters.
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

// The head's lines up to the empty one, each without its CRLF or bare LF.
std::vector<std::string_view> head_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const std::size_t lf = head.find('\n');
    std::string_view line = head.substr(0, lf);
    head = lf == std::string_view::npos ? std::string_view{} : head.substr(lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
  }
  return lines;
}

// request-line = method SP request-target SP HTTP-version, single spaces, no CR/ctl.
// Fills method and path; sets http11. nullopt when it is well formed.
std::optional<Response> parse_request_line(std::string_view rl, Request& req, bool& http11) {
  const Response bad = error_response(400, "Bad Request", "bad request");
  const std::size_t sp1 = rl.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos) return bad;
  req.method = rl.substr(0, sp1);
  std::string_view target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = rl.substr(sp2 + 1);
  if (!is_token(req.method) || target.empty()) return bad;
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad;
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || !std::isdigit(static_cast<unsigned char>(version[5])) ||
      version[6] != '.' || !std::isdigit(static_cast<unsigned char>(version[7]))) {
    return bad;
  }
  if (version[5] != '1') return error_response(505, "HTTP Version Not Supported", "HTTP/1.x only");
  http11 = version[7] != '0';

  // absolute-form ("http://host/metrics") is legal too; only the path matters here.
  if (target.size() > 7 && iequals(target.substr(0, 7), "http://")) {
    const std::size_t slash = target.find('/', 7);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  if (target.front() != '/') return bad;
  req.path = target.substr(0, target.find('?'));
  return std::nullopt;
}

// One header field: collects Accept, counts Host. False when it is malformed.
bool parse_field(std::string_view line, Request& req, int& hosts) {
  // No obs-fold, no space before the colon (RFC 9112 5.1 and 5.2 say reject).
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return false;
  std::string_view value = line.substr(colon + 1);
  for (char c : value) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  value = trim(value, kHttpWhitespace);
  const std::string_view name = line.substr(0, colon);
  if (iequals(name, "host")) ++hosts;
  if (iequals(name, "accept")) {
    // Repeated Accept fields are one comma-separated list.
    if (!req.accept.empty()) req.accept += ',';
    req.accept += value;
  }
  return true;
}

}  // namespace

Response error_response(int status, std::string_view reason, std::string_view text) {
  Response r;
  r.status = status;
  r.reason = reason;
  r.body = std::make_shared<const std::string>(std::string(text) + "\n");
  return r;
}

std::variant<Request, Response> parse_request(std::string_view head) {
  const std::vector<std::string_view> lines = head_lines(head);
  const Response bad = error_response(400, "Bad Request", "bad request");
  if (lines.empty()) return bad;
  Request req;
  bool http11 = false;
  if (std::optional<Response> error = parse_request_line(lines[0], req, http11)) return *error;
  int hosts = 0;
  for (std::size_t i = 1; i < lines.size(); ++i)
    if (!parse_field(lines[i], req, hosts)) return bad;
  // RFC 9112 3.2: a 1.1 request without exactly one Host is a 400.
  if (http11 && hosts != 1) return bad;
  if (!http11 && hosts > 1) return bad;
  return req;
}

std::string response_head(const Response& r) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n"
      "{}Connection: close\r\n\r\n",
      r.status, r.reason, r.type, r.body ? r.body->size() : 0, r.extra_headers);
}

}  // namespace uringscope::http
