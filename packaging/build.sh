#!/usr/bin/env bash
# Configures and builds uringscope in build/ (and, with --static, the fully static
# binary in build-static/).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
if [[ "${1:-}" == "--static" ]]; then
  cmake -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DURINGSCOPE_STATIC=ON >/dev/null
  cmake --build build-static -j"$jobs" --target uringscope
fi
