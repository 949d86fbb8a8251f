// SPDX-License-Identifier: MIT
#include <cstdio>
#include <exception>

#include "util/error.h"
#include "util/untrusted_text.h"
#include "cli/options.h"
#include "cli/run.h"

using uringscope::visible_text;

// Messages may quote a path or a name: one line each, escaped (util/untrusted_text.h).
int main(int argc, char** argv) {
  try {
    return uringscope::run(uringscope::parse_options(argc, argv));
  } catch (const uringscope::UsageError& e) {
    std::fprintf(stderr, "uringscope: %s (see uringscope --help)\n", visible_text(e.what()).c_str());
  } catch (const uringscope::Error& e) {
    std::fprintf(stderr, "uringscope: %s\n", visible_text(e.what()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uringscope: internal error: %s\n", visible_text(e.what()).c_str());
  }
  return 1;
}
