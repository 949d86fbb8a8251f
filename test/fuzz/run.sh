#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer and UndefinedBehaviorSanitizer
# on) and runs each for a bounded time from its seed corpus in test/fuzz/corpus/. The
# seeds are copied first: what the fuzzer finds stays in the work directory, not in the
# tree. An input that crashes, trips a sanitizer or breaks a target's invariants is kept
# there as crash-*, and the script exits 1 naming it.
#
#   test/fuzz/run.sh [SECONDS]    default 60 per target
#
# Needs clang (packaging/install-deps.sh installs it: it compiles the BPF side too).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a number, not '$seconds'" >&2; exit 2; }
work=$(mktemp -d /tmp/uringscope-fuzz.XXXXXX)
clangxx=$(command -v clang++ || true)
[[ -n $clangxx ]] || { echo "fuzz: no clang++ (packaging/install-deps.sh)" >&2; exit 1; }

# target name, then its sources; the longest input each takes.
build_and_run() {
  local name=$1 max_len=$2
  shift 2
  "$clangxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -DFMT_HEADER_ONLY -I"$root/src" -I"$root/include" "$@" -o "$work/$name"
  mkdir -p "$work/$name-corpus"
  cp "$root/test/fuzz/corpus/${name%_fuzz}/"* "$work/$name-corpus/"
  echo "fuzz: $name for $seconds s (work directory $work)"
  local status=0
  (cd "$work" && "./$name" -max_total_time="$seconds" -max_len="$max_len" -print_final_stats=1 \
     "$name-corpus" >"$name.log" 2>&1) || status=$?
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$name.log" | sed 's/^/  /'
  if ((status != 0)); then
    tail -n 40 "$work/$name.log"
    echo "fuzz: $name failed; the input is $(ls "$work"/crash-* "$work"/leak-* 2>/dev/null | head -1)" >&2
    return 1
  fi
}

# The metrics endpoint reads at most 8 KiB of request head (kMaxRequestBytes in src/metrics/connection.cpp).
build_and_run http_fuzz 8192 "$root/test/fuzz/http_request_fuzz.cpp" "$root/src/metrics/http.cpp"
rm -rf "$work"
echo "fuzz: every target ran $seconds s without a failure"
