#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The overhead benchmark's driver: for each workload, the load generator runs without a
# tracer (B) and under each tracer (T1, T2, ...) in the order B T1 B T2 ... Tn B, and the
# tracer order rotates from one repetition to the next. Each traced run is paired with
# the baselines on either side of it, so only paired ratios are reported: this kind of
# machine changes speed by 3-4x within minutes, and a traced run compared with a
# baseline from another minute would measure the machine, not the tracer.
#
# Then, unless --no-extras: per-program BPF run time (kernel.bpf_stats_enabled), the time
# from starting uringscope to its "attached" line, its peak RSS, and its RSS sampled over
# a long NOP run. bench/analyze.py turns the raw rows into the table and, with
# --markdown FILE, into RESULTS.md.
#
# Run as root from anywhere: bench/run.sh --help
set -eEuo pipefail
trap 'echo "run.sh: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

usage() {
  cat <<'EOF'
usage: bench/run.sh [options]
  --build-dir DIR      where uringscope, bench/loadgen and bench/floor were built
                       (default: $BENCH_BUILD_DIR, else ./build)
  --reps N             repetitions of each workload's B T1 B T2 ... B sequence (default 8)
  --seconds S          length of each timed run (default 2)
  --workloads LIST     comma-separated (default nop,read,read-async,read-direct,nop-ctxsw,
                       syscall)
                         nop-ctxsw: NOPs with a pipe ping-pong side load running (the
                         sched_switch-heavy case), traced by none, uringscope, floor only
                         syscall: getppid() in a loop, no io_uring (what a tracer adds
                         to every other syscall), traced by none, uringscope, floor only
  --tracers LIST       comma-separated (default uringscope,uringscope-limit,uringscope-timed,
                       uringscope-trace,uringscope-check,uringscope-spine,floor,bpftrace,perf);
                       tracers whose tool is
                       missing are skipped with a note (uringscope-spine needs
                       URINGSCOPE_SKIP_FEATURES support in uringscope);
                       uringscope-noboundary is uringscope --no-boundary (the
                       default mode without the boundary); uringscope-files is
                       uringscope --files (per-file attribution);
                       uringscope-catchers loads each program with its catcher
                       (URINGSCOPE_FORCE_FEATURES=catchers), as 6.19+ kernels do;
                       uringscope-limit is bench/limit: empty programs on the
                       hooks the default mode attaches (`uringscope -v` lists them),
                       each returning at once: the physical limit of the design;
                       uringscope-limit-trace is the same on --trace /dev/null's hooks
                       (that limit plus io_uring_file_get's); uringscope-timed is
                       uringscope-limit with one clock read in each submit and CQE
                       program (the least that timing a request costs);
                       uringscope-boundary is
                       uringscope --boundary (the default, named for old comparisons);
                       uringscope-prev is the binary in $BENCH_PREV_URINGSCOPE (an
                       earlier build), to price a change side by side;
                       uringscope-prev-trace the same with --trace;
                       uringscope-trace-null is --trace to /dev/null (every record
                       formatted, no file pages written); uringscope-trace-stopped is
                       --trace with its process stopped once attached (the programs
                       and their staging, no reader)
  --depth N --batch N  passed to loadgen (default 32 and 8)
  --cpu N              pin loadgen to CPU N (default: not pinned)
  --file PATH          data file for the read workloads (default /var/tmp/uringscope-bench.dat)
  --max-base-spread P  drop pairs whose two baselines differ by more than P percent
                       (the machine changed speed during the pair; default 15)
  --attach-trials N    attach-to-ready measurements (default 10)
  --memory-seconds S   length of the long NOP run sampling uringscope's RSS (default 600;
                       0 skips it)
  --memory-interval S  RSS sampling interval (default 10)
  --quiet-wait S       before each run, wait up to S s until no other tracing BPF program
                       is loaded and the machine is idle (default 120)
  --no-extras          skip bpf_stats, attach time, RSS, long run and fio
  --logdir DIR         keep raw logs and rows here (default: a new /tmp/uringscope-bench.*)
  --markdown FILE      also write the results as Markdown (RESULTS.md) to FILE
  --quick              one short pass through every driver, extras shortened (CI)
  -h, --help
EOF
}

build_dir=${BENCH_BUILD_DIR:-$root/build}
reps=8
seconds=2
workloads=nop,read,read-async,read-direct,nop-ctxsw,syscall
tracers=uringscope,uringscope-limit,uringscope-timed,uringscope-trace,uringscope-check,uringscope-spine,floor,bpftrace,perf
depth=32
batch=8
cpu=""
data_file=/var/tmp/uringscope-bench.dat
max_spread=15
quiet_wait=120
attach_trials=10
memory_seconds=600
memory_interval=10
extras=1
logdir=""
markdown=""
quick=0
command_line="bench/run.sh $*"

