// SPDX-License-Identifier: MIT
// --trace: us_trace_event records -> Chrome trace-event JSON. The layout (tracks, ids,
// markers, counters) is documented for users in docs/trace.md; the comments here say why
// it is built the way it is.
#include "trace/trace_writer.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/errno_name.h"
#include "util/error.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

// Records can reach the ring buffer slightly out of timestamp order: the timestamp is
// taken before the record is reserved, and another CPU can reserve in between. A SUBMIT
// overtaken by its own fast CQE would otherwise lose its request, so records are held
// back in a min-heap and written in timestamp order once they are this much older than
// the newest record seen. The gap is microseconds in practice; 2 ms is generous and
// still keeps only a few thousand records in memory.
constexpr uint64_t kReorderWindowNs = 2'000'000;
// ... and at most this many, whatever the rate (72-byte records: about 1.3 MiB).
constexpr std::size_t kMaxPending = 16384;

// Flow arrows must bind to a slice. Every point an arrow touches gets a short complete
// ("X") slice: 1 us is wide enough to click at the zoom where arrows are legible.
constexpr uint64_t kMarkerNs = 1000;

// Synthetic thread ids of the ring tracks. Above PID_MAX_LIMIT (2^22), so they never
// collide with a real tid.
constexpr uint32_t kRingTidBase = 0x40000000;

// Caches of named threads and processes. Threads come and go on a long run (io-wq
// workers exit after idling), so these are bounded: when full they are emptied, and a
// thread seen again is simply named again (a repeated thread_name event is harmless).
constexpr std::size_t kMaxNamedThreads = 4096;
constexpr std::size_t kMaxNamedProcesses = 4096;

// Zero-copy sends whose io_kiocb the kernel already recycled, waiting for their
// notification CQE (see Impl::on_submit). Bounded in case notifications are lost.
constexpr std::size_t kMaxDetached = 4096;

// Worker hops kept per request for its flow arrow; a request re-queued more often keeps
// the first hops and the last one.
constexpr std::size_t kMaxSteps = 4;

constexpr std::size_t kFlushBytes = 256 * 1024;

constexpr uint8_t kOpSendZc = 47;     // IORING_OP_SEND_ZC
constexpr uint8_t kOpSendmsgZc = 48;  // IORING_OP_SENDMSG_ZC

// Category of every async slice and flow: Perfetto and catapult match a slice's begin,
// instants and end, and a flow's steps, by (cat, id).
constexpr std::string_view kCat = "io_uring";

// The output buffer. fmt's own memory buffer with compiled format strings: a generic
// back_inserter into std::string made formatting most of the writer's time.
class Buf {
 public:
  Buf& operator+=(std::string_view s) {
    b_.append(s.data(), s.data() + s.size());
    return *this;
  }
  Buf& operator+=(char c) {
    b_.push_back(c);
    return *this;
  }
  template <typename S, typename... Args>
  void f(const S& format, const Args&... args) {
    fmt::format_to(fmt::appender(b_), format, args...);
  }
  void reserve(std::size_t n) { b_.reserve(n); }
  std::size_t size() const { return b_.size(); }
  bool empty() const { return b_.size() == 0; }
  const char* data() const { return b_.data(); }
  void clear() { b_.clear(); }

 private:
  fmt::memory_buffer b_;
};

std::string_view punt_reason_name(uint32_t reason) {
  switch (reason) {
    case US_OC_PUNT_FORCED: return "forced";
    case US_OC_PUNT_HASHED: return "hashed";
    case US_OC_PUNT_REGFILE: return "regular_file";
    case US_OC_PUNT_EAGAIN: return "eagain";
    default: return "unknown";
  }
}

std::string_view comm_of(const char (&comm)[16]) { return {comm, strnlen(comm, sizeof comm)}; }

// Length of the valid UTF-8 sequence at s[i], 0 when it is not one. Strict (no
// overlongs, no surrogates, nothing above U+10FFFF): JSON parsers reject the rest.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

