#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Where uringscope's nanoseconds go, per symbol and per source line of its BPF programs:
# loadgen runs one workload pinned to one CPU (its io-wq workers too), uringscope (or one
# of bench/'s limits) watches it, and perf samples that CPU by cpu-clock. While the
# programs are still loaded, each one's samples are mapped back to its source lines
# (bench/lib/prog_lines.py). A symbol's ns/request is its share of the CPU's samples
# times the CPU time of one request (1e9 / loadgen's rate), so the figures add up to
# what a request costs on that CPU, sampling overhead included (compare within a run).
#
# Run as root from anywhere: bench/profile.sh --help
set -eEuo pipefail
trap 'echo "profile.sh: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

usage() {
  cat <<'EOF_USAGE'
usage: bench/profile.sh [options]
  --build-dir DIR   where uringscope and bench/loadgen were built (default:
                    $BENCH_BUILD_DIR, else ./build)
  --workload W      nop, read or read-async (default nop)
  --limit MODE      run bench/limit on the default mode's hooks instead of uringscope:
                    1 (empty programs) or timed (one clock read per submit and CQE)
  --trace           run uringscope with --trace (to a file in --out); the writer's own
                    CPU is sampled too and summed in a second table
  --cpu N           the CPU loadgen and its io-wq workers run on (default 1)
  --seconds S       sampling window (default 3)
  --freq HZ         perf's cpu-clock sampling rate (default 25000)
  --programs LIST   comma-separated programs to break down by line (default
                    usc_sub_req,usc_cqe,usc_enter,usc_enter_fentry,usc_punt)
  --top N           lines per program (default 25)
  --out DIR         keep perf.data and the tables here (default: a new /tmp dir)
  -h, --help
EOF_USAGE
}

build_dir=${BENCH_BUILD_DIR:-$root/build}
workload=nop limit="" trace="" cpu=1 seconds=3 freq=25000 top=25 out=""
programs=usc_sub_req,usc_cqe,usc_enter,usc_enter_fentry,usc_punt
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --workload) workload=$2; shift ;;
    --limit) limit=$2; shift ;;
    --trace) trace=1 ;;
    --cpu) cpu=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --freq) freq=$2; shift ;;
    --programs) programs=$2; shift ;;
    --top) top=$2; shift ;;
    --out) out=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "profile.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done
note() { echo "profile.sh: $*" >&2; }
die() { note "$*"; exit 1; }
# shellcheck source=lib/procs.sh
source "$here/lib/procs.sh"
trap kill_started EXIT

case $workload in nop | read | read-async) ;; *) die "--workload: nop, read or read-async" ;; esac
case $limit in "" | 1 | timed) ;; *) die "--limit: 1 or timed" ;; esac
((EUID == 0)) || die "run as root (perf -C and BPF)"
command -v perf >/dev/null || die "perf is missing (apt-get install linux-perf)"
command -v bpftool >/dev/null || die "bpftool is missing"
uringscope=$build_dir/uringscope loadgen=$build_dir/bench/loadgen limit_tool=$build_dir/bench/limit
[[ -x $uringscope && -x $loadgen && -x $limit_tool ]] ||
  die "no uringscope, bench/loadgen or bench/limit in $build_dir (build first)"
[[ -n $out ]] || out=$(mktemp -d /tmp/uringscope-profile.XXXXXX)
mkdir -p "$out"

# Long enough to outlast attaching, sampling and the line dump; stopped once done.
"$loadgen" -t 600 -w -c "$cpu" --iowq-cpu "$cpu" "$workload" >"$out/loadgen.out" 2>"$out/loadgen.err" &
lg=$!
bg_pids+=("$lg")
wait_for "$out/loadgen.err" '^READY' 300 "$lg" || die "loadgen did not start"
if [[ -n $limit ]]; then
  # The hooks a real run attaches on this kernel (-v lists them), taken by empty programs.
  hooks=$("$uringscope" -v ${trace:+--trace /dev/null} -a -d 0.05 2>&1 | sed -n 's/^uringscope: programs: //p' | head -1)
  [[ -n $hooks ]] || die "uringscope -v listed no programs"
  timed=()
  [[ $limit != timed ]] || timed=(--timed)
  "$limit_tool" "${timed[@]}" --programs "$hooks" -p "$lg" >"$out/uringscope.out" 2>&1 &
  attached='^limit: attached'