while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --reps) reps=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --workloads) workloads=$2; shift ;;
    --tracers) tracers=$2; shift ;;
    --depth) depth=$2; shift ;;
    --batch) batch=$2; shift ;;
    --cpu) cpu=$2; shift ;;
    --file) data_file=$2; shift ;;
    --max-base-spread) max_spread=$2; shift ;;
    --attach-trials) attach_trials=$2; shift ;;
    --memory-seconds) memory_seconds=$2; shift ;;
    --memory-interval) memory_interval=$2; shift ;;
    --quiet-wait) quiet_wait=$2; shift ;;
    --no-extras) extras=0 ;;
    --logdir) logdir=$2; shift ;;
    --markdown) markdown=$2; shift ;;
    --quick) quick=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if ((quick)); then
  # One short pass through every code path, so that CI catches a broken driver.
  reps=1 seconds=0.5 attach_trials=2 memory_seconds=3 memory_interval=1 quiet_wait=10
fi

die() { echo "run.sh: $*" >&2; exit 1; }
note() { echo "run.sh: $*" >&2; }

[[ $(id -u) -eq 0 ]] || die "tracers load BPF programs: run as root"
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory (see --build-dir)"
uringscope=$build_dir/uringscope
loadgen=$build_dir/bench/loadgen
floor=$build_dir/bench/floor
limit=$build_dir/bench/limit
for bin in "$uringscope" "$loadgen" "$floor" "$limit"; do
  [[ -x $bin ]] || die "$bin is missing: cmake --build $build_dir"
done
bt_script=$here/bpftrace/aggregate.bt
# Big outputs (perf.data, --trace JSON) go to tmpfs: no disk fills up, and no writeback
# of the previous run's output lands in the next run.
shm=/dev/shm/uringscope-bench.$$
mkdir -p "$shm"
if [[ -z $logdir ]]; then logdir=$(mktemp -d /tmp/uringscope-bench.XXXXXX); fi
mkdir -p "$logdir"
runs=$logdir/runs.tsv
stats=$logdir/bpf_stats.tsv
note "logs in $logdir"

# --- shared helpers (bench/lib/), and the cleanup: only what this script started -----
. "$here/lib/procs.sh"
. "$here/lib/quiet.sh"
. "$here/lib/tracers.sh"
. "$here/lib/machine.sh"
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
  kill_started
  tracefs_release
  echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled
  rm -rf "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


loadgen_args=(-q "$depth" -b "$batch" -f "$data_file")
[[ -n $cpu ]] && loadgen_args+=(-c "$cpu")

# start_side_load WORKLOAD TAG: for nop-ctxsw, the pipe ping-pong beside the NOPs;
# sets side_pid (empty for the other workloads).
side_pid=""
start_side_load() {
  side_pid=""
  [[ $1 == *-ctxsw ]] || return 0
  "$loadgen" -t 100000 ctxsw >"$logdir/$2.side" 2>&1 &
  side_pid=$!
  bg_pids+=("$side_pid")
}

# The loadgen mode of a workload: nop-ctxsw runs NOPs (beside its side load).
mode_of() { echo "${1%-ctxsw}"; }

# Workloads that measure a side effect rather than io_uring requests run under
# uringscope and the floor only: nop-ctxsw (sched_switch), syscall (the syscall
# tracepoint uringscope enables for io_uring_enter slows every syscall on the machine;
# --check's munmap/madvise/mremap/io_uring_register tracepoints do too, so the syscall
# workload also runs under uringscope-check).
side_effect_workload() { [[ $1 == *-ctxsw || $1 == syscall ]]; }

# run_one REP SEQ WORKLOAD TRACER: one timed run; appends a row to runs.tsv.
run_one() {
  local rep=$1 seq=$2 workload=$3 tracer=$4
  local mode tag="r$1-$3-$2-$4" side waited
  mode=$(mode_of "$workload")
  waited=$(wait_quiet)
  start_side_load "$workload" "$tag"
  side=$side_pid
  timed_run "$tracer" "$tag" "${loadgen_args[@]}" -t "$seconds" "$mode"
  if [[ -n $side ]]; then stop "$side" INT 10 || true; fi
  local ops_per_sec
  ops_per_sec=$(result_field ops_per_sec)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$workload" "$seq" "$tracer" \
    "$ops_per_sec" "$(result_field ops)" "$(result_field seconds)" "$(result_field cpu_ns)" \
    "$run_busy_ns" "$run_tracer_cpu_ns" "$run_foreign" "$waited" "$(now_ms)" >>"$runs"
  printf '  %-12s %-17s %12.0f ops/s%s%s\n' "$workload" "$tracer" "$ops_per_sec" \
    "$( ((waited)) && echo " (waited ${waited}s for quiet)")" \
    "$( ((run_foreign)) && echo " ($run_foreign foreign BPF programs during the run)")" >&2
}

