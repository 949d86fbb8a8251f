// SPDX-License-Identifier: MIT
// The --metrics address: what the user wrote, checked and made numeric.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace uringscope {

// "[ADDR]:PORT" or "PORT": ":9090" and "0.0.0.0:9090" listen on every interface, "PORT"
// alone and "127.0.0.1:9090" on loopback only, "[::1]:9090" IPv6. Throws UsageError for a
// malformed spec.
struct ListenAddress {
  std::string host;     // numeric: "127.0.0.1", "0.0.0.0", "::1", "::"
  uint16_t port = 0;    // 0: any free port (tests)
  bool all_interfaces = false;
};
ListenAddress parse_listen_address(std::string_view spec);

// "127.0.0.1:9090", or "[::1]:9090" for an IPv6 host: how messages and URLs write it.
std::string host_port(const std::string& host, uint16_t port);

}  // namespace uringscope
