#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The --trace writer alone, against an earlier build of it, side by side: each repetition
# runs both builds' bench/trace_writer_bench on the same seeded record stream, in
# alternating order, once to /dev/null (formatting and bookkeeping only) and once to a
# file in --dir (with the page-cache copy), then checks that the two files are the same
# bytes. Prints one row per run and the median ratio of ns per record (this build / the
# earlier one). Needs no root and no kernel.
#
#   bench/writer.sh --build-dir build --prev OLD/bench/trace_writer_bench [--reps 5]
set -eEuo pipefail
trap 'echo "writer.sh: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

usage() {
  cat <<'EOF_USAGE'
usage: bench/writer.sh [options]
  --build-dir DIR   this build (default: $BENCH_BUILD_DIR, else ./build)
  --prev PATH       an earlier build's trace_writer_bench (required: the ratio's reference)
  --reps N          repetitions (default 5)
  --requests N      requests in the stream, about 2.85 records each (default 1000000)
  --dir DIR         where the two files go (default /dev/shm: no disk in the figure)
  -h, --help
EOF_USAGE
}

build_dir=${BENCH_BUILD_DIR:-$root/build}
prev="" reps=5 requests=1000000 dir=/dev/shm
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --prev) prev=$2; shift ;;
    --reps) reps=$2; shift ;;
    --requests) requests=$2; shift ;;
    --dir) dir=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "writer.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done
die() { echo "writer.sh: $*" >&2; exit 1; }
cur=$build_dir/bench/trace_writer_bench
[[ -x $cur ]] || die "no $cur: build the trace_writer_bench target"
[[ -n $prev && -x $prev ]] || die "--prev must name an earlier build's trace_writer_bench"

cur_file=$dir/writer-bench-cur.$$.json prev_file=$dir/writer-bench-prev.$$.json
trap 'rm -f "$cur_file" "$prev_file"' EXIT
ns() { "$1" "$2" "$requests" | sed -nE 's/.*ns_per_record=([0-9.]+).*/\1/p'; }

echo -e "rep\toutput\tbuild\tns_per_record"
rows=()
for ((rep = 1; rep <= reps; rep++)); do
  for out in null file; do
    order=(cur prev)
    ((rep % 2)) || order=(prev cur)
    for which in "${order[@]}"; do
      bin=$cur path=$cur_file
      [[ $which == prev ]] && bin=$prev path=$prev_file
      [[ $out == null ]] && path=/dev/null
      v=$(ns "$bin" "$path")
      echo -e "$rep\t$out\t$which\t$v"
      rows+=("$rep $out $which $v")
    done
  done
  cmp -s "$cur_file" "$prev_file" || die "rep $rep: the two builds wrote different files"
done
printf '%s\n' "${rows[@]}" | python3 -c '
import sys, statistics
runs = {}
for line in sys.stdin:
    rep, out, which, v = line.split()
    runs[(rep, out, which)] = float(v)
for out in ("null", "file"):
    reps = sorted({r for r, o, _ in runs if o == out})
    ratios = [runs[(r, out, "cur")] / runs[(r, out, "prev")] for r in reps]
    cur = statistics.median(runs[(r, out, "cur")] for r in reps)
    prev = statistics.median(runs[(r, out, "prev")] for r in reps)
    print(f"to {out}: {cur:.0f} against {prev:.0f} ns per record; ratio within reps, median "
          f"{statistics.median(ratios):.2f} [{min(ratios):.2f}..{max(ratios):.2f}]")
'
echo "files identical in every repetition ($(stat -c %s "$cur_file") bytes)"
