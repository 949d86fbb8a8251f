#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How uringscope's cost grows with the work (issue 19, items 4 and 5). Paired curves:
# ns per request against in-flight depth, rings per thread, distinct opcodes, and one
# vs two threads (each on its own core and ring) and io-wq completions on the
# submitter's CPU vs the other one; every point runs without a tracer (B) and under
# each tracer (T) as B T B, the points interleaved and rotated from one repetition to
# the next, exactly as run.sh pairs its workloads (bench/README.md). Then the BPF run
# time per program on the threads points, uringscope's memory against its table sizes,
# its attach time against the processes and rings already on the box, and its report
# time against the rings it reports. Raw CSV goes to bench/results/ (--out);
# bench/plot_scaling.py turns it into the figures of docs/overhead.md.
#
# Run as root from anywhere: bench/scaling.sh --help
set -eEuo pipefail
trap 'echo "scaling.sh: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

usage() {
  cat <<'EOF_USAGE'
usage: bench/scaling.sh [options]
  --build-dir DIR      where uringscope and bench/loadgen were built (default:
                       $BENCH_BUILD_DIR, else ./build)
  --curves LIST        comma-separated (default depth,rings,kinds,threads,memory,attach,report)
                         depth    NOPs, the whole depth submitted in one io_uring_enter
                         rings    NOPs, 32 in flight on each of N rings one thread visits
                         kinds    32 in flight cycling through N distinct cheap opcodes
                         threads  1 vs 2 threads pinned to CPUs 0 and 1, each with its own
                                  ring; punted reads with io-wq on the submitter's CPU (0)
                                  vs the other (1); then BPF run time per program
                         memory   RSS and BPF map memory against URINGSCOPE_TABLE_SIZES
                         attach   start-to-attached against processes and rings on the box
                         report   SIGINT-to-report against rings that did requests
  --depths LIST        (default 1,4,16,64,256,1024,4096)
  --rings LIST         (default 1,2,8,32,128,512)
  --kinds LIST         (default 1,2,4,8)
  --stats-points LIST  points of the bpf_stats runs, as CURVE:X (default: the threads
                       curve's, when it runs; e.g. depth:16,depth:4096 to see which
                       program grows with the depth)
  --tracers LIST       tracers of the paired curves (default uringscope-json: uringscope -p
                       with its JSON report kept, for the tool's own counts; any of run.sh's)
  --reps N             repetitions of each point's B T B (default 5)
  --seconds S          length of each timed run (default 1)
  --quiet-wait S       before each run, wait up to S s for a quiet machine (default 2)
  --quiet-busy P       ... meaning under P percent of one CPU busy (default 10)
  --foreign-wait S     ... but up to S s while another session's tracing BPF programs are
                       loaded, since a pair beside them is dropped anyway (default 60)
  --max-base-spread P  recorded for plot_scaling.py: pairs whose two baselines differ by
                       more than P percent are dropped (default 15)
  --attach-trials N    (default 5)      --report-trials N   (default 3)
  --file PATH          data file for the punted reads (default /var/tmp/uringscope-bench.dat)
  --out PREFIX         raw CSV files PREFIX-*.csv (default bench/results/DATE-scaling)
  --logdir DIR         raw logs (default: a new /tmp/uringscope-scaling.*)
  --quick              one short pass over fewer points (a smoke test: figures mean nothing)
  -h, --help
EOF_USAGE
}

build_dir=${BENCH_BUILD_DIR:-$root/build}
curves=depth,rings,kinds,threads,memory,attach,report
depths=1,4,16,64,256,1024,4096
ring_counts=1,2,8,32,128,512
kind_counts=1,2,4,8
stats_list=""
tracers=uringscope-json
reps=5
seconds=1
quiet_wait=2
quiet_busy_pct=10
foreign_wait=60
max_spread=15
attach_trials=5
report_trials=3
data_file=/var/tmp/uringscope-bench.dat
out_prefix=$root/bench/results/$(date -u +%F)-scaling
logdir=""
quick=0
command_line="bench/scaling.sh $*"

