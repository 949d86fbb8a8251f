// SPDX-License-Identifier: MIT
// What delivering per-request records to a reader on another CPU costs the program that
// makes them, with no BPF and no tracer: the price any per-request trace pays on this
// machine before its own code adds anything (bench/HISTORY.md has the measured runs).
//
// A producer pinned to one CPU does a page-cache read's worth of work per op (a 4 KiB
// copy from a random block of a 256 MiB buffer) and, as bpf/trace.bpf.h does, stages
// RECORDS records of BYTES bytes per op and sends them 32 at a time into an 8 MiB ring.
// A reader pinned to the other CPU drains the ring ten times a second, as uringscope
// does (--drain-ms 0: as fast as it can, so that no record is refused). Four modes,
// interleaved in every repetition:
//   work       the copy alone: no records
//   stopped    records staged, the ring never drained: full at once, every batch
//              refused (uringscope-trace-stopped)
//   delivered  records sent and every byte read by the reader
//   written    the same, and the reader writes TEXT bytes per record to OUT, as the
//              --trace writer writes its JSON
// Prints each run's ns per op, then per mode the median and what it adds to `work`.
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kBlock = 4096;
constexpr std::size_t kSourceBytes = 256u << 20;  // loadgen's data file
constexpr std::size_t kRingBytes = 8u << 20;      // US_DEFAULT_TRACE_BYTES
constexpr std::size_t kBatchRecords = 32;         // US_TRACE_BATCH
constexpr std::size_t kBatchHeader = 16;          // count, staging flag, first_ts

enum class Mode { Work, Stopped, Delivered, Written };
constexpr Mode kModes[] = {Mode::Work, Mode::Stopped, Mode::Delivered, Mode::Written};

std::string_view name_of(Mode m) {
  switch (m) {
    case Mode::Work: return "work";
    case Mode::Stopped: return "stopped";
    case Mode::Delivered: return "delivered";
    case Mode::Written: return "written";
  }
  return "?";
}

struct Options {
  double seconds = 2;
  int reps = 6;
  std::size_t record_bytes = 72;  // sizeof(struct us_trace_event)
  std::size_t records_per_op = 2; // a page-cache read: submit and CQE
  std::size_t text_bytes = 411;   // the --trace writer's JSON per record (bench/writer.sh)
  int producer_cpu = 0;
  int reader_cpu = 1;
  int drain_ms = 100;             // uringscope drains ten times a second
  std::string out = "/dev/null";
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "delivery_bench: %s\n", what.c_str());
  std::exit(1);
}

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "usage: delivery_bench [--seconds S] [--reps N] [--bytes B] [--records R]\n"
               "                      [--text T] [--drain-ms MS] [--cpus P,R] [--out FILE]\n");
  die(what);
}

// Where the copies and reads end up, so that the compiler keeps them.
volatile uint64_t g_sink;

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) usage_error("missing value after " + std::string(a));
    const char* v = argv[++i];
    if (a == "--seconds") o.seconds = std::atof(v);
    else if (a == "--reps") o.reps = std::atoi(v);
    else if (a == "--bytes") o.record_bytes = std::strtoul(v, nullptr, 10);
    else if (a == "--records") o.records_per_op = std::strtoul(v, nullptr, 10);
    else if (a == "--text") o.text_bytes = std::strtoul(v, nullptr, 10);
    else if (a == "--drain-ms") o.drain_ms = std::atoi(v);
    else if (a == "--cpus") {
      if (std::sscanf(v, "%d,%d", &o.producer_cpu, &o.reader_cpu) != 2) usage_error("--cpus P,R");
    } else if (a == "--out") o.out = v;
    else usage_error("unknown option " + std::string(a));
  }
  if (o.seconds <= 0 || o.reps < 1 || o.record_bytes < 8 || o.record_bytes > 4096 ||
      o.text_bytes > 65536 || o.drain_ms < 0)
    usage_error("out of range");
  return o;
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    die("cannot pin to CPU " + std::to_string(cpu));
}

// The BPF ring buffer's data area, cache-line aligned like the kernel's pages.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<std::byte[], FreeDeleter>;
Bytes aligned_bytes(std::size_t n) {
  return Bytes(static_cast<std::byte*>(std::aligned_alloc(64, n)));
}

struct alignas(64) Ring {
  Bytes data = aligned_bytes(kRingBytes);
  alignas(64) std::atomic<uint64_t> head{0};  // producer's position
  alignas(64) std::atomic<uint64_t> tail{0};  // reader's position
  alignas(64) std::atomic<bool> stop{false};
};

void copy_in(Ring& r, uint64_t pos, const std::byte* src, std::size_t n) {
  const std::size_t at = pos % kRingBytes, first = std::min(n, kRingBytes - at);
  std::memcpy(r.data.get() + at, src, first);
  std::memcpy(r.data.get(), src + first, n - first);
}

