// SPDX-License-Identifier: MIT
#include <cstdio>
#include <exception>

#include "util/error.h"
#include "cli/options.h"
#include "cli/run.h"

int main(int argc, char** argv) {
  try {
    return uringscope::run(uringscope::parse_options(argc, argv));
  } catch (const uringscope::UsageError& e) {
    std::fprintf(stderr, "uringscope: %s (see uringscope --help)\n", e.what());
  } catch (const uringscope::Error& e) {
    std::fprintf(stderr, "uringscope: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uringscope: internal error: %s\n", e.what());
  }
  return 1;
}
