// SPDX-License-Identifier: MIT
#include "metrics/listen_address.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <algorithm>

#include "util/error.h"

namespace uringscope {
namespace {

uint16_t parse_port(std::string_view text, std::string_view spec) {
  if (text.empty() || text.size() > 5 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw UsageError(fmt::format("--metrics {}: the port must be a number from 0 to 65535", spec));
  }
  const unsigned long port = std::stoul(std::string(text));
  if (port > 65535) {
    throw UsageError(fmt::format("--metrics {}: the port must be a number from 0 to 65535", spec));
  }
  return static_cast<uint16_t>(port);
}

}  // namespace

std::string host_port(const std::string& host, uint16_t port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                              : fmt::format("{}:{}", host, port);
}

ListenAddress parse_listen_address(std::string_view spec) {
  const auto usage = [&](std::string_view why) {
    return UsageError(fmt::format("--metrics {}: {} (expected [ADDR]:PORT, e.g. 127.0.0.1:9477, "
                                  ":9477 for every interface, [::1]:9477)",
                                  spec.empty() ? "''" : spec, why));
  };
  if (spec.empty()) throw usage("empty address");
  ListenAddress out;
  if (spec.front() == '[') {
    const std::size_t close = spec.find(']');
    if (close == std::string_view::npos || close + 1 >= spec.size() || spec[close + 1] != ':') {
      throw usage("an IPv6 address in brackets must be followed by :PORT");
    }
    const std::string host(spec.substr(1, close - 1));
    in6_addr a6{};
    if (inet_pton(AF_INET6, host.c_str(), &a6) != 1) throw usage("not a numeric IPv6 address");
    char canon[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a6, canon, sizeof canon);
    out.host = canon;
    out.port = parse_port(spec.substr(close + 2), spec);
    out.all_interfaces = IN6_IS_ADDR_UNSPECIFIED(&a6);
    return out;
  }
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    // A bare port is the safe default: loopback only.
    out.host = "127.0.0.1";
    out.port = parse_port(spec, spec);
    return out;
  }
  if (spec.find(':', colon + 1) != std::string_view::npos) {
    throw usage("write an IPv6 address in brackets");
  }
  const std::string host(spec.substr(0, colon));
  out.port = parse_port(spec.substr(colon + 1), spec);
  if (host.empty()) {
    // Only an explicitly empty address means every interface.
    out.host = "0.0.0.0";
    out.all_interfaces = true;
    return out;
  }
  if (host == "localhost") {
    // Numeric only otherwise: name lookup would need NSS, which a static binary lacks.
    out.host = "127.0.0.1";
    return out;
  }
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) != 1) throw usage("not a numeric IPv4 address");
  char canon[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a4, canon, sizeof canon);
  out.host = canon;
  out.all_interfaces = a4.s_addr == htonl(INADDR_ANY);
  return out;
}

}  // namespace uringscope
