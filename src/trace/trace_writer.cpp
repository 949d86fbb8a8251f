// SPDX-License-Identifier: MIT
// --trace: us_trace_event records -> Chrome trace-event JSON. This file turns each record
// into the events docs/trace.md describes; the pieces it drives each have their own file:
// reorder.h (timestamp order), request_index.h (which request a record belongs to),
// tracks.h (tracks and their names), trace_document.h (the JSON document and its file).
#include "trace/trace_writer.h"
#include "uringscope/opcodes.h"

#include <fmt/format.h>
#include <linux/io_uring.h>

#include <algorithm>

#include "trace/reorder.h"
#include "trace/request_index.h"
#include "trace/trace_document.h"
#include "trace/tracks.h"
#include "util/errno_name.h"

namespace uringscope {
namespace {


std::string_view punt_reason_name(uint32_t reason) {
  switch (reason) {
    case US_OC_PUNT_FORCED: return "forced";
    case US_OC_PUNT_HASHED: return "hashed";
    case US_OC_PUNT_REGFILE: return "regular_file";
    case US_OC_PUNT_EAGAIN: return "eagain";
    default: return "unknown";
  }
}

}  // namespace

class TraceWriter::Impl {
 public:
  explicit Impl(const std::string& path) : doc_(path) {}

  ~Impl() {
    if (finished_) return;
    try {
      close_document(last_ts_, {}, false);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
  }

  void add(const us_trace_event& e) {
    if (finished_) return;
    ++stats_.events;
    queue_.push(e);
    release_due();
  }

  void delivered_before(uint64_t ts) {
    if (finished_) return;
    queue_.release_before(ts);
    release_due();
  }

  void set_dropped(uint64_t total) {
    if (finished_ || total <= stats_.dropped) return;
    uint64_t added = total - stats_.dropped;
    stats_.dropped = total;
    if (!started_) return;  // nothing to place it against yet; finish() reports the total
    doc_.global_instant("trace records dropped", last_ts_,
                        fmt::format(R"(,"args":{{"dropped":{},"total":{}}})", added, total));
  }

  void finish(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names) {
    if (finished_) return;
    close_document(end_ns, ring_names, true);
  }

  const TraceStats& stats() const { return stats_; }
  std::size_t open_requests() const { return requests_.size(); }
  std::size_t pending_records() const { return queue_.size(); }

 private:
  void set_in_flight(uint32_t row, int64_t delta, uint64_t ts) {
    RingTrack& ring = tracks_.ring_at(row);
    ring.in_flight += delta;
    doc_.counter(ring.pid, row, "in flight", "requests", ring.in_flight, ts);
  }

  // The track of the real thread that produced e, named the first time.
  ThreadTrack& thread_track(const us_trace_event& e) {
    bool fresh = false;
    ThreadTrack& t = tracks_.thread(e, fresh);
    uint32_t tid = e.tid;
    if (fresh) doc_.metadata("thread_name", e.tgid, &tid, comm_of(e.comm));
    return t;
  }

  // Writes a request's end: the "e" event, with what its whole life showed as args
  // (viewers merge them with the begin's). why: the flag of an end that is no CQE.
  void end_request(const TraceRequest& r, uint64_t ts, std::string_view why, const int32_t* res) {
    TraceBuf& b = doc_.async_event('e', doc_.op(r.opcode), r, ts);
    b << R"(,"args":{)";
    bool first = true;
    auto key = [&](std::string_view k) {
      if (!first) b << ',';
      first = false;
      b << '"' << k << R"(":)";
    };
    if (res) {
      key("res");
      b << *res;
      if (*res < 0) {
        key("errno");
        append_json_string(b, errno_name(-*res));
      }
    }
    if (r.cqes != 1) {
      key("cqes");
      b << r.cqes;
    }
    if (r.punted) {
      key("punt");
      b << '"' << punt_reason_name(r.punt_reason) << '"';
    }
    if (r.failed) {
      key("failed");
      b << "true";
    }
    if (!why.empty()) {
      key(why);
      b << "true";
    }
    b << '}';
    doc_.end_event();
  }

  void supersede(const TraceRequest& r, uint64_t ts) {
    ++stats_.superseded;
    end_request(r, ts, "end_not_seen", nullptr);
    set_in_flight(r.ring, -1, ts);
  }

