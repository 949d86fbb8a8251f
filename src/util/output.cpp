// SPDX-License-Identifier: MIT
#include "util/output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.h"
#include "util/unique_fd.h"

namespace uringscope {

void write_file_atomic(const std::string& path, std::string_view content) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string tmpl = (dir / fmt::format(".{}.XXXXXX", target.filename().string())).string();
  UniqueFd fd(mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd) throw Error(fmt::format("cannot write {}: {}", path, strerror(errno)));
  auto fail = [&](const char* what) {
    int err = errno;
    unlink(tmpl.c_str());
    throw Error(fmt::format("cannot write {} ({}): {}", path, what, strerror(err)));
  };
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += static_cast<std::size_t>(n);
  }
  // mkostemp creates 0600; a report is an ordinary file.
  if (fchmod(fd.get(), 0644) != 0 || fsync(fd.get()) != 0) fail("sync");
  fd.reset();
  if (rename(tmpl.c_str(), path.c_str()) != 0) fail("rename");
}

}  // namespace uringscope
