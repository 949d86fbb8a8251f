// SPDX-License-Identifier: MIT
// --metrics: the run's numbers as a Prometheus/OpenMetrics scrape target. The renderer is
// a pure function of a Snapshot (testable without a socket); the server is a small
// poll() loop on its own thread that only ever reads the newest published snapshot, so
// a slow or hostile scraper can never hold up the tracer. docs/metrics.md describes the
// families and the exposure.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "uringscope/snapshot.h"
#include "util/unique_fd.h"

namespace uringscope {

enum class ExpositionFormat { OpenMetrics, Prometheus004 };

// Content negotiation from an Accept header value (empty/absent -> Prometheus004). Media
// ranges and q-values are honoured; OpenMetrics wins a tie only when the client named it
// explicitly, and anything that accepts neither falls back to Prometheus004.
ExpositionFormat negotiate_format(std::string_view accept);
std::string_view content_type(ExpositionFormat format);
std::string render_exposition(const Snapshot& snap, ExpositionFormat format);

// The `le` label value of latency bucket i (its upper bound, 2^(i+1) ns, in seconds) in
// the OpenMetrics canonical rendering (Go's %g): "2e-09", ..., "0.000131072", ...,
// "549.755813888". The same strings in every scrape and both formats.
std::string latency_bucket_le(std::size_t i);

// "[ADDR]:PORT" or "PORT": ":9090" and "0.0.0.0:9090" listen on every interface, "PORT"
// alone and "127.0.0.1:9090" on loopback only, "[::1]:9090" IPv6. Throws UsageError for a
// malformed spec.
struct ListenAddress {
  std::string host;     // numeric: "127.0.0.1", "0.0.0.0", "::1", "::"
  uint16_t port = 0;    // 0: any free port (tests)
  bool all_interfaces = false;
};
ListenAddress parse_listen_address(std::string_view spec);

// Binds and listens in the constructor (throws uringscope::Error "cannot listen on
// ADDR:PORT: Address already in use" etc.), then serves on its own thread until
// destroyed. `latest` returns the newest published snapshot (may be null before the
// first); it is called on the server thread and must not block: the tracer publishes
// snapshots, the server only reads them.
class MetricsServer {
 public:
  using Source = std::function<std::shared_ptr<const Snapshot>()>;
  MetricsServer(const ListenAddress& where, Source latest);
  ~MetricsServer();  // stops and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  uint16_t port() const;   // the bound port (useful with port 0 in tests)
  std::string url() const; // "http://127.0.0.1:9090/metrics"

 private:
  void serve();

  UniqueFd listener_;
  UniqueFd stop_;          // eventfd: written once by the destructor
  std::string host_;       // as bound, for url()
  uint16_t port_ = 0;
  Source latest_;
  std::thread thread_;     // last member: started once everything it uses exists
};

}  // namespace uringscope
