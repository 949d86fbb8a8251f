// SPDX-License-Identifier: MIT
#include "harness.h"

#include <gtest/gtest.h>

#include <bpf/bpf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace harness {

const std::string kUringscope = URINGSCOPE_BIN;
const std::string kInject = INJECT_BIN;

Subprocess::Subprocess(const std::vector<std::string>& argv, std::function<void()> setup) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    if (setup) setup();
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  fcntl(err_fd_, F_SETFL, O_NONBLOCK);
}

Subprocess::~Subprocess() {
  if (!status_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

void Subprocess::drain(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (poll(fds, 2, timeout_ms) <= 0) return;
  char buf[65536];
  for (auto [fd, sink] : {std::pair{out_fd_, &out_}, std::pair{err_fd_, &err_}}) {
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) break;
      sink->append(buf, static_cast<std::size_t>(n));
    }
  }
}

bool Subprocess::wait_for_output(const std::string& needle, bool from_stderr,
                                 std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string& text = from_stderr ? err_ : out_;
  while (text.find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    drain(50);
    int status;
    if (!status_ && waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      drain(0);
      return text.find(needle) != std::string::npos;
    }
  }
  return true;
}

int Subprocess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!status_) {
    drain(50);
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
    }
  }
  // Whatever is still buffered in the pipes.
  for (int i = 0; i < 3; ++i) drain(10);
  return *status_;
}

void Subprocess::signal(int sig) const {
  if (!status_) kill(pid_, sig);
}

Result run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  Subprocess p(argv);
  Result r;
  r.status = p.wait(timeout);
  r.out = p.out();
  r.err = p.err();
  return r;
}

GroundTruth parse_ground_truth(const std::string& text) {
  GroundTruth gt;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string prefix = "GROUND-TRUTH ";
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(prefix.size()));
    std::map<std::string, std::string> record;
    for (std::string word; words >> word;) {
      auto eq = word.find('=');
      if (eq == std::string::npos) {
        record["label"] = word;
      } else {
        record[word.substr(0, eq)] = word.substr(eq + 1);
      }
    }
    gt.lines.push_back(std::move(record));
  }
  return gt;
}

const std::map<std::string, std::string>& GroundTruth::find(const std::string& key,
                                                            const std::string& value) const {
  for (const auto& record : lines) {
    auto it = record.find(key);
    if (it != record.end() && it->second == value) return record;
  }
  throw std::runtime_error("no GROUND-TRUTH line with " + key + "=" + value);
}

long long GroundTruth::number(const std::string& record_key, const std::string& record_value,
                              const std::string& field) const {
  return std::stoll(find(record_key, record_value).at(field));
}

long long GroundTruth::value(const std::string& key) const {
  for (const auto& record : lines) {
    auto it = record.find(key);
    if (it != record.end()) return std::stoll(it->second);
  }
  throw std::runtime_error("no GROUND-TRUTH line with " + key);
}

std::set<unsigned> our_program_ids() {
  std::set<unsigned> ids;
  __u32 id = 0;
  while (bpf_prog_get_next_id(id, &id) == 0) {
    int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_prog_info info{};
    __u32 len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && std::strncmp(info.name, "usc_", 4) == 0) {
      ids.insert(id);
    }
    close(fd);
  }
  return ids;
}

void KernelTest::SetUp() {
  ASSERT_EQ(geteuid(), 0u) << "the kernel tier loads BPF programs: run it as root";
  before_ = our_program_ids();
}

std::set<unsigned> held_program_ids() {
  std::set<unsigned> held;
  for (const auto& proc : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = proc.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code gone;  // the process may end while we read it
    for (const auto& fd : std::filesystem::directory_iterator(proc.path() / "fdinfo", gone)) {
      std::ifstream info(fd.path());
      for (std::string line; std::getline(info, line);) {
        if (line.rfind("prog_id:", 0) == 0) held.insert(static_cast<unsigned>(std::stoul(line.substr(8))));
      }
    }
  }
  return held;
}

