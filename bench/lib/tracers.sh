# SPDX-License-Identifier: MIT
# Sourced by the bench drivers: the tracers a run can be measured under, started and
# ready before loadgen's clock starts and stopped after it, and one timed run.
# Needs: procs.sh, quiet.sh; $uringscope, $floor, $limit, $loadgen, $logdir, $shm, $bt_script;
# $spine_ok (1 when probe_spine found URINGSCOPE_SKIP_FEATURES honoured).

have_tracer() {
  case $1 in
    none | uringscope | uringscope-json | uringscope-trace | uringscope-trace-null | uringscope-trace-stopped | uringscope-check | uringscope-boundary | uringscope-noboundary | uringscope-files | uringscope-catchers | uringscope-noenter | uringscope-limit | uringscope-limit-trace | uringscope-timed | floor) return 0 ;;
    uringscope-prev | uringscope-prev-trace) [[ -x ${BENCH_PREV_URINGSCOPE:-} ]] ;;
    uringscope-spine) ((spine_ok)) ;;
    bpftrace) command -v bpftrace >/dev/null &&
      bpftrace -l tracepoint:io_uring:io_uring_submit_req 2>/dev/null | grep -q . ;;
    perf) command -v perf >/dev/null && perf record -e io_uring:io_uring_submit_req -o /dev/null -- true >/dev/null 2>&1 ;;
    *) die "unknown tracer $1" ;;
  esac
}

# bpftrace and perf reach the io_uring tracepoints through tracefs, which a fresh
# container may not have mounted (uringscope and the floor attach through BTF and need
# none of it). Mounted for the run when missing, and unmounted at exit only if mounted
# here: otherwise those two tracers would be skipped, and the comparison with them lost.
tracefs_mounted_here=0
tracefs_ensure() {
  [[ -d /sys/kernel/tracing/events ]] && return 0
  if mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
    tracefs_mounted_here=1
    note "mounted tracefs on /sys/kernel/tracing for bpftrace and perf (unmounted at exit)"
  fi
}
tracefs_release() {
  if ((tracefs_mounted_here)); then umount /sys/kernel/tracing || true; fi
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

# The limits take the hooks a real run attaches on this kernel, which `uringscope -v`
# lists: learnt once per mode (a short system-wide run before any clock starts) into
# limit_hooks_<mode>, and handed to bench/limit in `hooks`.
limit_hooks_for() {
  local mode=$1 var=limit_hooks_$1 found
  shift
  if [[ -z ${!var:-} ]]; then
    found=$("$uringscope" -v "$@" -a -d 0.05 2>&1 | sed -n 's/^uringscope: programs: //p' | head -1)
    [[ -n $found ]] || { note "uringscope -v $* listed no programs"; return 1; }
    printf -v "$var" '%s' "$found"
  fi
  hooks=${!var}
}

# --- tracers --------------------------------------------------------------------------
tracer_pid=""
# start_tracer NAME TARGET_PID LOG: starts it and returns once it is attached.
start_tracer() {
  local name=$1 target=$2 log=$3 pre
  case $name in
    uringscope-limit | uringscope-timed) limit_hooks_for default || return 1 ;;
    uringscope-limit-trace) limit_hooks_for trace --trace /dev/null || return 1 ;;
  esac
  pre=$(tracing_prog_ids | sort)
  case $name in
    uringscope) "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    # The same run, its JSON report kept beside the log (made after the window, so the
    # timed loop pays nothing more): the tool's own counts of what it did and lost.
    uringscope-json) "$uringscope" --json="$log.json" -p "$target" >"$log" 2>&1 & ;;
    uringscope-spine) env "$spine_env" "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-noenter) env "$noenter_env" "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    # Each program with its catcher (bpf/catch.bpf.h), as on 6.19+ kernels, where the
    # probe loads them: their price on a kernel that does not need them.
    uringscope-catchers) env URINGSCOPE_FORCE_FEATURES=catchers "$uringscope" -p "$target" >"$log" 2>&1 & ;;
    uringscope-trace) "$uringscope" --trace "$shm/trace.json" -p "$target" >"$log" 2>&1 & ;;
    # The same trace formatted in full but written to /dev/null: what the file's bytes
    # cost (the page-cache copy and the pages behind it) apart from everything else.
    uringscope-trace-null) "$uringscope" --trace /dev/null -p "$target" >"$log" 2>&1 & ;;
    # The same with the writer stopped (SIGSTOP once attached, SIGCONT before the stop):
    # every program runs and stages its records, and the ring buffer, soon full, takes
    # none. What --trace costs the traced program with no reader on the other CPU.
    uringscope-trace-stopped) "$uringscope" --trace "$shm/trace.json" -p "$target" >"$log" 2>&1 & ;;
    uringscope-check) "$uringscope" --check -p "$target" >"$log" 2>&1 & ;;
    uringscope-boundary) "$uringscope" --boundary -p "$target" >"$log" 2>&1 & ;;
    uringscope-noboundary) "$uringscope" --no-boundary -p "$target" >"$log" 2>&1 & ;;
    uringscope-files) "$uringscope" --files -p "$target" >"$log" 2>&1 & ;;
    # The physical limit of this design: empty programs of bench/limit on the default
    # mode's hooks, each returning at once.
    uringscope-limit) "$limit" --programs "$hooks" -p "$target" >"$log" 2>&1 & ;;
    # --trace's hooks the same way (the default's and io_uring_file_get, which --trace
    # adds on every issue), no record sent: against uringscope-limit, the price of that
    # one more hook.
    uringscope-limit-trace) "$limit" --programs "$hooks" -p "$target" >"$log" 2>&1 & ;;
    # The same as uringscope-limit, but the submit and CQE programs read the clock once
    # each before returning: the least that timing a request costs.
    uringscope-timed) "$limit" --timed --programs "$hooks" -p "$target" >"$log" 2>&1 & ;;
    uringscope-prev) "$BENCH_PREV_URINGSCOPE" -p "$target" >"$log" 2>&1 & ;;
    uringscope-prev-trace) "$BENCH_PREV_URINGSCOPE" --trace "$shm/trace.json" -p "$target" >"$log" 2>&1 & ;;
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
    uringscope-limit* | uringscope-timed) wait_for "$log" '^limit: attached' 30 "$tracer_pid" ;;
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
  [[ $name != uringscope-trace-stopped ]] || kill -STOP "$tracer_pid"
  local held
  held=$(held_prog_ids "$tracer_pid")
  # perf holds no BPF program: then whatever appeared while it started counts as its own.
  if [[ -n $held ]]; then echo "$held" >>"$our_ids"; else
    comm -13 <(echo "$pre") <(tracing_prog_ids | sort) >>"$our_ids"
  fi
}

