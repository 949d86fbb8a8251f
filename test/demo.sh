#!/usr/bin/env bash
# Fresh Debian machine to a first report: installs the dependencies, builds, and runs
# uringscope on the bundled demo workload (reads forced into io-wq, so the report has
# something to find). Run as root: sudo test/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
packaging/build.sh
exec build/uringscope -- build/test/faults/inject punt 5000
