// SPDX-License-Identifier: MIT
// Helpers for the kernel tier: run uringscope and the fault injector as real processes,
// read the injector's GROUND-TRUTH lines, and check what BPF programs are loaded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace harness {

// How long a test waits for uringscope's "attached": a second here, but tens of seconds in
// a guest of the kernel matrix under TCG, where every program and its catcher is loaded
// and attached on one emulated CPU beside another guest.
inline constexpr std::chrono::seconds kAttachTimeout{90};

// A child process with its stdout and stderr captured through pipes.
class Subprocess {
 public:
  // setup runs in the child between fork and exec (e.g. to drop privileges).
  explicit Subprocess(const std::vector<std::string>& argv,
                      std::function<void()> setup = nullptr);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // Reads output until `needle` appears in stdout (or stderr when from_stderr), or the
  // timeout passes. Returns whether it appeared.
  bool wait_for_output(const std::string& needle, bool from_stderr,
                       std::chrono::milliseconds timeout);
  // Waits for exit, collecting output; kills the process after the timeout. Returns the
  // shell-style status (128 + signal when killed).
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  void signal(int sig) const;
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  void drain(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::optional<int> status_;
};

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};
Result run(const std::vector<std::string>& argv,
           std::chrono::milliseconds timeout = std::chrono::seconds(60));

// GROUND-TRUTH lines as records: each line is a list of key=value pairs; the first word
// after GROUND-TRUTH may be a bare label ("ring").
struct GroundTruth {
  std::vector<std::map<std::string, std::string>> lines;
  // The record whose key `key` equals `value` (e.g. op=READ).
  const std::map<std::string, std::string>& find(const std::string& key,
                                                 const std::string& value) const;
  long long number(const std::string& record_key, const std::string& record_value,
                   const std::string& field) const;
  // The first record that has `key`, and that key's value as a number.
  long long value(const std::string& key) const;
};
GroundTruth parse_ground_truth(const std::string& text);

// IDs of loaded BPF programs whose name starts with "usc_" (ours).
std::set<unsigned> our_program_ids();
// Programs some process holds an fd of (a program or a link: its fdinfo says prog_id).
std::set<unsigned> held_program_ids();

std::string temp_path(const std::string& stem);
nlohmann::json read_json(const std::string& path);

// The per-op object for `op` in a JSON "ops" array, or null.
const nlohmann::json* find_op(const nlohmann::json& ops, const std::string& op);
// `object[key]` as a number (counts and ids of the JSON report).
long long num(const nlohmann::json& object, const char* key);
// Requests of an op whose latency was recorded: the sum of its log2 histogram.
long long latency_samples(const nlohmann::json& op);
// Findings with this tag.
std::vector<nlohmann::json> findings_with_tag(const nlohmann::json& report, const std::string& tag);
bool has_finding_at_or_above_warn(const nlohmann::json& report);

extern const std::string kUringscope;
extern const std::string kInject;

// The report's ring that the injector's GROUND-TRUTH describes (same pid and fd); adds a
// test failure (and returns the first ring) when there is none.
const nlohmann::json& ring_of(const nlohmann::json& report, const GroundTruth& gt);

// The fixture of every kernel test: it needs root (it loads BPF programs), and whatever
// happened in the test, uringscope must leave no program of ours loaded. Temp files made
// with file() are removed afterwards.
class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string file(const std::string& stem);
  // Runs `inject ARGS` under `uringscope --json` and returns (report, ground truth).
  // `env`: NAME=VALUE settings for uringscope (e.g. URINGSCOPE_TABLE_SIZES); `options`:
  // more of its options (--check).
  std::pair<nlohmann::json, GroundTruth> run_scenario(const std::vector<std::string>& inject_args,
                                                      int expected_status = 0,
                                                      const std::vector<std::string>& env = {},
                                                      const std::vector<std::string>& options = {});

 private:
  std::set<unsigned> before_;
  std::vector<std::string> files_;
};

}  // namespace harness