while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --curves) curves=$2; shift ;;
    --depths) depths=$2; shift ;;
    --rings) ring_counts=$2; shift ;;
    --kinds) kind_counts=$2; shift ;;
    --stats-points) stats_list=$2; shift ;;
    --tracers) tracers=$2; shift ;;
    --reps) reps=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --quiet-wait) quiet_wait=$2; shift ;;
    --quiet-busy) quiet_busy_pct=$2; shift ;;
    --foreign-wait) foreign_wait=$2; shift ;;
    --max-base-spread) max_spread=$2; shift ;;
    --attach-trials) attach_trials=$2; shift ;;
    --report-trials) report_trials=$2; shift ;;
    --file) data_file=$2; shift ;;
    --out) out_prefix=$2; shift ;;
    --logdir) logdir=$2; shift ;;
    --quick) quick=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "scaling.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

die() { echo "scaling.sh: $*" >&2; exit 1; }
note() { echo "scaling.sh: $*" >&2; }

[[ $(id -u) -eq 0 ]] || die "tracers load BPF programs: run as root"
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory (see --build-dir)"
uringscope=$build_dir/uringscope
loadgen=$build_dir/bench/loadgen
floor=$build_dir/bench/floor
limit=$build_dir/bench/limit
for bin in "$uringscope" "$loadgen"; do
  [[ -x $bin ]] || die "$bin is missing: cmake --build $build_dir"
done
command -v jq >/dev/null || die "jq is missing (packaging/install-deps.sh)"
bt_script=$here/bpftrace/aggregate.bt
shm=/dev/shm/uringscope-scaling.$$
mkdir -p "$shm" "$(dirname "$out_prefix")"
if [[ -z $logdir ]]; then logdir=$(mktemp -d /tmp/uringscope-scaling.XXXXXX); fi
mkdir -p "$logdir"
note "logs in $logdir, CSV in $out_prefix-*.csv"

. "$here/lib/procs.sh"
. "$here/lib/quiet.sh"
. "$here/lib/tracers.sh"
. "$here/lib/machine.sh"
. "$here/lib/footprint.sh"
. "$here/lib/startstop.sh"
spine_ok=0
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
  kill_started
  tracefs_release
  echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled
  rm -rf "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ((quick)); then
  reps=1 seconds=0.3 quiet_wait=1 foreign_wait=1 attach_trials=1 report_trials=1
  depths=1,64 ring_counts=1,8 kind_counts=1,8
  attach_points=(1:1 10:1 1:16)
  report_rings=(1 10)
  footprint_settings=(rings=1024 rings=4096)
fi

# point_args CURVE X: loadgen's arguments (the mode last) for one point.
point_args() {
  case $1 in
    # batch = depth: all of it is submitted, then in flight, then reaped, at once.
    depth) echo "-q $2 -b $2 nop" ;;
    rings) echo "-q 32 -b 8 -r $2 nop" ;;
    kinds) echo "-q 32 -b 8 -o $2 nop" ;;
    threads) echo "-q 32 -b 8 -j $2 --pin-threads nop" ;;
    iowq) echo "-q 32 -b 8 -c 0 --iowq-cpu $([[ $2 == same ]] && echo 0 || echo 1) -f $data_file read-async" ;;
    *) die "unknown curve $1" ;;
  esac
}

has_curve() { [[ ,$curves, == *,$1,* ]]; }

paired_points=()
add_points() { local x; IFS=, read -r -a xs <<<"$2"; for x in "${xs[@]}"; do paired_points+=("$1:$x"); done; }
has_curve depth && add_points depth "$depths"
has_curve rings && add_points rings "$ring_counts"
has_curve kinds && add_points kinds "$kind_counts"
thread_points=()
if has_curve threads; then
  if (($(nproc) >= 2)); then thread_points=(threads:1 threads:2 iowq:same iowq:other); else
    note "threads: one CPU only, so nothing to compare"
  fi
  paired_points+=("${thread_points[@]}")