# The BPF programs a tracer process holds (its program and link fds), by id: exactly its
# own, even when another session loads a tracer while this one starts.
held_prog_ids() {
  local fd
  for fd in /proc/"$1"/fd/*; do
    case $(readlink "$fd" 2>/dev/null) in
      anon_inode:bpf-prog | anon_inode:bpf_link)
        sed -nE 's/^prog_id:\s+([0-9]+)/\1/p' "/proc/$1/fdinfo/${fd##*/}" 2>/dev/null || true ;;
    esac
  done | sort -un
}

# stop_tracer NAME LOG
stop_tracer() {
  local name=$1
  [[ -n $tracer_pid ]] || return 0
  local rc=0
  [[ $name != uringscope-trace-stopped ]] || kill -CONT "$tracer_pid"
  case $name in
    # With -p it ends by itself once the target has exited, then prints its report (the
    # limit, then, just detaches).
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

# timed_run TRACER TAG LOADGEN_ARGS... (the mode last): one timed loadgen run under
# TRACER (none: the baseline). loadgen sets up and waits; the tracer attaches; SIGUSR1
# starts the clock. Sets run_result (loadgen's RESULT line), run_busy_ns (the machine's
# busy time over the run), run_tracer_cpu_ns, and run_foreign (the most tracing
# programs of others loaded at once while it ran). Dies when a process fails. When
# $run_hook names a function, it runs as `HOOK start TAG` once the clock has started and
# `HOOK end TAG` once the loop is over, the tracer still attached (bpf_stats snapshots).
timed_run() {
  local tracer=$1 tag=$2 lg n
  shift 2
  local lg_out=$logdir/$tag.loadgen tr_log=$logdir/$tag.tracer
  "$loadgen" -w "$@" >"$lg_out" 2>"$lg_out.err" &
  lg=$!
  bg_pids+=("$lg")
  wait_for "$lg_out.err" '^READY' 300 "$lg" || die "loadgen did not start ($lg_out.err)"
  run_foreign=0
  if [[ $tracer != none ]]; then
    start_tracer "$tracer" "$lg" "$tr_log" || die "$tracer did not attach (log: $tr_log)"
  fi
  local busy0 tcpu0=0 tcpu1=0
  [[ -n $tracer_pid ]] && tcpu0=$(proc_cpu_ns "$tracer_pid")
  busy0=$(sys_busy_ns)
  kill -USR1 "$lg"
  if [[ -n ${run_hook:-} ]]; then "$run_hook" start "$tag"; fi
  # While the timed loop runs: how many tracing programs that are not this run's own
  # are loaded (sampled every 100 ms; a bpftool listing costs about 1 ms).
  while kill -0 "$lg" 2>/dev/null; do
    n=$(foreign_prog_count)
    ((n > run_foreign)) && run_foreign=$n
    sleep 0.1
  done
  run_busy_ns=$(($(sys_busy_ns) - busy0))
  if [[ -n ${run_hook:-} ]]; then "$run_hook" end "$tag"; fi
  [[ -n $tracer_pid ]] && tcpu1=$(proc_cpu_ns "$tracer_pid")
  run_tracer_cpu_ns=$((tcpu1 - tcpu0))
  stop "$lg" "" 60 || die "loadgen failed: $(cat "$lg_out.err")"
  if [[ $tracer != none ]]; then stop_tracer "$tracer" "$tr_log" || die "$tracer failed"; fi
  run_result=$(grep '^RESULT ' "$lg_out" | tail -1) || die "no RESULT line in $lg_out"
}

# result_field KEY: KEY's value in run_result (empty when loadgen did not print it).
result_field() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$run_result"; }
