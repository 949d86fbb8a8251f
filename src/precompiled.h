// SPDX-License-Identifier: MIT
// The precompiled header of every stage (src/CMakeLists.txt): third-party and standard
// headers only, which change with the toolchain and never with this project's code.
// Nothing may rely on it: each file still includes what it uses.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