else
  "$uringscope" ${trace:+--trace "$out/trace.json"} -p "$lg" >"$out/uringscope.out" 2>&1 &
  attached='uringscope: attached'
fi
us=$!
bg_pids+=("$us")
wait_for "$out/uringscope.out" "$attached" 30 "$us" || die "the tracer did not attach"
kill -USR1 "$lg"
sleep 0.5
# With --trace the writer runs on another CPU: sample them all, loadgen's table still
# counts only loadgen's samples (its CPU is busy with it the whole window).
cpus=(-C "$cpu")
[[ -z $trace ]] || cpus=(-a)
perf record -q -e cpu-clock -F "$freq" "${cpus[@]}" -o "$out/perf.data" -- sleep "$seconds" 2>"$out/perf.err"
perf script -i "$out/perf.data" -F comm,ip,sym 2>/dev/null >"$out/samples.txt"

# The programs' line tables must be read while they are loaded.
bpftool prog show -j >"$out/progs.json"
IFS=, read -ra wanted <<<"$programs"
for name in "${wanted[@]}"; do
  id=$(python3 -c 'import json,sys
for p in json.load(open(sys.argv[1])):
    if p.get("name") == sys.argv[2]: print(p["id"]); break' "$out/progs.json" "$name")
  [[ -n $id ]] || continue
  awk -v n="_$name" '$1 == "loadgen" && $3 ~ n"$" { print $2 }' "$out/samples.txt" >"$out/ips-$name.txt"
  [[ -s $out/ips-$name.txt ]] || continue
  python3 "$here/lib/prog_lines.py" "$id" "$out/ips-$name.txt" "$top" >"$out/lines-$name.tsv"
done
# loadgen first: its rate then covers only time it ran traced.
stop "$lg" INT 10 || true
stop "$us" INT 10 || true
rate=$(sed -nE 's/^RESULT .* ops_per_sec=([0-9.]+).*/\1/p' "$out/loadgen.out")
[[ -n $rate ]] || die "loadgen printed no rate (see $out/loadgen.out)"

echo "## $workload, ${limit:+limit $limit, }${trace:+--trace, }$(awk -v r="$rate" 'BEGIN { printf "%.0f requests/s, %.1f ns of CPU %s per request", r, 1e9 / r, "'"$cpu"'" }')"
echo
echo "| ns/request | share | symbol |"
echo "|---:|---:|---|"
awk -v r="$rate" '$1 == "loadgen" { n[$3]++; t++ }
  END { for (s in n) if (n[s] / t >= 0.01) printf "%.1f\t%.1f\t%s\n", n[s] / t * 1e9 / r, 100 * n[s] / t, s }' \
  "$out/samples.txt" | sort -t$'\t' -k1,1 -rn | awk -F'\t' '{ printf "| %s | %s%% | `%s` |\n", $1, $2, $3 }'
if [[ -n $trace ]]; then
  echo
  echo "### uringscope's own threads (the --trace writer), ns of their CPU per request"
  echo
  echo "| ns/request | symbol |"
  echo "|---:|---|"
  awk -v r="$rate" '$1 == "loadgen" { t++ } $1 == "uringscope" { n[$3]++ }
    END { for (s in n) if (n[s] / t >= 0.005) printf "%.1f\t%s\n", n[s] / t * 1e9 / r, s }' \
    "$out/samples.txt" | sort -t$'\t' -k1,1 -rn | awk -F'\t' '{ printf "| %s | `%s` |\n", $1, $2 }'
fi
for name in "${wanted[@]}"; do
  [[ -s $out/lines-$name.tsv ]] || continue
  echo
  echo "### $name, by source line (share of the program's samples)"
  echo
  echo "| samples | share | line | source |"
  echo "|---:|---:|---|---|"
  awk -F'\t' '{ gsub(/\|/, "\\|", $4); printf "| %s | %s%% | %s | `%s` |\n", $1, $2, $3, $4 }' "$out/lines-$name.tsv"
done
note "perf.data and the raw tables are in $out"
