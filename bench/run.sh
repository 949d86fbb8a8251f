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
  --tracers LIST       comma-separated (default uringscope,uringscope-limit,uringscope-trace,
                       uringscope-check,uringscope-spine,floor,bpftrace,perf); tracers whose tool is
                       missing are skipped with a note (uringscope-spine needs
                       URINGSCOPE_SKIP_FEATURES support in uringscope);
                       uringscope-noboundary is uringscope --no-boundary (the
                       default mode without the boundary); uringscope-files is
                       uringscope --files (per-file attribution);
                       uringscope-limit is the default mode's own programs on its
                       own hooks, each returning at once (URINGSCOPE_EMPTY_PROGRAMS=1):
                       the physical limit of the design;
                       uringscope-boundary is
                       uringscope --boundary (the default, named for old comparisons);
                       uringscope-prev is the binary in $BENCH_PREV_URINGSCOPE (an
                       earlier build), to price a change side by side
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
  --quick              one short repetition of everything, extras shortened (CI)
  -h, --help
EOF
}

build_dir=${BENCH_BUILD_DIR:-$root/build}
reps=8
seconds=2
workloads=nop,read,read-async,read-direct,nop-ctxsw,syscall
tracers=uringscope,uringscope-limit,uringscope-trace,uringscope-check,uringscope-spine,floor,bpftrace,perf
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
for bin in "$uringscope" "$loadgen" "$floor"; do
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

# --- cleanup: only what this script started ------------------------------------------
bg_pids=()
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
  local pid
  for pid in "${bg_pids[@]}"; do
    kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${bg_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled
  rm -rf "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

forget_pid() {
  local keep=() pid
  for pid in "${bg_pids[@]}"; do [[ $pid == "$1" ]] || keep+=("$pid"); done
  bg_pids=("${keep[@]}")
}

now_ms() { local t=$EPOCHREALTIME; echo $((10#${t/[.,]/} / 1000)); }

# wait_for FILE REGEX TIMEOUT_S PID: until FILE has a line matching REGEX; fails when PID
# exits first or the time runs out.
wait_for() {
  local file=$1 regex=$2 deadline=$(($(now_ms) + $3 * 1000)) pid=$4
  until grep -Eq "$regex" "$file" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      grep -Eq "$regex" "$file" 2>/dev/null && return 0
      note "process $pid exited before '$regex' appeared in $file:"; tail -5 "$file" >&2
      return 1
    fi
    (($(now_ms) < deadline)) || { note "timed out waiting for '$regex' in $file"; return 1; }
    sleep 0.005
  done
}

# stop PID SIGNAL TIMEOUT_S: signal (unless empty), wait for the exit, KILL past the timeout.
stop() {
  local pid=$1 sig=$2 deadline=$(($(now_ms) + $3 * 1000))
  [[ -n $sig ]] && kill "-$sig" "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.02; done
  if kill -0 "$pid" 2>/dev/null; then
    note "pid $pid did not exit; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  local rc=0
  wait "$pid" 2>/dev/null || rc=$?
  forget_pid "$pid"
  return "$rc"
}

# Busy CPU time of the whole machine in ns (user+nice+system+irq+softirq; steal is the
# hypervisor's). 10 ms resolution: used only as a cross-check of loadgen's own CPU time.
sys_busy_ns() {
  local _cpu user nice system _idle _iowait irq softirq _rest
  read -r _cpu user nice system _idle _iowait irq softirq _rest </proc/stat
  echo $(((user + nice + system + irq + softirq) * 1000000000 / $(getconf CLK_TCK)))
}

# Tracing BPF programs loaded right now, by id. This machine is shared: other sessions'
# tests attach their own tracers to the same tracepoints (every io_uring request of ours
# then pays for their programs too: that alone makes NOPs 3x slower) and run fio.
tracing_prog_ids() {
  bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): (tracing|tracepoint|raw_tracepoint|perf_event) .*/\1/p' || true
}

# Tracing programs loaded now that none of this script's tracers loaded. Ours linger
# for a while after their tracer exits (tracing programs are freed after an RCU tasks
# trace grace period), detached and costing nothing, hence the list of every id ours
# ever had.
our_ids=$logdir/our-prog-ids
: >"$our_ids"
foreign_prog_count() {
  local ids
  ids=$(tracing_prog_ids)
  [[ -n $ids ]] || { echo 0; return; }
  grep -vxFf <(sort -u "$our_ids"; echo x) <<<"$ids" | grep -c . || true
}

# Waits (up to --quiet-wait seconds) until no foreign tracing program is loaded and the
# machine is idle (under 10% of one CPU busy over 0.3 s); prints the seconds waited.
wait_quiet() {
  local start b0 b1 busy
  start=$(now_ms)
  while (($(now_ms) - start < quiet_wait * 1000)); do
    if (($(foreign_prog_count) == 0)); then
      b0=$(sys_busy_ns)
      sleep 0.3
      b1=$(sys_busy_ns)
      busy=$(((b1 - b0) / 3000000))  # percent of one CPU
      ((busy < 10)) && break
    else
      sleep 0.5
    fi
  done
  echo $((($(now_ms) - start) / 1000))
}

# CPU time of a process (all its threads) in ns, 0 when it is gone.
proc_cpu_ns() {
  local f
  [[ -r /proc/$1/stat ]] || { echo 0; return; }
  f=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  read -r -a f <<<"$f"
  # utime and stime are fields 14 and 15 of stat, 12 and 13 after "pid (comm) "
  echo $(((f[11] + f[12]) * 1000000000 / $(getconf CLK_TCK)))
}

have_tracer() {
  case $1 in
    none | uringscope | uringscope-trace | uringscope-check | uringscope-boundary | uringscope-noboundary | uringscope-files | uringscope-noenter | uringscope-limit | floor) return 0 ;;
    uringscope-prev) [[ -x ${BENCH_PREV_URINGSCOPE:-} ]] ;;
    uringscope-spine) ((spine_ok)) ;;
    bpftrace) command -v bpftrace >/dev/null ;;
    perf) command -v perf >/dev/null && perf record -e io_uring:io_uring_submit_req -o /dev/null -- true >/dev/null 2>&1 ;;
    *) die "unknown tracer $1" ;;
  esac
}