// A JSON string literal. Thread names are whatever the program set (prctl), so bytes
// that are not UTF-8 become '?': the file must stay parseable by strict readers.
// Control characters (DEL included: Perfetto's tokenizer rejects raw ones) are escaped.
void append_string(Buf& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out.f(FMT_COMPILE("\\u{:04x}"), c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (std::size_t n = utf8_len(s, i)) {
      out += s.substr(i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  out += '"';
}

struct UdKey {
  uint32_t ring;
  uint64_t user_data;
  bool operator==(const UdKey&) const = default;
};
struct UdKeyHash {
  std::size_t operator()(const UdKey& k) const {
    return std::hash<uint64_t>{}(k.user_data * 0x9e3779b97f4a7c15ull ^ k.ring);
  }
};

// A point a flow arrow passes through: an X marker already written on (pid, tid) at ts.
struct Step {
  uint64_t ts;
  uint32_t pid;
  uint32_t tid;
};

// One request between its SUBMIT and its final CQE.
struct Request {
  uint64_t id;  // async slice and flow id: a serial number, unique in the file
  uint64_t user_data;
  uint64_t submit_ts;  // ns, as written
  uint32_t ring;
  uint32_t pid;  // submitter's tgid: the process the slice belongs to
  uint32_t tid;  // submitter's tid
  uint32_t cqes = 0;
  uint8_t opcode;
  uint8_t nsteps = 0;
  bool punted = false;
  bool failed = false;
  bool more = false;  // has posted a CQE with IORING_CQE_F_MORE: multishot or zero-copy
  uint32_t punt_reason = 0;
  std::array<Step, kMaxSteps> steps{};
};

// The synthetic track of one ring: submit markers, flow starts, and the ring's counters.
struct RingTrack {
  uint32_t pid;
  uint32_t tid;
  uint64_t busy_until = 0;  // end of the last marker on the track
  int64_t in_flight = 0;
  int64_t cq_depth = -1;  // last CQ depth written, -1 before the first
};

struct ThreadTrack {
  uint32_t pid;
  uint64_t busy_until = 0;
};

struct ProcessInfo {
  bool named = false;
  std::string fallback;  // a non-io-thread's comm, for a process whose leader never showed
};

struct Pending {
  us_trace_event e;
  uint64_t seq;  // arrival order: breaks timestamp ties the way the ring buffer did
};
struct PendingLater {
  bool operator()(const Pending& a, const Pending& b) const {
    return a.e.ts != b.e.ts ? a.e.ts > b.e.ts : a.seq > b.seq;
  }
};

}  // namespace

class TraceWriter::Impl {
 public:
  explicit Impl(const std::string& path) : path_(path) {
    file_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!file_.is_open())
      throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    for (std::size_t op = 0; op < op_names_.size(); ++op)
      op_names_[op] = opcode_name(static_cast<uint32_t>(op));
    buf_.reserve(kFlushBytes + 4096);
    buf_ += "{\"traceEvents\":[\n";
    pending_.reserve(1024);
  }

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
    newest_ts_ = std::max<uint64_t>(newest_ts_, e.ts);
    pending_.push_back({e, seq_++});
    std::push_heap(pending_.begin(), pending_.end(), PendingLater{});
    while (!pending_.empty() && (pending_.front().e.ts + kReorderWindowNs <= newest_ts_ ||
                                 pending_.size() > kMaxPending))
      release_one();
  }

  void set_dropped(uint64_t total) {
    if (finished_ || total <= stats_.dropped) return;
    uint64_t added = total - stats_.dropped;
    stats_.dropped = total;
    if (!started_) return;  // nothing to place it against yet; finish() reports the total
    Buf& b = begin_event();
    b += R"("ph":"i","s":"g","name":"trace records dropped")";
    append_ts(b, last_ts_);
    b.f(FMT_COMPILE(R"(,"args":{{"dropped":{},"total":{}}})"), added, total);
    end_event();
  }

  void finish(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names) {
    if (finished_) return;
    close_document(end_ns, ring_names, true);
  }

  const TraceStats& stats() const { return stats_; }
  std::size_t open_requests() const { return open_.size() + detached_.size(); }
  std::size_t pending_records() const { return pending_.size(); }

 private:
  // ---- output ------------------------------------------------------------------------

  Buf& begin_event() {
    if (nevents_++) buf_ += ",\n";
    buf_ += '{';
    return buf_;
  }
  void end_event() {
    buf_ += '}';
    if (buf_.size() >= kFlushBytes) flush();
  }
  void flush() {
    if (!write_failed_ && !buf_.empty()) {
      file_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      if (!file_) {
        write_failed_ = true;
        write_errno_ = errno;
      }
    }
    buf_.clear();
  }

  // Microseconds since the first record, exact to the nanosecond: integer arithmetic, so
  // no binary-float rounding reaches the file.
  void append_ts(Buf& b, uint64_t ts) {
    uint64_t rel = ts - base_;
    b.f(FMT_COMPILE(R"(,"ts":{}.{:03})"), rel / 1000, rel % 1000);
  }
  static void append_dur(Buf& b, uint64_t ns) {
    b.f(FMT_COMPILE(R"(,"dur":{}.{:03})"), ns / 1000, ns % 1000);
  }

  std::string_view op(uint8_t opcode) const { return op_names_[opcode]; }

  // Opens an X marker on a thread track at ts and leaves "args":{ open for the caller.
  // Markers on one track must nest, never partly overlap (Perfetto would misnest them):
  // one that starts inside the previous marker gets zero length, a child of it.
  Buf& begin_marker(uint64_t& busy_until, uint32_t pid, uint32_t tid, uint64_t ts,
                    std::string_view verb, uint8_t opcode) {
    uint64_t dur = 0;
    if (ts >= busy_until) {
      dur = kMarkerNs;
      busy_until = ts + kMarkerNs;
    }
    Buf& b = begin_event();
    b.f(FMT_COMPILE(R"("ph":"X","name":"{} {}","pid":{},"tid":{})"), verb, op(opcode), pid, tid);
    append_ts(b, ts);
    append_dur(b, dur);
    b += R"(,"args":{)";
    return b;
  }

  void counter(const RingTrack& ring, uint32_t row, std::string_view what, std::string_view unit,
               int64_t value, uint64_t ts) {
    Buf& b = begin_event();
    b.f(FMT_COMPILE(R"("ph":"C","name":"ring[{}] {}","pid":{})"), row, what, ring.pid);
    append_ts(b, ts);
    b.f(FMT_COMPILE(R"(,"args":{{"{}":{}}})"), unit, value);
    end_event();
  }

  // Async ("b"/"n"/"e") event of a request, up to its args.
  Buf& async_event(char ph, std::string_view name, const Request& r, uint64_t ts) {
    Buf& b = begin_event();
    b.f(FMT_COMPILE(R"("ph":"{}","cat":"{}","id":{},"name":"{}","pid":{},"tid":{})"), ph, kCat,
        r.id, name, r.pid, r.tid);
    append_ts(b, ts);
    return b;
  }

  void flow_event(char ph, const Request& r, uint64_t ts, uint32_t pid, uint32_t tid) {
    Buf& b = begin_event();
    b.f(FMT_COMPILE(R"("ph":"{}","cat":"{}","id":{},"name":"request","pid":{},"tid":{})"), ph, kCat,
        r.id, pid, tid);
    append_ts(b, ts);
    if (ph == 'f') b += R"(,"bp":"e")";
    end_event();
  }

  void metadata(std::string_view what, uint32_t pid, const uint32_t* tid, std::string_view name) {
    Buf& b = begin_event();
    b.f(FMT_COMPILE(R"("ph":"M","name":"{}","pid":{})"), what, pid);
    if (tid) b.f(FMT_COMPILE(R"(,"tid":{})"), *tid);
    b += R"(,"args":{"name":)";
    append_string(b, name);
    b += '}';
    end_event();
  }

  // ---- tracks ------------------------------------------------------------------------

  RingTrack& ring_track(uint32_t row, uint32_t pid) {
    auto it = rings_.find(row);
    if (it != rings_.end()) return it->second;
    // Rows are global (one per io_ring_ctx), so row alone names the track; the catch-all
    // row, shared when the BPF ring table is full, lives in the first process it shows in.
    return rings_.emplace(row, RingTrack{pid, kRingTidBase + (row & 0x0fffffffu)}).first->second;
  }

  // The track of the real thread that produced e; names it the first time.
  ThreadTrack& thread_track(const us_trace_event& e) {
    auto it = threads_.find(e.tid);
    if (it != threads_.end() && it->second.pid == e.tgid) return it->second;
    if (it == threads_.end() && threads_.size() >= kMaxNamedThreads) threads_.clear();
    ThreadTrack& t = threads_[e.tid];
    t = ThreadTrack{e.tgid};
    uint32_t tid = e.tid;
    metadata("thread_name", e.tgid, &tid, comm_of(e.comm));
    return t;
  }

  void note_process(const us_trace_event& e) {
    auto it = processes_.find(e.tgid);
    if (it == processes_.end()) {
      if (processes_.size() >= kMaxNamedProcesses) processes_.clear();
      it = processes_.emplace(e.tgid, ProcessInfo{}).first;
    }
    ProcessInfo& p = it->second;
    if (p.named) return;
    std::string_view comm = comm_of(e.comm);
    // The thread-group leader's comm is the process name ps shows.
    if (e.tid == e.tgid) {
      metadata("process_name", e.tgid, nullptr, comm);
      p.named = true;
      p.fallback.clear();
    } else if (p.fallback.empty() && !comm.starts_with("iou-")) {
      p.fallback = comm;
    }
  }

  // ---- requests ----------------------------------------------------------------------

  void index(const Request& r, uint64_t req) {
    auto [it, fresh] = by_ud_.try_emplace(UdKey{r.ring, r.user_data}, req);
    if (!fresh) {
      // Two open requests share (ring, user_data): the index keeps the newest, and lookups
      // that miss must scan from now on.
      if (open_.count(it->second)) ud_shared_ = true;
      it->second = req;
    }
  }
  void unindex(const Request& r, uint64_t req) {
    auto it = by_ud_.find(UdKey{r.ring, r.user_data});
    if (it != by_ud_.end() && it->second == req) by_ud_.erase(it);
  }

  struct Match {
    Request* r = nullptr;
    uint64_t req = 0;       // key in open_
    bool detached = false;  // key in detached_ instead
  };

  // The open request a record belongs to. By io_kiocb address first: it names one
  // request from SUBMIT to final CQE. CQEs without one (multishot CQEs on 6.13+, CQ
  // overflow flushes) or from another io_kiocb (a zero-copy send's notification) are
  // matched by (ring, user_data).
  Match find(const us_trace_event& e, bool by_user_data) {
    if (e.req) {
      auto it = open_.find(e.req);
      if (it != open_.end()) return {&it->second, e.req, false};
    }
    if (!by_user_data) return {};
    UdKey key{e.ring, e.user_data};
    if (auto d = detached_.find(key); d != detached_.end()) return {&d->second, 0, true};
    // A CQE carrying another request's address only belongs to a request that is known
    // to post several CQEs.
    auto fits = [&](const Request& r) { return e.req == 0 || r.more; };
    if (auto x = by_ud_.find(key); x != by_ud_.end()) {
      auto it = open_.find(x->second);
      if (it != open_.end() && fits(it->second)) return {&it->second, it->first, false};
    }
    if (ud_shared_) {
      Match best;
      for (auto& [req, r] : open_)
        if (r.ring == e.ring && r.user_data == e.user_data && fits(r) &&
            (!best.r || r.id < best.r->id))
          best = {&r, req, false};
      return best;
    }
    return {};
  }

  void erase(const Match& m) {
    if (m.detached) {
      detached_.erase(UdKey{m.r->ring, m.r->user_data});
    } else {
      unindex(*m.r, m.req);
      open_.erase(m.req);
    }
  }

  void set_in_flight(uint32_t row, int64_t delta, uint64_t ts) {
    RingTrack& ring = rings_.at(row);
    ring.in_flight += delta;
    counter(ring, row, "in flight", "requests", ring.in_flight, ts);
  }

  // Writes a request's end: the "e" event, with what its whole life showed as args
  // (viewers merge them with the begin's). why: the flag of an end that is no CQE.
  void end_request(const Request& r, uint64_t ts, std::string_view why, const int32_t* res) {
    Buf& b = async_event('e', op(r.opcode), r, ts);
    b += R"(,"args":{)";
    bool first = true;
    auto key = [&](std::string_view k) {
      if (!first) b += ',';
      first = false;
      b.f(FMT_COMPILE(R"("{}":)"), k);
    };
    if (res) {
      key("res");
      b.f(FMT_COMPILE("{}"), *res);
      if (*res < 0) {
        key("errno");
        append_string(b, errno_name(-*res));
      }
    }
    if (r.cqes != 1) {
      key("cqes");
      b.f(FMT_COMPILE("{}"), r.cqes);
    }
    if (r.punted) {
      key("punt");
      b.f(FMT_COMPILE(R"("{}")"), punt_reason_name(r.punt_reason));
    }
    if (r.failed) {
      key("failed");
      b += "true";
    }
    if (!why.empty()) {
      key(why);
      b += "true";
    }
    b += '}';
    end_event();
  }

  void supersede(const Request& r, uint64_t ts) {
    ++stats_.superseded;
    end_request(r, ts, "end_not_seen", nullptr);
    set_in_flight(r.ring, -1, ts);
  }

  // A zero-copy send posts its result CQE (with F_MORE) and frees its io_kiocb; the
  // notification CQE comes later from another one. Keep the request, reachable by
  // (ring, user_data) only, until the notification.
  void detach(Request&& r, uint64_t ts) {
    UdKey key{r.ring, r.user_data};
    if (auto it = detached_.find(key); it != detached_.end()) {
      supersede(it->second, ts);
      detached_.erase(it);
    } else if (detached_.size() >= kMaxDetached) {
      supersede(detached_.begin()->second, ts);
      detached_.erase(detached_.begin());
    }
    detached_.emplace(key, std::move(r));
  }

  void on_submit(const us_trace_event& e, uint64_t ts) {
    ++stats_.requests;
    RingTrack& ring = ring_track(e.ring, e.tgid);
    if (auto it = open_.find(e.req); it != open_.end()) {
      // The kernel recycles an io_kiocb only after its request's final CQE, so the old
      // request ended unseen, unless it is a zero-copy send waiting for its notification.
      Request old = std::move(it->second);
      unindex(old, it->first);
      open_.erase(it);
      if (old.more && (old.opcode == kOpSendZc || old.opcode == kOpSendmsgZc))
        detach(std::move(old), ts);
      else
        supersede(old, ts);
    }
    Request r{.id = ++next_id_,
              .user_data = e.user_data,
              .submit_ts = ts,
              .ring = e.ring,
              .pid = e.tgid,
              .tid = e.tid,
              .opcode = e.opcode};

    Buf& m = begin_marker(ring.busy_until, ring.pid, ring.tid, ts, "submit", e.opcode);
    m.f(FMT_COMPILE(R"("id":{},"user_data":"{:#x}","tid":{}}})"), r.id, r.user_data, e.tid);
    end_event();

    Buf& b = async_event('b', op(r.opcode), r, ts);
    b.f(FMT_COMPILE(R"(,"args":{{"user_data":"{:#x}","ring":{}}})"), r.user_data, r.ring);
    end_event();

    index(r, e.req);
    open_.emplace(e.req, r);
    set_in_flight(e.ring, +1, ts);
  }

  void on_punt(const us_trace_event& e, uint64_t ts) {
    Match m = find(e, false);
    if (!m.r) {
      ++stats_.unmatched;
      return;
    }
    m.r->punted = true;
    m.r->punt_reason = e.aux;
    Buf& b = async_event('n', "punt", *m.r, ts);
    b.f(FMT_COMPILE(R"(,"args":{{"reason":"{}"}})"), punt_reason_name(e.aux));
    end_event();
  }

  void on_issue(const us_trace_event& e, uint64_t ts) {
    Match m = find(e, false);
    if (!m.r) {
      ++stats_.unmatched;
      return;
    }
    Request& r = *m.r;
    // An inline issue on the submitting thread adds nothing to the picture; a worker (or
    // any other thread) picking the request up is a hop of its flow arrow.
    if (!r.punted && e.tid == r.tid) return;
    ThreadTrack& t = thread_track(e);
    Buf& b = begin_marker(t.busy_until, e.tgid, e.tid, ts, "issue", r.opcode);
    b.f(FMT_COMPILE(R"("id":{}}})"), r.id);
    end_event();
    std::size_t slot = std::min<std::size_t>(r.nsteps, kMaxSteps - 1);
    r.steps[slot] = Step{ts, e.tgid, e.tid};
    r.nsteps = static_cast<uint8_t>(slot + 1);
    Buf& n = async_event('n', "issue", r, ts);
    n.f(FMT_COMPILE(R"(,"args":{{"tid":{}}})"), e.tid);
    end_event();
  }

  void on_poll_arm(const us_trace_event& e, uint64_t ts) {
    Match m = find(e, false);
    if (!m.r) {
      ++stats_.unmatched;
      return;
    }
    async_event('n', "poll armed", *m.r, ts);
    end_event();
  }

  void on_failed(const us_trace_event& e, uint64_t ts) {
    Match m = find(e, false);
    if (!m.r) {
      ++stats_.unmatched;
      return;
    }
    m.r->failed = true;
    Buf& b = async_event('n', "failed", *m.r, ts);
    b.f(FMT_COMPILE(R"(,"args":{{"res":{}}})"), e.res);
    end_event();
  }

  void on_complete(const us_trace_event& e, uint64_t ts) {
    Match m = find(e, true);
    uint32_t row = m.r ? m.r->ring : e.ring;
    RingTrack& ring = ring_track(row, e.tgid);
    // aux is the CQ depth just after this CQE: the ring's backlog as the app sees it.
    // Written when it changes; reaping is not traced, so the line only moves at CQEs.
    if (ring.cq_depth != static_cast<int64_t>(e.aux)) {
      ring.cq_depth = e.aux;
      counter(ring, row, "CQ depth", "CQEs", ring.cq_depth, ts);
    }
    ThreadTrack& t = thread_track(e);
    if (!m.r) {
      ++stats_.unmatched;
      Buf& b = begin_event();
      b.f(FMT_COMPILE(R"("ph":"i","s":"t","name":"CQE without submit","pid":{},"tid":{})"), e.tgid,
          e.tid);
      append_ts(b, ts);
      b.f(FMT_COMPILE(R"(,"args":{{"ring":{},"user_data":"{:#x}","res":{},"flags":{}}})"), e.ring,
          e.user_data, e.res, e.cflags);
      end_event();
      return;
    }
    Request& r = *m.r;
    ++r.cqes;
    bool final = !(e.cflags & US_CQE_F_MORE);
    r.more |= !final;

    Buf& b = begin_marker(t.busy_until, e.tgid, e.tid, ts, "CQE", r.opcode);
    b.f(FMT_COMPILE(R"("id":{},"res":{})"), r.id, e.res);
    if (e.cflags) b.f(FMT_COMPILE(R"(,"flags":{})"), e.cflags);
    b += '}';
    end_event();
    if (!final) {
      Buf& n = async_event('n', "CQE", r, ts);
      n.f(FMT_COMPILE(R"(,"args":{{"res":{},"flags":{}}})"), e.res, e.cflags);
      end_event();
      return;
    }
    end_request(r, ts, {}, &e.res);
    // The arrow: submit marker on the ring track -> each worker hop -> this CQE. Written
    // now that all its points exist; viewers sort by time, and at equal times Perfetto
    // takes X slices first, so each point binds to its marker.
    const RingTrack& home = rings_.at(r.ring);
    flow_event('s', r, r.submit_ts, home.pid, home.tid);
    for (std::size_t i = 0; i < r.nsteps; ++i)
      flow_event('t', r, r.steps[i].ts, r.steps[i].pid, r.steps[i].tid);
    flow_event('f', r, ts, e.tgid, e.tid);
    uint32_t r_ring = r.ring;
    erase(m);
    set_in_flight(r_ring, -1, ts);
  }

  void release_one() {
    std::pop_heap(pending_.begin(), pending_.end(), PendingLater{});
    us_trace_event e = pending_.back().e;
    pending_.pop_back();
    if (!started_) {
      started_ = true;
      base_ = e.ts;
      last_ts_ = e.ts;
    }
    uint64_t ts = e.ts;
    // Older than what is already written: it came later than the window allows.
    // Written at the frontier, so the file stays in time order and markers still nest.
    if (ts < last_ts_) {
      ++stats_.late;
      ts = last_ts_;
    }
    last_ts_ = ts;
    note_process(e);
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

  void close_document(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names,
                      bool finished) {
    finished_ = true;
    while (!pending_.empty()) release_one();
    if (!started_) {
      started_ = true;
      base_ = end_ns;
      last_ts_ = end_ns;
    }
    uint64_t end = std::max<uint64_t>(end_ns, last_ts_);

    // Requests still open end at the end of the window, oldest first.
    std::vector<const Request*> open;
    open.reserve(open_.size() + detached_.size());
    for (const auto& [req, r] : open_) open.push_back(&r);
    for (const auto& [key, r] : detached_) open.push_back(&r);
    std::sort(open.begin(), open.end(),
              [](const Request* a, const Request* b) { return a->id < b->id; });
    for (const Request* r : open) end_request(*r, end, "in_flight_at_end", nullptr);
    stats_.still_open += open.size();
    open_.clear();
    detached_.clear();
    by_ud_.clear();

    // Names. Ring tracks get the caller's name prefixed with the ring[N] the counters use.
    for (const auto& [row, ring] : rings_) {
      auto it = ring_names.find(row);
      std::string name = fmt::format("ring[{}]", row);
      if (it != ring_names.end() && !it->second.empty()) name += " = " + it->second;
      metadata("thread_name", ring.pid, &ring.tid, name);
      // catapult orders threads by this; the ring tracks go first.
      Buf& b = begin_event();
      b.f(FMT_COMPILE(R"("ph":"M","name":"thread_sort_index","pid":{},"tid":{},)"
                      R"("args":{{"sort_index":{}}})"),
          ring.pid, ring.tid, -1000000 + static_cast<int64_t>(row));
      end_event();
    }
    for (const auto& [pid, p] : processes_)
      if (!p.named && !p.fallback.empty()) metadata("process_name", pid, nullptr, p.fallback);

    if (stats_.dropped) {
      Buf& b = begin_event();
      b += R"("ph":"i","s":"g","name":"trace records dropped: BPF ring buffer full")";
      append_ts(b, end);
      b.f(FMT_COMPILE(R"(,"args":{{"total":{}}})"), stats_.dropped);
      end_event();
    }

    buf_ += "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
    buf_.f(FMT_COMPILE(R"("tool":"uringscope","version":"{}","clock":"CLOCK_MONOTONIC",)"
                       R"("ts_base_ns":{},"finished":{},"records":{},"requests":{},)"
                       R"("unmatched":{},"still_open":{},"superseded":{},"late":{},)"
                       R"("dropped_records":{}}})"),
           URINGSCOPE_VERSION, base_, finished ? "true" : "false", stats_.events, stats_.requests,
           stats_.unmatched, stats_.still_open, stats_.superseded, stats_.late, stats_.dropped);
    buf_ += "}\n";
    flush();
    file_.close();
    if (!write_failed_ && file_.fail()) {
      write_failed_ = true;
      write_errno_ = errno;
    }
    if (write_failed_)
      throw Error(fmt::format("cannot write {}: {}", path_,
                              write_errno_ ? std::strerror(write_errno_) : "write error"));
  }

  std::string path_;
  std::ofstream file_;
  Buf buf_;
  uint64_t nevents_ = 0;
  bool write_failed_ = false;
  int write_errno_ = 0;
  bool finished_ = false;

  std::vector<Pending> pending_;  // min-heap on (ts, seq)
  uint64_t seq_ = 0;
  uint64_t newest_ts_ = 0;
  bool started_ = false;
  uint64_t base_ = 0;     // ts of the first record written: the file's time zero
  uint64_t last_ts_ = 0;  // ts of the last record written

  std::array<std::string, 256> op_names_;
  uint64_t next_id_ = 0;
  std::unordered_map<uint64_t, Request> open_;  // by io_kiocb address
  std::unordered_map<UdKey, uint64_t, UdKeyHash> by_ud_;
  std::unordered_map<UdKey, Request, UdKeyHash> detached_;
  bool ud_shared_ = false;

  std::unordered_map<uint32_t, RingTrack> rings_;
  std::unordered_map<uint32_t, ThreadTrack> threads_;
  std::unordered_map<uint32_t, ProcessInfo> processes_;

  TraceStats stats_;
};

TraceWriter::TraceWriter(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
TraceWriter::~TraceWriter() = default;
void TraceWriter::add(const us_trace_event& e) { impl_->add(e); }
void TraceWriter::set_dropped(uint64_t total) { impl_->set_dropped(total); }
void TraceWriter::finish(uint64_t end_ns, const std::map<uint32_t, std::string>& ring_names) {
  impl_->finish(end_ns, ring_names);
}
const TraceStats& TraceWriter::stats() const { return impl_->stats(); }
std::size_t TraceWriter::open_requests() const { return impl_->open_requests(); }
std::size_t TraceWriter::pending_records() const { return impl_->pending_records(); }

}  // namespace uringscope
