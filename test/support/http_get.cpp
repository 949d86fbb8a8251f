// SPDX-License-Identifier: MIT
#include "support/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/unique_fd.h"

namespace uringscope::http_test {

std::string get_metrics(uint16_t port, std::chrono::milliseconds limit) {
  using Clock = std::chrono::steady_clock;
  const UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return "";
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string req = "GET /metrics HTTP/1.0\r\n\r\n";
  std::string raw;
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::send(fd.get(), req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size()))
    return raw;
  const auto end = Clock::now() + limit;
  char buf[65536];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  return raw;
}

std::string ok_body(const std::string& answer) {
  const std::size_t body = answer.find("\r\n\r\n");
  if (answer.compare(0, 12, "HTTP/1.1 200") != 0 || body == std::string::npos) return "";
  return answer.substr(body + 4);
}

}  // namespace uringscope::http_test
