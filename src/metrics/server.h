// SPDX-License-Identifier: MIT
// The --metrics endpoint: a small poll() loop on its own thread that only ever reads
// snapshots the run loop made (scrape_demand.h), so a slow or hostile scraper can never
// hold up the tracer. docs/metrics.md describes the exposure.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "metrics/listen_address.h"
#include "metrics/scrape_demand.h"
#include "uringscope/snapshot.h"
#include "util/unique_fd.h"

namespace uringscope {

// Binds and listens in the constructor (throws uringscope::Error "cannot listen on
// ADDR:PORT: Address already in use" etc.), then serves on its own thread until
// destroyed. `latest` returns the newest snapshot (null before the first); it is called
// on the server thread and must not block: the tracer makes snapshots, the server only
// reads them.
class MetricsServer {
 public:
  using Source = std::function<std::shared_ptr<const Snapshot>()>;
  MetricsServer(const ListenAddress& where, Source latest);
  // Every scrape of the exposition waits (without holding up other clients) for a
  // reading taken after it arrived; `demand` must outlive the server.
  MetricsServer(const ListenAddress& where, ScrapeDemand& demand);
  ~MetricsServer();  // stops and joins
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  uint16_t port() const;   // the bound port (useful with port 0 in tests)
  std::string url() const; // "http://127.0.0.1:9090/metrics"

 private:
  MetricsServer(const ListenAddress& where, Source latest, ScrapeDemand* demand);
  void serve();

  UniqueFd listener_;
  UniqueFd stop_;          // eventfd: written once by the destructor
  std::string host_;       // as bound, for url()
  uint16_t port_ = 0;
  Source latest_;
  ScrapeDemand* demand_ = nullptr;
  std::thread thread_;     // last member: started once everything it uses exists
};

}  // namespace uringscope
