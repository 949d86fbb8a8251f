// SPDX-License-Identifier: MIT
#include "util/output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>

#include "util/error.h"
#include "util/unique_fd.h"

namespace uringscope {
namespace {

// A buffered stream onto a descriptor whose first failed write is kept, to be reported
// with its errno once the writer is done.
class FdBuf final : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (!error_ && p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = n < 0 ? errno : EIO;
      else p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return !error_;
  }
  int fd_;
  int error_ = 0;
  std::array<char, 64 * 1024> buf_{};
};

}  // namespace

void write_file_atomic(const std::string& path, std::string_view content) {
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  });
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string tmpl = (dir / fmt::format(".{}.XXXXXX", target.filename().string())).string();
  UniqueFd fd(mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd) throw Error(fmt::format("cannot write {}: {}", path, strerror(errno)));
  auto fail = [&](const char* what, int err) {
    unlink(tmpl.c_str());
    throw Error(fmt::format("cannot write {} ({}): {}", path, what, strerror(err)));
  };
  {
    FdBuf buf(fd.get());
    std::ostream out(&buf);
    try {
      write(out);
    } catch (...) {
      unlink(tmpl.c_str());
      throw;
    }
    out.flush();
    if (buf.error()) fail("write", buf.error());
  }
  // mkostemp creates 0600; a report is an ordinary file.
  if (fchmod(fd.get(), 0644) != 0 || fsync(fd.get()) != 0) fail("sync", errno);
  fd.reset();
  if (rename(tmpl.c_str(), path.c_str()) != 0) fail("rename", errno);
}

}  // namespace uringscope