# The doctor's optional programs (everything beyond submit, complete, punt and the ring
# bookkeeping). uringscope-spine runs without them, through an environment variable
# uringscope does not have yet; whether it took effect is checked by the program count.
spine_env="URINGSCOPE_SKIP_FEATURES=io_threads,poll_arm,task_add,task_work,local_work,short_write,req_failed"
# Without its one syscall tracepoint (io_uring_enter calls and batching are lost): run
# on the syscall workload only, to price that tracepoint for every other program.
noenter_env="URINGSCOPE_SKIP_FEATURES=enter"
attached_count() { grep -Eo 'attached [0-9]+ programs' "$1" | grep -Eo '[0-9]+' | head -1; }
probe_spine() {
  local a b
  "$uringscope" -a -d 0.05 >"$logdir/probe-default.out" 2>&1 || true
  env "$spine_env" "$uringscope" -a -d 0.05 >"$logdir/probe-spine.out" 2>&1 || true
  a=$(attached_count "$logdir/probe-default.out")
  b=$(attached_count "$logdir/probe-spine.out")
  [[ -n $a && -n $b && $b -lt $a ]]
}

# --- tracers --------------------------------------------------------------------------
tracer_pid=""
# start_tracer NAME TARGET_PID LOG: starts it and returns once it is attached.
start_tracer() {
  local name=$1 target=$2 log=$3 pre
  pre=$(tracing_prog_ids | sort)
  case $name in
    uringscope) "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-spine) env "$spine_env" "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-noenter) env "$noenter_env" "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-trace) "$uringscope" --trace "$shm/trace.json" -p "$target" >"$log" 2>&1 & ;;
    uringscope-check) "$uringscope" --check -p "$target" >"$log" 2>&1 & ;;
    uringscope-boundary) "$uringscope" --boundary -p "$target" >"$log" 2>&1 & ;;
    uringscope-noboundary) "$uringscope" --no-boundary -p "$target" >"$log" 2>&1 & ;;
    uringscope-files) "$uringscope" --files -p "$target" >"$log" 2>&1 & ;;
    # The physical limit of this design: the default mode's programs on its hooks, each
    # returning at once (URINGSCOPE_EMPTY_PROGRAMS, bench only).
    uringscope-limit) env URINGSCOPE_EMPTY_PROGRAMS=1 "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-prev) "$BENCH_PREV_URINGSCOPE" -p "$target" >"$log" 2>&1 & ;;
    floor) "$floor" >"$log" 2>&1 & ;;
    bpftrace) bpftrace -B line "$bt_script" "$target" >"$log" 2>&1 & ;;
    perf)
      # Started with its events disabled; "enable" on the control fifo turns them on
      # and the ack says they are on: the same "attached" moment the others print.
      # Output rotates at 256 MiB keeping two files, so it is bounded whatever the rate.
      rm -f "$shm/ctl" "$shm/ack"
      mkfifo "$shm/ctl" "$shm/ack"
      perf record -e io_uring:io_uring_submit_req -e io_uring:io_uring_complete -a \
        -o "$shm/perf.data" --switch-output=256M --switch-max-files=2 \
        --control="fifo:$shm/ctl,$shm/ack" -D -1 >"$log" 2>&1 &
      ;;
    *) die "unknown tracer $name" ;;
  esac
  tracer_pid=$!
  bg_pids+=("$tracer_pid")
  case $name in
    uringscope*) wait_for "$log" 'uringscope: attached' 30 "$tracer_pid" ;;
    floor) wait_for "$log" '^floor: attached' 30 "$tracer_pid" ;;
    bpftrace) wait_for "$log" '^attached' 60 "$tracer_pid" ;;
    perf)
      exec 7<>"$shm/ack"
      # Opening the control fifo blocks until perf has it open: bounded, in case perf
      # failed to start.
      timeout 30 bash -c 'echo enable >"$1"' _ "$shm/ctl" || { exec 7<&-; note "perf control fifo not open"; return 1; }
      local ack=""
      read -r -t 30 ack <&7 || true
      exec 7<&-
      [[ $ack == ack* ]] || { note "perf did not acknowledge enable"; return 1; }
      echo "attached (perf enabled)" >>"$log"
      ;;
  esac
  comm -13 <(echo "$pre") <(tracing_prog_ids | sort) >>"$our_ids"
}

