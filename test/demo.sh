#!/usr/bin/env bash
# Fresh Debian machine to a first report: installs what building uringscope and the demo
# workload needs (nothing of the test suite), builds those two, and runs uringscope on
# the workload (reads forced into io-wq, so the report has something to find).
# Run as root: sudo test/demo.sh. test/run-tests.sh installs and builds the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --build
packaging/build.sh --demo
exec build/uringscope -- build/test/faults/inject punt 5000