  void on_submit(const us_trace_event& e, uint64_t ts) {
    ++stats_.requests;
    RingTrack& ring = tracks_.ring(e.ring, e.tgid);
    if (std::optional<TraceRequest> old = requests_.take(e.req)) {
      // The kernel recycles an io_kiocb only after its request's final CQE, so the old
      // request ended unseen, unless it is a zero-copy send waiting for its notification:
      // it posts its result CQE (with F_MORE) and frees its io_kiocb, and the notification
      // comes later from another one.
      if (old->more && (old->opcode == op::kSendZc || old->opcode == op::kSendmsgZc)) {
        if (std::optional<TraceRequest> displaced = requests_.detach(std::move(*old)))
          supersede(*displaced, ts);
      } else {
        supersede(*old, ts);
      }
    }
    TraceRequest r{.id = ++next_id_,
                   .user_data = e.user_data,
                   .submit_ts = ts,
                   .ring = e.ring,
                   .pid = e.tgid,
                   .tid = e.tid,
                   .opcode = e.opcode};

    TraceBuf& m = doc_.begin_marker(ring.busy_until, ring.pid, ring.tid, ts, "submit", e.opcode);
    m << R"("id":)" << r.id << R"(,"user_data":")" << Hex{r.user_data} << R"(","tid":)" << e.tid
      << '}';
    doc_.end_event();

    TraceBuf& b = doc_.async_event('b', doc_.op(r.opcode), r, ts);
    b << R"(,"args":{"user_data":")" << Hex{r.user_data} << R"(","ring":)" << r.ring << '}';
    doc_.end_event();

    requests_.open(e.req, r);
    set_in_flight(e.ring, +1, ts);
  }

  // The open request of a record that must have one; counted as unmatched when none.
  TraceRequest* request_of(const us_trace_event& e) {
    RequestIndex::Match m = requests_.find(e, false);
    if (!m.r) ++stats_.unmatched;
    return m.r;
  }

  void on_punt(const us_trace_event& e, uint64_t ts) {
    TraceRequest* r = request_of(e);
    if (!r) return;
    r->punted = true;
    r->punt_reason = e.aux;
    TraceBuf& b = doc_.async_event('n', "punt", *r, ts);
    b << R"(,"args":{"reason":")" << punt_reason_name(e.aux) << R"("})";
    doc_.end_event();
  }

  void on_issue(const us_trace_event& e, uint64_t ts) {
    TraceRequest* found = request_of(e);
    if (!found) return;
    TraceRequest& r = *found;
    // An inline issue on the submitting thread adds nothing to the picture; a worker (or
    // any other thread) picking the request up is a hop of its flow arrow.
    if (!r.punted && e.tid == r.tid) return;
    ThreadTrack& t = thread_track(e);
    TraceBuf& b = doc_.begin_marker(t.busy_until, e.tgid, e.tid, ts, "issue", r.opcode);
    b << R"("id":)" << r.id << '}';
    doc_.end_event();
    r.add_step(TraceStep{ts, e.tgid, e.tid});
    TraceBuf& n = doc_.async_event('n', "issue", r, ts);
    n << R"(,"args":{"tid":)" << e.tid << '}';
    doc_.end_event();
  }

  void on_poll_arm(const us_trace_event& e, uint64_t ts) {
    TraceRequest* r = request_of(e);
    if (!r) return;
    doc_.async_event('n', "poll armed", *r, ts);
    doc_.end_event();
  }

  void on_failed(const us_trace_event& e, uint64_t ts) {
    TraceRequest* r = request_of(e);
    if (!r) return;
    r->failed = true;
    TraceBuf& b = doc_.async_event('n', "failed", *r, ts);
    b << R"(,"args":{"res":)" << e.res << '}';
    doc_.end_event();
  }

