#!/usr/bin/env bash
# Builds everything and runs the whole test suite: unit tests, the kernel tier (loads
# BPF on this machine's kernel: run as root), the static-binary and package checks, and
# the fault scenarios scored against ground truth (which rewrites docs/effectiveness.md),
# real programs against their own counts, the flame graph in a headless browser, and
# `uringscope top` in a tmux pane.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
  echo "test.sh: the kernel tier loads BPF programs; run it as root" >&2
  exit 1
fi
# Everything the tiers below need (test/demo.sh installed only the build's part).
packaging/install-deps.sh
packaging/build.sh --static
ctest --test-dir build --output-on-failure
ctest --test-dir build-static --output-on-failure -L static
ctest --test-dir build-static --output-on-failure -L package
test/faults/run.sh
test/real/run.sh
test/flame/run.sh
test/top/run.sh