# stop_tracer NAME LOG
stop_tracer() {
  local name=$1
  [[ -n $tracer_pid ]] || return 0
  local rc=0
  case $name in
    # With -p it ends by itself once the target has exited, then prints its report.
    uringscope*) stop "$tracer_pid" "" 10 || rc=$? ;;
    # perf exits with 130 after SIGINT (bpftrace and the floor with 0).
    *) stop "$tracer_pid" INT 120 || rc=$? ;;
  esac
  if ((rc != 0)) && ! [[ $name == perf && $rc == 130 ]]; then
    note "$name exited with status $rc (log: $2)"
    return 1
  fi
  tracer_pid=""
  if [[ $name == uringscope-trace && -f $shm/trace.json ]]; then
    echo "trace_bytes $(stat -c %s "$shm/trace.json")" >>"$logdir/trace-sizes.txt"
  fi
  rm -f "$shm"/perf.data* "$shm/trace.json" "$shm/ctl" "$shm/ack"
}

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
  local mode tag="r$1-$3-$2-$4" side lg waited
  mode=$(mode_of "$workload")
  local lg_out=$logdir/$tag.loadgen tr_log=$logdir/$tag.tracer
  waited=$(wait_quiet)
  start_side_load "$workload" "$tag"
  side=$side_pid
  "$loadgen" "${loadgen_args[@]}" -t "$seconds" -w "$mode" >"$lg_out" 2>"$lg_out.err" &
  lg=$!
  bg_pids+=("$lg")
  wait_for "$lg_out.err" '^READY' 300 "$lg" || die "loadgen did not start ($lg_out.err)"
  local foreign=0 n
  if [[ $tracer != none ]]; then
    start_tracer "$tracer" "$lg" "$tr_log" || die "$tracer did not attach (log: $tr_log)"
  fi
  local busy0 busy1 tcpu0=0 tcpu1=0
  [[ -n $tracer_pid ]] && tcpu0=$(proc_cpu_ns "$tracer_pid")
  busy0=$(sys_busy_ns)
  kill -USR1 "$lg"
  # While the timed loop runs: how many tracing programs that are not this run's own
  # are loaded (sampled every 100 ms; a bpftool listing costs about 1 ms).
  while kill -0 "$lg" 2>/dev/null; do
    n=$(foreign_prog_count)
    ((n > foreign)) && foreign=$n
    sleep 0.1
  done
  busy1=$(sys_busy_ns)
  [[ -n $tracer_pid ]] && tcpu1=$(proc_cpu_ns "$tracer_pid")
  stop "$lg" "" 60 || die "loadgen failed: $(cat "$lg_out.err")"
  if [[ -n $side ]]; then stop "$side" INT 10 || true; fi
  if [[ $tracer != none ]]; then stop_tracer "$tracer" "$tr_log" || die "$tracer failed"; fi
  local result
  result=$(grep '^RESULT ' "$lg_out" | tail -1) || die "no RESULT line in $lg_out"
  local ops ops_per_sec cpu_ns secs
  ops=$(sed -E 's/.* ops=([0-9]+).*/\1/' <<<"$result")
  ops_per_sec=$(sed -E 's/.* ops_per_sec=([0-9.]+).*/\1/' <<<"$result")
  cpu_ns=$(sed -E 's/.* cpu_ns=([0-9]+).*/\1/' <<<"$result")
  secs=$(sed -E 's/.* seconds=([0-9.]+).*/\1/' <<<"$result")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$workload" "$seq" "$tracer" \
    "$ops_per_sec" "$ops" "$secs" "$cpu_ns" $((busy1 - busy0)) $((tcpu1 - tcpu0)) "$foreign" \
    "$waited" "$(now_ms)" >>"$runs"
  printf '  %-12s %-17s %12.0f ops/s%s%s\n' "$workload" "$tracer" "$ops_per_sec" \
    "$( ((waited)) && echo " (waited ${waited}s for quiet)")" \
    "$( ((foreign)) && echo " ($foreign foreign BPF programs during the run)")" >&2
}