fi
stats_points=("${thread_points[@]}")
if [[ -n $stats_list ]]; then IFS=, read -r -a stats_points <<<"$stats_list"; fi
IFS=, read -r -a tracer_list <<<"$tracers"
tracefs_ensure
for t in "${tracer_list[@]}"; do have_tracer "$t" || die "tracer $t is not usable here"; done

runs_csv=$out_prefix-runs.csv

# From a traced run's JSON report (uringscope-json): requests the in-flight table could
# not track, the boundary's timer looks and watched CQEs, the tool's own losses.
json_counts() {
  local json=$logdir/$1.tracer.json
  [[ -f $json ]] || { echo ",,,"; return; }
  jq -r '[.counters.inflight_map_drops,
          ([.end_to_end.rings[]?.reap_lag.timer_looks // 0] | add // 0),
          ([.end_to_end.rings[]?.reap_lag.watched // 0] | add // 0),
          ([.tool_stats[]] | add)] | @csv' "$json"
}

# run_point REP SEQ CURVE:X TRACER: one timed run; one row of -runs.csv.
run_point() {
  local rep=$1 seq=$2 point=$3 tracer=$4 curve=${3%%:*} x=${3#*:} waited args
  read -r -a args <<<"$(point_args "$curve" "$x")"
  waited=$(wait_quiet)
  local tag="r$rep-$curve-$x-$seq-$tracer"
  timed_run "$tracer" "$tag" -t "$seconds" "${args[@]}"
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$curve" "$x" "$rep" "$seq" \
    "$tracer" "$point" "$(result_field ops_per_sec)" "$(result_field ops)" \
    "$(result_field seconds)" "$(result_field cpu_ns)" "$run_busy_ns" "$run_tracer_cpu_ns" \
    "$run_foreign" "$waited" "$(cut -d' ' -f1 /proc/loadavg)" "$(now_ms)" "$(json_counts "$tag")" \
    "${args[*]}" >>"$runs_csv"
  printf '  %-13s %-11s %12.0f ops/s%s\n' "$point" "$tracer" "$(result_field ops_per_sec)" \
    "$( ((run_foreign)) && echo " ($run_foreign foreign BPF programs)")" >&2
}

# Every point's B T1 B T2 ... B, the points (and tracers) rotated by one each repetition.
paired_curves() {
  local rep i j n=${#paired_points[@]} m=${#tracer_list[@]} seq
  printf 'curve,x,rep,seq,tracer,workload,ops_per_sec,ops,seconds,cpu_ns,sys_busy_ns,tracer_cpu_ns,foreign_progs,quiet_wait_s,loadavg_1m,end_ms,inflight_drops,timer_looks,watched_cqes,tool_losses,loadgen_args\n' >"$runs_csv"
  for ((rep = 0; rep < reps; rep++)); do
    note "paired runs: repetition $((rep + 1))/$reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
    for ((i = 0; i < n; i++)); do
      seq=0
      run_point "$rep" $((seq++)) "${paired_points[$(((i + rep) % n))]}" none
      for ((j = 0; j < m; j++)); do
        run_point "$rep" $((seq++)) "${paired_points[$(((i + rep) % n))]}" "${tracer_list[$(((j + rep) % m))]}"
        run_point "$rep" $((seq++)) "${paired_points[$(((i + rep) % n))]}" none
      done
    done
  done
}

# Item 5: each program's BPF run time on the threads points (one run each, with
# kernel.bpf_stats_enabled on: its two clock reads per program run would count as the
# tracer's cost in the paired runs, where it is off). Both snapshots are taken while
# loadgen runs (its first half), since uringscope -p ends with its target; the submit
# loadgen's rate times the time between them is the number of its requests in between
# (the programs also run, and return early, for other processes' io_uring events).
stats_seconds=4
prog_snapshot() {
  bpftool prog show -j | jq -c --argjson ours "[$(sort -u "$our_ids" | paste -sd, -)]" \
    '[.[] | select(.id as $i | $ours | index($i)) |
      {id, name, run_cnt: (.run_cnt // 0), run_time_ns: (.run_time_ns // 0)}]' >"$1"
}

stats_hook() {
  [[ $1 == start ]] || return 0
  local t0
  t0=$(now_ms)
  prog_snapshot "$logdir/$2.progs-start.json"
  sleep "$((stats_seconds / 2))"
  prog_snapshot "$logdir/$2.progs-end.json"
  stats_window_ms=$(($(now_ms) - t0))
}

program_stats() {
  local point curve x args tag tracer
  printf 'curve,x,tracer,program,run_cnt,run_time_ns,window_ms,loadgen_ops_per_sec\n' >"$out_prefix-programs.csv"
  echo 1 >/proc/sys/kernel/bpf_stats_enabled
  run_hook=stats_hook
  for point in "${stats_points[@]}"; do
    for tracer in "${tracer_list[@]}"; do
      curve=${point%%:*} x=${point#*:} tag="stats-${point/:/-}-$tracer"
      read -r -a args <<<"$(point_args "$curve" "$x")"
      wait_quiet >/dev/null
      timed_run "$tracer" "$tag" -t "$stats_seconds" "${args[@]}"
      [[ $(jq length "$logdir/$tag.progs-end.json") -gt 0 ]] ||
        note "bpf_stats: $point under $tracer ended before its second snapshot"
      jq -r -n --slurpfile s "$logdir/$tag.progs-start.json" --slurpfile e "$logdir/$tag.progs-end.json" \
        --arg c "$curve" --arg x "$x" --arg t "$tracer" --arg w "$stats_window_ms" \
        --arg r "$(result_field ops_per_sec)" \
        '($s[0] | map({(.id | tostring): .}) | add // {}) as $S | $e[0][] |
         ($S[.id | tostring]) as $b | select($b and .run_cnt > $b.run_cnt) |
         [$c, $x, $t, .name, (.run_cnt - $b.run_cnt), (.run_time_ns - $b.run_time_ns), $w, $r] |
         @csv' | tr -d '"' >>"$out_prefix-programs.csv"
    done
  done
  run_hook=""
  echo 0 >/proc/sys/kernel/bpf_stats_enabled
}

describe_run() {
  echo "command	$command_line"
  describe_machine "$data_file"
  echo "load_start	$(cut -d' ' -f1-3 /proc/loadavg)"
  # What else the machine was doing: its busiest processes when the run started.
  echo "busiest_start	$(ps -eo pcpu=,comm= --sort=-pcpu | head -5 | awk '{ s = s (NR > 1 ? ", " : "") $2 " " $1 "%" } END { print s }')"
  echo "reps	$reps"
  echo "seconds	$seconds"
  echo "tracers	$tracers"
  echo "quiet_wait	$quiet_wait s, under $quiet_busy_pct% of one CPU busy; up to $foreign_wait s while foreign tracing programs are loaded"
  echo "max_base_spread	$max_spread"
}

"$loadgen" -f "$data_file" -n 64 read >/dev/null  # the data file, made and cached once
describe_run >"$out_prefix-machine.tsv"
echo 0 >/proc/sys/kernel/bpf_stats_enabled
started=$(now_ms)
((${#paired_points[@]})) && paired_curves
((${#stats_points[@]})) && program_stats
has_curve memory && footprint_curve
has_curve attach && attach_curve
has_curve report && report_curve
{
  echo "load_end	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "duration_s	$((($(now_ms) - started) / 1000))"
} >>"$out_prefix-machine.tsv"
note "done in $((($(now_ms) - started) / 1000)) s; plot with: bench/plot_scaling.py $out_prefix"