void KernelTest::TearDown() {
  // What the test's own runs left: programs that appeared during the test and that no
  // process holds any more (another uringscope running on the machine meanwhile holds
  // its own). The kernel frees a program a moment after its last holder closes it.
  std::set<unsigned> left;
  for (int tries = 0; tries < 20; ++tries) {
    left.clear();
    const std::set<unsigned> held = held_program_ids();
    for (unsigned id : our_program_ids()) {
      if (!before_.count(id) && !held.count(id)) left.insert(id);
    }
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(left.empty()) << left.size() << " uringscope BPF program(s) still loaded";
  for (const auto& path : files_) unlink(path.c_str());
}

std::string KernelTest::file(const std::string& stem) {
  files_.push_back(temp_path(stem));
  return files_.back();
}

std::pair<nlohmann::json, GroundTruth> KernelTest::run_scenario(
    const std::vector<std::string>& inject_args, int expected_status,
    const std::vector<std::string>& env, const std::vector<std::string>& options) {
  const std::string json = file("report.json");
  std::vector<std::string> argv = {"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(kUringscope);
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--json=" + json, "--", kInject});
  argv.insert(argv.end(), inject_args.begin(), inject_args.end());
  Result r = run(argv);
  // A different status means the injector's ground truth is not exact: nothing to score.
  EXPECT_EQ(r.status, expected_status) << r.err;
  return {read_json(json), parse_ground_truth(r.out)};
}

long long num(const nlohmann::json& object, const char* key) {
  return object.at(key).get<long long>();
}

long long latency_samples(const nlohmann::json& op) {
  long long sum = 0;
  for (const auto& bucket : op.at("log2_hist")) sum += bucket.get<long long>();
  return sum;
}

const nlohmann::json& ring_of(const nlohmann::json& report, const GroundTruth& gt) {
  const long long pid = gt.value("pid");
  const long long fd = gt.number("label", "ring", "fd");
  const auto& rings = report.at("rings");
  for (const auto& ring : rings) {
    if (ring.at("pid").get<long long>() == pid && ring.at("fd").get<long long>() == fd) return ring;
  }
  ADD_FAILURE() << "no ring of pid " << pid << " with fd " << fd << " in " << rings.dump();
  return rings.at(0);
}

std::string temp_path(const std::string& stem) {
  const char* dir = getenv("TMPDIR");
  static int counter = 0;
  return std::string(dir && *dir ? dir : "/tmp") + "/uringscope-test-" + std::to_string(getpid()) +
         "-" + std::to_string(++counter) + "-" + stem;
}

// Every report a kernel test reads must also satisfy the published JSON Schema: the
// schema is a promise to scripts, and real runs are where it can break.
static void expect_valid_against_schema(const std::string& path) {
  const std::string root = URINGSCOPE_SOURCE_DIR;
  const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  Result r = run({python, root + "/test/check_json_schema.py", root + "/docs/json.schema.json", path});
  EXPECT_EQ(r.status, 0) << "report " << path << " does not match docs/json.schema.json:\n"
                         << r.out << r.err;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  nlohmann::json doc = nlohmann::json::parse(in);
  expect_valid_against_schema(path);
  return doc;
}

const nlohmann::json* find_op(const nlohmann::json& ops, const std::string& op) {
  for (const auto& o : ops) {
    if (o.at("op") == op) return &o;
  }
  return nullptr;
}

std::vector<nlohmann::json> findings_with_tag(const nlohmann::json& report, const std::string& tag) {
  std::vector<nlohmann::json> out;
  for (const auto& f : report.at("findings")) {
    if (f.at("tag") == tag) out.push_back(f);
  }
  return out;
}

bool has_finding_at_or_above_warn(const nlohmann::json& report) {
  for (const auto& f : report.at("findings")) {
    if (f.at("severity") != "INFO") return true;
  }
  return false;
}

}  // namespace harness