# --- preflight ------------------------------------------------------------------------
[[ $(stat -f -c %T "$(dirname "$data_file")") != tmpfs ]] ||
  die "$data_file is on tmpfs: O_DIRECT needs a real file system (--file)"
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
  echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc	$(nproc)"
  echo "kernel	$(uname -r)"
  echo "cpu	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory	$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "virt	$(lscpu 2>/dev/null | sed -nE 's/^Hypervisor vendor: *//p' | head -1) guest$(grep -q firecracker /proc/cmdline 2>/dev/null && echo " (Firecracker)"), container: $(systemd-detect-virt -c 2>/dev/null || echo none)"
  echo "clocksource	$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
  dev=$(df --output=source "$(dirname "$data_file")" | tail -1)
  echo "disk	$dev ($(basename "$(readlink -f "/sys/class/block/$(basename "$dev")/device/driver" 2>/dev/null)" 2>/dev/null || echo unknown driver))"
  if command -v perf >/dev/null; then
    echo "hw_counters	$(perf stat -e instructions true 2>&1 | grep -q 'not supported' && echo "no (perf stat -e instructions: not supported)" || echo yes)"
  fi
  echo "uringscope	$("$uringscope" --version | head -1), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo " + local changes")"
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

# --- the interleaved runs -------------------------------------------------------------
echo 0 >/proc/sys/kernel/bpf_stats_enabled  # its two clock reads per program run would count as tracer cost
for ((rep = 0; rep < reps; rep++)); do
  for workload in "${workload_list[@]}"; do
    set_for=("${active[@]}")
    if side_effect_workload "$workload"; then
      set_for=()
      for t in uringscope floor; do [[ " ${active[*]} " == *" $t "* ]] && set_for+=("$t"); done
      if [[ $workload == syscall ]]; then
        [[ " ${set_for[*]} " == *" uringscope "* ]] && set_for+=(uringscope-noenter)
        [[ " ${active[*]} " == *" uringscope-check "* ]] && set_for+=(uringscope-check)
      fi
    fi
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

