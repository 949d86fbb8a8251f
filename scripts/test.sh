#!/usr/bin/env bash
# Builds everything and runs the whole test suite: unit tests, the kernel tier (loads
# BPF on this machine's kernel: run as root), and the static-binary check.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) -ne 0 ]]; then
  echo "test.sh: the kernel tier loads BPF programs; run it as root (sudo scripts/test.sh)" >&2
  exit 1
fi
scripts/build.sh --static
ctest --test-dir build --output-on-failure
ctest --test-dir build-static --output-on-failure -L static
