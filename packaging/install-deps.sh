#!/usr/bin/env bash
# Installs what building and testing uringscope needs on Debian 12 (run as root).
# The tool itself needs only libbpf/libelf/zlib at build time; liburing is for the test
# injector and the benchmark's load generator; bpftrace, perf, fio and GNU time are what
# bench/ compares uringscope with, and matplotlib draws bench/plot_scaling.py's figures;
# fio, qemu-utils and plocate are real io_uring programs
# that test/real/run.sh checks uringscope on, with strace counting their SQEs; headless
# Chromium is the browser test/flame/run.sh opens the --flamegraph SVG in; ncurses draws
# `uringscope top` (linked statically in the static build), and test/top/run.sh drives
# it in tmux.
set -euo pipefail
packages=(
  build-essential cmake pkg-config clang llvm bpftool
  libbpf-dev libelf-dev zlib1g-dev libncurses-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev
  liburing-dev util-linux jq python3 python3-jsonschema python3-matplotlib
  prometheus python3-yaml
  rpm cpio file man-db groff-base
  bpftrace linux-perf fio time
  qemu-utils plocate strace
  chromium-headless-shell tmux
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The metrics test runs its own Prometheus on a loopback port; the packaged service is
# not wanted (and may not be running where there is no systemd).
if command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