# --- extras ---------------------------------------------------------------------------
prog_snapshot() { bpftool prog show -j >"$1"; }

# Per-program run time of each tracer on each workload: one run each with
# bpf_stats on (it costs each program two clock reads, so the throughput runs above
# have it off).
bpf_stats_runs() {
  local workload tracer mode lg before after s0 s1 tag side
  echo 1 >/proc/sys/kernel/bpf_stats_enabled
  printf 'workload\ttracer\tops\tfile_before\tfile_attached\tfile_start\tfile_end\n' >"$stats"
  for workload in "${workload_list[@]}"; do
    for tracer in "${active[@]}"; do
      [[ $tracer == perf ]] && continue  # no BPF programs
      side_effect_workload "$workload" && [[ $tracer != uringscope && $tracer != floor ]] &&
        ! [[ $workload == syscall && $tracer == uringscope-check ]] && continue
      mode=$(mode_of "$workload")
      tag=stats-$workload-$tracer
      wait_quiet >/dev/null
      start_side_load "$workload" "$tag"
      side=$side_pid
      "$loadgen" "${loadgen_args[@]}" -t "$seconds" -w "$mode" >"$logdir/$tag.loadgen" 2>"$logdir/$tag.loadgen.err" &
      lg=$!
      bg_pids+=("$lg")
      wait_for "$logdir/$tag.loadgen.err" '^READY' 300 "$lg" || die "loadgen did not start"
      prog_snapshot "$logdir/$tag.before.json"
      start_tracer "$tracer" "$lg" "$logdir/$tag.tracer" || die "$tracer did not attach"
      prog_snapshot "$logdir/$tag.attached.json"
      kill -USR1 "$lg"
      prog_snapshot "$logdir/$tag.start.json"
      stop "$lg" "" $((${seconds%.*} + 60)) || die "loadgen failed"
      prog_snapshot "$logdir/$tag.end.json"
      if [[ -n $side ]]; then stop "$side" INT 10 || true; fi
      stop_tracer "$tracer" "$logdir/$tag.tracer" || die "$tracer failed"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$workload" "$tracer" \
        "$(sed -nE 's/^RESULT .* ops=([0-9]+).*/\1/p' "$logdir/$tag.loadgen")" \
        "$tag.before.json" "$tag.attached.json" "$tag.start.json" "$tag.end.json" >>"$stats"
      note "bpf_stats $workload $tracer done"
    done
  done
  echo 0 >/proc/sys/kernel/bpf_stats_enabled
}

# Start of uringscope to its "attached" line, attaching by pid to a running NOP storm
# (the busy case: the target keeps a CPU to itself while uringscope starts).
attach_times() {
  local lg i t0 line
  wait_quiet >/dev/null
  printf 'trial\tattach_ms\n' >"$logdir/attach.tsv"
  "$loadgen" -t 100000 nop >/dev/null 2>&1 &
  lg=$!
  bg_pids+=("$lg")
  sleep 0.5
  for ((i = 0; i < attach_trials; i++)); do
    t0=$EPOCHREALTIME
    # Each line is stamped as it arrives; -d keeps the run short once attached.
    while IFS= read -r line; do
      if [[ $line == *"uringscope: attached"* ]]; then
        awk -v a="$t0" -v b="$EPOCHREALTIME" -v i="$i" 'BEGIN { printf "%d\t%.1f\n", i, (b - a) * 1000 }' >>"$logdir/attach.tsv"
      fi
    done < <("$uringscope" -p "$lg" -d 0.2 2>&1 >/dev/null)
    sleep 0.2
  done
  stop "$lg" INT 10 || true
}

