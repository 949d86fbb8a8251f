#!/usr/bin/env bash
# Installs what building and testing uringscope needs on Debian 12 (run as root).
# The tool itself needs only libbpf/libelf/zlib at build time; liburing is for the test
# injector and the benchmark's load generator; bpftrace, perf, fio and GNU time are what
# bench/ compares uringscope with, and matplotlib draws bench/plot_scaling.py's figures;
# fio, qemu-utils and plocate are real io_uring programs
# that test/real/run.sh checks uringscope on, with strace counting their SQEs; headless
# Chromium is the browser test/flame/run.sh opens the --flamegraph SVG in; ncurses draws
# `uringscope top` (linked statically in the static build), and test/top/run.sh drives
# it in tmux; clang's runtime libraries (libclang-rt-dev, only a recommendation of clang,
# which apt here does not install) link test/fuzz/run.sh's libFuzzer and its ASan.
#
#   packaging/install-deps.sh               what the host build and the test suite need
#   packaging/install-deps.sh --build       only what building uringscope and the demo's
#                                           workload (test/faults/inject) needs: what
#                                           test/demo.sh installs
#   packaging/install-deps.sh --arch arm64  also the arm64 cross build (packaging/build.sh
#                                           --arch arm64): dpkg gets arm64 as a foreign
#                                           architecture (multiarch), Debian's cross
#                                           toolchain, the arm64 -dev packages the static
#                                           binary, the injector and the tests link, and
#                                           qemu-user-static, which runs the arm64 unit
#                                           tests on this host (gtest lists them at build
#                                           time)
set -euo pipefail
arch= build_only=0
case ${1:-} in
  '') ;;
  --build) build_only=1 ;;
  --arch) arch=${2:-}; [[ $arch == arm64 ]] || { echo "install-deps: --arch arm64 only" >&2; exit 2; } ;;
  *) echo "install-deps: unknown argument $1 (--build, --arch arm64)" >&2; exit 2 ;;
esac
build_packages=(
  build-essential cmake pkg-config clang llvm bpftool
  libbpf-dev libelf-dev zlib1g-dev libncurses-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev liburing-dev
)
packages=(
  "${build_packages[@]}" libgtest-dev
  util-linux jq python3 python3-jsonschema python3-matplotlib
  prometheus python3-yaml
  rpm cpio file man-db groff-base ccache libclang-rt-dev
  bpftrace linux-perf fio time
  qemu-utils plocate strace
  chromium-headless-shell tmux
)
((build_only)) && packages=("${build_packages[@]}")
if [[ $arch == arm64 ]]; then
  # Only bookworm's own arm64 builds, from the host's sources (multiarch packages must
  # match the installed amd64 version of the same library). Added here, the arm64
  # packages below are missing, so the apt-get update below runs too.
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  packages+=(
    crossbuild-essential-arm64 qemu-user-static
    libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libncurses-dev:arm64
    liburing-dev:arm64 libgtest-dev:arm64
    libstdc++6:arm64  # the test binaries are dynamic: qemu-user's loader finds it here
  )
fi
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
