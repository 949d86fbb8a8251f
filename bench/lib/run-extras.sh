# SPDX-License-Identifier: MIT
# Sourced by bench/run.sh: the extras beside its paired runs (--no-extras skips them):
# BPF run time per program, attach time, peak RSS, RSS over a long run, fio baselines.
# Needs: procs.sh, quiet.sh, tracers.sh and run.sh's settings ($workload_list, $active,
# $loadgen_args, $seconds, $attach_trials, $memory_seconds, $memory_interval, $quick,
# $stats, start_side_load, mode_of, side_effect_workload).

prog_snapshot() { bpftool prog show -j >"$1"; }

# Per-program run time of each tracer on each workload: one run each with
# bpf_stats on (it costs each program two clock reads, so the throughput runs above
# have it off).
bpf_stats_runs() {
  local workload tracer mode lg before after s0 s1 tag side
  echo 1 >/proc/sys/kernel/bpf_stats_enabled
  printf 'workload\ttracer\tops\tfile_before\tfile_attached\tfile_start\tfile_end\n' >"$stats"
  for workload in "${workload_list[@]}"; do
    tracers_for "$workload"
    for tracer in "${set_for[@]}"; do
      # perf loads no BPF program; uringscope-noenter is the syscall workload's
      # control for the enter hook, not a tracer whose programs are of interest
      [[ $tracer == perf || $tracer == uringscope-noenter ]] && continue
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
