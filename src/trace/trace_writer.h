// SPDX-License-Identifier: MIT
// --trace FILE: the per-request records the BPF side streams through its ring buffer
// (struct us_trace_event), written as a Chrome trace-event JSON document that Perfetto
// and chrome://tracing open. What the file contains and how to read it: docs/trace.md.
//
// The writer is a stream: records go in as they are drained, JSON goes out through a
// buffer. The only state that grows with the traffic is the table of requests between
// their SUBMIT and their final CQE, so memory is bounded by the requests in flight,
// however long the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "uringscope/abi.h"

namespace uringscope {

struct TraceStats {
  uint64_t events = 0;      // records passed to add()
  uint64_t requests = 0;    // SUBMIT records: one async slice each
  uint64_t unmatched = 0;   // records naming no open request: submitted before the trace
                            // began, or their SUBMIT was dropped (a CQE becomes an instant)
  uint64_t still_open = 0;  // requests finish() ended as "in flight at end"
  // Requests whose final CQE never came before the kernel submitted their io_kiocb
  // again (the record was dropped, or IOSQE_CQE_SKIP_SUCCESS suppressed the CQE): ended
  // at the reuse, marked "end_not_seen".
  uint64_t superseded = 0;
  // Records older than what was already written when they arrived (delivered_before said
  // otherwise, or the hold bound forced records out): written at that frontier rather
  // than at their own timestamp (docs/trace.md, "Ordering").
  uint64_t late = 0;
  uint64_t dropped = 0;  // records the BPF ring buffer lost, as given to set_dropped()
};

class TraceWriter {
 public:
  // Opens FILE for writing (throws uringscope::Error "cannot write FILE: ..."); the
  // document is streamed: memory stays bounded whatever the run's length.
  explicit TraceWriter(const std::string& path);
  // If finish() was not called, closes the document so the file is valid JSON: open
  // requests end at the last record's time, otherData says "finished": false. Never
  // throws.
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // One record, in the order the ring buffer delivered it: held until its turn comes
  // (delivered_before). Ignored after finish(). A write error does not throw here (the
  // run and its report go on); finish() reports it.
  void add(const us_trace_event& e);

  // Every record stamped before `ts` has been added: those are written, in time order.
  // Records held past the bound of a tenth of a second's traffic go out without it.
  void delivered_before(uint64_t ts);

  // The running total of records the BPF side could not reserve
  // (us_tool[US_TOOL_TRACE_DROPS]). Optional; may be called at every drain. When the
  // total grows, a global instant marks the time; finish() writes the total in otherData
  // and, when nonzero, as a global instant at the end.
  void set_dropped(uint64_t total);

  // Ends every request still open at end_ns (marked "in flight at end"), writes process and
  // thread names and ring track names (ring_names: BPF ring row -> "ring #0 fd=5 (app)",
  // provided by the caller from the final snapshot), closes the JSON document. Throws
  // uringscope::Error "cannot write FILE: ..." when any write failed. Call once.
  void finish(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names);

  const TraceStats& stats() const;

  // For tests and the memory bound: requests between SUBMIT and final CQE, and records
  // held back for reordering (bounded: see reorder.cpp).
  std::size_t open_requests() const;
  std::size_t pending_records() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace uringscope