# --- preflight ------------------------------------------------------------------------
[[ $(stat -f -c %T "$(dirname "$data_file")") != tmpfs ]] ||
  die "$data_file is on tmpfs: O_DIRECT needs a real file system (--file)"
tracefs_ensure
spine_ok=0
if [[ ,$tracers, == *,uringscope-spine,* ]]; then
  if probe_spine; then spine_ok=1; else
    note "uringscope-spine skipped: uringscope does not honour ${spine_env%%=*} yet"
  fi
fi
IFS=, read -r -a tracer_list <<<"$tracers"
active=()
skipped=()
for t in "${tracer_list[@]}"; do
  [[ $t == none ]] && continue
  if have_tracer "$t"; then active+=("$t"); else
    skipped+=("$t")
    [[ $t == uringscope-spine ]] || note "$t skipped: its tool is not installed or not usable here"
  fi
done
IFS=, read -r -a workload_list <<<"$workloads"

# The data file is created (and for reads, cached) once, outside any measurement.
"$loadgen" "${loadgen_args[@]}" -n 64 read >/dev/null

{
  echo "command	$command_line"
  describe_machine "$data_file"
  echo "bpftrace	$(bpftrace --version 2>/dev/null || echo none)"
  echo "perf	$(perf --version 2>/dev/null || echo none)"
  echo "fio	$(fio --version 2>/dev/null || echo none)"
  echo "reps	$reps"
  echo "seconds	$seconds"
  echo "depth	$depth"
  echo "batch	$batch"
  echo "cpu_pin	${cpu:-none}"
  echo "max_base_spread	$max_spread"
  echo "tracers	${active[*]}"
  echo "skipped	${skipped[*]}"
  echo "spine_env	$spine_env"
} >"$logdir/machine.tsv"
printf 'rep\tworkload\tseq\ttracer\tops_per_sec\tops\tseconds\tcpu_ns\tsys_busy_ns\ttracer_cpu_ns\tforeign_progs\tquiet_wait_s\tend_ms\n' >"$runs"

# tracers_for WORKLOAD: sets set_for, the tracers that run WORKLOAD. Side-effect
# workloads run under uringscope and the floor only (see side_effect_workload). A
# --quick pass covers each tracer's driver once, on the first workload, and each
# workload's driver once, under uringscope: the full cross product is for measuring.
tracers_for() {
  local workload=$1 t
  set_for=("${active[@]}")
  if side_effect_workload "$workload"; then
    set_for=()
    for t in uringscope floor; do [[ " ${active[*]} " == *" $t "* ]] && set_for+=("$t"); done
    if [[ $workload == syscall ]]; then
      [[ " ${set_for[*]} " == *" uringscope "* ]] && set_for+=(uringscope-noenter)
      [[ " ${active[*]} " == *" uringscope-check "* ]] && set_for+=(uringscope-check)
    fi
  elif ((quick)) && [[ $workload != "${workload_list[0]}" ]]; then
    set_for=()
    [[ " ${active[*]} " == *" uringscope "* ]] && set_for=(uringscope)
  fi
}

# --- the interleaved runs -------------------------------------------------------------
echo 0 >/proc/sys/kernel/bpf_stats_enabled  # its two clock reads per program run would count as tracer cost
for ((rep = 0; rep < reps; rep++)); do
  for workload in "${workload_list[@]}"; do
    tracers_for "$workload"
    n=${#set_for[@]}
    order=()
    for ((i = 0; i < n; i++)); do order+=("${set_for[$(((i + rep) % n))]}"); done
    note "rep $((rep + 1))/$reps $workload: B ${order[*]/%/ B}"
    seq=0
    run_one "$rep" $((seq++)) "$workload" none
    for t in "${order[@]}"; do
      run_one "$rep" $((seq++)) "$workload" "$t"
      run_one "$rep" $((seq++)) "$workload" none
    done
  done
done

# --- extras (bench/lib/run-extras.sh) -------------------------------------------------
. "$here/lib/run-extras.sh"

if ((extras)); then
  note "bpf_stats runs"
  bpf_stats_runs
  note "attach-to-ready ($attach_trials trials)"
  attach_times
  note "peak RSS"
  peak_rss
  if ((memory_seconds > 0)); then
    note "memory over a ${memory_seconds} s NOP run"
    memory_run
  fi
  note "fio baselines"
  fio_baselines
fi

analyze_args=("$logdir")
[[ -n $markdown ]] && analyze_args+=(--markdown "$markdown")
python3 "$here/analyze.py" "${analyze_args[@]}"
