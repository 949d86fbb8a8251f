#!/usr/bin/env bash
# Configures and builds uringscope.
#
#   packaging/build.sh                 build/uringscope (and the tests, the benchmark)
#   packaging/build.sh --demo          build/uringscope and the demo's workload only
#                                      (build/test/faults/inject): what test/demo.sh runs
#   packaging/build.sh --static        also build-static/uringscope: one fully static binary
#   packaging/build.sh --arch arm64    build-arm64/: cross-built for arm64 (aarch64), static:
#                                      uringscope, test/faults/inject, the unit and kernel
#                                      tests, and the packages (uringscope_*_arm64.deb,
#                                      uringscope-*.aarch64.rpm) at the top of build-arm64/
#   packaging/build.sh --arch arm64 --smoke   only uringscope, the injector and the packages
#   packaging/build.sh --sanitize      build-asan/: the unit tests under AddressSanitizer and
#                                      UndefinedBehaviorSanitizer (ctest --test-dir build-asan
#                                      -L unit runs them)
#
# Every build here is a build from scratch (CI, the demo, the packages), so each
# stage's files are compiled in batches (URINGSCOPE_UNITY). For day-to-day edits,
# configure a tree of your own without it: an edit then recompiles one file.
# JOBS (default: every CPU) sets the build's parallelism.
#
# Where ccache is installed (packaging/install-deps.sh installs it for the test suite),
# every tree compiles through it, with its cache in URINGSCOPE_CCACHE_DIR (default
# /var/cache/uringscope-ccache, 3 GB at most): a machine that keeps /var/cache, CI's
# included, recompiles only what changed since its last build, whichever clone it builds.
# URINGSCOPE_CCACHE=0 turns it off.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
launcher=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
if [[ ${URINGSCOPE_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  ccache_dir=${URINGSCOPE_CCACHE_DIR:-/var/cache/uringscope-ccache}
  if mkdir -p "$ccache_dir" 2>/dev/null && [[ -w $ccache_dir ]]; then
    # In the launcher, not the environment, so that a later `cmake --build` by hand uses
    # the same cache and settings. BASEDIR and NOHASHDIR let another clone's build hit
    # the cache; the sloppiness is what ccache needs to cache the precompiled header.
    settings="CCACHE_DIR=$ccache_dir;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=1;CCACHE_MAXSIZE=3G"
    settings+=";CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
    launcher=("-DCMAKE_C_COMPILER_LAUNCHER=env;$settings;ccache"
              "-DCMAKE_CXX_COMPILER_LAUNCHER=env;$settings;ccache")
  fi
fi
static=0 arch='' smoke=0 demo=0 sanitize=0
die() { echo "build.sh: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --static) static=1; shift ;;
    --arch) arch=${2:-}; shift 2 || die "--arch needs a value (arm64)" ;;
    --smoke) smoke=1; shift ;;
    --demo) demo=1; shift ;;
    --sanitize) sanitize=1; shift ;;
    *) die "unknown argument $1 (--static, --demo, --sanitize, --arch arm64, --smoke)" ;;
  esac
done

if [[ -n $arch ]]; then
  [[ $arch == arm64 || $arch == aarch64 ]] || die "--arch: only arm64 is supported (got $arch)"
  command -v aarch64-linux-gnu-g++ >/dev/null ||
    die "no aarch64-linux-gnu-g++: run packaging/install-deps.sh --arch arm64 (as root)"
  # CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: cpack installs what was built (the binary and the
  # man page, which the packages hold) instead of building all first, which would build
  # the tests and the benchmark into a --smoke build too (the static x86 build: the same).
  cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE="$PWD/packaging/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DURINGSCOPE_STATIC=ON -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
    -DURINGSCOPE_UNITY=ON -DURINGSCOPE_BENCH=$((smoke ? 0 : 1)) "${launcher[@]}" >/dev/null
  if ((smoke)); then
    cmake --build build-arm64 -j"$jobs" --target uringscope inject uringscope_manpage
  else
    cmake --build build-arm64 -j"$jobs"  # the unit and kernel tests, the benchmark's tools too
  fi
  (cd build-arm64 && cpack -G "DEB;RPM" -B "$PWD" >cpack.log 2>&1) ||
    die "cpack failed: see build-arm64/cpack.log"
  ls build-arm64/uringscope_*_arm64.deb build-arm64/uringscope-*.aarch64.rpm
  exit 0
fi

if ((sanitize)); then
  # -O1, as the sanitizers' documentation advises: fast enough to run, frames kept.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DURINGSCOPE_SANITIZE=ON -DURINGSCOPE_UNITY=ON -DURINGSCOPE_TESTS=ON -DURINGSCOPE_BENCH=OFF \
    "${launcher[@]}" >/dev/null
  cmake --build build-asan -j"$jobs" --target unit_tests
  exit 0
fi
if ((demo)); then
  # No test framework, no benchmark: a first report needs the tool and its workload.
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DURINGSCOPE_UNITY=ON \
    -DURINGSCOPE_TESTS=OFF -DURINGSCOPE_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build build -j"$jobs" --target uringscope inject
  exit 0
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DURINGSCOPE_UNITY=ON \
  -DURINGSCOPE_TESTS=ON -DURINGSCOPE_BENCH=ON "${launcher[@]}" >/dev/null
cmake --build build -j"$jobs"
if ((static)); then
  # As for arm64 below: the package test builds the binary and the man page, then cpack
  # packs them without building the tests and the benchmark a second time (about 8 of
  # CI's minutes).
  cmake -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DURINGSCOPE_STATIC=ON \
    -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON -DURINGSCOPE_UNITY=ON "${launcher[@]}" >/dev/null
  cmake --build build-static -j"$jobs" --target uringscope
fi
