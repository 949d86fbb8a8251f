// SPDX-License-Identifier: MIT
// The error policy: a failure the user must hear about travels as uringscope::Error up
// to main(), which prints its one-line message and exits 1 (RAII tears everything
// down on the way). Failures a run can survive (an optional feature that will not
// attach) are return values, reported and counted, never thrown.
#pragma once

#include <stdexcept>
#include <string>

namespace uringscope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command line: also exit 1, but main() adds a pointer to --help.
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace uringscope