uint64_t xorshift(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

// The reader: every --drain-ms it takes everything there is, reads each byte (delivered) or
// also turns each record into `text_bytes` of output written to `fd` (written).
void read_ring(Ring& r, Mode mode, const Options& o, int fd) {
  pin(o.reader_cpu);
  std::vector<char> text(64 << 10);
  std::size_t used = 0;
  uint64_t sink = 0;
  const std::size_t batch_bytes = kBatchHeader + kBatchRecords * o.record_bytes;
  while (!r.stop.load(std::memory_order_relaxed)) {
    if (o.drain_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.drain_ms));
    const uint64_t head = r.head.load(std::memory_order_acquire);
    for (uint64_t pos = r.tail.load(std::memory_order_relaxed); pos < head; pos += batch_bytes) {
      for (std::size_t off = 0; off < batch_bytes; off += 8) {
        uint64_t word;
        std::memcpy(&word, r.data.get() + (pos + off) % kRingBytes, sizeof word);
        sink += word;
      }
      if (mode != Mode::Written) continue;
      for (std::size_t i = 0; i < kBatchRecords; ++i) {
        if (used + o.text_bytes > text.size()) {
          if (write(fd, text.data(), used) < 0) die("write to " + o.out + " failed");
          used = 0;
        }
        std::memset(text.data() + used, static_cast<int>('0' + (sink + i) % 10), o.text_bytes);
        used += o.text_bytes;
      }
    }
    r.tail.store(head, std::memory_order_release);
  }
  g_sink = sink;
}

// One timed run of the producer; returns ns per op.
double run(Mode mode, const Options& o, const std::byte* source, int fd) {
  Ring ring;
  std::memset(ring.data.get(), 0, kRingBytes);
  std::thread reader;
  if (mode == Mode::Delivered || mode == Mode::Written)
    reader = std::thread(read_ring, std::ref(ring), mode, std::cref(o), fd);
  pin(o.producer_cpu);

  const std::size_t batch_bytes = kBatchHeader + kBatchRecords * o.record_bytes;
  std::vector<std::byte> stage(batch_bytes);
  std::vector<std::byte> dest(kBlock);
  std::size_t staged = 0;
  uint64_t seed = 88172645463325252ull, ops = 0, sent = 0, refused = 0;
  const bool records = mode != Mode::Work;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(o.seconds);
  auto now = start;
  while (now < end) {
    for (int k = 0; k < 256; ++k, ++ops) {
      const uint64_t block = xorshift(seed) % (kSourceBytes / kBlock);
      std::memcpy(dest.data(), source + block * kBlock, kBlock);
      if (!records) continue;
      for (std::size_t i = 0; i < o.records_per_op; ++i) {
        std::byte* rec = stage.data() + kBatchHeader + staged * o.record_bytes;
        std::memcpy(rec, &ops, sizeof ops);
        std::memset(rec + sizeof ops, static_cast<int>(i), o.record_bytes - sizeof ops);
        if (++staged < kBatchRecords) continue;
        staged = 0;
        const uint64_t head = ring.head.load(std::memory_order_relaxed);
        if (head + batch_bytes - ring.tail.load(std::memory_order_acquire) > kRingBytes) {
          ++refused;
          continue;
        }
        copy_in(ring, head, stage.data(), batch_bytes);
        ring.head.store(head + batch_bytes, std::memory_order_release);
        ++sent;
      }
    }
    now = std::chrono::steady_clock::now();
  }
  const double ns = std::chrono::duration<double, std::nano>(now - start).count() / ops;
  ring.stop.store(true);
  if (reader.joinable()) reader.join();
  g_sink = static_cast<uint64_t>(dest[0]);
  std::printf("  %-9s %8.1f ns/op  %10llu ops  batches sent %llu, refused %llu\n",
              std::string(name_of(mode)).c_str(), ns, static_cast<unsigned long long>(ops),
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(refused));
  std::fflush(stdout);
  return ns;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const int fd = open(o.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("cannot open " + o.out + ": " + std::strerror(errno));
  Bytes source = aligned_bytes(kSourceBytes);
  for (std::size_t i = 0; i < kSourceBytes; i += 64) source[i] = static_cast<std::byte>(i >> 12);

  std::printf("delivery_bench: %zu records of %zu bytes per op, %zu text bytes each, CPUs %d,%d, "
              "%d reps of %.1f s\n", o.records_per_op, o.record_bytes, o.text_bytes,
              o.producer_cpu, o.reader_cpu, o.reps, o.seconds);
  std::vector<double> ns[std::size(kModes)];
  for (int rep = 0; rep < o.reps; ++rep) {
    std::printf("rep %d\n", rep + 1);
    for (std::size_t m = 0; m < std::size(kModes); ++m) {
      if (ftruncate(fd, 0) == 0) lseek(fd, 0, SEEK_SET);
      ns[m].push_back(run(kModes[m], o, source.get(), fd));
    }
  }
  // Within each repetition against its own `work` run, then the median over repetitions.
  std::printf("mode       median ns/op  added to work (median of per-rep differences)\n");
  for (std::size_t m = 0; m < std::size(kModes); ++m) {
    std::vector<double> added;
    for (int rep = 0; rep < o.reps; ++rep) added.push_back(ns[m][rep] - ns[0][rep]);
    std::printf("%-10s %12.1f  %+.1f\n", std::string(name_of(kModes[m])).c_str(), median(ns[m]),
                median(added));
  }
  close(fd);
  return 0;
}