  void unmatched_cqe(const us_trace_event& e, uint64_t ts) {
    ++stats_.unmatched;
    TraceBuf& b = doc_.begin_event();
    b << R"("ph":"i","s":"t","name":"CQE without submit","pid":)" << e.tgid << R"(,"tid":)"
      << e.tid;
    doc_.append_ts(b, ts);
    b << R"(,"args":{"ring":)" << e.ring << R"(,"user_data":")" << Hex{e.user_data}
      << R"(","res":)" << e.res << R"(,"flags":)" << e.cflags << '}';
    doc_.end_event();
  }

  // The arrow: submit marker on the ring track -> each worker hop -> the final CQE at
  // (ts, pid, tid). Written once all its points exist; viewers sort by time, and at equal
  // times Perfetto takes X slices first, so each point binds to its marker.
  void write_flow(const TraceRequest& r, uint64_t ts, uint32_t pid, uint32_t tid) {
    const RingTrack& home = tracks_.ring_at(r.ring);
    doc_.flow_event('s', r, r.submit_ts, home.pid, home.tid);
    for (std::size_t i = 0; i < r.nsteps; ++i)
      doc_.flow_event('t', r, r.steps[i].ts, r.steps[i].pid, r.steps[i].tid);
    doc_.flow_event('f', r, ts, pid, tid);
  }

  void on_complete(const us_trace_event& e, uint64_t ts) {
    RequestIndex::Match m = requests_.find(e, true);
    uint32_t row = m.r ? m.r->ring : e.ring;
    RingTrack& ring = tracks_.ring(row, e.tgid);
    // aux is the CQ depth just after this CQE: the ring's backlog as the app sees it.
    // Written when it changes; reaping is not traced, so the line only moves at CQEs.
    if (ring.cq_depth != static_cast<int64_t>(e.aux)) {
      ring.cq_depth = e.aux;
      doc_.counter(ring.pid, row, "CQ depth", "CQEs", ring.cq_depth, ts);
    }
    ThreadTrack& t = thread_track(e);
    if (!m.r) return unmatched_cqe(e, ts);
    TraceRequest& r = *m.r;
    ++r.cqes;
    bool final = !(e.cflags & IORING_CQE_F_MORE);
    r.more |= !final;

    TraceBuf& b = doc_.begin_marker(t.busy_until, e.tgid, e.tid, ts, "CQE", r.opcode);
    b << R"("id":)" << r.id << R"(,"res":)" << e.res;
    if (e.cflags) b << R"(,"flags":)" << e.cflags;
    b << '}';
    doc_.end_event();
    if (!final) {
      TraceBuf& n = doc_.async_event('n', "CQE", r, ts);
      n << R"(,"args":{"res":)" << e.res << R"(,"flags":)" << e.cflags << '}';
      doc_.end_event();
      return;
    }
    end_request(r, ts, {}, &e.res);
    write_flow(r, ts, e.tgid, e.tid);
    uint32_t r_ring = r.ring;
    requests_.erase(m);
    set_in_flight(r_ring, -1, ts);
  }

  void release_due() {
    while (queue_.due()) release(queue_.pop());
  }

  // The time a released record is written at: the first sets the file's time zero, and
  // one older than what is already written came after its time was released
  // (delivered_before), so it is written at the frontier: the file stays in time order
  // and markers nest.
  uint64_t write_time(uint64_t record_ts) {
    if (!started_) start(record_ts);
    uint64_t ts = record_ts;
    if (ts < last_ts_) {
      ++stats_.late;
      ts = last_ts_;
    }
    last_ts_ = ts;
    return ts;
  }

  void start(uint64_t ts) {
    started_ = true;
    doc_.set_base(ts);
    last_ts_ = ts;
  }

  void release(const us_trace_event& e) {
    uint64_t ts = write_time(e.ts);
    if (std::optional<std::string_view> name = tracks_.process_name_due(e))
      doc_.metadata("process_name", e.tgid, nullptr, *name);
    switch (e.kind) {
      case US_TR_SUBMIT: on_submit(e, ts); break;
      case US_TR_PUNT: on_punt(e, ts); break;
      case US_TR_ISSUE: on_issue(e, ts); break;
      case US_TR_POLL_ARM: on_poll_arm(e, ts); break;
      case US_TR_COMPLETE: on_complete(e, ts); break;
      case US_TR_FAILED: on_failed(e, ts); break;
      default: break;  // a kind from a newer BPF side: counted in events, not drawn
    }
  }

  // Ring tracks get the caller's name prefixed with the ring[N] the counters use, and go
  // first (catapult orders threads by thread_sort_index); processes whose leader never
  // showed are named after another of their threads.
  void write_names(const std::map<uint32_t, std::string>& ring_names) {
    for (const auto& [row, ring] : tracks_.rings()) {
      doc_.metadata("thread_name", ring.pid, &ring.tid, ring_track_name(row, ring_names));
      TraceBuf& b = doc_.begin_event();
      b << R"("ph":"M","name":"thread_sort_index","pid":)" << ring.pid << R"(,"tid":)" << ring.tid
        << R"(,"args":{"sort_index":)" << -1000000 + static_cast<int64_t>(row) << '}';
      doc_.end_event();
    }
    for (const auto& [pid, name] : tracks_.unnamed_processes())
      doc_.metadata("process_name", pid, nullptr, name);
  }

  void close_document(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names,
                      bool finished) {
    finished_ = true;
    while (!queue_.empty()) release(queue_.pop());
    if (!started_) start(end_ns);
    uint64_t end = std::max<uint64_t>(end_ns, last_ts_);

    // Requests still open end at the end of the window, oldest first.
    std::vector<TraceRequest> open = requests_.take_all();
    for (const TraceRequest& r : open) end_request(r, end, "in_flight_at_end", nullptr);
    stats_.still_open += open.size();

    write_names(ring_names);
    if (stats_.dropped)
      doc_.global_instant("trace records dropped: BPF ring buffer full", end,
                          fmt::format(R"(,"args":{{"total":{}}})", stats_.dropped));
    doc_.close(finished, stats_);
  }

  TraceDocument doc_;
  bool finished_ = false;
  ReorderQueue queue_;
  bool started_ = false;
  uint64_t last_ts_ = 0;  // ts of the last record written
  uint64_t next_id_ = 0;
  RequestIndex requests_;
  Tracks tracks_;
  TraceStats stats_;
};

TraceWriter::TraceWriter(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
TraceWriter::~TraceWriter() = default;
void TraceWriter::add(const us_trace_event& e) { impl_->add(e); }
void TraceWriter::delivered_before(uint64_t ts) { impl_->delivered_before(ts); }
void TraceWriter::set_dropped(uint64_t total) { impl_->set_dropped(total); }
void TraceWriter::finish(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names) {
  impl_->finish(end_ns, ring_names);
}
const TraceStats& TraceWriter::stats() const { return impl_->stats(); }
std::size_t TraceWriter::open_requests() const { return impl_->open_requests(); }
std::size_t TraceWriter::pending_records() const { return impl_->pending_records(); }

}  // namespace uringscope