# Peak RSS (the kernel's high-water mark) for a 5 s window on a NOP storm: GNU time's
# figure when it is installed, else VmHWM polled until the process exits.
peak_rss() {
  local lg mode out us hwm window v
  wait_quiet >/dev/null
  window=$(((quick)) && echo 1 || echo 5)
  printf 'mode\tmax_rss_kib\n' >"$logdir/rss.tsv"
  for mode in default trace; do
    "$loadgen" -t 100000 nop >/dev/null 2>&1 &
    lg=$!
    bg_pids+=("$lg")
    sleep 0.3
    out=$logdir/rss-$mode.txt
    local args=(-p "$lg" -d "$window")
    [[ $mode == trace ]] && args=(--trace "$shm/trace.json" "${args[@]}")
    hwm=""
    if [[ -x /usr/bin/time ]]; then
      /usr/bin/time -v "$uringscope" "${args[@]}" >/dev/null 2>"$out" || true
      hwm=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$out")
    else
      "$uringscope" "${args[@]}" >/dev/null 2>"$out" &
      us=$!
      bg_pids+=("$us")
      while kill -0 "$us" 2>/dev/null; do
        v=$(awk '/^VmHWM/ {print $2}' "/proc/$us/status" 2>/dev/null || true)
        [[ -n $v ]] && hwm=$v  # a zombie has no VmHWM line
        sleep 0.05
      done
      stop "$us" "" 5 || true
    fi
    rm -f "$shm/trace.json"
    printf '%s\t%s\n' "$mode" "$hwm" >>"$logdir/rss.tsv"
    stop "$lg" INT 10 || true
  done
}

# uringscope's RSS over a long run at full NOP rate, sampled from /proc/PID/status.
memory_run() {
  local lg us t=0 start
  wait_quiet >/dev/null
  printf 't_s\tvmrss_kib\tvmhwm_kib\n' >"$logdir/memory.tsv"
  "$loadgen" -t $((memory_seconds + 30)) nop >"$logdir/memory.loadgen" 2>&1 &
  lg=$!
  bg_pids+=("$lg")
  sleep 0.3
  "$uringscope" -p "$lg" >"$logdir/memory.tracer" 2>&1 &
  us=$!
  bg_pids+=("$us")
  wait_for "$logdir/memory.tracer" 'uringscope: attached' 30 "$us" || die "uringscope did not attach"
  start=$(now_ms)
  while ((t <= memory_seconds)); do
    awk -v t="$t" '/^VmRSS/ {r = $2} /^VmHWM/ {h = $2} END {printf "%d\t%d\t%d\n", t, r, h}' \
      "/proc/$us/status" >>"$logdir/memory.tsv"
    t=$((t + memory_interval))
    while (($(now_ms) - start < t * 1000)); do sleep 0.2; done
  done
  stop "$us" INT 60 || true
  stop "$lg" INT 30 || true
}

# Baseline IOPS of the fio jobs, as a sanity check of loadgen's numbers.
fio_baselines() {
  local job name
  command -v fio >/dev/null || return 0
  printf 'job\tiops\n' >"$logdir/fio.tsv"
  for job in "$here"/fio/*.fio; do
    name=$(basename "$job" .fio)
    # A job file's runtime= wins over --runtime, so the copy carries the length.
    sed -E "s/^runtime=.*/runtime=$(((quick)) && echo 1 || echo 5)/" "$job" >"$shm/$name.fio"
    fio --output-format=json "$shm/$name.fio" >"$logdir/fio-$name.json" 2>"$logdir/fio-$name.err" || {
      note "fio $name failed (see $logdir/fio-$name.err)"
      continue
    }
    printf '%s\t%s\n' "$name" \
      "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(round(sum(x["read"]["iops"] for x in j["jobs"])))' "$logdir/fio-$name.json")" >>"$logdir/fio.tsv"
  done
}

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
